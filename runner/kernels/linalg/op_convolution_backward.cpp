// aten::convolution_backward.out for 2-D, non-transposed convolutions (the
// cases ExecuTorch's portable kernel supports): from grad_output
// [N, OC, OH, OW] it computes the gradients of input (grad_output
// correlated back through the weight), of weight (grad_output against the
// input windows) and of the bias (grad_output summed over N, OH, OW), each
// only when output_mask asks for it. Accumulation is in the computation
// type (float for float/half/bfloat16, double for double) in the order of
// op_convolution_backward.cpp's loops: batch, group, output row, output
// column, output channel, input channel, kernel row, kernel column.
#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels::linalg {
namespace {

struct Geometry {
  int64_t n, ic, ih, iw, oc, kh, kw, oh, ow;
  int64_t sh, sw, ph, pw, dh, dw, groups;
};

// stride, padding and dilation lists of 1 or 2 entries.
Result<Geometry> geometry(KernelContext& ctx, const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                          std::span<EValue* const> args) {
  if (input.dim() != 4 || weight.dim() != 4 || grad_out.dim() != 4) {
    return ctx.fail("only 2-D convolutions are supported: input, weight and grad_output must be 4-D");
  }
  Geometry g{};
  g.n = input.size(0), g.ic = input.size(1), g.ih = input.size(2), g.iw = input.size(3);
  g.oc = weight.size(0), g.kh = weight.size(2), g.kw = weight.size(3);
  ETKIT_ASSIGN_OR_RETURN(auto stride_list, ctx.int_list(*args[4], "stride"));
  ETKIT_ASSIGN_OR_RETURN(auto padding_list, ctx.int_list(*args[5], "padding"));
  ETKIT_ASSIGN_OR_RETURN(auto dilation_list, ctx.int_list(*args[6], "dilation"));
  const std::pair<int64_t, int64_t> zero{0, 0};
  ETKIT_ASSIGN_OR_RETURN(std::tie(g.sh, g.sw), hw_pair(ctx, stride_list, "stride"));
  ETKIT_ASSIGN_OR_RETURN(std::tie(g.ph, g.pw), hw_pair(ctx, padding_list, "padding", &zero));
  ETKIT_ASSIGN_OR_RETURN(std::tie(g.dh, g.dw), hw_pair(ctx, dilation_list, "dilation"));
  ETKIT_ASSIGN_OR_RETURN(g.groups, int_arg(ctx, *args[9], "groups"));
  if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1 || g.ph < 0 || g.pw < 0) {
    return ctx.fail("stride and dilation must be positive and padding non-negative");
  }
  if (g.groups < 1 || g.ic % g.groups != 0 || g.oc % g.groups != 0 || weight.size(1) != g.ic / g.groups) {
    return ctx.fail("weight " + weight.shape_string() + " and groups " + std::to_string(g.groups) +
                    " do not match input " + input.shape_string());
  }
  // The forward's output size; grad_output must have it.
  g.oh = floor_div(g.ih + 2 * g.ph - g.dh * (g.kh - 1) - 1, g.sh) + 1;
  g.ow = floor_div(g.iw + 2 * g.pw - g.dw * (g.kw - 1) - 1, g.sw) + 1;
  if (g.oh < 1 || g.ow < 1) return ctx.fail("the kernel does not fit the padded input");
  if (grad_out.size(0) != g.n || grad_out.size(1) != g.oc || grad_out.size(2) != g.oh || grad_out.size(3) != g.ow) {
    return ctx.fail("grad_output " + grad_out.shape_string() + " does not match the convolution's output [" +
                    std::to_string(g.n) + ", " + std::to_string(g.oc) + ", " + std::to_string(g.oh) + ", " +
                    std::to_string(g.ow) + "]");
  }
  return g;
}

template <typename CT>
void zero(Tensor& t) {
  const View v = View::of(t);
  for_each_index(v.sizes, [&](const int64_t* c) { store_as<CT>(t.dtype(), t.data(), offset_at(c, v.strides), CT(0)); });
}

template <typename CT>
void accumulate(Tensor& t, int64_t at, CT v) {
  store_as<CT>(t.dtype(), t.data(), at, load_as<CT>(t.dtype(), t.data(), at) + v);
}

template <typename CT>
void backward(const Geometry& g, const Tensor& grad_out, const Tensor& input, const Tensor& weight, Tensor* grad_in,
              Tensor* grad_w, Tensor* grad_b) {
  if (grad_in) zero<CT>(*grad_in);
  if (grad_w) zero<CT>(*grad_w);
  if (grad_b) zero<CT>(*grad_b);
  const auto go = grad_out.strides(), is = input.strides(), ws = weight.strides();
  const ScalarType t = input.dtype();
  const int64_t icpg = g.ic / g.groups, ocpg = g.oc / g.groups;
  for (int64_t b = 0; b < g.n; ++b) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      for (int64_t y = 0; y < g.oh; ++y) {
        for (int64_t x = 0; x < g.ow; ++x) {
          for (int64_t o = grp * ocpg; o < (grp + 1) * ocpg; ++o) {
            const CT grad = load_as<CT>(t, grad_out.data(), b * go[0] + o * go[1] + y * go[2] + x * go[3]);
            if (grad_b) accumulate<CT>(*grad_b, o * grad_b->strides()[0], grad);
            for (int64_t i = 0; i < icpg; ++i) {
              const int64_t c = grp * icpg + i;
              for (int64_t ky = 0; ky < g.kh; ++ky) {
                const int64_t iy = y * g.sh - g.ph + ky * g.dh;
                if (iy < 0 || iy >= g.ih) continue;
                for (int64_t kx = 0; kx < g.kw; ++kx) {
                  const int64_t ix = x * g.sw - g.pw + kx * g.dw;
                  if (ix < 0 || ix >= g.iw) continue;
                  const int64_t in_at = b * is[0] + c * is[1] + iy * is[2] + ix * is[3];
                  const int64_t w_at = o * ws[0] + i * ws[1] + ky * ws[2] + kx * ws[3];
                  if (grad_in) {
                    const auto gs = grad_in->strides();
                    accumulate<CT>(*grad_in, b * gs[0] + c * gs[1] + iy * gs[2] + ix * gs[3],
                                   grad * load_as<CT>(t, weight.data(), w_at));
                  }
                  if (grad_w) {
                    const auto gs = grad_w->strides();
                    accumulate<CT>(*grad_w, o * gs[0] + i * gs[1] + ky * gs[2] + kx * gs[3],
                                   grad * load_as<CT>(t, input.data(), in_at));
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

// (grad_output, input, weight, bias_sizes?, stride, padding, dilation,
// transposed, output_padding, groups, output_mask, out0, out1, out2, ret)
Status convolution_backward_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * grad_out, tensor_arg(ctx, *args[0], "grad_output"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[1], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[2], "weight"));
  ETKIT_ASSIGN_OR_RETURN(bool transposed, bool_arg(ctx, *args[7], "transposed"));
  ETKIT_ASSIGN_OR_RETURN(auto output_padding, ctx.int_list(*args[8], "output_padding"));
  (void)output_padding;  // only meaningful for transposed convolutions
  const EValue& mask_value = *args[10];
  if (mask_value.tag != Tag::kBoolList || mask_value.bool_list == nullptr || mask_value.bool_list->size() != 3) {
    return ctx.fail("output_mask must be a list of 3 bools");
  }
  const std::vector<bool>& mask = *mask_value.bool_list;
  if (transposed) return ctx.fail("transposed convolutions are not supported");
  const ScalarType t = input->dtype();
  if (!is_floating(t)) return ctx.fail("input must be floating point, not " + dtype_name(t));
  if (weight->dtype() != t || grad_out->dtype() != t) {
    return ctx.fail("weight and grad_output must have input's dtype " + dtype_name(t));
  }
  ETKIT_ASSIGN_OR_RETURN(Geometry g, geometry(ctx, *grad_out, *input, *weight, args));
  Tensor* outs[3] = {nullptr, nullptr, nullptr};
  const char* names[3] = {"out0", "out1", "out2"};
  for (size_t k = 0; k < 3; ++k) {
    if (!mask[k]) continue;
    ETKIT_ASSIGN_OR_RETURN(outs[k], tensor_arg(ctx, *args[11 + k], names[k]));
    if (outs[k]->dtype() != t) return ctx.fail(std::string(names[k]) + " must have input's dtype " + dtype_name(t));
  }
  if (outs[0]) ETKIT_TRY(resize_out(ctx, *outs[0], input->sizes()));
  if (outs[1]) ETKIT_TRY(resize_out(ctx, *outs[1], weight->sizes()));
  if (outs[2]) {
    const int64_t bias_shape[1] = {g.oc};
    if (!args[3]->is_none()) {
      ETKIT_ASSIGN_OR_RETURN(auto bias_sizes, ctx.int_list(*args[3], "bias_sizes"));
      if (bias_sizes.size() != 1 || bias_sizes[0] != g.oc) {
        return ctx.fail("bias_sizes " + list_string(bias_sizes) + " must be [" + std::to_string(g.oc) + "]");
      }
    }
    ETKIT_TRY(resize_out(ctx, *outs[2], bias_shape));
  }
  if (t == ScalarType::kDouble) backward<double>(g, *grad_out, *input, *weight, outs[0], outs[1], outs[2]);
  else backward<float>(g, *grad_out, *input, *weight, outs[0], outs[1], outs[2]);
  return {};
}

}  // namespace

void add_convolution_backward_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::convolution_backward.out", convolution_backward_out, 15, {11, 12, 13}});
}

}  // namespace etkit::rt::kernels::linalg
