// Loading backends from dynamic libraries. Failures (missing file, a library that is not a backend module, a
// module built for another backend API version) are logged and return NULL. The tests that need the TINY
// module (tests/support/tiny_module.cpp built as a MODULE library) find it through the compile definitions
// SWITCHYARD_TINY_MODULE / SWITCHYARD_TINY_BAD_MODULE or the environment variables of the same names, and
// are skipped when it has not been built.
#include "backend_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace switchyard::testing;

namespace fs = std::filesystem;

namespace {

std::string module_path(const char * env_name, const char * built_in) {
    if (const char * env = std::getenv(env_name); env != nullptr && env[0] != '\0') {
        return env;
    }
    return built_in != nullptr ? built_in : "";
}

std::string tiny_module() {
#ifdef SWITCHYARD_TINY_MODULE
    return module_path("SWITCHYARD_TINY_MODULE", SWITCHYARD_TINY_MODULE);
#else
    return module_path("SWITCHYARD_TINY_MODULE", nullptr);
#endif
}

std::string tiny_bad_module() {
#ifdef SWITCHYARD_TINY_BAD_MODULE
    return module_path("SWITCHYARD_TINY_BAD_MODULE", SWITCHYARD_TINY_BAD_MODULE);
#else
    return module_path("SWITCHYARD_TINY_BAD_MODULE", nullptr);
#endif
}

// A fresh empty directory under the temporary directory, removed with the object.
class TempDir {
public:
    TempDir() {
        path_ = fs::temp_directory_path() / ("switchyard-loader-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(counter_++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path & path() const { return path_; }

private:
    static inline int counter_ = 0;
    fs::path          path_;
};

size_t regs_named(const char * name) {
    size_t n = 0;
    for (size_t i = 0; i < ggml_backend_reg_count(); ++i) {
        n += std::string(ggml_backend_reg_name(ggml_backend_reg_get(i))) == name ? 1 : 0;
    }
    return n;
}

void unload_all_named(const char * name) {
    while (ggml_backend_reg_t reg = ggml_backend_reg_by_name(name)) {
        ggml_backend_unload(reg);
    }
}

TEST(Loader, MissingFileIsLoggedAndReturnsNull) {
    const size_t n_regs = ggml_backend_reg_count();
    LogCapture   log;
    EXPECT_EQ(ggml_backend_load("/nonexistent/dir/libggml-nothing.so"), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_load] cannot load /nonexistent/dir/libggml-nothing.so"));
    EXPECT_EQ(ggml_backend_load(nullptr), nullptr);
    EXPECT_TRUE(log.contains("[ggml_backend_load] path is NULL"));
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
}

TEST(Loader, LibraryThatIsNotABackendIsRejected) {
    const size_t n_regs = ggml_backend_reg_count();
    LogCapture   log;
    EXPECT_EQ(ggml_backend_load("libm.so.6"), nullptr);
    EXPECT_TRUE(log.contains("libm.so.6 is not a ggml backend module (no ggml_backend_init)"));
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
}

TEST(Loader, LoadAllFromAnEmptyDirectoryLoadsNothing) {
    TempDir      dir;
    const size_t n_regs = ggml_backend_reg_count();
    LogCapture   log;
    ggml_backend_load_all_from_path(dir.path().c_str());
    ggml_backend_load_all_from_path("/nonexistent/dir");
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
    EXPECT_EQ(log.errors(), 0u);
}

TEST(Loader, ModuleIsLoadedOnceAndUnloaded) {
    const std::string path = tiny_module();
    if (path.empty()) {
        GTEST_SKIP() << "the TINY module was not built";
    }
    const size_t       n_regs = ggml_backend_reg_count();
    ggml_backend_reg_t reg    = ggml_backend_load(path.c_str());
    ASSERT_NE(reg, nullptr);
    EXPECT_STREQ(ggml_backend_reg_name(reg), "TINYMOD");
    EXPECT_EQ(ggml_backend_reg_by_name("tinymod"), reg);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs + 1);
    ggml_backend_dev_t dev = ggml_backend_dev_by_name("TINYMOD");
    ASSERT_NE(dev, nullptr);

    // the module's device works through the framework
    ggml_backend_buffer_t buf = ggml_backend_buft_alloc_buffer(ggml_backend_dev_buffer_type(dev), 64);
    ASSERT_NE(buf, nullptr);
    EXPECT_FALSE(ggml_backend_buffer_is_host(buf));
    ggml_backend_buffer_free(buf);

    EXPECT_EQ(ggml_backend_load(path.c_str()), reg); // same library: same reg, not registered twice
    EXPECT_EQ(ggml_backend_reg_count(), n_regs + 1);

    ggml_backend_unload(reg);
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
    EXPECT_EQ(ggml_backend_dev_by_name("TINYMOD"), nullptr);
}

TEST(Loader, ModuleForAnotherApiVersionIsRejected) {
    const std::string path = tiny_bad_module();
    if (path.empty()) {
        GTEST_SKIP() << "the TINY module with an old API version was not built";
    }
    const size_t n_regs = ggml_backend_reg_count();
    LogCapture   log;
    EXPECT_EQ(ggml_backend_load(path.c_str()), nullptr);
    EXPECT_TRUE(log.contains("uses backend API version 1"));
    EXPECT_EQ(ggml_backend_reg_count(), n_regs);
}

TEST(Loader, LoadAllFindsVariantsPlainNamesAndTheEnvironmentPath) {
    const std::string path = tiny_module();
    if (path.empty()) {
        GTEST_SKIP() << "the TINY module was not built";
    }
    TempDir dir;
    // a scored variant of a known backend name, and a plain (unsuffixed) one
    fs::copy_file(path, dir.path() / "libggml-cuda-tiny.so");
    fs::copy_file(path, dir.path() / "libggml-opencl.so"); // a backend not compiled in (Vulkan may be)
    ggml_backend_load_all_from_path(dir.path().c_str());
    EXPECT_EQ(regs_named("TINYMOD"), 2u);
    unload_all_named("TINYMOD");

    TempDir empty;
    ::setenv("GGML_BACKEND_PATH", path.c_str(), 1);
    ggml_backend_load_all_from_path(empty.path().c_str());
    ::unsetenv("GGML_BACKEND_PATH");
    EXPECT_EQ(regs_named("TINYMOD"), 1u);
    unload_all_named("TINYMOD");
    EXPECT_EQ(regs_named("TINYMOD"), 0u);
}

} // namespace
