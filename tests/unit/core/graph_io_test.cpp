// Graph output: ggml_graph_print (through the log) and ggml_graph_dump_dot (Graphviz records and edges, colours,
// escaping, an unwritable path). Node tensors are made by hand so these tests do not depend on op constructors.
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

class LogCapture {
  public:
    LogCapture() { ggml_log_set(&LogCapture::callback, this); }
    ~LogCapture() { ggml_log_set(nullptr, nullptr); }
    LogCapture(const LogCapture &)             = delete;
    LogCapture & operator=(const LogCapture &) = delete;

    const std::string & text() const { return text_; }

  private:
    static void callback(ggml_log_level, const char * text, void * user_data) {
        static_cast<LogCapture *>(user_data)->text_ += text;
    }
    std::string text_;
};

class GraphExport : public ::testing::Test {
  protected:
    void SetUp() override {
        ctx_ = ggml_init(ggml_init_params{1 << 20, nullptr, true});
        ASSERT_NE(ctx_, nullptr);
    }
    void TearDown() override { ggml_free(ctx_); }

    ggml_tensor * input(const char * name) {
        return ggml_set_name(ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4), name);
    }

    // A tensor computed by `op` from a (and b), shaped like a.
    ggml_tensor * op(ggml_op o, const char * name, ggml_tensor * a, ggml_tensor * b = nullptr) {
        ggml_tensor * t = ggml_new_tensor(ctx_, a->type, GGML_MAX_DIMS, a->ne);
        t->op           = o;
        t->src[0]       = a;
        t->src[1]       = b;
        return ggml_set_name(t, name);
    }

    ggml_context * ctx_ = nullptr;
};

TEST_F(GraphExport, PrintListsNodesAndLeafs) {
    ggml_tensor * a = input("alpha");
    ggml_tensor * b = input("beta");
    ggml_tensor * y = op(GGML_OP_ADD, "gamma", a, b);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    LogCapture log;
    ggml_graph_print(g);
    const std::string & text = log.text();
    EXPECT_NE(text.find("n_nodes = 1"), std::string::npos) << text;
    EXPECT_NE(text.find("n_leafs = 2"), std::string::npos) << text;
    EXPECT_NE(text.find("gamma"), std::string::npos) << text;
    EXPECT_NE(text.find("alpha"), std::string::npos) << text;
    EXPECT_NE(text.find("beta"), std::string::npos) << text;
    EXPECT_NE(text.find("ADD"), std::string::npos) << text;
}

std::string read_file(const std::string & path) {
    std::ifstream     in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string edge(const ggml_tensor * from, const ggml_tensor * to, int src) {
    char buf[128];
    std::snprintf(buf, sizeof(buf), "\"%p\" -> \"%p\" [ label = \"src %d\"; ]", static_cast<const void *>(from),
                  static_cast<const void *>(to), src);
    return buf;
}

TEST_F(GraphExport, DumpDotWritesNodesLeafsAndEdges) {
    ggml_tensor * a = input("alpha");
    ggml_tensor * b = input("beta|<x>");
    ggml_tensor * s = op(GGML_OP_MUL, "prod", a, b);
    ggml_tensor * y = op(GGML_OP_ADD, "out", s, a);
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);

    const std::string path = ::testing::TempDir() + "switchyard_graph_test.dot";
    {
        LogCapture log;
        ggml_graph_dump_dot(g, nullptr, path.c_str());
        EXPECT_NE(log.text().find(path), std::string::npos) << log.text();
    }
    const std::string dot = read_file(path);
    std::remove(path.c_str());
    ASSERT_FALSE(dot.empty());
    EXPECT_EQ(dot.rfind("digraph G {", 0), 0u) << dot;
    EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
    EXPECT_NE(dot.find("prod (f32)"), std::string::npos) << dot;
    EXPECT_NE(dot.find("out (f32)"), std::string::npos) << dot;
    EXPECT_NE(dot.find("alpha (f32)"), std::string::npos) << dot;
    EXPECT_NE(dot.find("beta\\|\\<x\\> (f32)"), std::string::npos) << dot; // record syntax escaped
    EXPECT_NE(dot.find("[4, 1, 1, 1]"), std::string::npos) << dot;
    EXPECT_NE(dot.find("fillcolor = pink"), std::string::npos) << dot; // leafs
    EXPECT_NE(dot.find(edge(a, s, 0)), std::string::npos) << dot;
    EXPECT_NE(dot.find(edge(b, s, 1)), std::string::npos) << dot;
    EXPECT_NE(dot.find(edge(s, y, 0)), std::string::npos) << dot;
    EXPECT_NE(dot.find(edge(a, y, 1)), std::string::npos) << dot;
    EXPECT_EQ(dot.find(edge(b, y, 1)), std::string::npos) << dot;
    size_t arrows = 0;
    for (size_t pos = dot.find("->"); pos != std::string::npos; pos = dot.find("->", pos + 2)) {
        ++arrows;
    }
    EXPECT_EQ(arrows, 4u);
}

TEST_F(GraphExport, DumpDotMarksNodesMissingFromTheForwardGraph) {
    ggml_tensor * a  = input("a");
    ggml_tensor * y  = op(GGML_OP_SQR, "y", a);
    ggml_tensor * gy = op(GGML_OP_MUL, "backward", y, a);
    ggml_cgraph * gf = ggml_new_graph(ctx_);
    ggml_build_forward_expand(gf, y);
    ggml_cgraph * gb = ggml_graph_dup(ctx_, gf, false);
    ggml_build_forward_expand(gb, gy);

    const std::string path = ::testing::TempDir() + "switchyard_graph_test_gb.dot";
    ggml_graph_dump_dot(gb, gf, path.c_str());
    const std::string dot = read_file(path);
    std::remove(path.c_str());
    const size_t bw = dot.find("backward (f32)");
    ASSERT_NE(bw, std::string::npos) << dot;
    const size_t line = dot.rfind('\n', bw);
    EXPECT_NE(dot.substr(line, bw - line).find("lightblue"), std::string::npos) << dot;
    EXPECT_EQ(dot.find("lightblue"), dot.rfind("lightblue")); // only that node
}

TEST_F(GraphExport, DumpDotToAnUnwritablePathLogs) {
    ggml_tensor * y = op(GGML_OP_SQR, "y", input("a"));
    ggml_cgraph * g = ggml_new_graph(ctx_);
    ggml_build_forward_expand(g, y);
    LogCapture log;
    ggml_graph_dump_dot(g, nullptr, "/nonexistent-directory/switchyard/graph.dot");
    EXPECT_NE(log.text().find("ggml_graph_dump_dot"), std::string::npos) << log.text();
}


} // namespace
