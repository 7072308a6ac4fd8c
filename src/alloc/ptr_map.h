// A small open-addressing map from tensor pointers to table indices, used by the graph allocator to number
// the tensors of a graph. It only grows; reset() empties it while keeping its slots.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace switchyard::alloc {

class PtrIndexMap {
public:
    // Empties the map and makes room for `expected` keys without growing.
    void reset(size_t expected) {
        size_t want = 16;
        while (want < expected * 2) {
            want *= 2;
        }
        if (keys_.size() < want) {
            // build the new arrays first: if either allocation throws, the map is left as it was
            std::vector<const void *> keys(want, nullptr);
            std::vector<int32_t>      values(want, -1);
            keys_.swap(keys);
            values_.swap(values);
        } else {
            std::fill(keys_.begin(), keys_.end(), nullptr);
        }
        count_ = 0;
    }

    // Index stored for key, or -1.
    int32_t find(const void * key) const {
        if (keys_.empty()) {
            return -1;
        }
        for (size_t i = slot_of(key);; i = (i + 1) & (keys_.size() - 1)) {
            if (keys_[i] == key) {
                return values_[i];
            }
            if (keys_[i] == nullptr) {
                return -1;
            }
        }
    }

    // Stores key -> value unless key is present. Returns the stored index and whether it was inserted.
    std::pair<int32_t, bool> insert(const void * key, int32_t value) {
        if ((count_ + 1) * 2 > keys_.size()) {
            grow();
        }
        size_t i = slot_of(key);
        for (; keys_[i] != nullptr; i = (i + 1) & (keys_.size() - 1)) {
            if (keys_[i] == key) {
                return {values_[i], false};
            }
        }
        keys_[i]   = key;
        values_[i] = value;
        ++count_;
        return {value, true};
    }

private:
    size_t slot_of(const void * key) const {
        uint64_t h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) * 0x9E3779B97F4A7C15ull;
        return static_cast<size_t>(h >> 20) & (keys_.size() - 1);
    }

    // Doubles the slots. Exception-safe: the new arrays are allocated before the map changes.
    void grow() {
        const size_t              new_size = keys_.empty() ? 32 : keys_.size() * 2;
        std::vector<const void *> new_keys(new_size, nullptr);
        std::vector<int32_t>      new_values(new_size, -1);
        std::vector<const void *> old_keys   = std::move(keys_);
        std::vector<int32_t>      old_values = std::move(values_);
        keys_                                = std::move(new_keys);
        values_                              = std::move(new_values);
        count_                               = 0;
        for (size_t i = 0; i < old_keys.size(); ++i) {
            if (old_keys[i] != nullptr) {
                insert(old_keys[i], old_values[i]);
            }
        }
    }

    std::vector<const void *> keys_;
    std::vector<int32_t>      values_;
    size_t                    count_ = 0;
};

} // namespace switchyard::alloc
