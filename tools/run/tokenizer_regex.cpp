// The pre-tokenizers' regular expressions (tokenizer_regex.h): a parser into a small tree, code generation into
// the backtracking machine's instructions, and the machine.
#include "tokenizer_regex.h"

#include "unicode.h"

#include <algorithm>
#include <tuple>

namespace switchyard::run {

namespace {

uint32_t class_bit(CharClass c) {
    return 1u << static_cast<unsigned>(c);
}

// A parsed pattern: a tree of these.
struct Node {
    enum class Kind { Set, Seq, Alt, Repeat, Look, NegLook, End } kind;
    int               set = -1;           // Set: index into the sets
    std::vector<Node> children;           // Seq, Alt; Repeat, Look, NegLook: one
    int               min = 0, max = 0;   // Repeat; max -1: no limit

    bool nullable() const {
        switch (kind) {
            case Kind::Set:    return false;
            case Kind::Seq:    return std::all_of(children.begin(), children.end(), [](const Node & c) { return c.nullable(); });
            case Kind::Alt:    return std::any_of(children.begin(), children.end(), [](const Node & c) { return c.nullable(); });
            case Kind::Repeat: return min == 0 || children[0].nullable();
            default:           return true;
        }
    }
};

} // namespace

// Parses a pattern (decoded to code points) and generates its program; the first error stops it.
class RegexCompiler {
public:
    RegexCompiler(std::string_view pattern, Regex & out) : out_(out) {
        for (size_t pos = 0; pos < pattern.size();) {
            const size_t len = utf8_char_len(pattern, pos);
            cps_.push_back(utf8_decode(pattern, pos, len));
            pos += len;
        }
    }

    bool run(std::string & error) {
        Node root = parse_alt();
        if (error_.empty() && pos_ < cps_.size()) {
            fail("unbalanced ')'");
        }
        if (!error_.empty()) {
            error = error_;
            return false;
        }
        out_.start_ = 0;
        emit(root);
        add(Regex::Op::Match);
        if (!error_.empty()) {
            error = error_;
            return false;
        }
        return true;
    }

private:
    using Kind = Node::Kind;

    void fail(const std::string & what) {
        if (error_.empty()) {
            error_ = what + " at character " + std::to_string(pos_);
        }
    }
    bool     at_end() const { return pos_ >= cps_.size(); }
    uint32_t peek(size_t ahead = 0) const { return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : 0; }

    int add_set(Regex::Set set) {
        out_.sets_.push_back(std::move(set));
        return static_cast<int>(out_.sets_.size()) - 1;
    }
    Node set_node(Regex::Set set) { return Node{Kind::Set, add_set(std::move(set)), {}, 0, 0}; }

    Node parse_alt() {
        Node alt{Kind::Alt, -1, {}, 0, 0};
        alt.children.push_back(parse_seq());
        while (error_.empty() && peek() == '|' && !at_end()) {
            ++pos_;
            alt.children.push_back(parse_seq());
        }
        return alt.children.size() == 1 ? std::move(alt.children[0]) : alt;
    }

    Node parse_seq() {
        Node seq{Kind::Seq, -1, {}, 0, 0};
        while (error_.empty() && !at_end() && peek() != '|' && peek() != ')') {
            Node atom = parse_atom();
            if (error_.empty()) {
                seq.children.push_back(parse_quantifier(std::move(atom)));
            }
        }
        return seq;
    }

    Node parse_quantifier(Node atom) {
        int min = 0, max = 0;
        switch (at_end() ? 0 : peek()) {
            case '?': min = 0; max = 1; ++pos_; break;
            case '*': min = 0; max = -1; ++pos_; break;
            case '+': min = 1; max = -1; ++pos_; break;
            case '{':
                if (!parse_braces(min, max)) {
                    return atom;
                }
                break;
            default: return atom;
        }
        if (!at_end() && (peek() == '?' || peek() == '+')) {
            fail("lazy and possessive quantifiers are not supported");
        } else if (max < 0 && atom.nullable()) {
            fail("a repeated part that can match nothing");
        } else if (atom.kind == Kind::Look || atom.kind == Kind::NegLook || atom.kind == Kind::End) {
            fail("a quantified assertion");
        }
        Node rep{Kind::Repeat, -1, {}, min, max};
        rep.children.push_back(std::move(atom));
        return rep;
    }

    // {n} {n,} {n,m}; false (pos_ unchanged) when the brace starts no quantifier
    bool parse_braces(int & min, int & max) {
        size_t p = pos_ + 1;
        auto number = [&](int & v) {
            const size_t start = p;
            v = 0;
            while (p < cps_.size() && cps_[p] >= '0' && cps_[p] <= '9' && v < 100000) {
                v = v * 10 + static_cast<int>(cps_[p++] - '0');
            }
            return p > start;
        };
        if (!number(min)) {
            return false;
        }
        max = min;
        if (p < cps_.size() && cps_[p] == ',') {
            ++p;
            max = number(max) ? max : -1;
        }
        if (p >= cps_.size() || cps_[p] != '}' || (max >= 0 && max < min) || min > 4096 || max > 4096) {
            fail("a bad {n,m} quantifier");
            return false;
        }
        pos_ = p + 1;
        return true;
    }

    Node parse_atom() {
        const uint32_t c = cps_[pos_++];
        switch (c) {
            case '(': return parse_group();
            case '[': return parse_class();
            case '$': return Node{Kind::End, -1, {}, 0, 0};
            case '.': {
                Regex::Set set;
                set.ranges  = {{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}};
                set.negated = true;
                return set_node(std::move(set));
            }
            case '\\': {
                Regex::Set set;
                escape(set, false);
                return set_node(std::move(set));
            }
            case ')': case '*': case '+': case '?': case '{': case '^':
                --pos_;
                fail(std::string("unexpected '") + static_cast<char>(c) + "'");
                return Node{Kind::Seq, -1, {}, 0, 0};
            default: {
                Regex::Set set;
                set.ranges.emplace_back(c, c);
                return set_node(std::move(set));
            }
        }
    }

    Node parse_group() {
        Kind kind = Kind::Seq;
        if (peek() == '?') {
            const uint32_t type = peek(1);
            if (type != ':' && type != '=' && type != '!') {
                fail("an unsupported (? group");
                return Node{Kind::Seq, -1, {}, 0, 0};
            }
            kind = type == '=' ? Kind::Look : type == '!' ? Kind::NegLook : Kind::Seq;
            pos_ += 2;
        }
        Node inner = parse_alt();
        if (at_end() || peek() != ')') {
            fail("a group without ')'");
        }
        ++pos_;
        if (kind == Kind::Seq) {
            return inner;
        }
        Node look{kind, -1, {}, 0, 0};
        look.children.push_back(std::move(inner));
        return look;
    }

    Node parse_class() {
        Regex::Set set;
        if (peek() == '^') {
            set.negated = true;
            ++pos_;
        }
        while (error_.empty() && !at_end() && peek() != ']') {
            uint32_t lo = cps_[pos_++];
            if (lo == '\\') {
                const size_t before = set.ranges.size();
                if (!escape(set, true) || set.ranges.size() != before + 1) {
                    continue; // a class escape (\s, \p{..}) added itself
                }
                lo = set.ranges.back().first;
                set.ranges.pop_back();
            }
            uint32_t hi = lo;
            if (peek() == '-' && pos_ + 1 < cps_.size() && peek(1) != ']') {
                pos_ += 1;
                hi = cps_[pos_++];
                if (hi == '\\') {
                    Regex::Set end;
                    if (!escape(end, true) || end.ranges.size() != 1 || end.classes != 0) {
                        fail("a range that ends in a class");
                        break;
                    }
                    hi = end.ranges[0].first;
                }
                if (hi < lo) {
                    fail("a range out of order");
                    break;
                }
            }
            set.ranges.emplace_back(lo, hi);
        }
        if (at_end()) {
            fail("a class without ']'");
        }
        ++pos_;
        return set_node(std::move(set));
    }

    // The escape after a backslash, added to `set`: one code point as a one-element range (true), or a class
    // (false). \S and \D only outside a class, where `set` is the whole atom.
    bool escape(Regex::Set & set, bool in_class) {
        if (at_end()) {
            fail("a pattern that ends in '\\'");
            return false;
        }
        const uint32_t c = cps_[pos_++];
        switch (c) {
            case 's': set.classes |= class_bit(CharClass::Space); return false;
            case 'd': set.ranges.emplace_back('0', '9'); return false;
            case 'S': case 'D':
                if (in_class) {
                    fail("\\S and \\D inside a class are not supported");
                    return false;
                }
                if (c == 'S') {
                    set.classes |= class_bit(CharClass::Space);
                } else {
                    set.ranges.emplace_back('0', '9');
                }
                set.negated = true;
                return false;
            case 'p': set.classes |= property(); return false;
            case 'r': set.ranges.emplace_back('\r', '\r'); return true;
            case 'n': set.ranges.emplace_back('\n', '\n'); return true;
            case 't': set.ranges.emplace_back('\t', '\t'); return true;
            case 'f': set.ranges.emplace_back('\f', '\f'); return true;
            case 'v': set.ranges.emplace_back('\v', '\v'); return true;
            default:
                if (c < 0x80 && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
                    --pos_;
                    fail(std::string("an unsupported escape \\") + static_cast<char>(c));
                    return false;
                }
                set.ranges.emplace_back(c, c);
                return true;
        }
    }

    // \p{..}: the class bits of the name in braces
    uint32_t property() {
        std::string name;
        if (peek() != '{') {
            fail("\\p without {");
            return 0;
        }
        for (++pos_; !at_end() && peek() != '}'; ++pos_) {
            name += static_cast<char>(peek());
        }
        ++pos_;
        if (name == "L" || name == "Lu" || name == "Ll" || name == "Lt" || name == "Lm" || name == "Lo") {
            return class_bit(CharClass::Letter);
        }
        const std::pair<const char *, CharClass> names[] = {{"N", CharClass::Number},
                                                            {"M", CharClass::Mark},
                                                            {"P", CharClass::Punctuation},
                                                            {"S", CharClass::Symbol}};
        for (const auto & [n, cls] : names) {
            if (name == n) {
                return class_bit(cls);
            }
        }
        fail("an unsupported property \\p{" + name + "}");
        return 0;
    }

    int add(Regex::Op op, int x = 0, int y = 0) {
        out_.program_.push_back({op, x, y});
        return static_cast<int>(out_.program_.size()) - 1;
    }
    int here() const { return static_cast<int>(out_.program_.size()); }

    void emit(const Node & n) {
        switch (n.kind) {
            case Kind::Set: add(Regex::Op::Class, n.set); break;
            case Kind::End: add(Regex::Op::End); break;
            case Kind::Seq:
                for (const Node & c : n.children) {
                    emit(c);
                }
                break;
            case Kind::Alt: emit_alt(n.children, 0); break;
            case Kind::Look:
            case Kind::NegLook: {
                const int look = add(n.kind == Kind::Look ? Regex::Op::Look : Regex::Op::NegLook, here() + 1);
                emit(n.children[0]);
                add(Regex::Op::Match);
                out_.program_[static_cast<size_t>(look)].y = here();
                break;
            }
            case Kind::Repeat: emit_repeat(n); break;
        }
    }

    // a|b|c as: Split a', rest; a': a; Jump end; rest: (b|c)
    void emit_alt(const std::vector<Node> & alts, size_t i) {
        if (i + 1 == alts.size()) {
            emit(alts[i]);
            return;
        }
        const int split = add(Regex::Op::Split, here() + 1);
        emit(alts[i]);
        const int jump = add(Regex::Op::Jump);
        out_.program_[static_cast<size_t>(split)].y = here();
        emit_alt(alts, i + 1);
        out_.program_[static_cast<size_t>(jump)].x = here();
    }

    // x{min,max}: x min times, then (max - min) nested optional copies, or a loop when max is unbounded
    void emit_repeat(const Node & n) {
        const Node & body = n.children[0];
        for (int i = 0; i < n.min; ++i) {
            emit(body);
        }
        if (n.max < 0) {
            const int split = add(Regex::Op::Split, here() + 1);
            emit(body);
            add(Regex::Op::Jump, split);
            out_.program_[static_cast<size_t>(split)].y = here();
            return;
        }
        std::vector<int> splits;
        for (int i = n.min; i < n.max; ++i) {
            splits.push_back(add(Regex::Op::Split, here() + 1));
            emit(body);
        }
        for (int split : splits) {
            out_.program_[static_cast<size_t>(split)].y = here();
        }
    }

    Regex &               out_;
    std::vector<uint32_t> cps_;
    size_t                pos_ = 0;
    std::string           error_;
};

bool Regex::Set::contains(uint32_t cp) const {
    bool in = (classes & class_bit(char_class(cp))) != 0;
    for (size_t i = 0; !in && i < ranges.size(); ++i) {
        in = cp >= ranges[i].first && cp <= ranges[i].second;
    }
    return in != negated;
}

std::optional<Regex> Regex::compile(std::string_view pattern, std::string & error) {
    Regex         regex;
    RegexCompiler compiler(pattern, regex);
    if (!compiler.run(error)) {
        error = "regex '" + std::string(pattern) + "': " + error;
        return std::nullopt;
    }
    return regex;
}

namespace {

// The machine: a depth-first walk over the program's choices, the preferred one first, with the choices left
// to try on a stack (shared with the lookaheads it runs, each of which pops no lower than where it began).
struct Machine {
    const std::vector<Regex::Inst> &        program;
    const std::vector<Regex::Set> &         sets;
    const uint32_t *                        cps;
    size_t                                  n;
    std::vector<std::pair<int, size_t>> &   stack;

    std::ptrdiff_t run(int pc, size_t pos) const {
        const size_t base = stack.size();
        for (;;) {
            const Regex::Inst & in = program[static_cast<size_t>(pc)];
            bool                ok = true;
            switch (in.op) {
                case Regex::Op::Class:
                    ok = pos < n && sets[static_cast<size_t>(in.x)].contains(cps[pos]);
                    ++pc;
                    ++pos;
                    break;
                case Regex::Op::Split:
                    stack.emplace_back(in.y, pos);
                    pc = in.x;
                    break;
                case Regex::Op::Jump: pc = in.x; break;
                case Regex::Op::Look:
                case Regex::Op::NegLook:
                    ok = (run(in.x, pos) >= 0) == (in.op == Regex::Op::Look);
                    pc = in.y;
                    break;
                case Regex::Op::End:
                    ok = pos == n;
                    ++pc;
                    break;
                case Regex::Op::Match:
                    stack.resize(base);
                    return static_cast<std::ptrdiff_t>(pos);
            }
            if (!ok) {
                if (stack.size() == base) {
                    return -1;
                }
                std::tie(pc, pos) = stack.back();
                stack.pop_back();
            }
        }
    }
};

} // namespace

std::ptrdiff_t Regex::match(const uint32_t * cps, size_t n, size_t pos) const {
    thread_local std::vector<std::pair<int, size_t>> stack;
    const Machine machine{program_, sets_, cps, n, stack};
    const std::ptrdiff_t end = machine.run(start_, pos);
    return end < 0 ? -1 : end - static_cast<std::ptrdiff_t>(pos);
}

} // namespace switchyard::run
