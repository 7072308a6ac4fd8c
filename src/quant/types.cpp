// The storage-type table's run-time lookups (the table itself, one row per value of enum ggml_type, is in types.h).
#include "quant/types.h"

namespace switchyard {

namespace {

const TypeInfo kInvalid{nullptr, 1, 0, false};

} // namespace

bool is_valid_type(int type) {
    return type >= 0 && type < GGML_TYPE_COUNT && kTypeTable[static_cast<size_t>(type)].name != nullptr;
}

const TypeInfo & type_info(ggml_type type) {
    if (type < 0 || type >= GGML_TYPE_COUNT) {
        return kInvalid;
    }
    return kTypeTable[type];
}

} // namespace switchyard
