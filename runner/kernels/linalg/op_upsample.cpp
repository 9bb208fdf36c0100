// aten::upsample_nearest2d.vec_out, aten::upsample_bilinear2d.vec_out and
// aten::_upsample_bilinear2d_aa.out (antialiased):
// resizes of the last two dims of an [N, C, H, W] tensor, any dim order
// (addressed through strides). Nearest copies elements, so it takes any
// dtype; bilinear interpolates float32 and float64. Source positions follow
// aten/src/ATen/native/UpSample.h (nearest_idx,
// area_pixel_compute_source_index), in float for float32 as PyTorch's CPU
// kernels compute them.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"

namespace etkit::rt::kernels::linalg {
namespace {

// The output's height and width, and the scale factors when they were
// given (they then set the source positions instead of in / out).
struct Target {
  int64_t h = 0, w = 0;
  std::optional<double> scale_h, scale_w;
};

std::string doubles_string(std::span<const double> items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + std::to_string(items[i]);
  return s + "]";
}

// Exactly one of output_size (SymInt[]?) and scale_factors (float[]?); an
// output size from factors truncates, as PyTorch's does.
Result<Target> target_size(KernelContext& ctx, const Tensor& input, const EValue& size_arg, const EValue& scales_arg) {
  if (input.dim() != 4) return ctx.fail("input must be 4-D (N, C, H, W), got " + input.shape_string());
  for (size_t d = 1; d < 4; ++d) {
    if (input.size(d) == 0) {
      return ctx.fail("input " + input.shape_string() + " must have non-zero size in its non-batch dimensions");
    }
  }
  if (size_arg.is_none() == scales_arg.is_none()) {
    return ctx.fail("exactly one of output_size and scale_factors must be given");
  }
  Target t;
  if (!size_arg.is_none()) {
    ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(size_arg, "output_size"));
    if (size.size() != 2 || size[0] < 1 || size[1] < 1 || size[0] > INT32_MAX || size[1] > INT32_MAX) {
      return ctx.fail("output_size must be two positive sizes, got " + list_string(size));
    }
    t.h = size[0];
    t.w = size[1];
    return t;
  }
  if (scales_arg.tag != Tag::kDoubleList) {
    return ctx.fail("scale_factors must be a float list, not " + std::string(tag_name(scales_arg.tag)));
  }
  const auto scales = scales_arg.double_list;
  if (scales.size() != 2 || !(scales[0] > 0) || !(scales[1] > 0)) {
    return ctx.fail("scale_factors must be two positive factors, got " + doubles_string(scales));
  }
  const double h = double(input.size(2)) * scales[0], w = double(input.size(3)) * scales[1];
  if (!(h < 2147483648.0) || !(w < 2147483648.0)) {
    return ctx.fail("scale_factors " + doubles_string(scales) + " make the output of input " + input.shape_string() +
                    " larger than the int32 range");
  }
  t.h = static_cast<int64_t>(h);
  t.w = static_cast<int64_t>(w);
  if (t.h < 1 || t.w < 1) {
    return ctx.fail("output size [" + std::to_string(t.h) + ", " + std::to_string(t.w) + "] of input " +
                    input.shape_string() + " is empty");
  }
  t.scale_h = scales[0];
  t.scale_w = scales[1];
  return t;
}

Status resize_to_target(KernelContext& ctx, const Tensor& input, const Target& t, Tensor& out) {
  if (out.dtype() != input.dtype()) {
    return ctx.fail("out dtype " + dtype_name(out.dtype()) + " does not match input dtype " + dtype_name(input.dtype()));
  }
  const int64_t shape[4] = {input.size(0), input.size(1), t.h, t.w};
  return resize_out(ctx, out, shape);
}

// PyTorch's compute_scales_value: 1 / factor when a factor was given, else
// in / out, in the kernel's arithmetic type.
template <typename Op>
Op source_scale(std::optional<double> factor, int64_t in, int64_t out) {
  if (factor && *factor > 0) return static_cast<Op>(1.0 / *factor);
  return static_cast<Op>(in) / static_cast<Op>(out);
}

// ---- nearest ------------------------------------------------------------

// nearest_idx: the identity and exact doubling are special-cased, else
// min(floor(dst * scale), in - 1) in float.
int64_t nearest_source(int64_t dst, int64_t in, int64_t out, float scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const auto src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return src < in - 1 ? src : in - 1;
}

// (input, output_size?, scale_factors?, out, ret)
Status upsample_nearest2d_vec_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_ASSIGN_OR_RETURN(Target t, target_size(ctx, *input, *args[1], *args[2]));
  ETKIT_TRY(resize_to_target(ctx, *input, t, *out));
  if (out->numel() == 0) return {};
  const int64_t in_h = input->size(2), in_w = input->size(3);
  const float scale_h = source_scale<float>(t.scale_h, in_h, t.h), scale_w = source_scale<float>(t.scale_w, in_w, t.w);
  // Source columns once; rows are looked up per output row.
  thread_local std::vector<int64_t> columns;
  columns.resize(size_t(t.w));
  for (int64_t ox = 0; ox < t.w; ++ox) columns[size_t(ox)] = nearest_source(ox, in_w, t.w, scale_w);
  const auto is = input->strides(), os = out->strides();
  const auto* src = static_cast<const uint8_t*>(input->data());
  auto* dst = static_cast<uint8_t*>(out->data());
  auto copy = [&](auto width) {
    constexpr int64_t kBytes = decltype(width)::value;  // the element size, a constant per case
    for (int64_t n = 0; n < input->size(0); ++n) {
      for (int64_t c = 0; c < input->size(1); ++c) {
        for (int64_t oy = 0; oy < t.h; ++oy) {
          const int64_t row = n * is[0] + c * is[1] + nearest_source(oy, in_h, t.h, scale_h) * is[2];
          const int64_t out_row = n * os[0] + c * os[1] + oy * os[2];
          for (int64_t ox = 0; ox < t.w; ++ox) {
            std::memmove(dst + (out_row + ox * os[3]) * kBytes, src + (row + columns[size_t(ox)] * is[3]) * kBytes,
                        size_t(kBytes));
          }
        }
      }
    }
  };
  switch (input->element_size()) {
    case 1: copy(std::integral_constant<int64_t, 1>{}); break;
    case 2: copy(std::integral_constant<int64_t, 2>{}); break;
    case 4: copy(std::integral_constant<int64_t, 4>{}); break;
    case 8: copy(std::integral_constant<int64_t, 8>{}); break;
    default: return ctx.fail("unsupported dtype " + dtype_name(input->dtype()));
  }
  return {};
}

// ---- bilinear -----------------------------------------------------------

// The two source indices of an output index and the weight of the second.
template <typename Op>
struct Tap {
  int64_t i0, i1;
  Op lambda1;
};

// area_pixel_compute_scale / area_pixel_compute_source_index, then the
// index clamped to the input and the weight to [0, 1].
template <typename Op>
void linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> factor, std::vector<Tap<Op>>& taps) {
  Op scale;
  if (align_corners) {
    scale = out > 1 ? static_cast<Op>(in - 1) / static_cast<Op>(out - 1) : Op(0);
  } else {
    scale = source_scale<Op>(factor, in, out);
  }
  taps.resize(size_t(out));
  for (int64_t dst = 0; dst < out; ++dst) {
    Op real;
    if (align_corners) {
      real = scale * static_cast<Op>(dst);
    } else {
      real = scale * (static_cast<Op>(dst) + Op(0.5)) - Op(0.5);
      if (real < 0) real = 0;
    }
    const int64_t i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const Op lambda1 = std::min(std::max(real - static_cast<Op>(i0), Op(0)), Op(1));
    taps[size_t(dst)] = {i0, i0 < in - 1 ? i0 + 1 : i0, lambda1};
  }
}

template <typename T>
void bilinear(const Tensor& input, const Target& t, bool align_corners, Tensor& out) {
  thread_local std::vector<Tap<T>> rows, cols;
  linear_taps<T>(input.size(2), t.h, align_corners, t.scale_h, rows);
  linear_taps<T>(input.size(3), t.w, align_corners, t.scale_w, cols);
  const auto is = input.strides(), os = out.strides();
  const T* src = input.data_as<T>();
  T* dst = out.data_as<T>();
  for (int64_t n = 0; n < input.size(0); ++n) {
    for (int64_t c = 0; c < input.size(1); ++c) {
      const T* plane = src + n * is[0] + c * is[1];
      for (int64_t oy = 0; oy < t.h; ++oy) {
        const Tap<T> r = rows[size_t(oy)];
        const T* row0 = plane + r.i0 * is[2];
        const T* row1 = plane + r.i1 * is[2];
        T* orow = dst + n * os[0] + c * os[1] + oy * os[2];
        for (int64_t ox = 0; ox < t.w; ++ox) {
          const Tap<T> k = cols[size_t(ox)];
          const T w1 = k.lambda1, w0 = 1 - w1;
          const T top = w0 * row0[k.i0 * is[3]] + w1 * row0[k.i1 * is[3]];
          const T bottom = w0 * row1[k.i0 * is[3]] + w1 * row1[k.i1 * is[3]];
          orow[ox * os[3]] = (1 - r.lambda1) * top + r.lambda1 * bottom;
        }
      }
    }
  }
}

// (input, output_size?, align_corners, scale_factors?, out, ret)
Status upsample_bilinear2d_vec_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(bool align_corners, bool_arg(ctx, *args[2], "align_corners"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_ASSIGN_OR_RETURN(Target t, target_size(ctx, *input, *args[1], *args[3]));
  if (!is_float_or_double(input->dtype())) {
    return ctx.fail("unsupported dtype " + dtype_name(input->dtype()) + " (float32 or float64 only)");
  }
  ETKIT_TRY(resize_to_target(ctx, *input, t, *out));
  if (out->numel() == 0) return {};
  if (input->dtype() == ScalarType::kFloat) {
    bilinear<float>(*input, t, align_corners, *out);
  } else {
    bilinear<double>(*input, t, align_corners, *out);
  }
  return {};
}

// ---- antialiased bilinear ----------------------------------------------

// The input range one output index reads and its triangle filter, as
// op_upsample_bilinear2d_aa.cpp's compute_aa_kernel_params: centred at
// scale * (i + 0.5), the filter widens by the scale when downsampling, and
// the weights are normalized to sum to 1 (one nearest tap when none is
// positive).
template <typename Op>
struct AaTaps {
  int64_t first = 0, end = 0;
  Op center = 0, inv_scale = 1, total = 1;
  int64_t only = -1;  // the fallback tap, or -1

  static Op filter(Op x) {
    x = std::abs(x);
    return x < Op(1) ? Op(1) - x : Op(0);
  }
  Op raw(int64_t i) const { return filter((static_cast<Op>(i) - center + Op(0.5)) * inv_scale); }
  Op weight(int64_t i) const {
    if (only >= 0) return i == only ? Op(1) : Op(0);
    return raw(i) / total;
  }
};

// scale * out stays below 2^31 (checked by the caller), so every float ->
// integer conversion here is in range.
template <typename Op>
AaTaps<Op> aa_taps(int64_t i, Op scale, int64_t in) {
  AaTaps<Op> t;
  t.center = scale * (static_cast<Op>(i) + Op(0.5));
  const Op support = scale >= Op(1) ? scale : Op(1);
  t.inv_scale = scale >= Op(1) ? Op(1) / scale : Op(1);
  t.first = std::max<int64_t>(static_cast<int64_t>(t.center - support + Op(0.5)), 0);
  t.end = std::min<int64_t>(static_cast<int64_t>(t.center + support + Op(0.5)), in);
  Op total = 0;
  for (int64_t x = t.first; x < t.end; ++x) total += t.raw(x);
  if (t.end <= t.first || total <= Op(0)) {
    t.only = std::max<int64_t>(0, std::min(static_cast<int64_t>(t.center), in - 1));
    t.first = t.only;
    t.end = t.only + 1;
    return t;
  }
  t.total = total;
  return t;
}

// (self, SymInt[2] output_size, bool align_corners, float? scales_h,
// float? scales_w, out, ret)
Status upsample_bilinear2d_aa_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> size, ctx.int_list(*args[1], "output_size"));
  ETKIT_ASSIGN_OR_RETURN(bool align_corners, bool_arg(ctx, *args[2], "align_corners"));
  std::optional<double> factors[2];
  for (size_t k = 0; k < 2; ++k) {
    if (args[3 + k]->is_none()) continue;
    ETKIT_ASSIGN_OR_RETURN(double f, double_arg(ctx, *args[3 + k], k == 0 ? "scales_h" : "scales_w"));
    factors[k] = f;
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (input->dim() != 4) return ctx.fail("self must be [N, C, H, W], got " + input->shape_string());
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    return ctx.fail("output_size must be two positive sizes, got " + list_string(size));
  }
  if (input->dtype() != out->dtype()) {
    return ctx.fail("out dtype " + dtype_name(out->dtype()) + " does not match input dtype " + dtype_name(input->dtype()));
  }
  if (!is_floating(input->dtype())) return ctx.fail("unsupported dtype " + dtype_name(input->dtype()));
  if (input->size(2) == 0 || input->size(3) == 0) return ctx.fail("self " + input->shape_string() + " has an empty plane");
  const int64_t shape[4] = {input->size(0), input->size(1), size[0], size[1]};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  auto run = [&](auto zero) -> Status {
    using Op = decltype(zero);  // float for float/half/bfloat16, double for double
    Op scales[2];
    for (size_t k = 0; k < 2; ++k) {
      const int64_t in = input->size(2 + k), o = size[k];
      scales[k] = align_corners ? (o > 1 ? static_cast<Op>(in - 1) / static_cast<Op>(o - 1) : Op(0))
                                : source_scale<Op>(factors[k], in, o);
      if (!(scales[k] >= 0) || !(scales[k] * static_cast<Op>(o) < Op(2147483647.0))) {
        return ctx.fail("the scale factors give an out-of-range source position");
      }
    }
    const auto is = input->strides(), os = out->strides();
    const ScalarType t = input->dtype();
    for (int64_t n = 0; n < shape[0]; ++n) {
      for (int64_t oy = 0; oy < shape[2]; ++oy) {
        const AaTaps<Op> r = aa_taps<Op>(oy, scales[0], input->size(2));
        for (int64_t ox = 0; ox < shape[3]; ++ox) {
          const AaTaps<Op> c = aa_taps<Op>(ox, scales[1], input->size(3));
          for (int64_t ch = 0; ch < shape[1]; ++ch) {
            Op value = 0;
            for (int64_t y = r.first; y < r.end; ++y) {
              const Op wy = r.weight(y);
              for (int64_t x = c.first; x < c.end; ++x) {
                value += load_as<Op>(t, input->data(), n * is[0] + ch * is[1] + y * is[2] + x * is[3]) * wy * c.weight(x);
              }
            }
            store_as<Op>(t, out->data(), n * os[0] + ch * os[1] + oy * os[2] + ox * os[3], value);
          }
        }
      }
    }
    return {};
  };
  if (input->dtype() == ScalarType::kDouble) return run(0.0);
  return run(0.0f);
}

}  // namespace

void add_upsample_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out, 5, {3}});
  table.push_back({"aten::upsample_bilinear2d.vec_out", upsample_bilinear2d_vec_out, 6, {4}});
  table.push_back({"aten::_upsample_bilinear2d_aa.out", upsample_bilinear2d_aa_out, 7, {5}});
}

}  // namespace etkit::rt::kernels::linalg
