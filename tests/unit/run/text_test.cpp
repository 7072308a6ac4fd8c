// switchyard-run's text handling (tools/run): streaming generated text (incomplete UTF-8 held back across
// pieces, ill-formed bytes as U+FFFD, control characters escaped), display widths and the --bench table's
// alignment, the prompt's escapes (-e), and --bench's CSV and JSON records. Expected strings written by hand.
#include "bench_table.h"
#include "prompt.h"
#include "text_stream.h"

#include <gtest/gtest.h>

#include <string>

namespace switchyard::run {
namespace {

const std::string kFFFD = "\xEF\xBF\xBD";

TEST(TextStream, HoldsBackAnIncompleteCharacterUntilTheNextPiece) {
    TextStream s;
    EXPECT_EQ(s.push("caf\xC3"), "caf");
    EXPECT_TRUE(s.pending());
    EXPECT_EQ(s.push("\xA9!"), "\xC3\xA9!");
    EXPECT_FALSE(s.pending());
    EXPECT_EQ(s.push("\xF0\x9F"), ""); // U+1F600 in two pieces of two bytes, then one of one
    EXPECT_EQ(s.push("\x98"), "");
    EXPECT_EQ(s.push("\x80x"), "\xF0\x9F\x98\x80x");
    EXPECT_EQ(s.flush(), "");
}

TEST(TextStream, ReplacesIllFormedBytes) {
    EXPECT_EQ(sanitize_text("a\x80" "b"), "a" + kFFFD + "b");                   // a stray continuation byte
    EXPECT_EQ(sanitize_text("\xC0\xAF"), kFFFD + kFFFD);                      // an overlong '/'
    EXPECT_EQ(sanitize_text("\xED\xA0\x80"), kFFFD + kFFFD + kFFFD);          // a surrogate: no maximal part
    EXPECT_EQ(sanitize_text("\xF4\x90\x80\x80"), kFFFD + kFFFD + kFFFD + kFFFD); // above U+10FFFF
    EXPECT_EQ(sanitize_text("\xFF"), kFFFD);
    TextStream s;
    EXPECT_EQ(s.push("\xE2\x82"), ""); // the start of U+20AC, then a letter: one U+FFFD for the two bytes
    EXPECT_EQ(s.push("A"), kFFFD + "A");
    EXPECT_EQ(s.push("\xE2\x82"), "");
    EXPECT_EQ(s.flush(), kFFFD); // cut short by the end of the text
    EXPECT_FALSE(s.pending());
}

TEST(TextStream, EscapesControlCharactersButNewlineAndTab) {
    EXPECT_EQ(sanitize_text("a\nb\tc"), "a\nb\tc");
    EXPECT_EQ(sanitize_text("\x1b[31mred"), "\\x1b[31mred");
    EXPECT_EQ(sanitize_text(std::string("\0\r\x7f", 3)), "\\x00\\x0d\\x7f");
    EXPECT_EQ(sanitize_text("\xC2\x85\xC2\xA0"), "\\u0085\xC2\xA0"); // C1 NEL escaped, no-break space kept
}

TEST(DisplayWidth, CountsColumnsNotBytes) {
    EXPECT_EQ(display_width("abc"), 3u);
    EXPECT_EQ(display_width("\xC2\xB1"), 1u);                  // ±
    EXPECT_EQ(display_width("\xE6\x97\xA5\xE6\x9C\xAC"), 4u);  // 日本: wide
    EXPECT_EQ(display_width("e\xCC\x81"), 1u);                 // e + combining acute
    EXPECT_EQ(display_width("\xF0\x9F\x98\x80"), 2u);          // an emoji
    EXPECT_EQ(display_width("a\xFF" "b"), 3u);                 // a bad byte: one column
}

TEST(BenchTable, AlignsCellsWithMultiByteCharacters) {
    const std::string table = markdown_table({"a", "t/s"}, {{"\xE6\x97\xA5\xE6\x9C\xAC", "1 \xC2\xB1 2"}, {"b", "10"}},
                                             {false, true});
    EXPECT_EQ(table, "| a    |   t/s |\n"
                     "| ---- | ----: |\n"
                     "| \xE6\x97\xA5\xE6\x9C\xAC | 1 \xC2\xB1 2 |\n"
                     "| b    |    10 |\n");
}

BenchSetup setup() {
    BenchSetup s;
    s.model_filename = "m \"1\".gguf";
    s.model_type     = "llama 1.0M f16";
    s.model_size     = 2097152;
    s.model_n_params = 1000000;
    s.backends       = "CPU";
    s.n_threads      = 4;
    s.n_batch        = 512;
    return s;
}

TEST(BenchTable, MarkdownCsvAndJson) {
    const std::vector<BenchRow> rows = {{"pp8", 8, 0, {10.0, 20.0}}, {"pp8+tg4", 8, 4, {5.0}}};
    EXPECT_EQ(format_bench(setup(), rows, BenchFormat::Markdown),
              "| model          |     size | params | backend | threads |    test |          t/s |\n"
              "| -------------- | -------: | -----: | ------- | ------: | ------: | -----------: |\n"
              "| llama 1.0M f16 | 2.00 MiB | 1.00 M | CPU     |       4 |     pp8 | 15.00 \xC2\xB1 7.07 |\n"
              "| llama 1.0M f16 | 2.00 MiB | 1.00 M | CPU     |       4 | pp8+tg4 |  5.00 \xC2\xB1 0.00 |\n");
    EXPECT_EQ(format_bench(setup(), rows, BenchFormat::Csv),
              "model_filename,model_type,model_size,model_n_params,backends,n_threads,n_batch,n_prompt,n_gen,avg_ts,"
              "stddev_ts\n"
              "\"m \"\"1\"\".gguf\",\"llama 1.0M f16\",\"2097152\",\"1000000\",\"CPU\",\"4\",\"512\",\"8\",\"0\","
              "\"15.000000\",\"7.071068\"\n"
              "\"m \"\"1\"\".gguf\",\"llama 1.0M f16\",\"2097152\",\"1000000\",\"CPU\",\"4\",\"512\",\"8\",\"4\","
              "\"5.000000\",\"0.000000\"\n");
    // a row's own thread count (--bench -t 1,2) wins over the setup's
    const std::vector<BenchRow> per_count = {{"tg4", 0, 4, {3.0}, 1}, {"tg4", 0, 4, {5.0}, 2}};
    EXPECT_EQ(format_bench(setup(), per_count, BenchFormat::Csv),
              "model_filename,model_type,model_size,model_n_params,backends,n_threads,n_batch,n_prompt,n_gen,avg_ts,"
              "stddev_ts\n"
              "\"m \"\"1\"\".gguf\",\"llama 1.0M f16\",\"2097152\",\"1000000\",\"CPU\",\"1\",\"512\",\"0\",\"4\","
              "\"3.000000\",\"0.000000\"\n"
              "\"m \"\"1\"\".gguf\",\"llama 1.0M f16\",\"2097152\",\"1000000\",\"CPU\",\"2\",\"512\",\"0\",\"4\","
              "\"5.000000\",\"0.000000\"\n");
    const std::string json = format_bench(setup(), {rows[1]}, BenchFormat::Json);
    EXPECT_EQ(json, "[\n  {\n"
                    "    \"model_filename\": \"m \\\"1\\\".gguf\",\n"
                    "    \"model_type\": \"llama 1.0M f16\",\n"
                    "    \"model_size\": 2097152,\n"
                    "    \"model_n_params\": 1000000,\n"
                    "    \"backends\": \"CPU\",\n"
                    "    \"n_threads\": 4,\n"
                    "    \"n_batch\": 512,\n"
                    "    \"n_prompt\": 8,\n"
                    "    \"n_gen\": 4,\n"
                    "    \"avg_ts\": 5.000000,\n"
                    "    \"stddev_ts\": 0.000000,\n"
                    "    \"samples_ts\": [5.000000]\n"
                    "  }\n]\n");
}

TEST(PromptEscapes, AsLlamaCppProcessesThem) {
    EXPECT_EQ(process_escapes("a\\nb\\tc\\\\d\\\"e\\'f\\rg"), "a\nb\tc\\d\"e'f\rg");
    EXPECT_EQ(process_escapes("\\x41\\x7a!"), "Az!");
    EXPECT_EQ(process_escapes("\\x4g \\q \\x4"), "\\x4g \\q \\x4"); // not escapes: kept as written
    EXPECT_EQ(process_escapes("end\\"), "end\\");
}

} // namespace
} // namespace switchyard::run
