// switchyard-ops support: the matrix of op x type x device. One row per case: its op (the unary or GLU op for
// UNARY and GLU cases), the type it exercises, the case name and whether each device supports it; as an aligned
// table, CSV (RFC 4180 quoting) or JSON (strings escaped).
#include "cli.h"

#include "conformance/op_harness.h"

#include <algorithm>

namespace switchyard::tools {

using testing::OpCase;

namespace {

struct Row {
    std::string       op, type, name;
    std::vector<bool> supported; // per device
};

std::string json_string(const std::string & s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"':  out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof(buf), "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch; // UTF-8 passes through
                }
        }
    }
    return out + "\"";
}

std::string csv_field(const std::string & s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (const char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
}

void print_text(const std::vector<Device> & devices, const std::vector<Row> & rows) {
    int op_w = 2, type_w = 4;
    for (const Row & r : rows) {
        op_w   = std::max(op_w, static_cast<int>(r.op.size()));
        type_w = std::max(type_w, static_cast<int>(r.type.size()));
    }
    std::vector<int> dev_w;
    std::printf("%-*s  %-*s", op_w, "op", type_w, "type");
    for (const Device & d : devices) {
        dev_w.push_back(std::max(3, static_cast<int>(d.name.size())));
        std::printf("  %-*s", dev_w.back(), d.name.c_str());
    }
    std::printf("  case\n");
    for (const Row & r : rows) {
        std::printf("%-*s  %-*s", op_w, r.op.c_str(), type_w, r.type.c_str());
        for (size_t j = 0; j < devices.size(); ++j) std::printf("  %-*s", dev_w[j], r.supported[j] ? "yes" : "no");
        std::printf("  %s\n", r.name.c_str());
    }
}

void print_csv(const std::vector<Device> & devices, const std::vector<Row> & rows) {
    std::printf("op,type,case");
    for (const Device & d : devices) std::printf(",%s", csv_field(d.name).c_str());
    std::printf("\n");
    for (const Row & r : rows) {
        std::printf("%s,%s,%s", csv_field(r.op).c_str(), csv_field(r.type).c_str(), csv_field(r.name).c_str());
        for (const bool s : r.supported) std::printf(",%d", s ? 1 : 0);
        std::printf("\n");
    }
}

// {"devices": [...], "cases": [{"op": .., "type": .., "case": .., "support": {"CPU": true, ..}}, ..]}
void print_json(const std::vector<Device> & devices, const std::vector<Row> & rows) {
    std::printf("{\n  \"devices\": [");
    for (size_t j = 0; j < devices.size(); ++j) std::printf("%s%s", j ? ", " : "", json_string(devices[j].name).c_str());
    std::printf("],\n  \"cases\": [\n");
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row & r = rows[i];
        std::printf("    {\"op\": %s, \"type\": %s, \"case\": %s, \"support\": {", json_string(r.op).c_str(), json_string(r.type).c_str(),
                    json_string(r.name).c_str());
        for (size_t j = 0; j < devices.size(); ++j) {
            std::printf("%s%s: %s", j ? ", " : "", json_string(devices[j].name).c_str(), r.supported[j] ? "true" : "false");
        }
        std::printf("}}%s\n", i + 1 < rows.size() ? "," : "");
    }
    std::printf("  ]\n}\n");
}

} // namespace

int run_support(const Options & o, const std::vector<Device> & devices, const std::vector<const OpCase *> & cases) {
    std::vector<Row> rows;
    for (const OpCase * c : cases) {
        const testing::CaseInfo info = testing::describe_case(*c);
        Row                     r{info.sub_op.empty() ? info.op : info.sub_op, info.built ? info.type : "?", c->name, {}};
        for (const Device & d : devices) r.supported.push_back(testing::case_supported(d.backend, *c));
        rows.push_back(std::move(r));
    }
    if (o.format == "csv") print_csv(devices, rows);
    else if (o.format == "json") print_json(devices, rows);
    else print_text(devices, rows);
    return kExitOk;
}

} // namespace switchyard::tools
