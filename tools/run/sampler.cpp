#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace switchyard::run {

int32_t Sampler::sample(const float * logits, int32_t n_vocab) {
    if (params_.temp <= 0.0f) {
        return static_cast<int32_t>(std::max_element(logits, logits + n_vocab) - logits);
    }
    ids_.resize(static_cast<size_t>(n_vocab));
    std::iota(ids_.begin(), ids_.end(), 0);
    const auto by_logit = [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
    size_t     k        = params_.top_k > 0 ? std::min<size_t>(static_cast<size_t>(params_.top_k), ids_.size()) : ids_.size();
    std::partial_sort(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(k), ids_.end(), by_logit);
    ids_.resize(k);

    probs_.resize(k);
    const double top = logits[ids_[0]];
    double       sum = 0.0;
    for (size_t i = 0; i < k; ++i) {
        probs_[i] = std::exp((static_cast<double>(logits[ids_[i]]) - top) / params_.temp);
        sum += probs_[i];
    }
    if (params_.top_p < 1.0f) {
        double kept = 0.0;
        size_t n    = 0;
        while (n < k && kept < params_.top_p * sum) {
            kept += probs_[n++];
        }
        k = std::max<size_t>(n, 1);
        probs_.resize(k);
    }
    // one draw of the generator, mapped onto the kept probabilities by hand (the standard distributions'
    // algorithms differ between libraries)
    const double total = std::accumulate(probs_.begin(), probs_.end(), 0.0);
    double       r     = static_cast<double>(rng_()) / 4294967296.0 * total;
    for (size_t i = 0; i + 1 < k; ++i) {
        if (r < probs_[i]) {
            return ids_[i];
        }
        r -= probs_[i];
    }
    return ids_[k - 1];
}

} // namespace switchyard::run
