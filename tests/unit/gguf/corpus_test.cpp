// The seed corpus of the fuzzer (tests/fuzz/corpus/gguf, made by tests/fuzz/make_corpus.py from the format
// description) case by case: every valid_* file loads, with and without its data, and writes back to the same
// bytes (padding after the last tensor aside); every other file is refused with the message listed here, which
// names the file and the offset. A file in the corpus that this table does not list fails the test.
#include "gguf_test_util.h"

#include <algorithm>
#include <map>
#include <set>

#ifndef SWITCHYARD_GGUF_CORPUS
#error "SWITCHYARD_GGUF_CORPUS (the corpus directory) is defined by tests/fuzz/CMakeLists.txt"
#endif

namespace {

using namespace gguf_test;

struct Broken {
    const char * message;   // expected in the log, after "<path>: offset <at>: "
    uint64_t     at;        // the offset the message names
    bool         data_only; // refused only when the data is loaded (no_alloc = false with a ggml context)
};

const std::map<std::string, Broken> kBroken = {
    {"empty_file", {"truncated: the magic needs 4 bytes, the file has 0 left", 0, false}},
    {"truncated_magic", {"truncated: the magic needs 4 bytes, the file has 2 left", 0, false}},
    {"bad_magic", {"bad magic 'GGUX' (expected 'GGUF'): not a GGUF file", 0, false}},
    {"version_0", {"bad version 0x00000000", 4, false}},
    {"version_1", {"GGUF version 1 is not supported", 4, false}},
    {"version_4", {"GGUF version 4 is newer than the newest supported (3)", 4, false}},
    {"big_endian", {"bad version 0x03000000 (a big-endian file?", 4, false}},
    {"truncated_header", {"truncated: the tensor count needs 8 bytes, the file has 4 left", 8, false}},
    {"negative_tensor_count", {"the tensor count is negative (-1)", 8, false}},
    {"negative_kv_count", {"the key-value count is negative (-5)", 16, false}},
    {"huge_tensor_count", {"the tensor count is 4611686018427387904, more than the 8 bytes left", 8, false}},
    {"huge_kv_count", {"the key-value count is 1099511627776, more than the 14 bytes left", 16, false}},
    {"huge_key_length", {"a key: string length 9223372036854775808 exceeds the 15 bytes left", 24, false}},
    {"huge_string_length", {"a string value: string length 1099511627776 exceeds the 3 bytes left", 37, false}},
    {"huge_array_length", {"key 'k': 1099511627776 elements of u32 exceed the 16 bytes left", 49, false}},
    {"array_bytes_overflow", {"key 'k': 4611686018427387904 elements of u64 exceed the 16 bytes left", 49, false}},
    {"huge_string_array", {"key 'k': 2305843009213693952 strings exceed the 9 bytes left", 49, false}},
    {"truncated_in_kv_value", {"key 'k': 1 elements of u64 exceed the 5 bytes left in the file", 37, false}},
    {"truncated_in_string_array", {"a string value: string length 3 exceeds the 1 bytes left", 60, false}},
    {"empty_key", {"empty key", 24, false}},
    {"key_with_nul", {"key 'a' contains a NUL byte", 24, false}},
    {"duplicate_key", {"duplicate key 'k'", 38, false}},
    {"unknown_kv_type", {"key 'k': unknown value type 13", 33, false}},
    {"negative_kv_type", {"key 'k': unknown value type -1", 33, false}},
    {"array_of_arrays", {"key 'k': unknown array element type 9 (arrays of arrays are not supported)", 37, false}},
    {"unknown_array_type", {"key 'k': unknown array element type 99", 37, false}},
    {"alignment_u64", {"general.alignment must be a single u32, not u64", 24, false}},
    {"alignment_not_power_of_2", {"general.alignment is 48, not a power of 2 up to 1048576", 24, false}},
    {"alignment_zero", {"general.alignment is 0, not a power of 2 up to 1048576", 24, false}},
    {"alignment_too_large", {"general.alignment is 1073741824, not a power of 2 up to 1048576", 24, false}},
    {"alignment_array", {"general.alignment must be a single u32, not an array of u32", 24, false}},
    {"tensor_name_too_long", {"a tensor name: string length 64 exceeds the limit of 63", 24, false}},
    {"tensor_name_with_nul", {"tensor name 'a' contains a NUL byte", 24, false}},
    {"duplicate_tensor_name", {"duplicate tensor name 'a'", 57, false}},
    {"zero_dims", {"tensor 'a' has 0 dimensions (1 to 4 are possible)", 33, false}},
    {"five_dims", {"tensor 'a' has 5 dimensions (1 to 4 are possible)", 33, false}},
    {"negative_extent", {"tensor 'a': extent 1 is negative (-1)", 45, false}},
    {"unknown_tensor_type", {"tensor 'a' has unknown type 1000", 45, false}},
    {"removed_tensor_type", {"tensor 'a' has unknown type 4", 45, false}},
    {"row_not_whole_blocks", {"tensor 'a': rows of 33 elements are not whole blocks of q4_0 (32 elements)", 45, false}},
    {"element_count_overflow", {"tensor 'a': the size of f32 [4294967296, 4294967296, 1, 1] overflows", 53, false}},
    {"byte_size_overflow", {"tensor 'a': the size of f32 [4611686018427387904, 1, 1, 1] overflows", 45, false}},
    {"row_bytes_overflow", {"tensor 'a': the size of q4_1 [1152921504606846976, 1, 1, 1] overflows", 45, false}},
    {"misaligned_offset", {"tensor 'b': data offset 8 is not a multiple of the alignment 32", 82, false}},
    {"overlapping_offsets", {"tensor 'b': its data at offset 32 overlaps the data of tensor 'a' (64 bytes at offset 0)",
                             82, false}},
    {"gap_between_tensors", {"tensor 'b': data offset 64 leaves a gap: the data must start at offset 32", 82, false}},
    {"first_offset_not_zero", {"tensor 'a': data offset 32 leaves a gap: the data must start at offset 0", 49, false}},
    {"truncated_in_tensor_info", {"truncated: a tensor's dimension count needs 4 bytes, the file has 3 left", 96,
                                  false}},
    {"data_out_of_file", {"the tensor data (48 bytes from offset 96) extends past the end of the file (136 bytes)", 96,
                          true}},
    {"tensor_4tib", {"the tensor data (4398046511104 bytes from offset 64) extends past the end of the file (128 "
                     "bytes)", 64, true}},
};

std::string corpus(const std::string & name) {
    return std::string(SWITCHYARD_GGUF_CORPUS) + "/" + name + ".gguf";
}

std::vector<std::string> corpus_names() {
    std::vector<std::string> names;
    for (const auto & entry : std::filesystem::directory_iterator(SWITCHYARD_GGUF_CORPUS)) {
        if (entry.path().extension() == ".gguf") {
            names.push_back(entry.path().stem().string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

TEST(GgufCorpus, EveryFileIsListed) {
    const std::vector<std::string> names = corpus_names();
    ASSERT_GE(names.size(), 50u);
    size_t n_valid = 0;
    for (const std::string & name : names) {
        if (name.rfind("valid_", 0) == 0) {
            ++n_valid;
        } else {
            EXPECT_EQ(kBroken.count(name), 1u) << name << ".gguf is in the corpus but not in kBroken";
        }
    }
    EXPECT_GE(n_valid, 8u);
    EXPECT_EQ(names.size() - n_valid, kBroken.size()) << "kBroken lists a file the corpus lacks";
}

TEST(GgufCorpus, BrokenFilesAreRefusedCaseByCase) {
    for (const auto & [name, broken] : kBroken) {
        const std::string path = corpus(name);
        for (bool no_alloc : {false, true}) {
            LogCapture     log;
            ggml_context * gctx = reinterpret_cast<ggml_context *>(1); // must come back NULL on failure
            gguf_context * ctx  = gguf_init_from_file(path.c_str(), {no_alloc, &gctx});
            if (no_alloc && broken.data_only) {
                EXPECT_NE(ctx, nullptr) << name << ": only the data is missing, and it is not read";
                gguf_free(ctx);
                ggml_free(gctx);
                continue;
            }
            EXPECT_EQ(ctx, nullptr) << name;
            EXPECT_EQ(gctx, nullptr) << name;
            const std::string want =
                "[gguf_init_from_file] " + path + ": offset " + std::to_string(broken.at) + ": " + broken.message;
            EXPECT_TRUE(log.has(want)) << name << "\n  want: " << want << "\n  got:  " << log.text();
            gguf_free(ctx);
        }
    }
}

TEST(GgufCorpus, BrokenBuffersGiveTheSameMessages) {
    for (const auto & [name, broken] : kBroken) {
        const std::vector<uint8_t> bytes = read_all(corpus(name));
        LogCapture                 log;
        ggml_context *             gctx = nullptr;
        EXPECT_EQ(from_bytes(bytes, false, &gctx), nullptr) << name;
        const std::string want = "[gguf_init_from_buffer] <buffer>: offset " + std::to_string(broken.at) + ": ";
        EXPECT_TRUE(log.has(want + broken.message)) << name << ": " << log.text();
    }
}

TEST(GgufCorpus, ValidFilesLoadAndWriteBack) {
    for (const std::string & name : corpus_names()) {
        if (name.rfind("valid_", 0) != 0) {
            continue;
        }
        const std::vector<uint8_t> bytes = read_all(corpus(name));
        for (bool no_alloc : {false, true}) {
            LogCapture     log;
            ggml_context * gctx = nullptr;
            gguf_context * ctx  = gguf_init_from_file(corpus(name).c_str(), {no_alloc, &gctx});
            ASSERT_NE(ctx, nullptr) << name << ": " << log.text();
            ASSERT_NE(gctx, nullptr) << name;
            EXPECT_EQ(log.text(), "") << name;
            const int64_t n = gguf_get_n_tensors(ctx);
            for (int64_t i = 0; i < n; ++i) {
                ggml_tensor * t = ggml_get_tensor(gctx, gguf_get_tensor_name(ctx, i));
                ASSERT_NE(t, nullptr) << name;
                EXPECT_EQ(ggml_nbytes(t), gguf_get_tensor_size(ctx, i)) << name;
                EXPECT_EQ(t->type, gguf_get_tensor_type(ctx, i)) << name;
                if (!no_alloc) {
                    const size_t at = gguf_get_data_offset(ctx) + gguf_get_tensor_offset(ctx, i);
                    EXPECT_EQ(std::memcmp(t->data, bytes.data() + at, ggml_nbytes(t)), 0) << name;
                }
            }
            if (!no_alloc) {
                // written back: the same bytes (a missing padding after the last tensor is written)
                std::vector<uint8_t> back = written(ctx);
                ASSERT_GE(back.size(), bytes.size()) << name;
                EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), back.begin())) << name;
                EXPECT_TRUE(std::all_of(back.begin() + static_cast<ptrdiff_t>(bytes.size()), back.end(),
                                        [](uint8_t b) { return b == 0; }))
                    << name;
                // the header-only files have no padding after the tensor infos: the writer adds it
            }
            gguf_free(ctx);
            ggml_free(gctx);
        }
    }
}

} // namespace
