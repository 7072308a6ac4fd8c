// A small open-addressing map from tensor pointers to table indices, used by the graph allocator to number
// the tensors of a graph. It only grows; reset() empties it while keeping its slots.
#pragma once

#include <algorithm>
#include <bit>
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
        if (slots_.size() < want) {
            std::vector<Slot> slots(want); // allocated first: if it throws, the map is left as it was
            slots_.swap(slots);
        } else {
            clear();
        }
        count_ = 0;
    }

    // Empties the map, keeping its slots; never allocates.
    void clear() {
        std::fill(slots_.begin(), slots_.end(), Slot{});
        count_ = 0;
    }

    // Index stored for key, or -1.
    int32_t find(const void * key) const {
        if (slots_.empty()) {
            return -1;
        }
        for (size_t i = slot_of(key);; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].key == key) {
                return slots_[i].value;
            }
            if (slots_[i].key == nullptr) {
                return -1;
            }
        }
    }

    // Stores key -> value unless key is present. Returns the stored index and whether it was inserted.
    std::pair<int32_t, bool> insert(const void * key, int32_t value) {
        if ((count_ + 1) * 2 > slots_.size()) {
            grow();
        }
        size_t i = slot_of(key);
        for (; slots_[i].key != nullptr; i = (i + 1) & (slots_.size() - 1)) {
            if (slots_[i].key == key) {
                return {slots_[i].value, false};
            }
        }
        slots_[i] = Slot{key, value};
        ++count_;
        return {value, true};
    }

private:
    struct Slot { // key and value side by side: one cache line read per probe
        const void * key   = nullptr;
        int32_t      value = -1;
    };

    // Neighbouring keys land in neighbouring slots: a context's tensors are allocated one after another (a few
    // hundred bytes apart) and graph passes visit them in about that order, so a pass walks the table almost
    // sequentially instead of missing the cache at every probe. Each window of address space as wide as the table
    // (slots x 64 bytes) starts at a hashed offset, so tensors of different contexts, or of allocations aligned
    // alike, do not pile up on the same slots.
    size_t slot_of(const void * key) const {
        const uint64_t line   = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) >> 6;
        const uint64_t window = line >> std::countr_zero(slots_.size());
        return static_cast<size_t>(line + ((window * 0x9E3779B97F4A7C15ull) >> 24)) & (slots_.size() - 1);
    }

    // Doubles the slots. Exception-safe: the new array is allocated before the map changes.
    void grow() {
        std::vector<Slot> old(slots_.empty() ? 32 : slots_.size() * 2);
        old.swap(slots_);
        count_ = 0;
        for (const Slot & s : old) {
            if (s.key != nullptr) {
                insert(s.key, s.value);
            }
        }
    }

    std::vector<Slot> slots_;
    size_t            count_ = 0;
};

} // namespace switchyard::alloc
