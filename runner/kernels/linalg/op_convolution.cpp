// aten::convolution.out for 1-D and 2-D convolutions (groups, stride,
// padding, dilation, optional bias); float32 through im2col + sgemm, other
// real dtypes through a direct loop. Inputs may have any dim order (read
// through strides); out must be contiguous.
#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/gemm.h"
#include "runner/kernels/linalg/linalg_ops.h"

namespace etkit::rt::kernels {
namespace {

struct ConvGeometry {
  int64_t n, cin, h, w, cout, kh, kw, oh, ow, groups;
  int64_t sh, sw, ph, pw, dh, dw;
};

// A 1- or 2-element int list as (height, width); 1-D convolutions use
// height 1 with `one_d_default` for the height entry.
Result<std::pair<int64_t, int64_t>> pair_arg(KernelContext& ctx, const EValue& v, std::string_view what, bool one_d,
                                             int64_t one_d_default) {
  ETKIT_ASSIGN_OR_RETURN(auto list, ctx.int_list(v, what));
  if (one_d) {
    if (list.size() != 1) return ctx.fail(std::string(what) + " must have 1 entry for a 1-D convolution");
    return std::make_pair(one_d_default, list[0]);
  }
  if (list.size() == 1) return std::make_pair(list[0], list[0]);
  if (list.size() != 2) return ctx.fail(std::string(what) + " must have 1 or 2 entries, got " + std::to_string(list.size()));
  return std::make_pair(list[0], list[1]);
}

// Element offset of input (n, c, y, x) for a rank-3 (1-D) or rank-4 tensor.
inline int64_t input_offset(const Tensor& t, bool one_d, int64_t n, int64_t c, int64_t y, int64_t x) {
  const auto s = t.strides();
  return one_d ? n * s[0] + c * s[1] + x * s[2] : n * s[0] + c * s[1] + y * s[2] + x * s[3];
}

void conv_float(const ConvGeometry& g, bool one_d, const Tensor& input, const Tensor& weight, const Tensor* bias,
                Tensor& out) {
  const int64_t cin_g = g.cin / g.groups, cout_g = g.cout / g.groups;
  const int64_t patch = cin_g * g.kh * g.kw, pixels = g.oh * g.ow;
  thread_local std::vector<float> columns, packed_weight;
  columns.resize(size_t(patch * pixels));
  // The weight as a contiguous [cout, patch] matrix.
  packed_weight.resize(size_t(g.cout * patch));
  {
    Tensor dense(ScalarType::kFloat, std::vector<int32_t>(weight.sizes().begin(), weight.sizes().end()), {}, packed_weight.data());
    for_each_element(dense, weight, [&](int64_t o, int64_t i) { packed_weight[size_t(o)] = weight.data_as<float>()[i]; });
  }
  const float* in = input.data_as<float>();
  float* o = out.data_as<float>();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      // columns[(c, ky, kx), (oy, ox)] = input[n, grp*cin_g + c, oy*sh - ph + ky*dh, ox*sw - pw + kx*dw]
      float* col = columns.data();
      for (int64_t c = 0; c < cin_g; ++c) {
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              const int64_t y = oy * g.sh - g.ph + ky * g.dh;
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t x = ox * g.sw - g.pw + kx * g.dw;
                *col++ = (y < 0 || y >= g.h || x < 0 || x >= g.w)
                             ? 0.0f
                             : in[input_offset(input, one_d, n, grp * cin_g + c, y, x)];
              }
            }
          }
        }
      }
      float* dst = o + (n * g.cout + grp * cout_g) * pixels;
      sgemm(cout_g, pixels, patch, 1.0f, MatrixView{packed_weight.data() + grp * cout_g * patch, patch, 1},
            MatrixView{columns.data(), pixels, 1}, 0.0f, dst, pixels);
      if (bias) {
        for (int64_t co = 0; co < cout_g; ++co) {
          const float b = bias->data_as<float>()[(grp * cout_g + co) * bias->strides()[0]];
          for (int64_t p = 0; p < pixels; ++p) dst[co * pixels + p] += b;
        }
      }
    }
  }
}

template <typename T>
void conv_direct(const ConvGeometry& g, bool one_d, const Tensor& input, const Tensor& weight, const Tensor* bias,
                 Tensor& out) {
  const int64_t cin_g = g.cin / g.groups, cout_g = g.cout / g.groups;
  const auto ws = weight.strides();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const int64_t grp = co / cout_g;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          double acc = bias ? double(bias->data_as<T>()[co * bias->strides()[0]]) : 0.0;
          for (int64_t c = 0; c < cin_g; ++c) {
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              const int64_t y = oy * g.sh - g.ph + ky * g.dh;
              if (y < 0 || y >= g.h) continue;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t x = ox * g.sw - g.pw + kx * g.dw;
                if (x < 0 || x >= g.w) continue;
                const int64_t wo = one_d ? co * ws[0] + c * ws[1] + kx * ws[2] : co * ws[0] + c * ws[1] + ky * ws[2] + kx * ws[3];
                acc += double(input.data_as<T>()[input_offset(input, one_d, n, grp * cin_g + c, y, x)]) *
                       double(weight.data_as<T>()[wo]);
              }
            }
          }
          out.data_as<T>()[((n * g.cout + co) * g.oh + oy) * g.ow + ox] = static_cast<T>(acc);
        }
      }
    }
  }
}

// (input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, out, ret)
Status convolution_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(bool transposed, bool_arg(ctx, *args[6], "transposed"));
  ETKIT_ASSIGN_OR_RETURN(int64_t groups, int_arg(ctx, *args[8], "groups"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  if (transposed) return ctx.fail("transposed convolution is not supported");
  const bool one_d = input->dim() == 3;
  if (input->dim() != 3 && input->dim() != 4) return ctx.fail("input must be 3-D or 4-D, got " + input->shape_string());
  if (weight->dim() != input->dim()) return ctx.fail("weight " + weight->shape_string() + " does not match input " + input->shape_string());
  ETKIT_ASSIGN_OR_RETURN(auto stride, pair_arg(ctx, *args[3], "stride", one_d, 1));
  ETKIT_ASSIGN_OR_RETURN(auto padding, pair_arg(ctx, *args[4], "padding", one_d, 0));
  ETKIT_ASSIGN_OR_RETURN(auto dilation, pair_arg(ctx, *args[5], "dilation", one_d, 1));
  ConvGeometry g{};
  g.n = input->size(0);
  g.cin = input->size(1);
  g.h = one_d ? 1 : input->size(2);
  g.w = input->size(one_d ? 2 : 3);
  g.cout = weight->size(0);
  g.kh = one_d ? 1 : weight->size(2);
  g.kw = weight->size(one_d ? 2 : 3);
  g.groups = groups;
  std::tie(g.sh, g.sw) = stride;
  std::tie(g.ph, g.pw) = padding;
  std::tie(g.dh, g.dw) = dilation;
  if (groups < 1 || g.cin % groups != 0 || g.cout % groups != 0 || weight->size(1) * groups != g.cin) {
    return ctx.fail("weight " + weight->shape_string() + " and groups " + std::to_string(groups) + " do not fit " +
                    std::to_string(g.cin) + " input channels");
  }
  if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.ph < 0 || g.pw < 0) {
    return ctx.fail("stride and dilation must be positive and padding non-negative");
  }
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  if (g.oh < 1 || g.ow < 1) return ctx.fail("the kernel is larger than the padded input");
  if (bias && (bias->dim() != 1 || bias->size(0) != g.cout)) return ctx.fail("bias must have " + std::to_string(g.cout) + " elements");
  Shape shape;
  shape.push_back(g.n);
  shape.push_back(g.cout);
  if (!one_d) shape.push_back(g.oh);
  shape.push_back(g.ow);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (!out->is_contiguous()) return ctx.fail("out must be contiguous");
  if (input->dtype() != weight->dtype() || input->dtype() != out->dtype() || (bias && bias->dtype() != out->dtype())) {
    return ctx.fail("input, weight, bias and out must have one dtype");
  }
  if (out->numel() == 0) return {};
  if (input->dtype() == ScalarType::kFloat) {
    conv_float(g, one_d, *input, *weight, bias, *out);
    return {};
  }
  bool ok = false;
  dispatch_real_and_bool(input->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      conv_direct<T>(g, one_d, *input, *weight, bias, *out);
      ok = true;
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(input->dtype()))));
  return {};
}

}  // namespace

void linalg::add_convolution_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::convolution.out", convolution_out, 11, {9}});
}

}  // namespace etkit::rt::kernels
