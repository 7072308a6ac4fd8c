// switchyard-run: picking the next token from logits, in llama.cpp's default order:
//
//   1. repeat penalty: each distinct token among the last repeat_last_n accepted (prompt and generated) has its
//      logit divided by repeat_penalty when positive, multiplied by it when negative or zero (1.0 or
//      repeat_last_n 0: off);
//   2. temp <= 0: greedy, the largest logit (the lowest id on a tie); the steps below do not apply;
//   3. top-k: the top_k largest logits (top_k <= 0: all);
//   4. top-p: the smallest set of the most likely whose probability (softmax of the logits, temperature 1)
//      reaches top_p (top_p >= 1: no cut);
//   5. min-p: the tokens whose probability is at least min_p times the largest (logit >= max + ln min_p;
//      min_p <= 0: off);
//   6. the kept logits divided by temp and softmaxed, then one draw of a std::mt19937 seeded with `seed`: the
//      same seed, logits and accepted tokens give the same tokens.
// At least one token is always kept.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

namespace switchyard::run {

struct SamplerParams {
    float    temp           = 0.8f;
    int      top_k          = 40;
    float    top_p          = 0.95f;
    uint32_t seed           = 42;
    float    min_p          = 0.05f;
    float    repeat_penalty = 1.0f;
    int      repeat_last_n  = 64;
};

class Sampler {
public:
    explicit Sampler(const SamplerParams & params) : params_(params), rng_(params.seed) {}

    struct Candidate {
        int32_t id;
        double  p;
    };

    // The tokens steps 1-6 keep and their probabilities (summing to 1), the most likely first (the lowest id
    // first among equals); logits has n_vocab values (n_vocab >= 1). Greedy (temp <= 0): the one token, p = 1.
    // The reference stays valid until the next call.
    const std::vector<Candidate> & distribution(const float * logits, int32_t n_vocab);

    // The id of the next token: one draw from distribution().
    int32_t sample(const float * logits, int32_t n_vocab);

    // Records a token of the prompt or of the generated text for the repeat penalty.
    void accept(int32_t id);

private:
    void apply_penalty();

    SamplerParams          params_;
    std::mt19937           rng_;
    std::deque<int32_t>    history_; // the last repeat_last_n accepted tokens
    std::vector<float>     logits_;  // a penalized copy of the logits
    std::vector<int32_t>   ids_;
    std::vector<Candidate> kept_;
};

} // namespace switchyard::run
