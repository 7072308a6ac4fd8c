// Size and range rules of the tensor constructors (issue 11): element counts and byte sizes that overflow are user
// errors (logged, NULL: ggml_new_tensor_*, views, reshape, cont), and a view must stay inside the memory it views
// with its strided extent, not only its packed size (a shape error, through the abort callback). Every rejected
// call is checked for its exact message and for leaving the context and the source's bytes as they were.
#include "op_fixture.h"

#include "ggml-cpu.h"
#include "ggml.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

namespace {

using switchyard::testing::expect_layout;

constexpr size_t kMaxBytes = PTRDIFF_MAX;

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

// A 16-float source named "src" filled with 0..15, with a guard tensor on either side of it in the context, so a
// test can check that nothing around the source (nor the source itself) changed.
class TensorBounds : public switchyard::testing::OpFixture {
  protected:
    void SetUp() override {
        OpFixture::SetUp();
        before_ = t(GGML_TYPE_F32, 16);
        src_    = t(GGML_TYPE_F32, 16);
        after_  = t(GGML_TYPE_F32, 16);
        ggml_set_name(src_, "src");
        for (int i = 0; i < 16; ++i) {
            ggml_set_f32_1d(before_, i, -1.0f);
            ggml_set_f32_1d(src_, i, static_cast<float>(i));
            ggml_set_f32_1d(after_, i, -2.0f);
        }
        used_ = ggml_used_mem(ctx_);
    }

    // The message of the shape error f raises; a test failure if it raises none.
    static std::string rejected(const std::function<void()> & f) { return fatal_message(f); }

    // Nothing was created since SetUp, and the source and its neighbours hold their values.
    void expect_untouched() const {
        EXPECT_EQ(ggml_used_mem(ctx_), used_) << "a tensor was created";
        for (int i = 0; i < 16; ++i) {
            EXPECT_EQ(ggml_get_f32_1d(before_, i), -1.0f) << i;
            EXPECT_EQ(ggml_get_f32_1d(src_, i), static_cast<float>(i)) << i;
            EXPECT_EQ(ggml_get_f32_1d(after_, i), -2.0f) << i;
        }
    }

    ggml_tensor * before_ = nullptr;
    ggml_tensor * src_    = nullptr;
    ggml_tensor * after_  = nullptr;
    size_t        used_   = 0;
};

// ---- views: the strided extent ------------------------------------------------------------------------------

TEST_F(TensorBounds, IssueCaseStridedView2dPastItsSourceIsRejected) {
    // 4 rows of 4 floats, 64 bytes apart: 16 floats packed, but the last row starts at byte 192 of a 64-byte source
    LogCapture        log;
    const std::string msg = rejected([&] { ggml_view_2d(ctx_, src_, 4, 4, 64, 0); });
    EXPECT_EQ(msg, "[ggml_view_2d] extents [4, 4, 1, 1] with strides [4, 64, 256, 256] span 208 bytes at offset 0, "
                   "past the 64 bytes of the viewed memory (a f32 [16, 1, 1, 1])");
    EXPECT_EQ(log.text(), msg + "\n");
    expect_untouched();
}

TEST_F(TensorBounds, StridedView2dThatEndsExactlyAtTheSourceIsAccepted) {
    // rows of 4 floats, 48 bytes apart: the second row covers bytes 48..64
    ggml_tensor * v = ggml_view_2d(ctx_, src_, 4, 2, 48, 0);
    expect_layout(v, GGML_TYPE_F32, {4, 2, 1, 1}, {4, 48, 96, 96});
    EXPECT_EQ(ggml_nbytes(v), 64u);
    EXPECT_EQ(ggml_get_f32_1d(v, 4), 12.0f);
    // one byte further is one too many; so is an offset that pushes the same view past the end
    EXPECT_EQ(rejected([&] { ggml_view_2d(ctx_, src_, 4, 2, 49, 0); }),
              "[ggml_view_2d] extents [4, 2, 1, 1] with strides [4, 49, 98, 98] span 65 bytes at offset 0, past the "
              "64 bytes of the viewed memory (a f32 [16, 1, 1, 1])");
    EXPECT_EQ(rejected([&] { ggml_view_2d(ctx_, src_, 4, 2, 44, 8); }),
              "[ggml_view_2d] extents [4, 2, 1, 1] with strides [4, 44, 88, 88] span 60 bytes at offset 8, past the "
              "64 bytes of the viewed memory (a f32 [16, 1, 1, 1])");
}

TEST_F(TensorBounds, View3dAnd4dStridesArePartOfTheExtent) {
    ggml_tensor * base = t(GGML_TYPE_F32, 4, 4, 2); // 128 bytes
    ggml_set_name(base, "base");
    // 2 planes of 2 rows: 16 + 16 + 96 = 128 bytes
    expect_layout(ggml_view_3d(ctx_, base, 4, 2, 2, 16, 96, 0), GGML_TYPE_F32, {4, 2, 2, 1}, {4, 16, 96, 192});
    const size_t used = ggml_used_mem(ctx_);
    EXPECT_EQ(rejected([&] { ggml_view_3d(ctx_, base, 4, 2, 2, 16, 100, 0); }),
              "[ggml_view_3d] extents [4, 2, 2, 1] with strides [4, 16, 100, 200] span 132 bytes at offset 0, past "
              "the 128 bytes of the viewed memory (a f32 [4, 4, 2, 1])");
    // nb3 of 80: 2 volumes of one row, the second one starting at byte 80 of 128 (ok), at 120 (not ok)
    const size_t used_before_one = ggml_used_mem(ctx_);
    expect_layout(ggml_view_4d(ctx_, base, 4, 1, 1, 2, 16, 16, 80, 0), GGML_TYPE_F32, {4, 1, 1, 2}, {4, 16, 16, 80});
    EXPECT_EQ(rejected([&] { ggml_view_4d(ctx_, base, 4, 1, 1, 2, 16, 16, 120, 0); }),
              "[ggml_view_4d] extents [4, 1, 1, 2] with strides [4, 16, 16, 120] span 136 bytes at offset 0, past "
              "the 128 bytes of the viewed memory (a f32 [4, 4, 2, 1])");
    const size_t used_after_one = ggml_used_mem(ctx_);
    EXPECT_GT(used_after_one, used);

    // strides whose extent passes the largest size, or wraps size_t
    EXPECT_EQ(rejected([&] { ggml_view_4d(ctx_, base, 4, 1, 1, 2, 16, 16, kMaxBytes, 0); }),
              "[ggml_view_4d] extents [4, 1, 1, 2] with strides [4, 16, 16, 9223372036854775807] span more than "
              "9223372036854775807 bytes");
    EXPECT_EQ(rejected([&] { ggml_view_4d(ctx_, base, 4, 1, 1, 3, 16, 16, size_t{1} << 63, 0); }),
              "[ggml_view_4d] extents [4, 1, 1, 3] with strides [4, 16, 16, 9223372036854775808] span more than "
              "9223372036854775807 bytes");
    EXPECT_EQ(rejected([&] { ggml_view_3d(ctx_, base, 4, 2, 2, SIZE_MAX, 16, 0); }),
              "[ggml_view_3d] extents [4, 2, 2, 1] with strides [4, 18446744073709551615, 16, 32] span more than "
              "9223372036854775807 bytes");
    // a stride that only dimensions of extent 1 use does not count
    expect_layout(ggml_view_4d(ctx_, base, 4, 1, 1, 1, SIZE_MAX, SIZE_MAX, SIZE_MAX, 0), GGML_TYPE_F32,
                  {4, 1, 1, 1}, {4, SIZE_MAX, SIZE_MAX, SIZE_MAX});
    EXPECT_EQ(ggml_used_mem(ctx_) - used_after_one, used_after_one - used_before_one); // one view more, no other
}

TEST_F(TensorBounds, QuantizedViewsCountWholeBlocks) {
    ggml_tensor * q = t(GGML_TYPE_Q8_0, 64, 2); // rows of 2 blocks of 34 bytes: 136 bytes
    // one block per row, rows 102 bytes apart: 102 + 34 = 136
    expect_layout(ggml_view_2d(ctx_, q, 32, 2, 102, 0), GGML_TYPE_Q8_0, {32, 2, 1, 1}, {34, 102, 204, 204});
    EXPECT_EQ(rejected([&] { ggml_view_2d(ctx_, q, 32, 2, 103, 0); }),
              "[ggml_view_2d] extents [32, 2, 1, 1] with strides [34, 103, 206, 206] span 137 bytes at offset 0, "
              "past the 136 bytes of the viewed memory (a q8_0 [64, 2, 1, 1])");
}

TEST_F(TensorBounds, ViewsOfViewsAreCheckedAgainstTheRoot) {
    ggml_tensor * v = ggml_view_1d(ctx_, src_, 4, 16); // floats 4..7
    // relative to v; the root's bytes 16..64 (beyond v's own 16 bytes, inside the root: upstream's rule)
    ggml_tensor * w = ggml_view_2d(ctx_, v, 4, 3, 16, 0);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->view_src, src_);
    EXPECT_EQ(w->view_offs, 16u);
    EXPECT_EQ(ggml_get_f32_1d(w, 8), 12.0f);
    const size_t used = ggml_used_mem(ctx_);
    EXPECT_EQ(rejected([&] { ggml_view_2d(ctx_, v, 4, 3, 20, 0); }),
              "[ggml_view_2d] extents [4, 3, 1, 1] with strides [4, 20, 60, 60] span 56 bytes at offset 16, past "
              "the 64 bytes of the viewed memory (a f32 [4, 1, 1, 1])");
    EXPECT_EQ(rejected([&] { ggml_view_2d(ctx_, w, 4, 2, 32, 16); }),
              "[ggml_view_2d] extents [4, 2, 1, 1] with strides [4, 32, 64, 64] span 48 bytes at offset 32, past "
              "the 64 bytes of the viewed memory (a f32 [4, 3, 1, 1])");
    EXPECT_EQ(ggml_used_mem(ctx_), used);
}

TEST_F(TensorBounds, OffsetsThatOverflowAreRejected) {
    EXPECT_EQ(rejected([&] { ggml_view_1d(ctx_, src_, 1, SIZE_MAX); }),
              "[ggml_view_1d] 4 bytes at offset 18446744073709551615 exceed the 64 bytes of the viewed memory (a f32 "
              "[16, 1, 1, 1])");
    // an empty view touches no byte: any offset, as upstream (llama.cpp views an empty state tensor at an offset)
    EXPECT_NE(ggml_view_1d(ctx_, src_, 0, SIZE_MAX), nullptr);
    ggml_tensor * empty = ggml_view_2d(ctx_, src_, 4, 0, 16, 2048);
    ASSERT_NE(empty, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(empty->data), reinterpret_cast<uintptr_t>(src_->data) + 2048);
    EXPECT_EQ(rejected([&] { ggml_view_3d(ctx_, src_, 1, 2, 1, SIZE_MAX - 3, 4, 4); }),
              "[ggml_view_3d] extents [1, 2, 1, 1] with strides [4, 18446744073709551612, 4, 4] span more than "
              "9223372036854775807 bytes");
    ggml_tensor * v    = ggml_view_1d(ctx_, src_, 4, 16);
    const size_t  used = ggml_used_mem(ctx_);
    EXPECT_EQ(rejected([&] { ggml_view_1d(ctx_, v, 1, SIZE_MAX - 8); }),
              "[ggml_view_1d] offset 18446744073709551607 plus the offset 16 of the viewed tensor overflows");
    EXPECT_EQ(rejected([&] { ggml_view_4d(ctx_, v, 1, 1, 1, 1, 4, 4, 4, SIZE_MAX - 15); }),
              "[ggml_view_4d] offset 18446744073709551600 plus the offset 16 of the viewed tensor overflows");
    EXPECT_EQ(ggml_used_mem(ctx_), used);
}

TEST_F(TensorBounds, ViewSizesThatOverflowGiveNull) {
    // a size that overflows is a user error, as in ggml_new_tensor: logged, NULL
    LogCapture log;
    // rows of 16 bytes, 2^62 + 1 of them: the packed size wraps to 16 bytes, which would fit the source
    EXPECT_EQ(ggml_view_2d(ctx_, src_, 4, (int64_t{1} << 62) + 1, 16, 0), nullptr);
    // zero strides repeat the same bytes, so only the element count can overflow
    EXPECT_EQ(ggml_view_4d(ctx_, src_, 4, int64_t{1} << 40, int64_t{1} << 40, 1, 0, 0, 0, 0), nullptr);
    // nb2 = nb1 * ne1 of a 2-d view must not wrap either (only reachable for an empty view)
    EXPECT_EQ(ggml_view_2d(ctx_, src_, 0, 3, SIZE_MAX / 2, 0), nullptr);
    EXPECT_EQ(log.text(),
              "[ggml_view_2d] the size of a f32 tensor of [4, 4611686018427387905, 1, 1] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_view_4d] the size of a f32 tensor of [4, 1099511627776, 1099511627776, 1] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_view_2d] the stride nb[2] = 9223372036854775807 * 3 overflows\n");
    // a negative extent stays a shape error
    EXPECT_EQ(rejected([&] { ggml_view_2d(ctx_, src_, 4, -1, 16, 0); }), "[ggml_view_2d] negative extent ne[1] = -1");
    expect_untouched();
}

// ---- views of views: permute, transpose, reshape ------------------------------------------------------------

TEST_F(TensorBounds, PermuteAndTransposeOfAViewKeepItsExtent) {
    ggml_tensor * v = ggml_view_3d(ctx_, src_, 2, 2, 2, 16, 32, 4); // floats 1,2 5,6 9,10 13,14
    ggml_tensor * p = ggml_permute(ctx_, v, 2, 0, 1, 3);
    expect_layout(p, GGML_TYPE_F32, {2, 2, 2, 1}, {16, 32, 4, 64});
    EXPECT_EQ(ggml_nbytes(p), ggml_nbytes(v));
    EXPECT_EQ(p->view_offs, 4u);
    ggml_tensor * tr = ggml_transpose(ctx_, v);
    EXPECT_EQ(ggml_nbytes(tr), ggml_nbytes(v));
    // element (1, 0, 1) of the transpose is element (0, 1, 1) of v: byte 4 + 16 + 32, float 13
    EXPECT_EQ(ggml_get_f32_nd(tr, 1, 0, 1, 0), 13.0f);
}

TEST_F(TensorBounds, AViewChangedByHandIsNotViewedAgain) {
    ggml_tensor * v = ggml_view_2d(ctx_, src_, 4, 2, 16, 0);
    ggml_set_name(v, "v");
    v->nb[1] = 64; // now reaches bytes 64..80, past src
    const size_t used = ggml_used_mem(ctx_);
    LogCapture   log;
    EXPECT_EQ(ggml_permute(ctx_, v, 1, 0, 2, 3), nullptr);
    EXPECT_EQ(log.text(), "[ggml_permute] view 'v' at offset 0 reaches past the 64 bytes of its source 'src'\n");
    EXPECT_EQ(ggml_transpose(ctx_, v), nullptr);
    EXPECT_EQ(ggml_view_tensor(ctx_, v), nullptr);
    EXPECT_EQ(ggml_used_mem(ctx_), used);
}

TEST_F(TensorBounds, ReshapeAndContWithOverflowingExtentsGiveNull) {
    // 4 * (2^62 + 1) * 4 wraps to 16, the element count of src: the check must not be fooled by the wrap
    const int64_t big = (int64_t{1} << 62) + 1;
    ggml_tensor * b   = t(GGML_TYPE_F32, 2, 2);
    b->ne[1]          = big; // a shape taken from a tensor changed by hand: 2 * big * 8 also wraps to 16
    b->ne[2]          = 8;
    used_             = ggml_used_mem(ctx_);
    {
        LogCapture log;
        EXPECT_EQ(ggml_reshape_4d(ctx_, src_, 4, big, 4, 1), nullptr);
        EXPECT_EQ(ggml_cont_4d(ctx_, src_, 4, big, 4, 1), nullptr);
        EXPECT_EQ(ggml_reshape(ctx_, src_, b), nullptr);
        EXPECT_EQ(log.text(),
                  "[ggml_reshape_4d] the size of a f32 tensor of [4, 4611686018427387905, 4, 1] overflows (more than "
                  "9223372036854775807 elements or 9223372036854775807 bytes)\n"
                  "[ggml_cont_4d] the size of a f32 tensor of [4, 4611686018427387905, 4, 1] overflows (more than "
                  "9223372036854775807 elements or 9223372036854775807 bytes)\n"
                  "[ggml_reshape] the size of a f32 tensor of [2, 4611686018427387905, 8, 1] overflows (more than "
                  "9223372036854775807 elements or 9223372036854775807 bytes)\n");
    }
    // negative extents stay a shape error
    EXPECT_EQ(rejected([&] { ggml_reshape_2d(ctx_, src_, -4, -4); }), "[ggml_reshape_2d] negative extent ne[0] = -4");
    expect_untouched();
}

// ---- SET / ACC write a strided view of a ----------------------------------------------------------------------

TEST_F(TensorBounds, SetAndAccViewsMustStayInsideA) {
    ggml_tensor * b = t(GGML_TYPE_F32, 4);
    ASSERT_NE(ggml_set_1d(ctx_, src_, b, 48), nullptr); // bytes 48..64
    used_ = ggml_used_mem(ctx_);
    EXPECT_EQ(rejected([&] { ggml_set_1d(ctx_, src_, b, 52); }),
              "[ggml_set_1d] extents [4, 1, 1, 1] with strides [4, 64, 64, 64] span 16 bytes at offset 52, past the "
              "64 bytes of a");
    ggml_tensor * b2 = t(GGML_TYPE_F32, 2, 3);
    used_            = ggml_used_mem(ctx_);
    EXPECT_EQ(rejected([&] { ggml_set_2d(ctx_, src_, b2, 32, 0); }),
              "[ggml_set_2d] extents [2, 3, 1, 1] with strides [4, 32, 64, 64] span 72 bytes at offset 0, past the 64 "
              "bytes of a");
    EXPECT_EQ(rejected([&] { ggml_acc(ctx_, src_, b2, 28, 64, 64, 4); }),
              "[ggml_acc] extents [2, 3, 1, 1] with strides [4, 28, 64, 64] span 64 bytes at offset 4, past the 64 "
              "bytes of a");
    EXPECT_EQ(rejected([&] { ggml_acc_inplace(ctx_, src_, b2, 0x7fffffff, 64, 64, 0); }),
              "[ggml_acc_inplace] extents [2, 3, 1, 1] with strides [4, 2147483647, 64, 64] span 4294967302 bytes at "
              "offset 0, past the 64 bytes of a");
    expect_untouched();
}

// ---- new tensors: element counts and byte sizes ---------------------------------------------------------------

TEST_F(TensorBounds, IssueCaseNewTensorWhoseSizeWrapsIsRejected) {
    LogCapture log;
    // 3 * (2^62 + 1) floats: the count passes INT64_MAX, the bytes wrap to 12
    EXPECT_EQ(ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 3, (int64_t{1} << 62) + 1), nullptr);
    EXPECT_EQ(log.text(), "[ggml_new_tensor_2d] the size of a f32 tensor of [3, 4611686018427387905, 1, 1] overflows "
                          "(more than 9223372036854775807 elements or 9223372036854775807 bytes)\n");
    expect_untouched();
}

TEST_F(TensorBounds, NewTensorCountsAndBytesMustFit) {
    LogCapture log;
    // the element count overflows int64 (2^64)
    EXPECT_EQ(ggml_new_tensor_4d(ctx_, GGML_TYPE_I8, 1 << 20, 1 << 20, 1 << 20, 1 << 4), nullptr);
    // the count fits (2^62), the bytes (2^64) wrap size_t
    EXPECT_EQ(ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, int64_t{1} << 31, int64_t{1} << 31), nullptr);
    // the bytes (2^63) fit size_t but pass PTRDIFF_MAX
    EXPECT_EQ(ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, int64_t{1} << 31, int64_t{1} << 15, int64_t{1} << 15), nullptr);
    // a block type: 2^69 elements in 2^64 blocks
    EXPECT_EQ(ggml_new_tensor_3d(ctx_, GGML_TYPE_Q4_0, int64_t{32} << 30, int64_t{1} << 30, int64_t{1} << 4), nullptr);
    const int64_t ne[4] = {INT64_MAX, 2, 1, 1};
    EXPECT_EQ(ggml_new_tensor(ctx_, GGML_TYPE_I8, 2, ne), nullptr);
    EXPECT_EQ(ggml_new_tensor_1d(ctx_, GGML_TYPE_F64, INT64_MAX), nullptr);
    EXPECT_EQ(log.text(),
              "[ggml_new_tensor_4d] the size of a i8 tensor of [1048576, 1048576, 1048576, 16] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_new_tensor_2d] the size of a f32 tensor of [2147483648, 2147483648, 1, 1] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_new_tensor_3d] the size of a f32 tensor of [2147483648, 32768, 32768, 1] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_new_tensor_3d] the size of a q4_0 tensor of [34359738368, 1073741824, 16, 1] overflows (more "
              "than 9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_new_tensor] the size of a i8 tensor of [9223372036854775807, 2, 1, 1] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n"
              "[ggml_new_tensor_1d] the size of a f64 tensor of [9223372036854775807, 1, 1, 1] overflows (more than "
              "9223372036854775807 elements or 9223372036854775807 bytes)\n");
    expect_untouched();
}

TEST_F(TensorBounds, BlockTypeRowsWhoseByteCountOverflowsBeforeTheDivisionAreRejected) {
    // q4_1: 2^60 elements in a row is 2^55 blocks of 20 bytes (fits), but ggml_nbytes computes 2^60 * 20 first
    LogCapture log;
    EXPECT_EQ(ggml_new_tensor_1d(ctx_, GGML_TYPE_Q4_1, int64_t{1} << 60), nullptr);
    EXPECT_EQ(log.text(), "[ggml_new_tensor_1d] the size of a q4_1 tensor of [1152921504606846976, 1, 1, 1] overflows "
                          "(more than 9223372036854775807 elements or 9223372036854775807 bytes)\n");
    expect_untouched();
}

TEST(TensorSizes, TheLargestSizesFitInAContextWithoutData) {
    ggml_context * ctx = ggml_init(ggml_init_params{16 * ggml_tensor_overhead(), nullptr, true});
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * i8 = ggml_new_tensor_1d(ctx, GGML_TYPE_I8, INT64_MAX); // PTRDIFF_MAX bytes exactly
    ASSERT_NE(i8, nullptr);
    EXPECT_EQ(ggml_nbytes(i8), kMaxBytes);
    EXPECT_EQ(ggml_nelements(i8), INT64_MAX);
    ggml_tensor * q = ggml_new_tensor_2d(ctx, GGML_TYPE_Q4_0, int64_t{1} << 40, int64_t{1} << 22);
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(ggml_nbytes(q), size_t{18} << 57);
    EXPECT_EQ(q->nb[1], size_t{18} << 35);
    ggml_free(ctx);
}

TEST(TensorSizes, AWrappedSizeNeverReachesTheAllocation) {
    // before the fix this tensor got 12 bytes of data, and filling it wrote far past them
    ggml_context * ctx = ggml_init(ggml_init_params{1 << 16, nullptr, false});
    ASSERT_NE(ctx, nullptr);
    const size_t used = ggml_used_mem(ctx);
    {
        LogCapture log;
        ggml_tensor * t = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 3, (int64_t{1} << 62) + 1);
        EXPECT_EQ(t, nullptr);
        EXPECT_EQ(ggml_set_f32(t, 1.0f), nullptr); // a NULL tensor is logged, not written
        EXPECT_NE(log.text().find("[ggml_set_f32] tensor is NULL"), std::string::npos) << log.text();
    }
    EXPECT_EQ(ggml_used_mem(ctx), used);
    ggml_free(ctx);
}

// ---- element accessors on strided views ---------------------------------------------------------------------

TEST_F(TensorBounds, AccessorsWriteOnlyTheViewedElements) {
    ggml_tensor * v = ggml_view_2d(ctx_, src_, 2, 2, 32, 8); // floats 2, 3 and 10, 11
    ggml_set_f32(v, 100.0f);
    LogCapture log;
    ggml_set_f32_1d(v, 4, 7.0f);
    ggml_set_f32_nd(v, 0, 2, 0, 0, 7.0f);
    EXPECT_EQ(ggml_get_f32_1d(v, -1), 0.0f);
    EXPECT_EQ(log.text(), "[ggml_set_f32_1d] index 4 is out of range for tensor 'src (view)' of 4 elements\n"
                          "[ggml_set_f32_nd] index 2 of dimension 1 is out of range for tensor 'src (view)' (ne = 2, 2, "
                          "1, 1)\n"
                          "[ggml_get_f32_1d] index -1 is out of range for tensor 'src (view)' of 4 elements\n");
    for (int i = 0; i < 16; ++i) {
        const bool viewed = i == 2 || i == 3 || i == 10 || i == 11;
        EXPECT_EQ(ggml_get_f32_1d(src_, i), viewed ? 100.0f : static_cast<float>(i)) << i;
        EXPECT_EQ(ggml_get_f32_1d(before_, i), -1.0f) << i;
        EXPECT_EQ(ggml_get_f32_1d(after_, i), -2.0f) << i;
    }
}

} // namespace
