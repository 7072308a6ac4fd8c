// The regular expressions of the pre-tokenizers (tokenizer_pre.h): the patterns llama.cpp names for each
// tokenizer.ggml.pre, matched over code points with ECMAScript's rules, which llama.cpp's std::regex follows
// (alternatives tried left to right, greedy quantifiers that backtrack, the first match that succeeds wins).
//
// The dialect, all the patterns need:
//   literals (UTF-8; \ before punctuation makes it literal; \r \n \t \f \v), . (any but \r \n)
//   classes [..] and [^..] of literals, ranges a-z, and the escapes below
//   \s \S (whitespace, unicode.h), \d (0-9), \p{L} \p{N} \p{M} \p{P} \p{S} (unicode.h's classes; \p{Lu} \p{Ll}
//   \p{Lt} \p{Lm} \p{Lo} are all letters, as llama.cpp reads them)
//   groups (..) and (?:..) (both only group: nothing is captured), lookaheads (?=..) (?!..)
//   quantifiers ? * + {n} {n,} {n,m}, greedy; | ; $ (the end of the text searched)
// A quantified part that can match nothing (as (a*)*) is refused when compiling, so matching always ends.
//
// A Regex does not change once compiled: match() may be called from several threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace switchyard::run {

class Regex {
public:
    // The pattern compiled, or nullopt with the reason (and where) in `error`.
    static std::optional<Regex> compile(std::string_view pattern, std::string & error);

    // The length of the match that starts at cps[pos], searching cps[0, n) (lookaheads see no further than n;
    // $ is n), or -1 when the pattern does not match there.
    std::ptrdiff_t match(const uint32_t * cps, size_t n, size_t pos) const;

    // One instruction of the compiled program (a backtracking machine, as in Thompson's construction):
    //   Class  match one code point of sets_[x], then the next instruction
    //   Split  try x, and y when x fails
    //   Jump   go on at x
    //   Look   run the sub-program at x here: go on to y when it matches, (negated) when it does not
    //   End    match only at the end of the text
    //   Match  the pattern matched
    enum class Op : uint8_t { Class, Split, Jump, Look, NegLook, End, Match };
    struct Inst {
        Op  op;
        int x = 0;
        int y = 0;
    };

    // A set of code points: ranges, and classes (a bit per unicode.h CharClass); `negated` inverts it.
    struct Set {
        std::vector<std::pair<uint32_t, uint32_t>> ranges;
        uint32_t                                   classes = 0;
        bool                                       negated = false;
        bool contains(uint32_t cp) const;
    };

private:
    friend class RegexCompiler;
    std::vector<Inst> program_;
    std::vector<Set>  sets_;
    int               start_ = 0;
};

} // namespace switchyard::run
