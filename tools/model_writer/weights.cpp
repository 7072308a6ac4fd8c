#include "weights.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <thread>
#include <vector>

namespace switchyard::model_writer {

namespace {

constexpr size_t kChunkFloats = size_t{4} << 20; // rows generated at once: 16 MiB of floats at most
constexpr float  kWeightStd   = 0.02f;           // the usual initialisation scale

struct FileCloser {
    void operator()(FILE * f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

uint64_t splitmix64(uint64_t & state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z          = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// the generator's state for row `row` of tensor `tensor`
uint64_t row_state(uint64_t seed, size_t tensor, int64_t row) {
    return seed ^ (tensor * 0xD1B54A32D192ED03ull) ^ (static_cast<uint64_t>(row) * 0x8CB92BA72F3D8DD7ull);
}

// row `row` of tensor `tensor`: uniform values with standard deviation kWeightStd, or ones
void fill_row(float * out, int64_t n, const TensorPlan & t, uint64_t seed, size_t tensor, int64_t row) {
    if (t.init == Init::Ones) {
        std::fill(out, out + n, 1.0f);
        return;
    }
    uint64_t    state = row_state(seed, tensor, row);
    const float scale = kWeightStd * std::sqrt(3.0f) / static_cast<float>(uint64_t{1} << 23);
    for (int64_t i = 0; i < n; ++i) {
        const int32_t u = static_cast<int32_t>(splitmix64(state) >> 40) - (1 << 23); // [-2^23, 2^23)
        out[i]          = static_cast<float>(u) * scale;
    }
}

// A random-block type's d (weights.h): the f16 value that makes its typical weight about kWeightStd (a grid point's
// typical magnitude x the constant d is scaled by x a typical 2 s + 1), and where its bits go.
struct RandomBlocks {
    ggml_type type;
    float     typical; // |weight| / d of a typical element
    bool      scattered_d; // iq1_m: d's four nibbles are the top nibbles of the scale words at byte 48
};

constexpr RandomBlocks kRandomBlocks[] = {
    {GGML_TYPE_IQ2_XXS, 0.125f * 16 * 25, false}, {GGML_TYPE_IQ2_XS, 0.125f * 16 * 25, false},
    {GGML_TYPE_IQ2_S, 0.125f * 16 * 25, false},   {GGML_TYPE_IQ3_XXS, 0.25f * 16 * 25, false},
    {GGML_TYPE_IQ3_S, 16 * 7, false},             {GGML_TYPE_IQ1_S, 0.125f * 8 * 6, false},
    {GGML_TYPE_IQ1_M, 0.125f * 8 * 6, true},
};

const RandomBlocks * random_blocks_of(ggml_type type) {
    for (const RandomBlocks & r : kRandomBlocks) {
        if (r.type == type) {
            return &r;
        }
    }
    return nullptr;
}

// Row `row` of a random-block tensor: bytes from the row's generator, then each block's d.
void random_blocks_row(const RandomBlocks & rb, int64_t n_blocks, uint64_t seed, size_t tensor, int64_t row, char * out) {
    uint64_t     state = row_state(seed, tensor, row);
    const size_t bs    = ggml_type_size(rb.type);
    for (size_t i = 0; i < static_cast<size_t>(n_blocks) * bs; i += sizeof(uint64_t)) {
        const uint64_t v = splitmix64(state);
        std::memcpy(out + i, &v, std::min(sizeof(v), static_cast<size_t>(n_blocks) * bs - i));
    }
    const uint16_t d = ggml_fp32_to_fp16(kWeightStd / rb.typical);
    for (int64_t b = 0; b < n_blocks; ++b) {
        auto * blk = reinterpret_cast<uint8_t *>(out) + static_cast<size_t>(b) * bs;
        if (rb.scattered_d) {
            for (int w = 0; w < 4; ++w) {
                uint8_t & high = blk[48 + 2 * w + 1];
                high           = static_cast<uint8_t>((high & 0x0f) | ((d >> (4 * w)) & 0xf) << 4);
            }
        } else {
            std::memcpy(blk, &d, sizeof(d));
        }
    }
}

// Blocks of one type quantized from random values, for the tensors larger than kPoolElements (weights.h).
struct BlockPool {
    std::vector<char> blocks;
    size_t            block_bytes = 0;
    size_t            n_blocks    = 0;
};

// a pool block for a draw of the row generator (the high 32 bits scaled to [0, n): no modulo bias worth a thought)
size_t pick_block(uint64_t & state, size_t n_blocks) {
    return static_cast<size_t>(((splitmix64(state) >> 32) * n_blocks) >> 32);
}

// rows [r0, r1) of tensor t into dst (row-size bytes each): drawn from `pool` when it is set, else generated (into
// src) and quantized; false if the type cannot be produced
bool make_rows(const TensorPlan & t, uint64_t seed, size_t tensor, const BlockPool * pool, int64_t r0, int64_t r1,
               float * src, char * dst) {
    const size_t row_size = ggml_row_size(t.type, t.ne0);
    if (pool != nullptr) {
        const int64_t blocks_per_row = t.ne0 / ggml_blck_size(t.type);
        for (int64_t r = r0; r < r1; ++r) {
            uint64_t state = row_state(seed, tensor, r);
            char *   out   = dst + static_cast<size_t>(r - r0) * row_size;
            for (int64_t b = 0; b < blocks_per_row; ++b) {
                const size_t at = pick_block(state, pool->n_blocks) * pool->block_bytes;
                std::memcpy(out + static_cast<size_t>(b) * pool->block_bytes, pool->blocks.data() + at,
                            pool->block_bytes);
            }
        }
        return true;
    }
    if (const RandomBlocks * rb = random_blocks_of(t.type); rb != nullptr && t.init == Init::Random) {
        for (int64_t r = r0; r < r1; ++r) {
            random_blocks_row(*rb, t.ne0 / ggml_blck_size(t.type), seed, tensor, r,
                              dst + static_cast<size_t>(r - r0) * row_size);
        }
        return true;
    }
    for (int64_t r = r0; r < r1; ++r) {
        fill_row(src + (r - r0) * t.ne0, t.ne0, t, seed, tensor, r);
    }
    if (t.type == GGML_TYPE_F32) {
        std::memcpy(dst, src, static_cast<size_t>(r1 - r0) * row_size);
        return true;
    }
    return ggml_quantize_chunk(t.type, src, dst, 0, r1 - r0, t.ne0, nullptr) == static_cast<size_t>(r1 - r0) * row_size;
}

// rows [c0, c1) of t made on up to n_threads threads into src / dst (sized for them; src null for a pooled
// tensor); false if a thread failed
bool make_rows_threaded(const TensorPlan & t, uint64_t seed, size_t tensor, const BlockPool * pool, int n_threads,
                        int64_t c0, int64_t c1, float * src, char * dst) {
    const int64_t n        = c1 - c0;
    const int     nth      = static_cast<int>(std::min<int64_t>(n_threads, n));
    const size_t  row_size = ggml_row_size(t.type, t.ne0);
    std::vector<char>        ok(static_cast<size_t>(nth), 1);
    std::vector<std::thread> workers;
    for (int i = 0; i < nth; ++i) {
        const int64_t r0 = c0 + n * i / nth;
        const int64_t r1 = c0 + n * (i + 1) / nth;
        float * rows_src = src != nullptr ? src + (r0 - c0) * t.ne0 : nullptr; // (none for a pooled tensor)
        workers.emplace_back([&, i, r0, r1, rows_src] {
            ok[static_cast<size_t>(i)] = make_rows(t, seed, tensor, pool, r0, r1, rows_src,
                                                   dst + static_cast<size_t>(r0 - c0) * row_size);
        });
    }
    for (std::thread & w : workers) {
        w.join();
    }
    return std::find(ok.begin(), ok.end(), 0) == ok.end();
}

// The pool of `type`: kPoolElements random values (a generator stream of their own, after the tensors')
// quantized as rows of one block.
bool make_pool(ggml_type type, uint64_t seed, size_t stream, int n_threads, BlockPool & pool) {
    const int64_t    blck = ggml_blck_size(type);
    const TensorPlan rows{"pool", blck, kPoolElements / blck, type, Init::Random};
    pool.block_bytes = ggml_row_size(type, blck);
    pool.n_blocks    = static_cast<size_t>(rows.ne1);
    pool.blocks.resize(pool.n_blocks * pool.block_bytes);
    std::vector<float> src(static_cast<size_t>(kPoolElements));
    return make_rows_threaded(rows, seed, stream, nullptr, n_threads, 0, rows.ne1, src.data(), pool.blocks.data());
}

bool uses_pool(const TensorPlan & t) {
    return t.init == Init::Random && ggml_blck_size(t.type) > 1 && t.ne0 * t.ne1 > kPoolElements;
}

// writes tensor t (its data, unpadded), reporting each chunk through `report` (bytes written)
bool write_tensor(FILE * f, const TensorPlan & t, uint64_t seed, size_t tensor, const BlockPool * pool, int n_threads,
                  const std::function<void(uint64_t)> & report, std::string & error) {
    const int64_t      rows_per_chunk = std::max<int64_t>(1, static_cast<int64_t>(kChunkFloats) / t.ne0);
    const size_t       row_size       = ggml_row_size(t.type, t.ne0);
    std::vector<float> src(pool != nullptr ? 0 : static_cast<size_t>(std::min(rows_per_chunk, t.ne1) * t.ne0));
    std::vector<char>  dst(static_cast<size_t>(std::min(rows_per_chunk, t.ne1)) * row_size);
    for (int64_t c0 = 0; c0 < t.ne1; c0 += rows_per_chunk) {
        const int64_t c1 = std::min(t.ne1, c0 + rows_per_chunk);
        const size_t  n  = static_cast<size_t>(c1 - c0) * row_size;
        if (!make_rows_threaded(t, seed, tensor, pool, n_threads, c0, c1, pool != nullptr ? nullptr : src.data(),
                                dst.data())) {
            error = t.name + ": cannot quantize to " + ggml_type_name(t.type);
            return false;
        }
        if (std::fwrite(dst.data(), 1, n, f) != n) {
            error = errno != 0 ? std::strerror(errno) : "write error";
            return false;
        }
        report(n);
    }
    return true;
}

// ": <the reason>" of a failed call's errno, for a message ("" when it set none)
std::string reason(int err) {
    return err != 0 ? std::string(": ") + std::strerror(err) : std::string();
}

bool pad_file(FILE * f, size_t alignment) {
    const long   pos = std::ftell(f);
    const size_t n   = (alignment - static_cast<size_t>(pos) % alignment) % alignment;
    if (pos < 0 || n == 0) {
        return pos >= 0; // (an empty vector's data() may be null, which fwrite must not get)
    }
    const std::vector<char> zeros(n, 0);
    return std::fwrite(zeros.data(), 1, n, f) == n;
}

} // namespace

bool random_block_type(ggml_type type) { return random_blocks_of(type) != nullptr; }

bool write_model(const std::string & path, const Shape & shape, const Plan & plan, int n_threads, Summary & summary,
                 std::string & error, const ProgressFn & progress) {
    std::unique_ptr<gguf_context, decltype(&gguf_free)> ctx(gguf_init_empty(), gguf_free);
    set_metadata(ctx.get(), shape, plan);
    // tensor infos from metadata-only tensors of the planned types and shapes
    std::unique_ptr<ggml_context, decltype(&ggml_free)> meta(
        ggml_init({plan.tensors.size() * ggml_tensor_overhead(), nullptr, true}), ggml_free);
    for (const TensorPlan & t : plan.tensors) {
        ggml_tensor * tensor = t.ne1 == 1 ? ggml_new_tensor_1d(meta.get(), t.type, t.ne0)
                                          : ggml_new_tensor_2d(meta.get(), t.type, t.ne0, t.ne1);
        ggml_set_name(tensor, t.name.c_str());
        gguf_add_tensor(ctx.get(), tensor);
    }
    summary.params = parameter_count(plan);
    errno          = 0;
    if (gguf_get_n_tensors(ctx.get()) != static_cast<int64_t>(plan.tensors.size()) ||
        !gguf_write_to_file(ctx.get(), path.c_str(), /*only_meta =*/true)) {
        error = "cannot write the metadata of '" + path + "'" + reason(errno);
        return false;
    }
    File f(std::fopen(path.c_str(), "ab"));
    if (!f) {
        error = "cannot append to '" + path + "'" + reason(errno);
        return false;
    }
    const size_t alignment = gguf_get_alignment(ctx.get());
    Progress     state;
    state.n_tensors   = plan.tensors.size();
    state.bytes_done  = gguf_get_meta_size(ctx.get());
    state.bytes_total = state.bytes_done;
    for (const TensorPlan & t : plan.tensors) {
        state.bytes_total += GGML_PAD(ggml_row_size(t.type, t.ne0) * static_cast<size_t>(t.ne1), alignment);
    }
    const auto report = [&](uint64_t bytes) {
        state.bytes_done += bytes;
        if (progress) {
            progress(state);
        }
    };
    report(0);
    std::map<ggml_type, BlockPool> pools; // made on first use
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
        const TensorPlan & t    = plan.tensors[i];
        const BlockPool *  pool = nullptr;
        if (uses_pool(t)) {
            auto [it, made] = pools.try_emplace(t.type);
            if (made && !make_pool(t.type, shape.seed, plan.tensors.size() + t.type, n_threads, it->second)) {
                error = t.name + ": cannot quantize to " + ggml_type_name(t.type);
                return false;
            }
            pool = &it->second;
        }
        if (!write_tensor(f.get(), t, shape.seed, i, pool, n_threads, report, error)) {
            error = "'" + path + "': " + error;
            return false;
        }
        if (!pad_file(f.get(), alignment)) {
            error = "'" + path + "'" + reason(errno);
            return false;
        }
        const size_t size = ggml_row_size(t.type, t.ne0) * static_cast<size_t>(t.ne1);
        ++state.tensors_done;
        report(GGML_PAD(size, alignment) - size);
    }
    summary.bytes = static_cast<uint64_t>(std::ftell(f.get()));
    if (std::fclose(f.release()) != 0) {
        error = "cannot finish writing '" + path + "'" + reason(errno);
        return false;
    }
    return true;
}

bool verify_model(const std::string & path, const Plan & plan, std::string & error) {
    std::unique_ptr<gguf_context, decltype(&gguf_free)> ctx(gguf_init_from_file(path.c_str(), {true, nullptr}),
                                                            gguf_free);
    if (!ctx) {
        error = "'" + path + "' does not read back";
        return false;
    }
    if (gguf_get_n_tensors(ctx.get()) != static_cast<int64_t>(plan.tensors.size())) {
        error = "the tensor count read back differs";
        return false;
    }
    File f(std::fopen(path.c_str(), "rb"));
    if (!f || std::fseek(f.get(), 0, SEEK_END) != 0) {
        error = "cannot reopen '" + path + "'";
        return false;
    }
    const size_t file_size = static_cast<size_t>(std::ftell(f.get()));
    size_t       end       = gguf_get_data_offset(ctx.get());
    for (size_t i = 0; i < plan.tensors.size(); ++i) {
        const TensorPlan & t  = plan.tensors[i];
        const auto         id = static_cast<int64_t>(i);
        const size_t       size = ggml_row_size(t.type, t.ne0) * static_cast<size_t>(t.ne1);
        if (t.name != gguf_get_tensor_name(ctx.get(), id) || t.type != gguf_get_tensor_type(ctx.get(), id) ||
            size != gguf_get_tensor_size(ctx.get(), id)) {
            error = "tensor " + std::to_string(i) + " (" + t.name + ") reads back differently";
            return false;
        }
        const size_t at = gguf_get_data_offset(ctx.get()) + gguf_get_tensor_offset(ctx.get(), id);
        end             = at + GGML_PAD(size, gguf_get_alignment(ctx.get()));
        if (t.init == Init::Ones) {
            std::vector<float> values(static_cast<size_t>(t.ne0));
            if (std::fseek(f.get(), static_cast<long>(at), SEEK_SET) != 0 ||
                std::fread(values.data(), sizeof(float), values.size(), f.get()) != values.size() ||
                std::any_of(values.begin(), values.end(), [](float v) { return v != 1.0f; })) {
                error = t.name + ": the norm weights do not read back as 1";
                return false;
            }
        }
    }
    if (end != file_size) {
        error = "the file has " + std::to_string(file_size) + " bytes, the tensors end at " + std::to_string(end);
        return false;
    }
    return true;
}

} // namespace switchyard::model_writer
