// Op cases of the second convolution batch (issue 16): IM2COL_BACK, IM2COL_3D, COL2IM_1D, the direct
// convolutions CONV_2D / CONV_3D / CONV_TRANSPOSE_2D, POOL_2D_BACK, and the compositions ggml_conv_2d_sk_p0,
// ggml_conv_2d_s1_ph and ggml_conv_3d (IM2COL(_3D) + MUL_MAT). Appended to the shared list by op_cases.cpp.
#include "conformance/op_cases.h"

#include <string>

namespace switchyard::testing {

namespace {

using B = CaseBuilder;

std::string num(int64_t v) {
    return std::to_string(v);
}

int64_t conv_size(int64_t in, int64_t k, int s, int p, int d) {
    return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

// stride, padding, dilation (the same along every dim unless a case says otherwise)
struct Geo {
    int s, p, d;
    std::string text() const { return "s=" + num(s) + ",p=" + num(p) + ",d=" + num(d); }
};

void add_im2col(std::vector<OpCase> & cases) {
    for (const Geo & g : {Geo{1, 1, 1}, Geo{2, 0, 2}, Geo{3, 2, 1}}) {
        for (ggml_type gt : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            // 2-d: kernel [3, 3, IC = 2, OC = 4] over data [9, 8, 2, 2]
            cases.push_back({"IM2COL_BACK(2d,grad=" + std::string(ggml_type_name(gt)) + ",k=[3,3,2],data=[9,8,2,2]," + g.text() + ")",
                             GGML_OP_IM2COL_BACK, [g, gt](B & b) {
                                 int64_t ne[4] = {9, 8, 2, 2};
                                 const int64_t ow = conv_size(9, 3, g.s, g.p, g.d), oh = conv_size(8, 3, 1, g.p, 1);
                                 ggml_tensor * grad = b.input(gt, 2 * 3 * 3, ow, oh, 2);
                                 return ggml_im2col_back(b.ctx(), grad, b.input(GGML_TYPE_F32, 3, 3, 2, 4), ne, g.s, 1, g.p,
                                                         g.p, g.d, 1, true);
                             }, 1e-7});
        }
        // 1-d: kernel [4, IC = 3, OC = 2] over data [12, 3, 2]
        cases.push_back({"IM2COL_BACK(1d,k=[4,3],data=[12,3,2]," + g.text() + ")", GGML_OP_IM2COL_BACK, [g](B & b) {
                             int64_t       ne[4] = {12, 3, 2, 1};
                             ggml_tensor * grad  = b.input(GGML_TYPE_F32, 3 * 4, conv_size(12, 4, g.s, g.p, g.d), 2);
                             return ggml_im2col_back(b.ctx(), grad, b.input(GGML_TYPE_F32, 4, 3, 2), ne, g.s, 0, g.p, 0,
                                                     g.d, 0, false);
                         }, 1e-7});
    }
    for (const Geo & g : {Geo{1, 1, 1}, Geo{2, 1, 1}, Geo{1, 0, 2}}) {
        for (ggml_type dt : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            // kernel [3, 3, 2, OC*IC = 2*3] over data [6, 5, 4, N*IC = 2*3]
            cases.push_back({"IM2COL_3D(dst=" + std::string(ggml_type_name(dt)) + ",k=[3,3,2],IC=3,data=[6,5,4,6]," + g.text() + ")",
                             GGML_OP_IM2COL_3D, [g, dt](B & b) {
                                 return ggml_im2col_3d(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 2, 6), b.input(GGML_TYPE_F32, 6, 5, 4, 6),
                                                       3, g.s, g.s, 1, g.p, g.p, g.p, g.d, 1, g.d, dt);
                             }, dt == GGML_TYPE_F16 ? 1e-6 : 1e-7});
        }
    }
    // upstream's test-backend-ops shape: channels that are not a multiple of IC (7 = 2 batches of 3, one unused)
    cases.push_back({"IM2COL_3D(dst=f32,k=[3,3,2],IC=3,data=[6,5,4,7])", GGML_OP_IM2COL_3D, [](B & b) {
                         return ggml_im2col_3d(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 2, 6), b.input(GGML_TYPE_F32, 6, 5, 4, 7),
                                               3, 1, 1, 1, 0, 0, 0, 1, 1, 1, GGML_TYPE_F32);
                     }, 1e-7});
    struct Col { int s0, oc, p0; };
    for (const Col & c : {Col{2, 4, 1}, Col{3, 2, 0}, Col{1, 3, 2}}) {
        for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            cases.push_back({"COL2IM_1D(" + std::string(ggml_type_name(t)) + ",K=3,oc=" + num(c.oc) + ",T_in=7,s0=" + num(c.s0) +
                                 ",p0=" + num(c.p0) + ")",
                             GGML_OP_COL2IM_1D, [c, t](B & b) {
                                 return ggml_col2im_1d(b.ctx(), b.input(t, 3 * c.oc, 7), c.s0, c.oc, c.p0);
                             }, t == GGML_TYPE_F16 ? 1e-6 : 1e-7});
        }
    }
}

void add_direct(std::vector<OpCase> & cases) {
    struct Conv2 { int s0, s1, p0, p1, d0, d1; };
    for (const Conv2 & c : {Conv2{1, 1, 1, 1, 1, 1}, Conv2{2, 1, 0, 1, 1, 2}, Conv2{1, 3, 2, 0, 2, 1}}) {
        for (ggml_type kt : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            const std::string params = "s=[" + num(c.s0) + "," + num(c.s1) + "],p=[" + num(c.p0) + "," + num(c.p1) + "],d=[" +
                                       num(c.d0) + "," + num(c.d1) + "]";
            cases.push_back({"CONV_2D(direct,kernel=" + std::string(ggml_type_name(kt)) + ",k=[3,3,3,4],data=[9,8,3,2]," + params + ")",
                             GGML_OP_CONV_2D, [c, kt](B & b) {
                                 return ggml_conv_2d_direct(b.ctx(), b.input(kt, 3, 3, 3, 4), b.input(GGML_TYPE_F32, 9, 8, 3, 2),
                                                            c.s0, c.s1, c.p0, c.p1, c.d0, c.d1);
                             }, 1e-7});
        }
    }
    cases.push_back({"CONV_2D(direct,f16 data,k=[2,3,2,3],data=[7,6,2,1])", GGML_OP_CONV_2D, [](B & b) {
                         return ggml_conv_2d_direct(b.ctx(), b.input(GGML_TYPE_F16, 2, 3, 2, 3), b.input(GGML_TYPE_F16, 7, 6, 2, 1),
                                                    1, 1, 1, 1, 1, 1);
                     }, 1e-5});
    for (const Geo & g : {Geo{1, 1, 1}, Geo{2, 0, 1}, Geo{1, 2, 2}}) {
        // kernel [3, 3, 2, IC*OC = 2*3] over data [6, 5, 4, IC*N = 2*2]
        cases.push_back({"CONV_3D(direct,k=[3,3,2],IC=2,OC=3,N=2,data=[6,5,4,4]," + g.text() + ")", GGML_OP_CONV_3D, [g](B & b) {
                             return ggml_conv_3d_direct(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 2, 6), b.input(GGML_TYPE_F32, 6, 5, 4, 4),
                                                        g.s, g.s, 1, g.p, g.p, 1, g.d, 1, g.d, 2, 2, 3);
                         }, 1e-7});
    }
    cases.push_back({"CONV_3D(direct,kernel=f16,k=[2,2,3],IC=3,OC=2,N=1,data=[5,6,5,3])", GGML_OP_CONV_3D, [](B & b) {
                         return ggml_conv_3d_direct(b.ctx(), b.input(GGML_TYPE_F16, 2, 2, 3, 6), b.input(GGML_TYPE_F32, 5, 6, 5, 3),
                                                    2, 1, 1, 0, 1, 1, 1, 1, 1, 3, 1, 2);
                     }, 1e-7});
    for (ggml_type kt : {GGML_TYPE_F16, GGML_TYPE_F32}) {
        for (int s : {1, 2, 3}) {
            cases.push_back({"CONV_TRANSPOSE_2D(kernel=" + std::string(ggml_type_name(kt)) + ",k=[3,3,4,3],data=[5,4,3,2],s=" + num(s) + ")",
                             GGML_OP_CONV_TRANSPOSE_2D, [kt, s](B & b) {
                                 return ggml_conv_transpose_2d_p0(b.ctx(), b.input(kt, 3, 3, 4, 3), b.input(GGML_TYPE_F32, 5, 4, 3, 2), s);
                             }, 1e-7});
        }
    }
}

void add_pool_back(std::vector<OpCase> & cases) {
    struct Pool { ggml_op_pool op; int k0, k1, s0, s1, p0, p1; };
    for (const Pool & q : {Pool{GGML_OP_POOL_MAX, 3, 3, 2, 2, 1, 1}, Pool{GGML_OP_POOL_AVG, 3, 3, 2, 2, 1, 1},
                           Pool{GGML_OP_POOL_MAX, 2, 3, 2, 1, 0, 1}, Pool{GGML_OP_POOL_AVG, 3, 2, 1, 2, 0, 0}}) {
        for (ggml_type t : {GGML_TYPE_F32, GGML_TYPE_F16}) {
            const std::string name = std::string("POOL_2D_BACK(") + (q.op == GGML_OP_POOL_MAX ? "max" : "avg") + ",af=" +
                                     ggml_type_name(t) + ",k=[" + num(q.k0) + "," + num(q.k1) + "],s=[" + num(q.s0) + "," +
                                     num(q.s1) + "],p=[" + num(q.p0) + "," + num(q.p1) + "],af=[9,8,3,2])";
            cases.push_back({name, GGML_OP_POOL_2D_BACK, [q, t](B & b) {
                                 const int64_t ow = (9 + 2 * q.p0 - q.k0) / q.s0 + 1, oh = (8 + 2 * q.p1 - q.k1) / q.s1 + 1;
                                 return ggml_pool_2d_back(b.ctx(), b.input(GGML_TYPE_F32, ow, oh, 3, 2), b.input(t, 9, 8, 3, 2), q.op,
                                                          q.k0, q.k1, q.s0, q.s1, static_cast<float>(q.p0), static_cast<float>(q.p1));
                             }, 1e-7});
        }
    }
}

void add_compositions(std::vector<OpCase> & cases) {
    cases.push_back({"CONV_2D_SK_P0(via im2col+mul_mat,k=[4,4,3,5],data=[16,12,3,2])", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_2d_sk_p0(b.ctx(), b.input(GGML_TYPE_F32, 4, 4, 3, 5), b.input(GGML_TYPE_F32, 16, 12, 3, 2));
                     }, 1e-6});
    cases.push_back({"CONV_2D_S1_PH(via im2col+mul_mat,k=[3,3,4,4],data=[10,9,4,1])", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_2d_s1_ph(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 4, 4), b.input(GGML_TYPE_F32, 10, 9, 4, 1));
                     }, 1e-6});
    for (ggml_type kt : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        cases.push_back({"CONV_3D(via im2col_3d+mul_mat,kernel=" + std::string(ggml_type_name(kt)) + ",k=[3,3,2],IC=2,OC=3,N=2)",
                         GGML_OP_IM2COL_3D, [kt](B & b) {
                             return ggml_conv_3d(b.ctx(), b.input(kt, 3, 3, 2, 6), b.input(GGML_TYPE_F32, 6, 5, 4, 4), 2, 1, 2, 1,
                                                 1, 0, 1, 1, 1, 1);
                         }, 1e-5});
    }
}

} // namespace

void add_conv_cases(std::vector<OpCase> & cases) {
    add_im2col(cases);
    add_direct(cases);
    add_pool_back(cases);
    add_compositions(cases);
}

} // namespace switchyard::testing
