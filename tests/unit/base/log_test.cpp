// ggml_log_get / ggml_log_set: the getter returns what was set, the default sink when nothing is (which can be
// set back to restore it), and accepts NULL for either output; a callback put back receives the messages again.
#include "ggml.h"

#include <gtest/gtest.h>

#include <string>

namespace {

void capture(ggml_log_level, const char * text, void * user_data) { *static_cast<std::string *>(user_data) += text; }

TEST(Log, GetReturnsTheCallbackThatWasSet) {
    ggml_log_set(nullptr, nullptr);
    ggml_log_callback def      = nullptr;
    void *            def_data = reinterpret_cast<void *>(1);
    ggml_log_get(&def, &def_data);
    EXPECT_NE(def, nullptr) << "the default sink is a callback too";
    EXPECT_EQ(def_data, nullptr);

    std::string text;
    ggml_log_set(capture, &text);
    ggml_log_callback cb   = nullptr;
    void *            data = nullptr;
    ggml_log_get(&cb, &data);
    EXPECT_EQ(cb, &capture);
    EXPECT_EQ(data, &text);

    // what an application does to silence the library for a while and restore what was there
    ggml_log_set(def, def_data);
    ggml_log_get(&cb, &data);
    EXPECT_EQ(cb, def);
    EXPECT_EQ(data, nullptr);

    ggml_log_set(capture, &text);
    ggml_log_get(nullptr, &data);
    EXPECT_EQ(data, &text);
    ggml_log_get(&cb, nullptr);
    EXPECT_EQ(cb, &capture);
    ggml_log_get(nullptr, nullptr);
    ggml_log_set(nullptr, nullptr);
    ggml_log_get(&cb, &data);
    EXPECT_EQ(cb, def);
}

TEST(Log, ARestoredCallbackReceivesTheMessages) {
    ggml_context * ctx   = ggml_init(ggml_init_params{ggml_graph_overhead(), nullptr, true});
    ggml_cgraph *  graph = ggml_new_graph(ctx);
    std::string    first, second;
    ggml_log_set(capture, &first);
    ggml_log_callback saved      = nullptr;
    void *            saved_data = nullptr;
    ggml_log_get(&saved, &saved_data);
    ggml_log_set(capture, &second);
    ggml_graph_print(graph); // logs through the current callback
    EXPECT_TRUE(first.empty()) << first;
    EXPECT_NE(second.find("GRAPH"), std::string::npos) << second;
    ggml_log_set(saved, saved_data);
    const std::string before = second;
    ggml_graph_print(graph);
    ggml_log_set(nullptr, nullptr);
    EXPECT_NE(first.find("GRAPH"), std::string::npos) << first;
    EXPECT_EQ(second, before);
    ggml_free(ctx);
}

} // namespace
