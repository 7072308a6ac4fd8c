// Bad input to the registry and the module loader: lookups of NULL and unknown names, indices past the end,
// backends made from bad names, module files that are missing, are not libraries, or are libraries but not
// backends. Each returns NULL (logging where the function's contract says so) and leaves the registry as it was.
#include "bad_input.h"

#include "ggml-backend-impl.h"

#include <filesystem>
#include <fstream>

namespace switchyard::bad_input {
namespace {

namespace fs = std::filesystem;

struct RegistryCounts {
    size_t regs    = ggml_backend_reg_count();
    size_t devices = ggml_backend_dev_count();

    bool operator==(const RegistryCounts &) const = default;
};

TEST(RegistryBadInput, LookupsOfNullAndUnknownNamesGiveNull) {
    const RegistryCounts before;
    LogCapture           log;
    EXPECT_EQ(ggml_backend_dev_by_name(nullptr), nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name("nope"), nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name(""), nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name(nullptr), nullptr);
    EXPECT_EQ(ggml_backend_reg_by_name("nope"), nullptr);
    EXPECT_EQ(ggml_backend_reg_find_by_name("nope"), SIZE_MAX);
    EXPECT_EQ(ggml_backend_reg_find_by_name(nullptr), SIZE_MAX);
    // names are compared whole, not as prefixes
    EXPECT_EQ(ggml_backend_dev_by_name("CP"), nullptr);
    EXPECT_EQ(ggml_backend_dev_by_name("CPUX"), nullptr);
    EXPECT_EQ(RegistryCounts{}, before);
    // the real names still resolve (case-insensitively)
    EXPECT_NE(ggml_backend_dev_by_name("cpu"), nullptr);
    EXPECT_NE(ggml_backend_reg_by_name("CPU"), nullptr);
}

TEST(RegistryBadInput, BackendsFromBadNamesAreNotCreated) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_init_by_name(nullptr, nullptr), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_init_by_name]")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_init_by_name("nope", nullptr), nullptr);
    EXPECT_TRUE(log.has_error({"[ggml_backend_init_by_name]", "nope"})) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_META, nullptr), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_init_by_type]")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_reg_init_backend_from_str("nope:threads=4"), nullptr);
    EXPECT_EQ(ggml_backend_reg_init_backend_from_str(""), nullptr);
    EXPECT_EQ(ggml_backend_reg_init_backend_from_str(nullptr), nullptr);
    EXPECT_GE(log.errors(), 2u) << logged(log);
    log.clear();
    BackendPtr ok(ggml_backend_init_by_name("CPU", nullptr));
    EXPECT_NE(ok, nullptr);
}

TEST(RegistryBadInput, IndicesPastTheEndGiveNull) {
    LogCapture log;
    EXPECT_EQ(ggml_backend_reg_get(ggml_backend_reg_count()), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_reg_get]")) << logged(log);
    EXPECT_EQ(ggml_backend_dev_get(ggml_backend_dev_count()), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_dev_get]")) << logged(log);
    EXPECT_EQ(ggml_backend_dev_get(SIZE_MAX), nullptr);
    log.clear();
    EXPECT_EQ(ggml_backend_reg_get_name(SIZE_MAX), nullptr);
    EXPECT_EQ(ggml_backend_reg_init_backend(SIZE_MAX, nullptr), nullptr);
    EXPECT_EQ(ggml_backend_reg_get_default_buffer_type(SIZE_MAX), nullptr);
    EXPECT_EQ(ggml_backend_reg_alloc_buffer(SIZE_MAX, 64), nullptr);
    EXPECT_GE(log.errors(), 1u) << logged(log);
}

TEST(RegistryBadInput, RegisteringNullIsRefused) {
    const RegistryCounts before;
    LogCapture           log;
    ggml_backend_register(nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_register]")) << logged(log);
    ggml_backend_device_register(nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_device_register]")) << logged(log);
    ggml_backend_unload(nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_unload]")) << logged(log);
    EXPECT_EQ(RegistryCounts{}, before);
}

// A scratch directory removed with the test.
class ModuleFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("bad_input_modules_" + std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    fs::path write(const std::string & name, const std::string & content) const {
        const fs::path path = dir_ / name;
        std::ofstream(path, std::ios::binary) << content;
        return path;
    }

    fs::path dir_;
};

TEST_F(ModuleFiles, MissingModuleGivesNull) {
    const RegistryCounts before;
    LogCapture           log;
    EXPECT_EQ(ggml_backend_load((dir_ / "libggml-missing.so").c_str()), nullptr);
    EXPECT_TRUE(log.has_error({"[ggml_backend_load]", "libggml-missing.so"})) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_load(nullptr), nullptr);
    EXPECT_TRUE(log.has_error("[ggml_backend_load]")) << logged(log);
    log.clear();
    EXPECT_EQ(ggml_backend_load(dir_.c_str()), nullptr); // a directory
    EXPECT_TRUE(log.has_error("[ggml_backend_load]")) << logged(log);
    EXPECT_EQ(RegistryCounts{}, before);
}

TEST_F(ModuleFiles, FilesThatAreNotLibrariesGiveNull) {
    const RegistryCounts before;
    const fs::path       text  = write("libggml-text.so", "this is not a shared library\n");
    const fs::path       empty = write("libggml-empty.so", "");
    // an ELF header and nothing after it
    const fs::path truncated = write("libggml-truncated.so", std::string("\x7f" "ELF\x02\x01\x01", 7) + std::string(9, '\0'));
    for (const fs::path & path : {text, empty, truncated}) {
        LogCapture log;
        EXPECT_EQ(ggml_backend_load(path.c_str()), nullptr) << path;
        EXPECT_TRUE(log.has_error({"[ggml_backend_load]", path.filename().c_str()})) << logged(log);
    }
    EXPECT_EQ(RegistryCounts{}, before);
}

TEST_F(ModuleFiles, LibraryThatIsNotABackendGivesNull) {
    const RegistryCounts before;
    LogCapture           log;
    EXPECT_EQ(ggml_backend_load("libm.so.6"), nullptr);
    EXPECT_TRUE(log.has_error({"[ggml_backend_load]", "ggml_backend_init"})) << logged(log);
    EXPECT_EQ(RegistryCounts{}, before);
}

TEST_F(ModuleFiles, LoadAllFromABadPathChangesNothing) {
    write("libggml-cuda.so", "not a library");
    write("libggml-vulkan-x.so", "not a library either");
    const RegistryCounts before;
    ggml_backend_load_all_from_path(dir_.c_str());
    ggml_backend_load_all_from_path((dir_ / "does_not_exist").c_str());
    EXPECT_EQ(RegistryCounts{}, before);
    EXPECT_NE(ggml_backend_dev_by_name("CPU"), nullptr);
}

} // namespace
} // namespace switchyard::bad_input
