// The TINY backend packaged as a dynamic backend module, for the loader tests (ggml_backend_load). It is
// built, together with tiny_backend.cpp, as a MODULE library with GGML_BACKEND_DL defined; the reg it exports
// is named "TINYMOD". TINY_MODULE_API_VERSION and TINY_MODULE_SCORE override what the module reports (a
// second build with an old API version tests that the loader rejects it).
//
// Inside test_support (no GGML_BACKEND_DL) this file compiles to nothing.
#include "support/tiny_backend.h"

#include "ggml-backend-impl.h"

#ifdef GGML_BACKEND_DL

#ifndef TINY_MODULE_API_VERSION
#define TINY_MODULE_API_VERSION GGML_BACKEND_API_VERSION
#endif
#ifndef TINY_MODULE_SCORE
#define TINY_MODULE_SCORE 1
#endif

namespace {

ggml_backend_reg_t tiny_module_reg() {
    static ggml_backend_reg_t reg = [] {
        switchyard::testing::TinyBackendConfig config;
        config.name        = "TINYMOD";
        config.api_version = TINY_MODULE_API_VERSION;
        return switchyard::testing::tiny_backend_new_reg(config);
    }();
    return reg;
}

int tiny_module_score() {
    return TINY_MODULE_SCORE;
}

} // namespace

GGML_BACKEND_DL_IMPL(tiny_module_reg)
GGML_BACKEND_DL_SCORE_IMPL(tiny_module_score)

#endif // GGML_BACKEND_DL
