// switchyard-run's command line (tools/run/cli.h): values checked with a message naming the flag, the prompt
// given once, llama.cpp's and llama-bench's flags (-s, -f, -e, -fa, --min-p, --repeat-*, -n -1; --bench's -p, -n,
// -pg, -r, -o) and their defaults.
#include "cli.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace switchyard::run {
namespace {

struct Parsed {
    bool        ok = false;
    Options     o;
    std::string error;
};

Parsed parse(std::vector<std::string> args) {
    args.insert(args.begin(), "switchyard-run");
    std::vector<char *> argv;
    for (std::string & a : args) {
        argv.push_back(a.data());
    }
    Parsed p;
    p.ok = parse_options(static_cast<int>(argv.size()), argv.data(), p.o, p.error);
    return p;
}

void expect_usage_error(const std::vector<std::string> & args, const std::string & part) {
    const Parsed p = parse(args);
    EXPECT_FALSE(p.ok) << args[0];
    EXPECT_NE(p.error.find(part), std::string::npos) << p.error;
}

TEST(Cli, TensorSplitSharesMustBeFiniteNonNegativeWithAPositiveSum) {
    for (const char * bad : {"inf,1", "1e39,1", "nan,1", "0,0", "-1,2", "1,x"}) {
        SCOPED_TRACE(bad);
        expect_usage_error({"--tensor-split", bad}, "--tensor-split");
    }
    const Parsed p = parse({"-ts", "1,3"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.o.devices.tensor_split, (std::vector<float>{1.0f, 3.0f}));
}

TEST(Cli, ThreadsOutsideWhatTheBackendTakesAreRefused) {
    expect_usage_error({"-t", "600"}, "for -t: must be an integer in 1..512");
    expect_usage_error({"-t", "0"}, "-t");
    const Parsed p = parse({"-t", "512"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.o.devices.n_threads, 512);
}

TEST(Cli, ThreadListsAreForBenchOnly) {
    const Parsed b = parse({"--bench", "-t", "1,2,8"});
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(b.o.bench_options.n_threads, (std::vector<int>{1, 2, 8}));
    EXPECT_EQ(b.o.devices.n_threads, 1); // the devices start with the first
    expect_usage_error({"-t", "1,2"}, "-t takes a list of thread counts only with --bench");
    expect_usage_error({"--bench", "-t", "1,0"}, "for -t: must be an integer in 1..512");
    expect_usage_error({"--bench", "-t", "1,,2"}, "for -t");
}

TEST(Cli, ThePromptIsGivenOnce) {
    expect_usage_error({"--tokens", "1", "-p", "hello"}, "--tokens and -p both give the prompt");
    expect_usage_error({"-p", "hello", "--tokens", "1"}, "--tokens and -p");
    expect_usage_error({"--tokens", "1", "-f", "prompt.txt"}, "--tokens and -f");
    expect_usage_error({"-p", "hello", "-f", "prompt.txt"}, "-p and -f both give the prompt");
    const Parsed p = parse({"-f", "prompt.txt", "-e"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.o.prompt_file, "prompt.txt");
    EXPECT_TRUE(p.o.escape);
    EXPECT_FALSE(parse({"-e", "--no-escape"}).o.escape);
    EXPECT_FALSE(parse({}).o.escape);
}

TEST(Cli, LlamaCppSamplingFlagsAndDefaults) {
    const Parsed d = parse({});
    ASSERT_TRUE(d.ok);
    EXPECT_EQ(d.o.sampling.min_p, 0.05f); // common.h: min_p 0.05, penalty_repeat 1.0, penalty_last_n 64
    EXPECT_EQ(d.o.sampling.repeat_penalty, 1.0f);
    EXPECT_EQ(d.o.sampling.repeat_last_n, 64);
    EXPECT_EQ(d.o.n_predict, 32);
    EXPECT_EQ(d.o.flash_attn, FlashAttn::Auto);
    const Parsed p = parse({"-s", "7", "--min-p", "0.1", "--repeat-penalty", "1.5", "--repeat-last-n", "16", "-n",
                            "-1", "-fa", "off"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.o.sampling.seed, 7u);
    EXPECT_TRUE(p.o.seed_given);
    EXPECT_EQ(p.o.sampling.min_p, 0.1f);
    EXPECT_EQ(p.o.sampling.repeat_penalty, 1.5f);
    EXPECT_EQ(p.o.sampling.repeat_last_n, 16);
    EXPECT_EQ(p.o.n_predict, -1);
    EXPECT_EQ(p.o.flash_attn, FlashAttn::Off);
    EXPECT_EQ(parse({"-fa", "on"}).o.flash_attn, FlashAttn::On);
    EXPECT_TRUE(parse({"--version"}).o.version);
    expect_usage_error({"-n", "-2"}, "for -n");
    expect_usage_error({"-fa", "maybe"}, "on, off or auto");
    expect_usage_error({"--repeat-penalty", "0"}, "--repeat-penalty");
    expect_usage_error({"--repeat-last-n", "-1"}, "--repeat-last-n");
    expect_usage_error({"--min-p", "1.5"}, "--min-p");
    expect_usage_error({"--temp", "nan"}, "--temp");
}

TEST(Cli, BenchReadsPAndNAsTestSizes) {
    const Parsed d = parse({"--bench"});
    ASSERT_TRUE(d.ok) << d.error;
    EXPECT_EQ(d.o.bench_options.n_prompt, (std::vector<int64_t>{512}));
    EXPECT_EQ(d.o.bench_options.n_gen, (std::vector<int64_t>{128}));
    EXPECT_EQ(d.o.bench_options.reps, 5); // llama-bench's default
    EXPECT_EQ(d.o.bench_options.format, BenchFormat::Markdown);
    // -p and -n before --bench are read as sizes too
    const Parsed p = parse({"-p", "64,128", "-n", "0", "--bench", "-pg", "32,16", "-pg", "8,4", "-r", "2", "-o", "csv"});
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.o.bench_options.n_prompt, (std::vector<int64_t>{64, 128}));
    EXPECT_EQ(p.o.bench_options.n_gen, (std::vector<int64_t>{0}));
    ASSERT_EQ(p.o.bench_options.pg.size(), 2u);
    EXPECT_EQ(p.o.bench_options.pg[1], (std::pair<int64_t, int64_t>{8, 4}));
    EXPECT_EQ(p.o.bench_options.reps, 2);
    EXPECT_EQ(p.o.bench_options.format, BenchFormat::Csv);
    EXPECT_EQ(parse({"--bench", "-o", "json"}).o.bench_options.format, BenchFormat::Json);
    expect_usage_error({"--bench", "-p", "0", "-n", "0"}, "no test");
    expect_usage_error({"--bench", "-p", "hello"}, "-p in --bench");
    expect_usage_error({"--bench", "-pg", "32"}, "PP,TG");
    expect_usage_error({"--bench", "-o", "xml"}, "md, csv or json");
    expect_usage_error({"--bench", "--trace", "t.json"}, "--trace applies to a generation run, not to --bench");
}

} // namespace
} // namespace switchyard::run
