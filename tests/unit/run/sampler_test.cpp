// switchyard-run's sampler (tools/run/sampler.h) against probabilities worked out by hand: the repeat penalty
// (positive logits divided, negative ones multiplied, only the last repeat_last_n tokens), min-p, and llama.cpp's
// order (top-p and min-p on the probabilities at temperature 1, the temperature last).
#include "sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace switchyard::run {
namespace {

SamplerParams params(float temp, float top_p, float min_p, float penalty, int last_n) {
    SamplerParams p;
    p.temp           = temp;
    p.top_k          = 0;
    p.top_p          = top_p;
    p.seed           = 1;
    p.min_p          = min_p;
    p.repeat_penalty = penalty;
    p.repeat_last_n  = last_n;
    return p;
}

void expect_distribution(const std::vector<Sampler::Candidate> & got, const std::vector<int32_t> & ids,
                         const std::vector<double> & probs) {
    ASSERT_EQ(got.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        EXPECT_EQ(got[i].id, ids[i]) << "at " << i;
        EXPECT_NEAR(got[i].p, probs[i], 1e-6) << "at " << i;
    }
}

TEST(SamplerPenalty, DividesPositiveAndMultipliesNegativeLogits) {
    // {2, -1, 1, 0} with tokens 0 and 1 seen and penalty 2: {1, -2, 1, 0}; softmax: e, e^-2, e, 1 over 2e + e^-2 + 1
    const std::vector<float> logits = {2.0f, -1.0f, 1.0f, 0.0f};
    Sampler                  s(params(1.0f, 1.0f, 0.0f, 2.0f, 64));
    s.accept(0);
    s.accept(1);
    s.accept(0); // a token seen twice is penalized once
    expect_distribution(s.distribution(logits.data(), 4), {0, 2, 3, 1},
                        {0.4136219764199625, 0.4136219764199625, 0.15216302154160333, 0.020593025618471685});
}

TEST(SamplerPenalty, GreedyPicksAfterThePenalty) {
    const std::vector<float> positive = {3.0f, 2.5f};
    Sampler                  plain(params(0.0f, 1.0f, 0.0f, 1.0f, 64));
    plain.accept(0);
    EXPECT_EQ(plain.sample(positive.data(), 2), 0); // penalty 1: off
    Sampler penalized(params(0.0f, 1.0f, 0.0f, 2.0f, 64));
    penalized.accept(0);
    EXPECT_EQ(penalized.sample(positive.data(), 2), 1); // 3 / 2 = 1.5 < 2.5

    // a negative logit is multiplied: -1 * 2 = -2 < -1.5 (dividing would give -0.5 and keep token 0 first)
    const std::vector<float> negative = {-1.0f, -1.5f};
    Sampler                  neg(params(0.0f, 1.0f, 0.0f, 2.0f, 64));
    neg.accept(0);
    EXPECT_EQ(neg.sample(negative.data(), 2), 1);
}

TEST(SamplerPenalty, LooksBackOnlyRepeatLastN) {
    const std::vector<float> logits = {3.0f, 2.5f};
    Sampler                  s(params(0.0f, 1.0f, 0.0f, 2.0f, 1));
    s.accept(0);
    s.accept(1); // token 0 falls out of the last 1: {3, 1.25}
    EXPECT_EQ(s.sample(logits.data(), 2), 0);
    Sampler off(params(0.0f, 1.0f, 0.0f, 2.0f, 0)); // repeat_last_n 0: no penalty
    off.accept(0);
    EXPECT_EQ(off.sample(logits.data(), 2), 0);
}

TEST(SamplerMinP, KeepsTokensAtLeastMinPTimesTheMostLikely) {
    // probabilities in the ratio 1 : 0.5 : 0.25 : 0.05
    const std::vector<float> logits = {0.0f, std::log(0.5f), std::log(0.25f), std::log(0.05f)};
    Sampler                  s(params(1.0f, 1.0f, 0.2f, 1.0f, 64));
    expect_distribution(s.distribution(logits.data(), 4), {0, 1, 2}, {1 / 1.75, 0.5 / 1.75, 0.25 / 1.75});
    Sampler s3(params(1.0f, 1.0f, 0.3f, 1.0f, 64));
    expect_distribution(s3.distribution(logits.data(), 4), {0, 1}, {2.0 / 3.0, 1.0 / 3.0});
    Sampler off(params(1.0f, 1.0f, 0.0f, 1.0f, 64));
    EXPECT_EQ(off.distribution(logits.data(), 4).size(), 4u);
}

TEST(SamplerOrder, TopPAndMinPBeforeTheTemperature) {
    // probabilities 0.6, 0.2, 0.2 at temperature 1: top-p 0.55 keeps the first only. Were the temperature (10)
    // applied first, they would be about 0.36, 0.32, 0.32 and top-p would keep two.
    const std::vector<float> logits = {std::log(3.0f), 0.0f, 0.0f};
    Sampler                  top_p(params(10.0f, 0.55f, 0.0f, 1.0f, 64));
    expect_distribution(top_p.distribution(logits.data(), 3), {0}, {1.0});
    // 0.25 < min-p 0.3 at temperature 1 (at temperature 10 it would be 0.25^0.1 = 0.87 of the largest)
    const std::vector<float> two = {0.0f, std::log(0.25f)};
    Sampler                  min_p(params(10.0f, 1.0f, 0.3f, 1.0f, 64));
    expect_distribution(min_p.distribution(two.data(), 2), {0}, {1.0});
}

TEST(SamplerOrder, TemperatureScalesTheKeptLogits) {
    // {ln 4, 0} at temperature 2: 4^(1/2) : 1 = 2 : 1
    const std::vector<float> logits = {std::log(4.0f), 0.0f};
    Sampler                  s(params(2.0f, 1.0f, 0.0f, 1.0f, 64));
    expect_distribution(s.distribution(logits.data(), 2), {0, 1}, {2.0 / 3.0, 1.0 / 3.0});
}

} // namespace
} // namespace switchyard::run
