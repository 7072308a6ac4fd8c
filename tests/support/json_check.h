// A minimal JSON syntax checker for tests of the JSON the library writes (plans, traces).
#pragma once

#include <cctype>
#include <string>

namespace switchyard::testing {

class JsonChecker {
public:
    explicit JsonChecker(const std::string & text) : s_(text) {}

    // true when the whole text is one valid JSON value
    bool valid() {
        pos_ = 0;
        return value() && (skip_ws(), pos_ == s_.size());
    }

private:
    void skip_ws() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) {
            ++pos_;
        }
    }
    bool eat(char c) {
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool string() {
        if (!eat('"')) {
            return false;
        }
        while (pos_ < s_.size() && s_[pos_] != '"') {
            if (static_cast<unsigned char>(s_[pos_]) < 0x20) {
                return false;
            }
            pos_ += s_[pos_] == '\\' ? 2 : 1;
        }
        return pos_++ < s_.size();
    }
    bool number() {
        skip_ws();
        const size_t start = pos_;
        while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || std::string("+-.eE").find(s_[pos_]) != std::string::npos)) {
            ++pos_;
        }
        return pos_ > start;
    }
    bool literal(const char * word) {
        skip_ws();
        const std::string w(word);
        if (s_.compare(pos_, w.size(), w) == 0) {
            pos_ += w.size();
            return true;
        }
        return false;
    }
    bool array() {
        if (!eat('[')) return false;
        if (eat(']')) return true;
        do {
            if (!value()) return false;
        } while (eat(','));
        return eat(']');
    }
    bool object() {
        if (!eat('{')) return false;
        if (eat('}')) return true;
        do {
            if (!string() || !eat(':') || !value()) return false;
        } while (eat(','));
        return eat('}');
    }
    bool value() {
        skip_ws();
        if (pos_ >= s_.size()) return false;
        switch (s_[pos_]) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': return literal("true");
            case 'f': return literal("false");
            case 'n': return literal("null");
            default:  return number();
        }
    }

    const std::string & s_;
    size_t              pos_ = 0;
};

} // namespace switchyard::testing
