// The model writer: a JSON reader for the tokenizer files switchyard-make-model --tokenizer takes (tokenizer.json,
// tokenizer_config.json, encoder.json). RFC 8259: objects (members kept in file order), arrays, strings (\u
// escapes and surrogate pairs decoded to UTF-8; other bytes kept as they are), numbers, true, false, null. A
// lone surrogate escape, a control character in a string, trailing text or nesting deeper than 256 levels is an
// error, reported with its line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace switchyard::model_writer {

class Json {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    // The value the whole text holds, or nullopt with "line L, column C: what" in `error`.
    static std::optional<Json> parse(std::string_view text, std::string & error);

    Type type() const { return type_; }
    bool is(Type t) const { return type_ == t; }

    bool                                               boolean() const { return bool_; }
    double                                             number() const { return number_; }
    // the number as an integer, when it is one (no fraction or exponent, in int64_t's range)
    std::optional<int64_t>                             integer() const;
    const std::string &                                string() const { return string_; }
    const std::vector<Json> &                          items() const { return items_; }
    const std::vector<std::pair<std::string, Json>> & members() const { return members_; }

    // An object's member of that name (the first, when a name repeats), or nullptr (also for a non-object).
    const Json * find(std::string_view name) const;

private:
    friend class JsonParser;
    Type                                       type_   = Type::Null;
    bool                                       bool_   = false;
    double                                     number_ = 0.0;
    bool                                       integral_ = false; // the number was written without . e E
    std::string                                string_;             // a string, or a number's text
    std::vector<Json>                          items_;
    std::vector<std::pair<std::string, Json>>  members_;
};

} // namespace switchyard::model_writer
