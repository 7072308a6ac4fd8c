// The pre-tokenizers (tokenizer_pre.h): llama.cpp v0.5.0's patterns for each tokenizer.ggml.pre (the patterns
// are its data, written out as it writes them in llama-vocab.cpp), and the split they drive.
#include "tokenizer_pre.h"

#include <algorithm>

namespace switchyard::run {

namespace {

// GPT-2's pattern (several others build on it)
constexpr std::string_view kGpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)";

// LLaMA 3's, with the case-insensitive contractions spelt out as llama.cpp spells them
constexpr std::string_view kLlama3 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|"
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// Qwen2's: LLaMA 3's with one digit at a time
constexpr std::string_view kQwen2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^"
    "\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kQwen35 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{"
    "N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kJais2 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|"
    " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}"
    "(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}";

// DeepSeek LLM's letters (the scripts with case, listed by range)
constexpr std::string_view kDeepseekLetters =
    "\\s?[A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF"
    "\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5"
    "\u03F7-\u0481\u048A-\u052F\u0531-\u0556\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA\u1CBD-"
    "\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D"
    "\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-"
    "\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2102\u2107\u210A-\u2113"
    "\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139\u213C-\u213F\u2145-\u2149"
    "\u214E\u2183\u2184\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3\uA640-\uA66D\uA680-\uA69B"
    "\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06\uFB13-\uFB17\uFF21-\uFF3A\uFF41-"
    "\uFF5A\U00010400-\U0001044F\U000104B0-\U000104D3\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0"
    "-\U00010CF2\U000118A0-\U000118DF\U0001E900-\U0001E943]+";

constexpr std::string_view kDeepseekV3Words =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?["
    "\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kSparkWords =
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?["
    "\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+";

constexpr std::string_view kDeepseekPunct = "\\s?[!-/:-~\uFF01-\uFF0F\uFF1A-\uFF5E\u2018-\u201F\u3000-\u3002]+";

constexpr std::string_view kCjkKana = "[\u4E00-\u9FA5\u3040-\u309F\u30A0-\u30FF]+";

constexpr std::string_view kYoutuCjk =
    "[\uAC00-\uD7A3\u3131-\u318E]+|[\uFF01\u2026\u201C\u201D\u2018\u2019\u2014\uFF1A\uFF1B\uFF0C\u3001-"
    "\u303F\uFE30-\uFE4F]+|[\u3105-\u312F]+|[\u4E00-\u9FA5\u3040-\u309F\u30A0-\u30FF]+";

constexpr std::string_view kYoutuWords =
    "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'["
    "tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}"
    "\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p"
    "{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kCjkHangul = "[\u4E00-\u9FA5\u0800-\u4E00\uAC00-\uD7FF]+";

constexpr std::string_view kBloom = " ?[^(\\s|.,!?\u2026\u3002\uFF0C\u3001\u0964\u06D4\u060C)]+";

constexpr std::string_view kTekken =
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{"
    "L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\"
    "S)|\\s+";

constexpr std::string_view kGpt4o =
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][e"
    "E]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'["
    "sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\"
    "s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kGraniteMulti =
    "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR]"
    "[eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L"
    "}\\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p"
    "{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kBailing =
    "'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]"
    "+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+";

constexpr std::string_view kSeedCoder =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?"
    "[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kUfakzeka =
    "[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

constexpr std::string_view kExaoneMoe =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: "
    "\\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+";

constexpr std::string_view kMinicpm5 =
    "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^"
    "\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// One row: the names that share patterns and settings.
struct PreSpec {
    std::vector<std::string_view> names;
    std::vector<std::string_view> patterns;
    bool                          ignore_merges = false;
    bool                          add_bos       = false;
};

const std::vector<PreSpec> & pre_specs() {
    static const std::vector<PreSpec> specs = {
        {{"default"}, {"[\\p{P}\\$\\+<=>\\^~\\|]+", kGpt2, "\\p{N}+", "[0-9][0-9][0-9]"}},
        {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
          "modern-bert", "exaone4", "mpt", "olmo", "jais", "trillion", "granite-docling", "jina-v1-en",
          "jina-v2-code", "roberta-bpe"},
         {kGpt2}},
        {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"},
         {kLlama3}, true, true},
        {{"dbrx", "smaug-bpe", "glm4", "chatglm-bpe"}, {kLlama3}},
        {{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open",
          "grok-2"},
         {kQwen2}},
        {{"qwen35"}, {kQwen35}},
        {{"jais-2"}, {kJais2}},
        {{"deepseek-llm"}, {"[\r\n]", kDeepseekLetters, kDeepseekPunct, "\\s+$", kCjkHangul, "\\p{N}+"}},
        {{"deepseek-coder"}, {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", kCjkHangul, "\\p{N}"}},
        {{"deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4"}, {"\\p{N}{1,3}", kCjkKana, kDeepseekV3Words}},
        {{"spark2_5"}, {"\\p{N}{1,3}", kCjkKana, kSparkWords, "\\p{N}"}},
        {{"youtu"}, {kYoutuCjk, kYoutuWords}, true},
        {{"falcon"}, {"[\\p{P}\\$\\+<=>\\^~\\|`]+", kGpt2, "[0-9][0-9][0-9]"}},
        {{"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2"},
         {"\\p{N}", kGpt2}},
        {{"poro-chat", "bloom", "gpt3-finnish"}, {kBloom}},
        {{"viking"}, {kBloom, "\\p{N}"}},
        {{"tekken"}, {kTekken}, true, true},
        {{"chameleon"},
         {"<sentinel:[0-9]+>", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", "([\\t\\n]|    |  )", "\\p{N}",
          "[\\p{P}!-/:-@\\[-`{-~]", kGpt2},
         false, true},
        {{"gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"}, {kGpt4o}},
        {{"granite-embed-multi-97m"}, {kGraniteMulti}, true},
        {{"bailingmoe", "bailingmoe2", "llada-moe"}, {kBailing}},
        {{"seed-coder"}, {kSeedCoder}},
        {{"ufakzeka"}, {kUfakzeka}},
        {{"laguna"}, {"[^\\n]+|[\\n]+", kQwen2}},
        {{"exaone-moe"}, {kExaoneMoe}},
        {{"minicpm5"}, {"\\p{N}{1,3}", kMinicpm5}, true},
    };
    return specs;
}

// The names llama.cpp knows but splits otherwise (code of its own, or not byte-level BPE).
constexpr std::string_view kRefused[] = {"kimi-k2", "afmoe", "tiny_aya", "cohere2moe", "superbpe", "gemma4",
                                         "granite-embed-multi-311m", "sarvam-moe", "whitespace"};

// Cuts each piece [start, start + len) of cps by one regex: its matches and the stretches between them.
void split_by(const Regex & regex, const std::vector<uint32_t> & cps, const std::vector<size_t> & pieces,
              std::vector<size_t> & out) {
    out.clear();
    size_t start = 0;
    for (const size_t len : pieces) {
        const uint32_t * text = cps.data() + start;
        size_t           done = 0; // the end of the last match
        for (size_t pos = 0; pos < len;) {
            const std::ptrdiff_t m = regex.match(text, len, pos);
            if (m <= 0) {
                ++pos;
                continue;
            }
            if (pos > done) {
                out.push_back(pos - done);
            }
            out.push_back(static_cast<size_t>(m));
            pos += static_cast<size_t>(m);
            done = pos;
        }
        if (len > done) {
            out.push_back(len - done);
        }
        start += len;
    }
}

} // namespace

std::unique_ptr<PreTokenizer> PreTokenizer::find(std::string_view name, std::string & error) {
    const std::string_view wanted = name.empty() ? "default" : name;
    for (const PreSpec & spec : pre_specs()) {
        if (std::find(spec.names.begin(), spec.names.end(), wanted) == spec.names.end()) {
            continue;
        }
        auto pre            = std::make_unique<PreTokenizer>();
        pre->name_          = std::string(wanted);
        pre->ignore_merges_ = spec.ignore_merges;
        pre->add_bos_       = spec.add_bos;
        for (std::string_view pattern : spec.patterns) {
            std::optional<Regex> regex = Regex::compile(pattern, error);
            if (!regex) {
                error = "tokenizer.ggml.pre '" + pre->name_ + "': " + error;
                return nullptr;
            }
            pre->regexes_.push_back(std::move(*regex));
        }
        return pre;
    }
    const bool refused = std::find(std::begin(kRefused), std::end(kRefused), wanted) != std::end(kRefused);
    error = "tokenizer.ggml.pre: " + std::string(refused ? "the pre-tokenizer '" : "unknown pre-tokenizer '") +
            std::string(wanted) + (refused ? "' is not supported" : "'") + " (supported: " + pre_tokenizer_names() +
            ")";
    return nullptr;
}

std::vector<size_t> PreTokenizer::split(const std::vector<uint32_t> & cps) const {
    std::vector<size_t> pieces;
    if (cps.empty()) {
        return pieces;
    }
    pieces.push_back(cps.size());
    std::vector<size_t> next;
    for (const Regex & regex : regexes_) {
        split_by(regex, cps, pieces, next);
        pieces.swap(next);
    }
    return pieces;
}

std::string pre_tokenizer_names() {
    std::string out;
    for (const PreSpec & spec : pre_specs()) {
        for (std::string_view name : spec.names) {
            out += (out.empty() ? "" : ", ") + std::string(name);
        }
    }
    return out;
}

} // namespace switchyard::run
