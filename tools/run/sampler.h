// switchyard-run: picking the next token from logits. temp <= 0 is greedy (the largest logit, the lowest id on a
// tie); otherwise the top_k largest logits (top_k <= 0: all), scaled by 1/temp and softmaxed, cut to the
// smallest set whose probability reaches top_p (top_p >= 1: no cut), then drawn with a std::mt19937 seeded
// with `seed`: the same seed and logits give the same tokens.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace switchyard::run {

struct SamplerParams {
    float    temp  = 0.8f;
    int      top_k = 40;
    float    top_p = 0.95f;
    uint32_t seed  = 42;
};

class Sampler {
public:
    explicit Sampler(const SamplerParams & params) : params_(params), rng_(params.seed) {}

    // The id of the next token; logits has n_vocab values (n_vocab >= 1).
    int32_t sample(const float * logits, int32_t n_vocab);

private:
    SamplerParams              params_;
    std::mt19937               rng_;
    std::vector<int32_t>       ids_;
    std::vector<double>        probs_;
};

} // namespace switchyard::run
