// Op cases of the DeepSeek V3.2 / V4 ops: LIGHTNING_INDEXER (F32, F16 and Q8_0 keys, a mask shared by the streams
// or one per stream, a permuted query, a decode step) and the hyper-connection ops DSV4_HC_COMB (one and 20
// Sinkhorn iterations), DSV4_HC_PRE and DSV4_HC_POST. Key counts, tokens and embedding sizes that do not divide
// evenly between 2 and 4 threads. Appended to the shared list by op_cases.cpp.
#include "conformance/op_cases.h"

#include <string>

namespace switchyard::testing {

namespace {

using B = CaseBuilder;

std::string type_name(ggml_type t) {
    return ggml_type_name(t);
}

struct Indexer {
    int64_t   n_embd, n_head, n_tokens, n_kv, n_stream, n_mask_stream;
    ggml_type k_type;
    bool      permuted_q; // q built as a permuted view of [n_embd, n_tokens, n_head, n_stream]
};

void add_indexer(std::vector<OpCase> & cases) {
    for (const Indexer c : {Indexer{32, 4, 5, 7, 1, 1, GGML_TYPE_F32, false}, Indexer{16, 3, 3, 9, 2, 1, GGML_TYPE_F16, false},
                            Indexer{24, 2, 4, 13, 2, 2, GGML_TYPE_F16, true}, Indexer{64, 2, 2, 5, 1, 1, GGML_TYPE_Q8_0, false},
                            Indexer{32, 8, 1, 11, 3, 1, GGML_TYPE_F32, false}}) {
        const std::string name = "LIGHTNING_INDEXER(k=" + type_name(c.k_type) + ",n_embd=" + std::to_string(c.n_embd) +
                                 ",heads=" + std::to_string(c.n_head) + ",tokens=" + std::to_string(c.n_tokens) +
                                 ",kv=" + std::to_string(c.n_kv) + ",streams=" + std::to_string(c.n_stream) + "/" +
                                 std::to_string(c.n_mask_stream) + (c.permuted_q ? ",q_permuted" : "") + ")";
        cases.push_back({name, GGML_OP_LIGHTNING_INDEXER, [c](B & b) {
                             ggml_tensor * q = c.permuted_q
                                                   ? ggml_permute(b.ctx(), b.input(GGML_TYPE_F32, c.n_embd, c.n_tokens, c.n_head, c.n_stream),
                                                                  0, 2, 1, 3)
                                                   : b.input(GGML_TYPE_F32, c.n_embd, c.n_head, c.n_tokens, c.n_stream);
                             ggml_tensor * k    = b.input(c.k_type, c.n_embd, 1, c.n_kv, c.n_stream);
                             ggml_tensor * w    = b.input(GGML_TYPE_F32, c.n_head, c.n_tokens, 1, c.n_stream);
                             ggml_tensor * mask = b.input(GGML_TYPE_F16, c.n_kv, c.n_tokens, 1, c.n_mask_stream, InputKind::Mask);
                             return ggml_lightning_indexer(b.ctx(), q, k, w, mask);
                         }});
    }
}

void add_hyper_connections(std::vector<OpCase> & cases) {
    struct Comb { int64_t n_tokens, n_scale; float eps; int32_t n_iter; };
    for (const Comb c : {Comb{5, 3, 1e-6f, 20}, Comb{3, 4, 1e-2f, 1}, Comb{1, 3, 1e-6f, 3}}) {
        const std::string name = "DSV4_HC_COMB(tokens=" + std::to_string(c.n_tokens) + ",scale=" + std::to_string(c.n_scale) +
                                 ",eps=" + std::to_string(c.eps) + ",n_iter=" + std::to_string(c.n_iter) + ")";
        cases.push_back({name, GGML_OP_DSV4_HC_COMB, [c](B & b) {
                             return ggml_dsv4_hc_comb(b.ctx(), b.input(GGML_TYPE_F32, 24, c.n_tokens), b.input(GGML_TYPE_F32, c.n_scale),
                                                      b.input(GGML_TYPE_F32, 24), c.eps, c.n_iter);
                         }});
    }
    struct Streams { int64_t n_embd, hc, n_tokens; };
    for (const Streams s : {Streams{37, 4, 3}, Streams{64, 4, 1}, Streams{9, 3, 5}}) {
        const std::string shape = "n_embd=" + std::to_string(s.n_embd) + ",hc=" + std::to_string(s.hc) + ",tokens=" +
                                  std::to_string(s.n_tokens) + ")";
        cases.push_back({"DSV4_HC_PRE(" + shape, GGML_OP_DSV4_HC_PRE, [s](B & b) {
                             return ggml_dsv4_hc_pre(b.ctx(), b.input(GGML_TYPE_F32, s.n_embd, s.hc, s.n_tokens),
                                                     b.input(GGML_TYPE_F32, s.hc, s.n_tokens));
                         }});
        cases.push_back({"DSV4_HC_PRE(gated,scale=0.75," + shape, GGML_OP_DSV4_HC_PRE, [s](B & b) {
                             return ggml_dsv4_hc_pre_gated(b.ctx(), b.input(GGML_TYPE_F32, s.n_embd, s.hc, s.n_tokens),
                                                           b.input(GGML_TYPE_F32, s.n_embd, s.hc, s.n_tokens), 0.75f);
                         }});
        cases.push_back({"DSV4_HC_POST(" + shape, GGML_OP_DSV4_HC_POST, [s](B & b) {
                             return ggml_dsv4_hc_post(b.ctx(), b.input(GGML_TYPE_F32, s.n_embd, s.n_tokens),
                                                      b.input(GGML_TYPE_F32, s.n_embd, s.hc, s.n_tokens),
                                                      b.input(GGML_TYPE_F32, s.hc, s.n_tokens),
                                                      b.input(GGML_TYPE_F32, s.hc, s.hc, s.n_tokens));
                         }});
        cases.push_back({"DSV4_HC_POST(identity," + shape, GGML_OP_DSV4_HC_POST, [s](B & b) {
                             return ggml_dsv4_hc_post(b.ctx(), b.input(GGML_TYPE_F32, s.n_embd, s.n_tokens),
                                                      b.input(GGML_TYPE_F32, s.n_embd, s.hc, s.n_tokens),
                                                      b.input(GGML_TYPE_F32, s.hc, s.n_tokens), nullptr);
                         }});
    }
}

} // namespace

void add_deepseek_cases(std::vector<OpCase> & cases) {
    add_indexer(cases);
    add_hyper_connections(cases);
}

} // namespace switchyard::testing
