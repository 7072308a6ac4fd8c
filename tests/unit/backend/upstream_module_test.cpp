// Backend modules built for upstream ggml: they link against upstream's internal ggml-base symbols
// (ggml_aligned_malloc, ggml_critical_section_*, ggml_log_internal, quantize_row_<type>_ref, quantize_iq4_xs;
// src/base/upstream_abi.cpp, src/quant/upstream_abi.cpp) and define names our libraries export too
// (ggml_backend_cpu_init, ggml_graph_compute), whose calls from inside the module must stay inside it (the
// loader's RTLD_DEEPBIND). The module under test is tests/support/upstream_like_module.cpp, found through the
// compile definition or environment variable SWITCHYARD_UPSTREAM_LIKE_MODULE; the tests skip without it.
#include "backend_test_util.h"
#include "core/op_traits.h"
#include "quant/formats.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace switchyard::testing;

// Our exported definitions, declared as upstream's internal headers declare them (block pointers as void *).
extern "C" {
void * ggml_aligned_malloc(size_t size);
void   ggml_aligned_free(void * ptr, size_t size);
void   ggml_critical_section_start(void);
void   ggml_critical_section_end(void);
void   ggml_log_internal(enum ggml_log_level level, const char * format, ...);
bool   ggml_op_can_inplace(enum ggml_op op);
void   quantize_row_q4_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_nvfp4_ref(const float * x, void * y, int64_t k);
void   quantize_row_q1_0_ref(const float * x, void * y, int64_t k);
void   quantize_row_q2_0_ref(const float * x, void * y, int64_t k);
size_t quantize_iq4_xs(const float * src, void * dst, int64_t nrows, int64_t n_per_row, const float * imatrix);
}

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// The module's procs (see tests/support/upstream_like_module.cpp).
using RowNamesFn   = const char * const * (*) ();
using ProbeFn      = bool (*)(const float * x, uint8_t * out, size_t out_stride);
using OwnSymbolsFn = int (*)();

constexpr int64_t kProbeElements = 256;
constexpr size_t  kOutStride     = 512; // more than any format's 256-element row (Q8_K: 292 bytes)
constexpr uint8_t kUntouched     = 0xab;

// Every internal symbol an upstream CPU module built with GGML_BACKEND_DL needs from ggml-base.
constexpr const char * kInternalSymbols[] = {
    "ggml_aligned_malloc",     "ggml_aligned_free",      "ggml_critical_section_start", "ggml_critical_section_end",
    "ggml_log_internal",       "quantize_iq4_xs",        "quantize_row_q4_0_ref",       "quantize_row_q4_1_ref",
    "quantize_row_q5_0_ref",   "quantize_row_q5_1_ref",  "quantize_row_q8_0_ref",       "quantize_row_q8_1_ref",
    "quantize_row_q2_K_ref",   "quantize_row_q3_K_ref",  "quantize_row_q4_K_ref",       "quantize_row_q5_K_ref",
    "quantize_row_q6_K_ref",   "quantize_row_q8_K_ref",  "quantize_row_iq4_nl_ref",     "quantize_row_mxfp4_ref",
    "quantize_row_nvfp4_ref",  "quantize_row_q1_0_ref",  "quantize_row_q2_0_ref",       "quantize_row_tq1_0_ref",
    "quantize_row_tq2_0_ref",
};

std::string upstream_like_module() {
    if (const char * env = std::getenv("SWITCHYARD_UPSTREAM_LIKE_MODULE"); env != nullptr && env[0] != '\0') {
        return env;
    }
#ifdef SWITCHYARD_UPSTREAM_LIKE_MODULE
    return SWITCHYARD_UPSTREAM_LIKE_MODULE;
#else
    return "";
#endif
}

// The type whose upstream reference quantizer is called `name` (quantize_row_<type name>_ref), or
// GGML_TYPE_COUNT.
ggml_type type_of_row_function(const std::string & name) {
    for (int t = 0; t < GGML_TYPE_COUNT; ++t) {
        const char * type_name = ggml_type_name(static_cast<ggml_type>(t));
        if (type_name != nullptr && name == std::string("quantize_row_") + type_name + "_ref") {
            return static_cast<ggml_type>(t);
        }
    }
    return GGML_TYPE_COUNT;
}

std::vector<float> probe_input() {
    std::vector<float> x(kProbeElements);
    for (int64_t i = 0; i < kProbeElements; ++i) {
        x[i] = static_cast<float>((i * 37) % 101 - 50) * 0.031f + (i % 7 == 0 ? 2.5f : 0.0f);
    }
    return x;
}

// Loads the module for one test and unloads it after.
class UpstreamModule : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string path = upstream_like_module();
        if (path.empty()) {
            GTEST_SKIP() << "SWITCHYARD_UPSTREAM_LIKE_MODULE not set";
        }
        reg_ = ggml_backend_load(path.c_str());
        ASSERT_NE(reg_, nullptr) << "ggml_backend_load(" << path << ") failed; see the log for the missing symbol";
    }
    void TearDown() override {
        if (reg_ != nullptr) {
            ggml_backend_unload(reg_);
        }
    }

    template <typename Fn>
    Fn proc(const char * name) const {
        return reinterpret_cast<Fn>(ggml_backend_reg_get_proc_address(reg_, name));
    }

    ggml_backend_reg_t reg_ = nullptr;
};

TEST(UpstreamAbi, EveryInternalSymbolIsExported) {
    for (const char * name : kInternalSymbols) {
        EXPECT_NE(dlsym(RTLD_DEFAULT, name), nullptr) << name;
    }
}

TEST_F(UpstreamModule, LoadsAndRegistersItsReg) {
    EXPECT_STREQ(ggml_backend_reg_name(reg_), "UPSTREAMLIKE");
    EXPECT_EQ(ggml_backend_reg_by_name("UPSTREAMLIKE"), reg_);
}

TEST_F(UpstreamModule, ProbeRunsEveryInternalSymbol) {
    auto row_names = proc<RowNamesFn>("upstream_like_row_names");
    auto probe     = proc<ProbeFn>("upstream_like_probe");
    ASSERT_NE(row_names, nullptr);
    ASSERT_NE(probe, nullptr);

    std::vector<const char *> names;
    for (const char * const * n = row_names(); *n != nullptr; ++n) {
        names.push_back(*n);
    }
    ASSERT_EQ(names.size(), 19u);

    const std::vector<float> x = probe_input();
    std::vector<uint8_t>     out((names.size() + 1) * kOutStride, kUntouched); // and quantize_iq4_xs's row
    LogCapture               log;
    EXPECT_TRUE(probe(x.data(), out.data(), kOutStride));
    EXPECT_TRUE(log.contains("[upstream_like_probe] log_internal 42 ok\n")) << log.text();
    EXPECT_TRUE(log.contains("[ggml_aligned_malloc]")) << log.text(); // the size-0 warning
    EXPECT_FALSE(log.contains("[quantize_iq4_xs]")) << log.text();
    std::vector<uint8_t> iq4_xs(kOutStride, kUntouched);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_IQ4_XS)(x.data(), iq4_xs.data(), kProbeElements);
    EXPECT_EQ(std::memcmp(out.data() + names.size() * kOutStride, iq4_xs.data(), kOutStride), 0);

    std::vector<std::string> unimplemented;
    for (size_t i = 0; i < names.size(); ++i) {
        SCOPED_TRACE(names[i]);
        const ggml_type type = type_of_row_function(names[i]);
        ASSERT_NE(type, GGML_TYPE_COUNT) << "no type named like " << names[i];
        const uint8_t *   got      = out.data() + i * kOutStride;
        ggml_from_float_t from_ref = switchyard::quant::from_float_ref_fn(type);
        if (from_ref == nullptr) {
            unimplemented.push_back(names[i]);
            EXPECT_TRUE(log.contains(std::string("[") + names[i] + "]")) << log.text();
            for (size_t b = 0; b < kOutStride; ++b) {
                ASSERT_EQ(got[b], kUntouched) << "byte " << b << " written";
            }
            continue;
        }
        EXPECT_FALSE(log.contains(std::string("[") + names[i] + "]")) << log.text();
        const size_t         row_bytes = ggml_row_size(type, kProbeElements);
        std::vector<uint8_t> expected(kOutStride, kUntouched);
        from_ref(x.data(), expected.data(), kProbeElements);
        EXPECT_EQ(std::memcmp(got, expected.data(), kOutStride), 0) << row_bytes << "-byte row differs";
    }
    EXPECT_EQ(unimplemented, std::vector<std::string>{}); // nvfp4, q1_0 and q2_0 too since ggml 0.25.1's formats
}

TEST_F(UpstreamModule, OwnDefinitionsOfSharedNamesRunInsideTheModule) {
    if (kSanitized) {
        GTEST_SKIP() << "sanitizer runtimes refuse RTLD_DEEPBIND; the loader falls back to RTLD_LOCAL, where a "
                        "module's calls to names our libraries also export reach ours";
    }
    auto own_symbols = proc<OwnSymbolsFn>("upstream_like_own_symbols");
    ASSERT_NE(own_symbols, nullptr);
    LogCapture log;
    EXPECT_EQ(own_symbols(), 3) << "bit 0: module's ggml_backend_cpu_init ran, bit 1: its ggml_graph_compute ran\n"
                                << log.text();
    EXPECT_FALSE(log.contains("[ggml_graph_compute]")) << "our ggml_graph_compute ran: " << log.text();
}

TEST(UpstreamAbi, QuantizeRowRefMatchesFromFloatRef) {
    const std::vector<float> x = probe_input();
    std::vector<uint8_t>     got(kOutStride, kUntouched), expected(kOutStride, kUntouched);
    quantize_row_q4_0_ref(x.data(), got.data(), kProbeElements);
    switchyard::quant::from_float_ref_fn(GGML_TYPE_Q4_0)(x.data(), expected.data(), kProbeElements);
    EXPECT_EQ(got, expected);
}

TEST(UpstreamAbi, QuantizeRowRefRejectsPartialBlocks) {
    const std::vector<float> x = probe_input();
    std::vector<uint8_t>     y(kOutStride, kUntouched);
    LogCapture               log;
    quantize_row_q4_0_ref(x.data(), y.data(), 33);
    EXPECT_TRUE(log.contains("[quantize_row_q4_0_ref] k = 33 is not a multiple of the block size 32")) << log.text();
    EXPECT_EQ(y, std::vector<uint8_t>(kOutStride, kUntouched));
}

// ggml_op_can_inplace answers from the op table's can_inplace column (which OpTraits.InplaceListIsUpstreams pins to
// upstream's list), and false outside the enum: upstream's test-alloc relies on it.
TEST(UpstreamAbi, OpCanInplaceIsTheOpTablesColumn) {
    for (int op = 0; op < GGML_OP_COUNT; ++op) {
        const auto o = static_cast<ggml_op>(op);
        EXPECT_EQ(ggml_op_can_inplace(o), switchyard::op_info(o).can_inplace) << ggml_op_name(o);
    }
    EXPECT_TRUE(ggml_op_can_inplace(GGML_OP_CLAMP));
    EXPECT_FALSE(ggml_op_can_inplace(GGML_OP_MUL_MAT));
    EXPECT_FALSE(ggml_op_can_inplace(GGML_OP_COUNT));
}

// ggml 0.25.1's formats: the row functions write what the traits' reference quantizer writes, with no error.
TEST(UpstreamAbi, NewFormatsOfGgml0_25_1Quantize) {
    const std::vector<float> x = probe_input();
    LogCapture               log;
    for (auto [fn, type] : {std::pair{&quantize_row_nvfp4_ref, GGML_TYPE_NVFP4}, std::pair{&quantize_row_q1_0_ref, GGML_TYPE_Q1_0},
                            std::pair{&quantize_row_q2_0_ref, GGML_TYPE_Q2_0}}) {
        std::vector<uint8_t> got(kOutStride, kUntouched), expected(kOutStride, kUntouched);
        fn(x.data(), got.data(), 128);
        switchyard::quant::from_float_ref_fn(type)(x.data(), expected.data(), 128);
        EXPECT_EQ(got, expected) << ggml_type_name(type);
        EXPECT_NE(got[0], kUntouched) << ggml_type_name(type);
    }
    EXPECT_EQ(log.errors(), 0u) << log.text();
}

TEST(UpstreamAbi, QuantizeIq4XsWritesTheFormatsRowsAndRejectsBadSizes) {
    const std::vector<float> x = probe_input();
    std::vector<uint8_t>     got(kOutStride, kUntouched), want(kOutStride, kUntouched);
    EXPECT_EQ(quantize_iq4_xs(x.data(), got.data(), 1, kProbeElements, nullptr), 136u);
    EXPECT_EQ(ggml_quantize_chunk(GGML_TYPE_IQ4_XS, x.data(), want.data(), 0, 1, kProbeElements, nullptr), 136u);
    EXPECT_EQ(got, want);
    LogCapture log;
    std::vector<uint8_t> y(kOutStride, kUntouched);
    EXPECT_EQ(quantize_iq4_xs(x.data(), y.data(), 1, 128, nullptr), 0u);
    EXPECT_TRUE(log.contains("[quantize_iq4_xs]")) << log.text();
    EXPECT_EQ(y, std::vector<uint8_t>(kOutStride, kUntouched));
}

TEST(UpstreamAbi, AlignedMallocIs64ByteAligned) {
    for (size_t size : {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{1} << 20}) {
        void * p = ggml_aligned_malloc(size);
        ASSERT_NE(p, nullptr) << size;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size;
        std::memset(p, 0x11, size);
        ggml_aligned_free(p, size);
    }
    ggml_aligned_free(nullptr, 0);
}

TEST(UpstreamAbi, AlignedMallocOfZeroWarnsAndReturnsNull) {
    LogCapture log;
    EXPECT_EQ(ggml_aligned_malloc(0), nullptr);
    EXPECT_EQ(log.count(GGML_LOG_LEVEL_WARN), 1u);
    EXPECT_TRUE(log.contains("[ggml_aligned_malloc]")) << log.text();
}

TEST(UpstreamAbi, AlignedMallocFailureLogsTheSizeAndReturnsNull) {
    if (kSanitized) {
        GTEST_SKIP() << "sanitizer allocators abort on impossible sizes instead of failing";
    }
    LogCapture log;
    EXPECT_EQ(ggml_aligned_malloc(SIZE_MAX - 4096), nullptr);
    EXPECT_EQ(log.errors(), 1u);
    EXPECT_TRUE(log.contains("[ggml_aligned_malloc]")) << log.text();
    EXPECT_TRUE(log.contains(" MB)")) << log.text();
}

TEST(UpstreamAbi, CriticalSectionExcludesOtherThreads) {
    constexpr int            kThreads = 4, kIterations = 5000;
    long                     counter  = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&counter] {
            for (int i = 0; i < kIterations; ++i) {
                ggml_critical_section_start();
                const long seen = counter;
                std::this_thread::yield();
                counter = seen + 1;
                ggml_critical_section_end();
            }
        });
    }
    for (std::thread & thread : threads) {
        thread.join();
    }
    EXPECT_EQ(counter, long{kThreads} * kIterations);
}

TEST(UpstreamAbi, LogInternalFormatsIntoTheLogSink) {
    LogCapture        log;
    const std::string long_text(2000, 'x');
    ggml_log_internal(GGML_LOG_LEVEL_WARN, "[test] %d %s\n", 7, "seven");
    ggml_log_internal(GGML_LOG_LEVEL_ERROR, "[test] long %s\n", long_text.c_str());
    EXPECT_EQ(log.count(GGML_LOG_LEVEL_WARN), 1u);
    EXPECT_EQ(log.errors(), 1u);
    EXPECT_TRUE(log.contains("[test] 7 seven\n")) << log.text();
    EXPECT_TRUE(log.contains("[test] long " + long_text + "\n"));
}

} // namespace
