// Runs one op case on a backend and on the scalar reference, and compares: normalised mean squared error
// against the case's threshold, plus guard bytes around every tensor to catch out-of-bounds writes.
#pragma once

#include "conformance/op_cases.h"

#include "ggml-backend.h"

#include <string>

namespace switchyard::testing {

enum class CaseStatus { Passed, Failed, Unsupported };

struct CaseResult {
    CaseStatus  status = CaseStatus::Failed;
    double      nmse   = 0.0;
    std::string message; // why it failed or is unsupported
};

// seed: input data (the same seed gives the same inputs on the backend and the reference)
CaseResult run_case(ggml_backend_t backend, const OpCase & c, uint32_t seed = 1234);

// What a case is about, for filters and reports (switchyard-ops): the op's name, the unary or GLU op for UNARY
// and GLU cases (e.g. "SILU", "SWIGLU"; empty otherwise), and the type it exercises (e.g. "q4_0", "f32->f16",
// "f16*f16" for a matrix product with f16 activations). Builds the case's graph without allocating it.
struct CaseInfo {
    std::string op;
    std::string sub_op;
    std::string type;
    bool        built = false; // false: the case's builder failed (type is then empty)
};
CaseInfo describe_case(const OpCase & c);

// true when every node of the case's graph is supported on backend (ggml_backend_supports_op); nothing is
// allocated. why (optional) receives the first unsupported node.
bool case_supported(ggml_backend_t backend, const OpCase & c, std::string * why = nullptr);

// Builds the case in a no_alloc context on `backend` and allocates it (for benchmarks). Fills inputs with data.
struct PreparedCase {
    ggml_context *        ctx    = nullptr;
    ggml_cgraph *         graph  = nullptr;
    ggml_tensor *         output = nullptr;
    ggml_backend_buffer_t buffer = nullptr;
    bool                  supported = false;
};
PreparedCase prepare_case(ggml_backend_t backend, const OpCase & c, uint32_t seed = 1234);
void         free_prepared_case(PreparedCase & p);

} // namespace switchyard::testing
