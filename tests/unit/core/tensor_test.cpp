// Tensors: shapes and strides, the type table (exact sizes from the format reference), views, names, flags,
// the layout predicates (contiguity, transposition, permutation) on hand-made strided views, and set_zero.
#include "ggml.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

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

class TensorBasics : public ::testing::Test {
  protected:
    void SetUp() override {
        ctx_ = ggml_init(ggml_init_params{1 << 20, nullptr, false});
        ASSERT_NE(ctx_, nullptr);
    }
    void TearDown() override { ggml_free(ctx_); }

    // A view of `src` with the given extents and strides (what permute/transpose/view produce).
    ggml_tensor * strided_view(ggml_tensor * src, std::array<int64_t, 4> ne, std::array<size_t, 4> nb) {
        ggml_tensor * v = ggml_view_tensor(ctx_, src);
        for (int i = 0; i < 4; ++i) {
            v->ne[i] = ne[i];
            v->nb[i] = nb[i];
        }
        return v;
    }

    ggml_context * ctx_ = nullptr;
};

void expect_shape(const ggml_tensor * t, std::array<int64_t, 4> ne, std::array<size_t, 4> nb) {
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(t->ne[i], ne[i]) << "ne[" << i << "]";
        EXPECT_EQ(t->nb[i], nb[i]) << "nb[" << i << "]";
    }
}

TEST_F(TensorBasics, ShapesAndStrides1dTo4d) {
    ggml_tensor * t1 = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 3);
    ggml_tensor * t2 = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 3, 5);
    ggml_tensor * t3 = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 3, 5, 7);
    ggml_tensor * t4 = ggml_new_tensor_4d(ctx_, GGML_TYPE_F32, 3, 5, 7, 2);
    expect_shape(t1, {3, 1, 1, 1}, {4, 12, 12, 12});
    expect_shape(t2, {3, 5, 1, 1}, {4, 12, 60, 60});
    expect_shape(t3, {3, 5, 7, 1}, {4, 12, 60, 420});
    expect_shape(t4, {3, 5, 7, 2}, {4, 12, 60, 420});
    EXPECT_EQ(ggml_nelements(t4), 210);
    EXPECT_EQ(ggml_nrows(t4), 70);
    EXPECT_EQ(ggml_nbytes(t4), 840u);
    EXPECT_EQ(ggml_n_dims(t1), 1);
    EXPECT_EQ(ggml_n_dims(t2), 2);
    EXPECT_EQ(ggml_n_dims(t3), 3);
    EXPECT_EQ(ggml_n_dims(t4), 4);
    EXPECT_EQ(t4->type, GGML_TYPE_F32);
    EXPECT_EQ(t4->op, GGML_OP_NONE);
    EXPECT_EQ(t4->flags, 0);
    EXPECT_EQ(t4->view_src, nullptr);
    EXPECT_EQ(t4->buffer, nullptr);
    for (int i = 0; i < GGML_MAX_SRC; ++i) {
        EXPECT_EQ(t4->src[i], nullptr);
    }
    EXPECT_STREQ(t4->name, "");

    const int64_t ne[4] = {2, 3, 4, 5};
    ggml_tensor * tn    = ggml_new_tensor(ctx_, GGML_TYPE_I16, 4, ne);
    expect_shape(tn, {2, 3, 4, 5}, {2, 4, 12, 48});
}

TEST_F(TensorBasics, QuantizedStridesCountBlocks) {
    ggml_tensor * q40 = ggml_new_tensor_2d(ctx_, GGML_TYPE_Q4_0, 64, 3); // 2 blocks of 18 bytes per row
    expect_shape(q40, {64, 3, 1, 1}, {18, 36, 108, 108});
    EXPECT_EQ(ggml_nbytes(q40), 108u);
    ggml_tensor * q4k = ggml_new_tensor_3d(ctx_, GGML_TYPE_Q4_K, 512, 2, 2); // 2 blocks of 144 bytes per row
    expect_shape(q4k, {512, 2, 2, 1}, {144, 288, 576, 1152});
    EXPECT_EQ(ggml_nbytes(q4k), 1152u);
    EXPECT_EQ(ggml_nrows(q4k), 4);
    ggml_tensor * nv = ggml_new_tensor_1d(ctx_, GGML_TYPE_NVFP4, 128);
    EXPECT_EQ(ggml_nbytes(nv), 72u);
    EXPECT_EQ(ggml_nbytes_pad(nv), 80u);
}

struct TypeRow {
    ggml_type    type;
    const char * name;
    int64_t      blck_size;
    size_t       type_size;
    bool         quantized;
};

// ggml-reference.md section 10
constexpr TypeRow kTypes[] = {
    {GGML_TYPE_F32, "f32", 1, 4, false},         {GGML_TYPE_F16, "f16", 1, 2, false},
    {GGML_TYPE_Q4_0, "q4_0", 32, 18, true},      {GGML_TYPE_Q4_1, "q4_1", 32, 20, true},
    {GGML_TYPE_Q5_0, "q5_0", 32, 22, true},      {GGML_TYPE_Q5_1, "q5_1", 32, 24, true},
    {GGML_TYPE_Q8_0, "q8_0", 32, 34, true},      {GGML_TYPE_Q8_1, "q8_1", 32, 36, true},
    {GGML_TYPE_Q2_K, "q2_K", 256, 84, true},     {GGML_TYPE_Q3_K, "q3_K", 256, 110, true},
    {GGML_TYPE_Q4_K, "q4_K", 256, 144, true},    {GGML_TYPE_Q5_K, "q5_K", 256, 176, true},
    {GGML_TYPE_Q6_K, "q6_K", 256, 210, true},    {GGML_TYPE_Q8_K, "q8_K", 256, 292, true},
    {GGML_TYPE_IQ2_XXS, "iq2_xxs", 256, 66, true}, {GGML_TYPE_IQ2_XS, "iq2_xs", 256, 74, true},
    {GGML_TYPE_IQ3_XXS, "iq3_xxs", 256, 98, true}, {GGML_TYPE_IQ1_S, "iq1_s", 256, 50, true},
    {GGML_TYPE_IQ4_NL, "iq4_nl", 32, 18, true},  {GGML_TYPE_IQ3_S, "iq3_s", 256, 110, true},
    {GGML_TYPE_IQ2_S, "iq2_s", 256, 82, true},   {GGML_TYPE_IQ4_XS, "iq4_xs", 256, 136, true},
    {GGML_TYPE_I8, "i8", 1, 1, false},           {GGML_TYPE_I16, "i16", 1, 2, false},
    {GGML_TYPE_I32, "i32", 1, 4, false},         {GGML_TYPE_I64, "i64", 1, 8, false},
    {GGML_TYPE_F64, "f64", 1, 8, false},         {GGML_TYPE_IQ1_M, "iq1_m", 256, 56, true},
    {GGML_TYPE_BF16, "bf16", 1, 2, false},       {GGML_TYPE_TQ1_0, "tq1_0", 256, 54, true},
    {GGML_TYPE_TQ2_0, "tq2_0", 256, 66, true},   {GGML_TYPE_MXFP4, "mxfp4", 32, 17, true},
    {GGML_TYPE_NVFP4, "nvfp4", 64, 36, true},    {GGML_TYPE_Q1_0, "q1_0", 128, 18, true},
    {GGML_TYPE_Q2_0, "q2_0", 64, 18, true},
};

TEST(TypeTable, EveryTypeHasItsReferenceSizes) {
    for (const TypeRow & r : kTypes) {
        SCOPED_TRACE(r.name);
        EXPECT_STREQ(ggml_type_name(r.type), r.name);
        EXPECT_EQ(ggml_blck_size(r.type), r.blck_size);
        EXPECT_EQ(ggml_type_size(r.type), r.type_size);
        EXPECT_EQ(ggml_is_quantized(r.type), r.quantized);
        // three blocks' worth of elements
        EXPECT_EQ(ggml_row_size(r.type, 3 * r.blck_size), 3 * r.type_size);
        const ggml_type_traits * traits = ggml_get_type_traits(r.type);
        ASSERT_NE(traits, nullptr);
        EXPECT_STREQ(traits->type_name, r.name);
        EXPECT_EQ(traits->blck_size, r.blck_size);
        EXPECT_EQ(traits->type_size, r.type_size);
    }
    EXPECT_EQ(std::size(kTypes), 35u); // 43 values minus the 8 removed ones
}

TEST(TypeTable, RowSizesWrittenOut) {
    EXPECT_EQ(ggml_row_size(GGML_TYPE_F32, 10), 40u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_F16, 10), 20u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_BF16, 3), 6u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q4_0, 4096), 2304u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q8_0, 4096), 4352u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q4_K, 4096), 2304u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q6_K, 4096), 3360u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_IQ2_XXS, 4096), 1056u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_MXFP4, 64), 34u);
    EXPECT_EQ(ggml_row_size(GGML_TYPE_Q1_0, 256), 36u);
}

TEST_F(TensorBasics, ElementAndRowQueries) {
    ggml_tensor * t = ggml_new_tensor_3d(ctx_, GGML_TYPE_F16, 8, 4, 2);
    EXPECT_EQ(ggml_element_size(t), 2u);
    EXPECT_EQ(ggml_nelements(t), 64);
    EXPECT_EQ(ggml_nrows(t), 8);
    EXPECT_EQ(ggml_nbytes(t), 128u);
    EXPECT_EQ(ggml_get_data(t), t->data);
    EXPECT_NE(t->data, nullptr);
    ggml_tensor * f = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 4);
    EXPECT_EQ(ggml_get_data_f32(f), static_cast<float *>(f->data));
    LogCapture log;
    EXPECT_EQ(ggml_get_data_f32(t), nullptr); // not f32
    EXPECT_FALSE(log.text().empty());
}

TEST_F(TensorBasics, ScalarsVectorsMatrices) {
    ggml_tensor * s = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 1);
    ggml_tensor * v = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 5);
    ggml_tensor * m = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 5, 2);
    ggml_tensor * c = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 5, 2, 3);
    EXPECT_TRUE(ggml_is_scalar(s));
    EXPECT_FALSE(ggml_is_scalar(v));
    EXPECT_TRUE(ggml_is_vector(s));
    EXPECT_TRUE(ggml_is_vector(v));
    EXPECT_FALSE(ggml_is_vector(m));
    EXPECT_TRUE(ggml_is_matrix(m));
    EXPECT_FALSE(ggml_is_matrix(c));
    EXPECT_TRUE(ggml_is_3d(c));
    EXPECT_EQ(ggml_n_dims(s), 1);
    EXPECT_EQ(ggml_nbytes(s), 4u);

    ggml_tensor * e = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 0);
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(ggml_is_empty(e));
    EXPECT_FALSE(ggml_is_empty(m));
    EXPECT_EQ(ggml_nbytes(e), 0u);
    EXPECT_EQ(ggml_nelements(e), 0);
}

TEST_F(TensorBasics, DupMakesAFreshTensorOfTheSameShape) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx_, GGML_TYPE_Q8_0, 64, 3, 2);
    ggml_set_name(a, "a");
    ggml_set_input(a);
    ggml_tensor * d = ggml_dup_tensor(ctx_, a);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->type, GGML_TYPE_Q8_0);
    expect_shape(d, {64, 3, 2, 1}, {34, 68, 204, 408});
    EXPECT_NE(d->data, a->data);
    EXPECT_NE(d->data, nullptr);
    EXPECT_EQ(d->view_src, nullptr);
    EXPECT_EQ(d->flags, 0);
    EXPECT_STREQ(d->name, "");
}

TEST_F(TensorBasics, ViewAliasesItsSourceAndViewsOfViewsPointToTheRoot) {
    ggml_tensor * a = ggml_set_name(ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 3), "a");
    const size_t  used = ggml_used_mem(ctx_);
    ggml_tensor * v    = ggml_view_tensor(ctx_, a);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(ggml_used_mem(ctx_) - used, ggml_tensor_overhead()); // no data of its own
    EXPECT_EQ(v->data, a->data);
    EXPECT_EQ(v->view_src, a);
    EXPECT_EQ(v->view_offs, 0u);
    EXPECT_EQ(v->op, GGML_OP_NONE);
    EXPECT_STREQ(v->name, "a (view)");
    expect_shape(v, {4, 3, 1, 1}, {4, 16, 48, 48});

    ggml_tensor * vv = ggml_view_tensor(ctx_, v);
    ASSERT_NE(vv, nullptr);
    EXPECT_EQ(vv->view_src, a);
    EXPECT_EQ(vv->data, a->data);
    EXPECT_STREQ(vv->name, "a (view) (view)");

    static_cast<float *>(a->data)[5] = 42.0f;
    EXPECT_EQ(static_cast<float *>(vv->data)[5], 42.0f);
}

TEST_F(TensorBasics, NamesAreTruncatedTo63Characters) {
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 1);
    EXPECT_EQ(ggml_set_name(t, "weights"), t);
    EXPECT_STREQ(ggml_get_name(t), "weights");

    const std::string long_name(100, 'x');
    ggml_set_name(t, long_name.c_str());
    EXPECT_EQ(std::strlen(t->name), 63u);
    EXPECT_EQ(std::string(t->name), long_name.substr(0, 63));

    EXPECT_EQ(ggml_format_name(t, "blk.%d.%s", 12, "attn_q"), t);
    EXPECT_STREQ(t->name, "blk.12.attn_q");
    ggml_format_name(t, "%s-%d", long_name.c_str(), 7);
    EXPECT_EQ(std::strlen(t->name), 63u);
    EXPECT_EQ(std::string(t->name), long_name.substr(0, 63));
    ggml_format_name(t, "%s", std::string(62, 'y').append("ab").c_str());
    EXPECT_EQ(std::string(t->name), std::string(62, 'y') + "a");
}

TEST_F(TensorBasics, FlagsAreIndependentBits) {
    ggml_tensor * t = ggml_new_tensor_1d(ctx_, GGML_TYPE_F32, 1);
    ggml_set_input(t);
    EXPECT_EQ(t->flags, GGML_TENSOR_FLAG_INPUT);
    ggml_set_output(t);
    EXPECT_EQ(t->flags, GGML_TENSOR_FLAG_INPUT | GGML_TENSOR_FLAG_OUTPUT);
    ggml_set_param(t);
    ggml_set_loss(t);
    EXPECT_EQ(t->flags, 1 | 2 | 4 | 8);
    ggml_set_input(t); // idempotent
    EXPECT_EQ(t->flags, 15);
}

TEST_F(TensorBasics, ContiguousTensor) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 4, 3, 2);
    EXPECT_TRUE(ggml_is_contiguous(a));
    EXPECT_TRUE(ggml_is_contiguous_0(a));
    EXPECT_TRUE(ggml_is_contiguous_1(a));
    EXPECT_TRUE(ggml_is_contiguous_2(a));
    EXPECT_TRUE(ggml_is_contiguously_allocated(a));
    EXPECT_TRUE(ggml_is_contiguous_rows(a));
    EXPECT_FALSE(ggml_is_transposed(a));
    EXPECT_FALSE(ggml_is_permuted(a));
}

TEST_F(TensorBasics, TransposedView) {
    ggml_tensor * a = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 3);
    ggml_tensor * t = strided_view(a, {3, 4, 1, 1}, {16, 4, 48, 48}); // what ggml_transpose makes
    EXPECT_TRUE(ggml_is_transposed(t));
    EXPECT_TRUE(ggml_is_permuted(t));
    EXPECT_FALSE(ggml_is_contiguous(t));
    EXPECT_FALSE(ggml_is_contiguous_1(t));
    EXPECT_FALSE(ggml_is_contiguous_rows(t));
    EXPECT_TRUE(ggml_is_contiguously_allocated(t)); // same bytes, another order
    EXPECT_EQ(ggml_nbytes(t), 48u);
}

TEST_F(TensorBasics, PermutedView) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 4, 3, 2);
    ggml_tensor * p = strided_view(a, {4, 2, 3, 1}, {4, 48, 16, 96}); // dims 1 and 2 swapped
    EXPECT_FALSE(ggml_is_transposed(p));
    EXPECT_TRUE(ggml_is_permuted(p));
    EXPECT_FALSE(ggml_is_contiguous(p));
    EXPECT_FALSE(ggml_is_contiguous_1(p));
    EXPECT_TRUE(ggml_is_contiguous_2(p)); // dims 0..2 may be anything, dim 3 has extent 1
    EXPECT_TRUE(ggml_is_contiguous_rows(p));
    EXPECT_TRUE(ggml_is_contiguously_allocated(p));
}

TEST_F(TensorBasics, StridedViews) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 4, 3, 2);
    // the first 2 columns of each row: rows have gaps between them
    ggml_tensor * cols = strided_view(a, {2, 3, 2, 1}, {4, 16, 48, 96});
    EXPECT_FALSE(ggml_is_contiguous(cols));
    EXPECT_TRUE(ggml_is_contiguous_1(cols));
    EXPECT_TRUE(ggml_is_contiguous_2(cols));
    EXPECT_TRUE(ggml_is_contiguous_rows(cols));
    EXPECT_FALSE(ggml_is_permuted(cols));
    EXPECT_FALSE(ggml_is_contiguously_allocated(cols));
    EXPECT_EQ(ggml_nbytes(cols), 4u + 4 + 2 * 16 + 48); // last element's end: (1*4 + 2*16 + 1*48) + 4

    // the first 2 rows of each matrix: matrices have gaps between them
    ggml_tensor * rows = strided_view(a, {4, 2, 2, 1}, {4, 16, 48, 96});
    EXPECT_FALSE(ggml_is_contiguous(rows));
    EXPECT_FALSE(ggml_is_contiguous_1(rows));
    EXPECT_TRUE(ggml_is_contiguous_2(rows));
    EXPECT_FALSE(ggml_is_contiguously_allocated(rows));

    // a dimension <= n of extent 1 still sets where the next one must start (upstream's fixed rule): one row of
    // 192 floats in a 1536-byte slot, then 128 such slots back to back
    ggml_tensor * big = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 384, 1, 128);
    ggml_tensor * one = strided_view(big, {192, 1, 128, 1}, {4, 1536, 1536, 196608});
    EXPECT_TRUE(ggml_is_contiguous_1(one));
    EXPECT_FALSE(ggml_is_contiguous(one));

    // every other element: dimension 0 itself is strided
    ggml_tensor * every_other = strided_view(a, {2, 3, 2, 1}, {8, 16, 48, 96});
    EXPECT_FALSE(ggml_is_contiguous_rows(every_other));
    EXPECT_FALSE(ggml_is_contiguous_1(every_other));
    EXPECT_FALSE(ggml_is_contiguous_2(every_other));

    // a dimension of extent 1 may have any stride
    ggml_tensor * one_row = strided_view(a, {4, 1, 2, 1}, {4, 999, 48, 96});
    EXPECT_FALSE(ggml_is_contiguous(one_row)); // dim 2 jumps over two rows
    ggml_tensor * single = strided_view(a, {4, 1, 1, 1}, {4, 999, 7, 5});
    EXPECT_TRUE(ggml_is_contiguous(single));
}

TEST_F(TensorBasics, ContiguousChannels) {
    ggml_tensor * a = ggml_new_tensor_3d(ctx_, GGML_TYPE_F32, 3, 5, 7); // C=3 fastest, stored CxWxH
    ggml_tensor * p = strided_view(a, {5, 7, 3, 1}, {12, 60, 4, 420});  // seen as WxHxC
    EXPECT_TRUE(ggml_is_contiguous_channels(p));
    EXPECT_FALSE(ggml_is_contiguous_channels(a));
}

TEST_F(TensorBasics, SameShapeSameStrideAndRepeat) {
    ggml_tensor * a = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 6);
    ggml_tensor * b = ggml_new_tensor_2d(ctx_, GGML_TYPE_F16, 4, 6);
    ggml_tensor * c = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 1, 3);
    ggml_tensor * d = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 3, 6);
    ggml_tensor * e = ggml_new_tensor_4d(ctx_, GGML_TYPE_F32, 4, 6, 1, 1);
    EXPECT_TRUE(ggml_are_same_shape(a, b)); // types may differ
    EXPECT_TRUE(ggml_are_same_shape(a, e));
    EXPECT_FALSE(ggml_are_same_shape(a, d));
    EXPECT_FALSE(ggml_are_same_stride(a, b));
    EXPECT_TRUE(ggml_are_same_stride(a, e));

    EXPECT_TRUE(ggml_can_repeat(c, a));  // 4 % 1, 6 % 3
    EXPECT_FALSE(ggml_can_repeat(a, c)); // a is bigger
    EXPECT_FALSE(ggml_can_repeat(d, a)); // 4 % 3 != 0
    EXPECT_TRUE(ggml_can_repeat(a, a));
    ggml_tensor * empty  = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 0, 6);
    ggml_tensor * empty2 = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 0);
    EXPECT_TRUE(ggml_can_repeat(empty, empty2));
    EXPECT_FALSE(ggml_can_repeat(empty, a));
}

TEST_F(TensorBasics, UnravelIndex) {
    ggml_tensor * t = ggml_new_tensor_4d(ctx_, GGML_TYPE_F32, 3, 4, 5, 6);
    int64_t       i0 = -1, i1 = -1, i2 = -1, i3 = -1;
    ggml_unravel_index(t, 119, &i0, &i1, &i2, &i3); // 119 = 2 + 3*(3 + 4*(4 + 5*1))
    EXPECT_EQ(i0, 2);
    EXPECT_EQ(i1, 3);
    EXPECT_EQ(i2, 4);
    EXPECT_EQ(i3, 1);
    ggml_unravel_index(t, 0, &i0, &i1, &i2, &i3);
    EXPECT_EQ(i0 + i1 + i2 + i3, 0);
    ggml_unravel_index(t, 359, &i0, &i1, &i2, &i3);
    EXPECT_EQ(i0, 2);
    EXPECT_EQ(i1, 3);
    EXPECT_EQ(i2, 4);
    EXPECT_EQ(i3, 5);
    ggml_unravel_index(t, 4, &i0, nullptr, nullptr, &i3); // outputs are optional
    EXPECT_EQ(i0, 1);
    EXPECT_EQ(i3, 0);
}

TEST_F(TensorBasics, SetZeroClearsContextTensorsAndViews) {
    ggml_tensor * a = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, 4, 3);
    std::memset(a->data, 0xAB, ggml_nbytes(a));
    EXPECT_EQ(ggml_set_zero(a), a);
    const auto * bytes = static_cast<const unsigned char *>(a->data);
    for (size_t i = 0; i < ggml_nbytes(a); ++i) {
        ASSERT_EQ(bytes[i], 0) << i;
    }

    // a view of the second row clears that row only
    std::memset(a->data, 0xAB, ggml_nbytes(a));
    ggml_tensor * row = ggml_view_tensor(ctx_, a);
    row->ne[1]        = 1;
    row->data         = static_cast<char *>(a->data) + 16;
    row->view_offs    = 16;
    ggml_set_zero(row);
    for (size_t i = 0; i < ggml_nbytes(a); ++i) {
        ASSERT_EQ(bytes[i], (i >= 16 && i < 32) ? 0 : 0xAB) << i;
    }
}

TEST(TensorSetZero, TensorWithoutDataIsLoggedNotCrashed) {
    ggml_context * ctx = ggml_init(ggml_init_params{ggml_tensor_overhead(), nullptr, true});
    ASSERT_NE(ctx, nullptr);
    ggml_tensor * t = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
    LogCapture    log;
    EXPECT_EQ(ggml_set_zero(t), t);
    EXPECT_NE(log.text().find("ggml_set_zero"), std::string::npos);
    ggml_free(ctx);
}

} // namespace
