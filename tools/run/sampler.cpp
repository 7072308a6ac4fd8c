#include "sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace switchyard::run {

void Sampler::accept(int32_t id) {
    if (params_.repeat_last_n <= 0) {
        return;
    }
    history_.push_back(id);
    while (history_.size() > static_cast<size_t>(params_.repeat_last_n)) {
        history_.pop_front();
    }
}

void Sampler::apply_penalty() {
    if (params_.repeat_penalty == 1.0f || history_.empty()) {
        return;
    }
    std::vector<int32_t> seen(history_.begin(), history_.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (int32_t id : seen) {
        if (id < 0 || static_cast<size_t>(id) >= logits_.size()) {
            continue;
        }
        float & l = logits_[static_cast<size_t>(id)];
        l         = l <= 0.0f ? l * params_.repeat_penalty : l / params_.repeat_penalty;
    }
}

const std::vector<Sampler::Candidate> & Sampler::distribution(const float * logits, int32_t n_vocab) {
    logits_.assign(logits, logits + n_vocab);
    apply_penalty();
    const float * l  = logits_.data();
    kept_.clear();
    if (params_.temp <= 0.0f) {
        kept_.push_back({static_cast<int32_t>(std::max_element(l, l + n_vocab) - l), 1.0});
        return kept_;
    }
    ids_.resize(static_cast<size_t>(n_vocab));
    std::iota(ids_.begin(), ids_.end(), 0);
    const auto by_logit = [&](int32_t a, int32_t b) { return l[a] > l[b] || (l[a] == l[b] && a < b); };
    size_t     k        = params_.top_k > 0 ? std::min<size_t>(static_cast<size_t>(params_.top_k), ids_.size()) : ids_.size();
    std::partial_sort(ids_.begin(), ids_.begin() + static_cast<std::ptrdiff_t>(k), ids_.end(), by_logit);

    // top-p and min-p on the probabilities at temperature 1 (relative to the largest: exp(l - top))
    const double top = l[ids_[0]];
    if (params_.top_p < 1.0f) {
        double sum = 0.0;
        for (size_t i = 0; i < k; ++i) {
            sum += std::exp(static_cast<double>(l[ids_[i]]) - top);
        }
        double kept = 0.0;
        size_t n    = 0;
        while (n < k && kept < static_cast<double>(params_.top_p) * sum) {
            kept += std::exp(static_cast<double>(l[ids_[n++]]) - top);
        }
        k = std::max<size_t>(n, 1);
    }
    if (params_.min_p > 0.0f) {
        const double floor = top + std::log(static_cast<double>(params_.min_p));
        size_t       n     = 1;
        while (n < k && static_cast<double>(l[ids_[n]]) >= floor) {
            ++n;
        }
        k = n;
    }
    double sum = 0.0;
    for (size_t i = 0; i < k; ++i) {
        const double p = std::exp((static_cast<double>(l[ids_[i]]) - top) / static_cast<double>(params_.temp));
        kept_.push_back({ids_[i], p});
        sum += p;
    }
    for (Candidate & c : kept_) {
        c.p /= sum;
    }
    return kept_;
}

int32_t Sampler::sample(const float * logits, int32_t n_vocab) {
    const std::vector<Candidate> & kept = distribution(logits, n_vocab);
    if (kept.size() == 1) {
        return kept[0].id;
    }
    // one draw of the generator, mapped onto the kept probabilities by hand (the standard distributions'
    // algorithms differ between libraries)
    double r = static_cast<double>(rng_()) / 4294967296.0;
    for (size_t i = 0; i + 1 < kept.size(); ++i) {
        if (r < kept[i].p) {
            return kept[i].id;
        }
        r -= kept[i].p;
    }
    return kept.back().id;
}

} // namespace switchyard::run
