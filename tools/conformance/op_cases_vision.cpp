// Op cases of the ops vision encoders use (SAM / ViT style): circular and reflection padding, UPSCALE /
// ggml_interpolate, SAM's window and relative-position ops, CONV_TRANSPOSE_1D, CONV_2D_DW and the depthwise
// compositions, ggml_rope_set_offset (ROPE / ROPE_BACK with the rotated window moved into the row), and the mask
// and count ops that came with them (COUNT_EQUAL, DIAG_MASK_ZERO). Appended to the shared list by op_cases.cpp.
#include "conformance/op_cases.h"

#include <string>

namespace switchyard::testing {

namespace {

using B = CaseBuilder;

void add_masks_and_counts(std::vector<OpCase> & cases) {
    for (ggml_type t : {GGML_TYPE_I32, GGML_TYPE_F32}) {
        cases.push_back({std::string("COUNT_EQUAL(type=") + ggml_type_name(t) + ",ne=[32,4,3,1])", GGML_OP_COUNT_EQUAL, [t](B & b) {
                             return ggml_count_equal(b.ctx(), b.input(t, 32, 4, 3, 1, InputKind::Indices, 3),
                                                     b.input(t, 32, 4, 3, 1, InputKind::Indices, 3));
                         }});
    }
    cases.push_back({"DIAG_MASK_ZERO(n_past=2,ne=[10,6,3,2])", GGML_OP_DIAG_MASK_ZERO, [](B & b) {
                         return ggml_diag_mask_zero(b.ctx(), b.input(GGML_TYPE_F32, 10, 6, 3, 2), 2);
                     }});
    cases.push_back({"DIAG_MASK_ZERO(n_past=0,inplace,f16)", GGML_OP_DIAG_MASK_ZERO, [](B & b) {
                         return ggml_diag_mask_zero_inplace(b.ctx(), b.input(GGML_TYPE_F16, 8, 8, 2), 0);
                     }});
    cases.push_back({"WIN_PART(ne=[16,14,13,1],w=8)", GGML_OP_WIN_PART, [](B & b) {
                         return ggml_win_part(b.ctx(), b.input(GGML_TYPE_F32, 16, 14, 13, 1), 8);
                     }});
    cases.push_back({"WIN_UNPART(ne=[16,8,8,4],w0=14,h0=13,w=8)", GGML_OP_WIN_UNPART, [](B & b) {
                         return ggml_win_unpart(b.ctx(), b.input(GGML_TYPE_F32, 16, 8, 8, 4), 14, 13, 8);
                     }});
    cases.push_back({"GET_REL_POS(ne=[16,15],qh=kh=8)", GGML_OP_GET_REL_POS, [](B & b) {
                         return ggml_get_rel_pos(b.ctx(), b.input(GGML_TYPE_F16, 16, 15), 8, 8);
                     }, 1e-6});
    for (int inplace = 0; inplace < 2; ++inplace) {
        cases.push_back({std::string("ADD_REL_POS(kw=4,qw=3,qh=3,n=2") + (inplace ? ",inplace)" : ")"), GGML_OP_ADD_REL_POS,
                         [inplace](B & b) {
                             ggml_tensor * a  = b.input(GGML_TYPE_F32, 16, 9, 2, 1);
                             ggml_tensor * pw = b.input(GGML_TYPE_F32, 4, 3, 3, 2);
                             ggml_tensor * ph = b.input(GGML_TYPE_F32, 4, 3, 3, 2);
                             return inplace ? ggml_add_rel_pos_inplace(b.ctx(), a, pw, ph) : ggml_add_rel_pos(b.ctx(), a, pw, ph);
                         }});
    }
}

void add_resample(std::vector<OpCase> & cases) {
    cases.push_back({"PAD(circular,lp=[2,1,0,0],rp=[1,2,1,0])", GGML_OP_PAD, [](B & b) {
                         return ggml_pad_ext_circular(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 2, 1, 1, 2, 0, 1, 0, 0);
                     }});
    cases.push_back({"PAD(circular,p=[3,0,2,0])", GGML_OP_PAD, [](B & b) {
                         return ggml_pad_circular(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 3, 0, 2, 0);
                     }});
    cases.push_back({"PAD_REFLECT_1D(p0=3,p1=5,ne=[10,5,4,3])", GGML_OP_PAD_REFLECT_1D, [](B & b) {
                         return ggml_pad_reflect_1d(b.ctx(), b.input(GGML_TYPE_F32, 10, 5, 4, 3), 3, 5);
                     }});
    cases.push_back({"UPSCALE(nearest,x2,ne=[6,5,4,2])", GGML_OP_UPSCALE, [](B & b) {
                         return ggml_upscale(b.ctx(), b.input(GGML_TYPE_F32, 6, 5, 4, 2), 2, GGML_SCALE_MODE_NEAREST);
                     }});
    cases.push_back({"UPSCALE(nearest,down,[12,10,4,2]->[5,4,2,1])", GGML_OP_UPSCALE, [](B & b) {
                         return ggml_interpolate(b.ctx(), b.input(GGML_TYPE_F32, 12, 10, 4, 2), 5, 4, 2, 1, GGML_SCALE_MODE_NEAREST);
                     }});
    const uint32_t bilinear[] = {GGML_SCALE_MODE_BILINEAR,
                                 uint32_t{GGML_SCALE_MODE_BILINEAR} | uint32_t{GGML_SCALE_FLAG_ALIGN_CORNERS}};
    for (uint32_t mode : bilinear) {
        const std::string tag = mode & GGML_SCALE_FLAG_ALIGN_CORNERS ? "bilinear,align_corners" : "bilinear";
        cases.push_back({"UPSCALE(" + tag + ",[6,5,4,2]->[13,9,4,2])", GGML_OP_UPSCALE, [mode](B & b) {
                             return ggml_interpolate(b.ctx(), b.input(GGML_TYPE_F32, 6, 5, 4, 2), 13, 9, 4, 2, mode);
                         }, 1e-6});
        cases.push_back({"UPSCALE(" + tag + ",[12,10,3,1]->[5,7,3,1])", GGML_OP_UPSCALE, [mode](B & b) {
                             return ggml_interpolate(b.ctx(), b.input(GGML_TYPE_F32, 12, 10, 3, 1), 5, 7, 3, 1, mode);
                         }, 1e-6});
    }
}

void add_depthwise_and_transposed(std::vector<OpCase> & cases) {
    for (ggml_type kt : {GGML_TYPE_F32, GGML_TYPE_F16}) {
        for (int s0 : {1, 2}) {
            cases.push_back({std::string("CONV_TRANSPOSE_1D(kernel=") + ggml_type_name(kt) + ",K=3,OC=4,IC=5,L=7,s0=" + std::to_string(s0) + ")",
                             GGML_OP_CONV_TRANSPOSE_1D, [kt, s0](B & b) {
                                 return ggml_conv_transpose_1d(b.ctx(), b.input(kt, 3, 4, 5), b.input(GGML_TYPE_F32, 7, 5), s0, 0, 1);
                             }, 1e-6});
        }
    }
    struct Dw { int s, p, d; };
    for (const Dw & c : {Dw{1, 1, 1}, Dw{2, 0, 2}}) {
        const std::string params = "s=" + std::to_string(c.s) + ",p=" + std::to_string(c.p) + ",d=" + std::to_string(c.d);
        cases.push_back({"CONV_2D_DW(direct,k=[3,3],data=[9,8,4,2]," + params + ")", GGML_OP_CONV_2D_DW, [c](B & b) {
                             return ggml_conv_2d_dw_direct(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 1, 4), b.input(GGML_TYPE_F32, 9, 8, 4, 2),
                                                           c.s, c.s, c.p, c.p, c.d, c.d);
                         }, 1e-7});
    }
    cases.push_back({"CONV_2D_DW(direct,channels-contiguous data)", GGML_OP_CONV_2D_DW, [](B & b) {
                         ggml_tensor * cwhn = b.input(GGML_TYPE_F32, 4, 9, 8, 2); // [C, W, H, N] in memory
                         return ggml_conv_2d_dw_direct(b.ctx(), b.input(GGML_TYPE_F32, 3, 3, 1, 4), ggml_permute(b.ctx(), cwhn, 2, 0, 1, 3),
                                                       1, 1, 1, 1, 1, 1);
                     }, 1e-7});
    cases.push_back({"CONV_1D_DW(via im2col+mul_mat,k=3,C=4,L=12)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_1d_dw(b.ctx(), b.input(GGML_TYPE_F32, 3, 1, 4), b.input(GGML_TYPE_F32, 12, 4, 1), 1, 1, 1);
                     }, 1e-5});
    cases.push_back({"CONV_1D_DW_PH(via im2col+mul_mat,k=5,C=3,L=16,s=2)", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_1d_dw_ph(b.ctx(), b.input(GGML_TYPE_F32, 5, 1, 3), b.input(GGML_TYPE_F32, 16, 3, 1), 2, 1);
                     }, 1e-5});
    cases.push_back({"CONV_2D_DW(via im2col+mul_mat,k=[3,3],data=[9,8,4,2])", GGML_OP_IM2COL, [](B & b) {
                         return ggml_conv_2d_dw(b.ctx(), b.input(GGML_TYPE_F16, 3, 3, 1, 4), b.input(GGML_TYPE_F32, 9, 8, 4, 2),
                                                1, 1, 1, 1, 1, 1);
                     }, 1e-5});
}

// ggml_rope_set_offset: the window [n_offs, n_offs + n_dims) rotates, the rest of the row is copied. Each shape
// has a window inside the row and one that ends at the row's end; n_dims 32 and 320 reach the vector rows of
// every ISA and a second angle chunk.
struct RopeOffset {
    ggml_op   op;
    int       mode;
    ggml_type type;
    int64_t   ne0;
    int       n_dims, n_offs;
    bool      ff;      // frequency factors and YaRN (ext_factor 1, freq_scale 0.25)
    bool      inplace;
};

std::string rope_offset_name(const RopeOffset & r) {
    return std::string(r.op == GGML_OP_ROPE_BACK ? "ROPE_BACK" : "ROPE") + "(mode=" + std::to_string(r.mode) +
           ",type=" + ggml_type_name(r.type) + ",ne0=" + std::to_string(r.ne0) + ",n_dims=" + std::to_string(r.n_dims) +
           ",n_offs=" + std::to_string(r.n_offs) + (r.ff ? ",ff,ext=1" : "") + (r.inplace ? ",inplace" : "") + ")";
}

ggml_tensor * build_rope_offset(B & b, const RopeOffset & r) {
    const bool    multi = (r.mode & GGML_ROPE_TYPE_MROPE) != 0;
    ggml_tensor * a     = b.input(r.type, r.ne0, 3, 5);
    ggml_tensor * pos   = b.input(GGML_TYPE_I32, multi ? 20 : 5, 1, 1, 1, InputKind::Indices, 100);
    ggml_tensor * ff    = r.ff ? b.input(GGML_TYPE_F32, r.n_dims / 2, 1, 1, 1, InputKind::Positive) : nullptr;
    const float   scale = r.ff ? 0.25f : 1.0f, ext = r.ff ? 1.0f : 0.0f;
    const bool    back  = r.op == GGML_OP_ROPE_BACK;
    ggml_tensor * t     = nullptr;
    if (multi) {
        int s[GGML_MROPE_SECTIONS] = {4, 6, 6, 0};
        if (r.mode == GGML_ROPE_TYPE_IMROPE) {
            s[0] = 4, s[1] = 4, s[2] = 3, s[3] = 1;
        }
        t = back ? ggml_rope_multi_back(b.ctx(), a, pos, ff, r.n_dims, s, r.mode, 512, 10000.0f, scale, ext, 1.0f, 32.0f, 1.0f)
                 : ggml_rope_multi(b.ctx(), a, pos, ff, r.n_dims, s, r.mode, 512, 10000.0f, scale, ext, 1.0f, 32.0f, 1.0f);
    } else if (back) {
        t = ggml_rope_ext_back(b.ctx(), a, pos, ff, r.n_dims, r.mode, 512, 10000.0f, scale, ext, 1.0f, 32.0f, 1.0f);
    } else {
        t = r.inplace ? ggml_rope_ext_inplace(b.ctx(), a, pos, ff, r.n_dims, r.mode, 512, 10000.0f, scale, ext, 1.0f, 32.0f, 1.0f)
                      : ggml_rope_ext(b.ctx(), a, pos, ff, r.n_dims, r.mode, 512, 10000.0f, scale, ext, 1.0f, 32.0f, 1.0f);
    }
    return ggml_rope_set_offset(t, r.n_offs);
}

void add_rope_offset(std::vector<OpCase> & cases) {
    constexpr int  kNormal = GGML_ROPE_TYPE_NORMAL, kNeox = GGML_ROPE_TYPE_NEOX;
    constexpr auto kRope = GGML_OP_ROPE, kBack = GGML_OP_ROPE_BACK;
    constexpr auto kF32 = GGML_TYPE_F32, kF16 = GGML_TYPE_F16;
    const RopeOffset offsets[] = {
        {kRope, kNormal, kF32, 32, 16, 8, false, false},   {kRope, kNormal, kF32, 32, 16, 16, false, false},
        {kRope, kNeox, kF32, 80, 32, 16, false, false},    {kRope, kNeox, kF32, 80, 32, 48, false, false},
        {kRope, kNormal, kF16, 32, 16, 10, false, false},  {kRope, kNeox, kF16, 32, 16, 16, false, false},
        {kRope, kNeox, kF32, 64, 32, 16, true, false},     {kRope, kNormal, kF32, 64, 32, 32, true, false},
        {kRope, kNeox, kF32, 400, 320, 80, false, false},  {kRope, kNeox, kF32, 32, 16, 6, false, true},
        {kBack, kNormal, kF32, 32, 16, 8, true, false},    {kBack, kNeox, kF32, 32, 16, 16, true, false},
        {kRope, GGML_ROPE_TYPE_MROPE, kF32, 64, 32, 16, false, false},
        {kRope, GGML_ROPE_TYPE_MROPE, kF16, 64, 32, 32, false, false},
        {kBack, GGML_ROPE_TYPE_MROPE, kF32, 64, 32, 32, false, false},
        {kRope, GGML_ROPE_TYPE_IMROPE, kF32, 64, 24, 40, false, false},
        {kBack, GGML_ROPE_TYPE_IMROPE, kF32, 64, 24, 8, false, false},
    };
    for (const RopeOffset & r : offsets) {
        cases.push_back({rope_offset_name(r), r.op, [r](B & b) { return build_rope_offset(b, r); },
                         r.type == GGML_TYPE_F16 ? 1e-5 : 1e-8});
    }
}

} // namespace

void add_vision_cases(std::vector<OpCase> & cases) {
    add_masks_and_counts(cases);
    add_resample(cases);
    add_depthwise_and_transposed(cases);
    add_rope_offset(cases);
}

} // namespace switchyard::testing
