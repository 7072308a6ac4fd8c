// The model writer: the JSON reader (json.h), a recursive descent over the text.
#include "json.h"

#include "model_writer/utf8.h"

#include <cerrno>
#include <cstdlib>

namespace switchyard::model_writer {

namespace {

constexpr int kMaxDepth = 256;

} // namespace

class JsonParser {
public:
    explicit JsonParser(std::string_view text) : text_(text) {}

    std::optional<Json> run(std::string & error) {
        Json value;
        skip_space();
        if (parse_value(value, 0)) {
            skip_space();
            if (pos_ < text_.size()) {
                fail("text after the value");
            }
        }
        if (!error_.empty()) {
            error = error_;
            return std::nullopt;
        }
        return value;
    }

private:
    bool fail(const std::string & what) {
        if (error_.empty()) {
            size_t line = 1, column = 1;
            for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
                column = text_[i] == '\n' ? 1 : column + 1;
                line += text_[i] == '\n' ? 1 : 0;
            }
            error_ = "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + what;
        }
        return false;
    }

    void skip_space() {
        while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                       text_[pos_] == '\r')) {
            ++pos_;
        }
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) {
            return fail("not a JSON value");
        }
        pos_ += word.size();
        return true;
    }

    bool parse_value(Json & out, int depth) {
        if (depth > kMaxDepth) {
            return fail("nested deeper than 256 levels");
        }
        if (pos_ >= text_.size()) {
            return fail("the text ends where a value should be");
        }
        switch (text_[pos_]) {
            case '{': return parse_object(out, depth);
            case '[': return parse_array(out, depth);
            case '"': out.type_ = Json::Type::String; return parse_string(out.string_);
            case 't': out.type_ = Json::Type::Bool; out.bool_ = true; return literal("true");
            case 'f': out.type_ = Json::Type::Bool; out.bool_ = false; return literal("false");
            case 'n': out.type_ = Json::Type::Null; return literal("null");
            default:  return parse_number(out);
        }
    }

    bool parse_object(Json & out, int depth) {
        out.type_ = Json::Type::Object;
        ++pos_;
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == '}') {
            ++pos_;
            return true;
        }
        for (;;) {
            skip_space();
            std::string name;
            if (pos_ >= text_.size() || text_[pos_] != '"') {
                return fail("expected a member name in quotes");
            }
            if (!parse_string(name)) {
                return false;
            }
            skip_space();
            if (pos_ >= text_.size() || text_[pos_] != ':') {
                return fail("expected ':' after a member name");
            }
            ++pos_;
            skip_space();
            Json value;
            if (!parse_value(value, depth + 1)) {
                return false;
            }
            out.members_.emplace_back(std::move(name), std::move(value));
            if (!next_or_end('}')) {
                return error_.empty();
            }
        }
    }

    bool parse_array(Json & out, int depth) {
        out.type_ = Json::Type::Array;
        ++pos_;
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ']') {
            ++pos_;
            return true;
        }
        for (;;) {
            skip_space();
            Json value;
            if (!parse_value(value, depth + 1)) {
                return false;
            }
            out.items_.push_back(std::move(value));
            if (!next_or_end(']')) {
                return error_.empty();
            }
        }
    }

    // after a member or item: ',' (true: another follows) or the closing bracket (false, error_ empty)
    bool next_or_end(char close) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') {
            ++pos_;
            return true;
        }
        if (pos_ < text_.size() && text_[pos_] == close) {
            ++pos_;
            return false;
        }
        fail(std::string("expected ',' or '") + close + "'");
        return false;
    }

    bool hex4(uint32_t & v) {
        v = 0;
        for (int i = 0; i < 4; ++i, ++pos_) {
            const char c = pos_ < text_.size() ? text_[pos_] : '\0';
            const int  d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                return fail("\\u needs four hex digits");
            }
            v = v * 16 + static_cast<uint32_t>(d);
        }
        return true;
    }

    bool parse_escape(std::string & out) {
        const char c = pos_ < text_.size() ? text_[pos_++] : '\0';
        switch (c) {
            case '"': out += '"'; return true;
            case '\\': out += '\\'; return true;
            case '/': out += '/'; return true;
            case 'b': out += '\b'; return true;
            case 'f': out += '\f'; return true;
            case 'n': out += '\n'; return true;
            case 'r': out += '\r'; return true;
            case 't': out += '\t'; return true;
            case 'u': break;
            default: --pos_; return fail("an unknown escape in a string");
        }
        uint32_t cp = 0;
        if (!hex4(cp)) {
            return false;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (text_.substr(pos_, 2) != "\\u" || (pos_ += 2, !hex4(low)) || low < 0xDC00 || low > 0xDFFF) {
                return fail("a lone surrogate in a \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("a lone surrogate in a \\u escape");
        }
        utf8_append(out, cp);
        return true;
    }

    bool parse_string(std::string & out) {
        ++pos_; // the opening quote
        for (;;) {
            if (pos_ >= text_.size()) {
                return fail("a string without its closing quote");
            }
            const char c = text_[pos_];
            if (c == '"') {
                ++pos_;
                return true;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                return fail("a control character in a string");
            }
            if (c == '\\') {
                ++pos_;
                if (!parse_escape(out)) {
                    return false;
                }
                continue;
            }
            const size_t start = pos_;
            while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\\' &&
                   static_cast<unsigned char>(text_[pos_]) >= 0x20) {
                ++pos_;
            }
            out.append(text_.substr(start, pos_ - start));
        }
    }

    bool parse_number(Json & out) {
        const size_t start = pos_;
        bool         integral = true;
        if (pos_ < text_.size() && text_[pos_] == '-') {
            ++pos_;
        }
        const auto digits = [&] {
            const size_t from = pos_;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
                ++pos_;
            }
            return pos_ > from;
        };
        if (!digits()) {
            pos_ = start;
            return fail("not a JSON value");
        }
        if (pos_ < text_.size() && text_[pos_] == '.') {
            ++pos_;
            integral = false;
            if (!digits()) {
                return fail("a number without digits after '.'");
            }
        }
        if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
            ++pos_;
            integral = false;
            if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
                ++pos_;
            }
            if (!digits()) {
                return fail("a number without digits in its exponent");
            }
        }
        out.type_     = Json::Type::Number;
        out.string_   = std::string(text_.substr(start, pos_ - start));
        out.number_   = std::strtod(out.string_.c_str(), nullptr);
        out.integral_ = integral;
        return true;
    }

    std::string_view text_;
    size_t           pos_ = 0;
    std::string      error_;
};

std::optional<Json> Json::parse(std::string_view text, std::string & error) {
    return JsonParser(text).run(error);
}

std::optional<int64_t> Json::integer() const {
    if (type_ != Type::Number || !integral_) {
        return std::nullopt;
    }
    errno = 0;
    char *          end = nullptr;
    const long long v   = std::strtoll(string_.c_str(), &end, 10);
    if (errno != 0 || *end != '\0') {
        return std::nullopt;
    }
    return static_cast<int64_t>(v);
}

const Json * Json::find(std::string_view name) const {
    for (const auto & [key, value] : members_) {
        if (key == name) {
            return &value;
        }
    }
    return nullptr;
}

} // namespace switchyard::model_writer
