// cadence::quantized_layer_norm (.out with tensor input parameters,
// .per_tensor_out with scalars), quantized_max_pool2d (NCHW under the
// names quantized_max_pool2d.out and quantized_max_pool2d_nchw.out, NHWC as
// quantized_max_pool2d_nhwc.out) and avg_pool2d.out, as the generic
// reference computes them.
//
//  * layer_norm normalises each row of the last dimension (normalized_shape
//    is not consulted, as in the reference) from integer sums of the
//    quantized values: sum and sum of squares in int32 (wrapping as the
//    target's registers do), with the zero point folded in afterwards; mean =
//    scale * sum / n and variance = scale^2 * sq_sum / n - mean^2, each formed
//    in double and kept in float; 1 / sqrt(variance + eps) likewise. Then each
//    value is dequantized (float scale * (q - zp)), normalised, scaled by
//    weight[j] and shifted by bias[j] (FLOAT) in float, and quantized with
//    1 / output_scale (ties to even, clamped). uint8 and int8.
//  * max_pool2d takes the maximum of the window's taps inside the input
//    (padding contributes nothing); dilation applies, ceil_mode only sizes
//    the output. uint8 and int8.
//  * avg_pool2d (NCHW, FLOAT or BYTE): the sum of the taps inside the input,
//    plus in_zero_point for every other tap of the window when
//    count_include_pad, times 1 / divisor in float; the divisor is
//    divisor_override, else kH * kW when count_include_pad, else the taps
//    inside the input. BYTE sums in int32 and rounds half to even, clamped.
//    An empty stride means the kernel size and a single value repeats
//    (PyTorch's reading; the reference would index past the list).
// The reference indexes raw memory, so tensors must be contiguous; the NHWC
// variant's tensors have logical shape [N, H, W, C].
#include <array>
#include <optional>
#include <string>
#include <type_traits>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_util_inl.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::cadence {
namespace {

bool is_8bit(ScalarType t) { return t == ScalarType::kChar || t == ScalarType::kByte; }

// ---- quantized_layer_norm -------------------------------------------------

struct NormParams {
  double in_scale;
  int32_t in_zp;
  double eps, out_scale;
  int32_t out_zp;
};

template <typename T>
void layer_norm_rows(const Tensor& input, const Tensor& weight, const Tensor& bias, const NormParams& p, Tensor& out) {
  const T* x = input.data_as<T>();
  T* y = out.data_as<T>();
  const float* w = weight.data_as<float>();
  const float* b = bias.data_as<float>();
  const Range range = *dtype_range(out.dtype());
  const auto n = static_cast<int64_t>(input.size(input.dim() - 1));
  const int64_t rows = n == 0 ? 0 : input.numel() / n;
  const auto inv_out_scale = static_cast<float>(1.0 / p.out_scale);
  const int64_t zp = p.in_zp;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * n;
    int32_t sum = 0;
    // The reference forms n * zp * zp and n * zp in size_t: modulo 2^64, then 2^32.
    const uint64_t un = uint64_t(n), uzp = uint64_t(zp);
    int32_t sq_sum = int32_t(uint32_t(un * uzp * uzp));
    for (int64_t j = 0; j < n; ++j) {
      const int32_t v = row[j];
      sum = wrap32(int64_t(sum) + v);
      sq_sum = wrap32(int64_t(sq_sum) + v * v);
    }
    sq_sum = wrap32(int64_t(sq_sum) - int64_t(wrap32(2 * int64_t(sum))) * zp);
    sum = int32_t(uint32_t(uint64_t(int64_t(sum)) - un * uzp));
    const auto mean = static_cast<float>(p.in_scale * sum / double(n));
    const auto variance =
        static_cast<float>(double(sq_sum) * p.in_scale * p.in_scale / double(n) - double(mean * mean));
    const auto inv_std = static_cast<float>(1.0 / std::sqrt(double(variance) + p.eps));
    const auto scale = static_cast<float>(p.in_scale);
    for (int64_t j = 0; j < n; ++j) {
      const float v = scale * float(wrap32(int64_t(row[j]) - p.in_zp));
      const float normed = (v - mean) * inv_std * w[j] + b[j];
      y[r * n + j] = static_cast<T>(quantize_value(normed, inv_out_scale, p.out_zp, range));
    }
  }
}

// Arguments from normalized_shape on (both overloads share them).
Status layer_norm(KernelContext& ctx, std::span<EValue* const> args, const Tensor& input, NormParams p) {
  ETKIT_ASSIGN_OR_RETURN(auto normalized_shape, ctx.int_list(*args[3], "normalized_shape"));
  (void)normalized_shape;  // the reference normalises over the last dim whatever this says
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[4], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[5], "bias"));
  ETKIT_ASSIGN_OR_RETURN(p.eps, double_arg(ctx, *args[6], "eps"));
  ETKIT_ASSIGN_OR_RETURN(p.out_scale, double_arg(ctx, *args[7], "output_scale"));
  ETKIT_ASSIGN_OR_RETURN(p.out_zp, zero_point_arg(ctx, *args[8], "output_zero_point"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  if (!is_8bit(input.dtype())) return ctx.fail("input must be CHAR or BYTE, not " + dtype_name(input.dtype()));
  if (out->dtype() != input.dtype()) {
    return ctx.fail("out must be " + dtype_name(input.dtype()) + " as input, not " + dtype_name(out->dtype()));
  }
  if (input.dim() == 0) return ctx.fail("input must have at least one dimension");
  const int64_t n = input.size(input.dim() - 1);
  for (auto [t, name] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}}) {
    if (t->dtype() != ScalarType::kFloat) return ctx.fail(std::string(name) + " must be FLOAT, not " + dtype_name(t->dtype()));
    if (t->numel() != n) {
      return ctx.fail(std::string(name) + " must have " + std::to_string(n) + " elements (input's last dim), got " +
                      t->shape_string());
    }
    ETKIT_TRY(require_contiguous(ctx, *t, name));
  }
  ETKIT_TRY(require_contiguous(ctx, input, "input"));
  ETKIT_TRY(resize_out(ctx, *out, input.sizes()));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  if (input.dtype() == ScalarType::kChar) layer_norm_rows<int8_t>(input, *weight, *bias, p, *out);
  else layer_norm_rows<uint8_t>(input, *weight, *bias, p, *out);
  return {};
}

// (input, float in_scale, int in_zero_point, int[] normalized_shape, weight, bias,
// float eps, float output_scale, int output_zero_point, out, ret)
Status layer_norm_per_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  NormParams p{};
  ETKIT_ASSIGN_OR_RETURN(p.in_scale, double_arg(ctx, *args[1], "in_scale"));
  ETKIT_ASSIGN_OR_RETURN(p.in_zp, zero_point_arg(ctx, *args[2], "in_zero_point"));
  return layer_norm(ctx, args, *input, p);
}

// (input, Tensor in_scale (FLOAT), Tensor in_zero_point (LONG), ...): the
// tensor scale is a float widened to double.
Status layer_norm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * scale, scalar_tensor_arg(ctx, *args[1], "in_scale", ScalarType::kFloat));
  ETKIT_ASSIGN_OR_RETURN(Tensor * zero_point, scalar_tensor_arg(ctx, *args[2], "in_zero_point", ScalarType::kLong));
  const int64_t zp = *zero_point->data_as<int64_t>();
  if (zp < INT32_MIN || zp > INT32_MAX) return ctx.fail("in_zero_point " + std::to_string(zp) + " does not fit in int32");
  NormParams p{};
  p.in_scale = double(*scale->data_as<float>());
  p.in_zp = int32_t(zp);
  return layer_norm(ctx, args, *input, p);
}

// ---- quantized_max_pool2d -------------------------------------------------

constexpr int64_t kMaxWindow = int64_t(1) << 20;

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// PyTorch's pooling output size: in ceil mode the last window must still
// start inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = floor_div(span + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

Result<std::span<const int64_t>> pair_arg(KernelContext& ctx, const EValue& v, std::string_view what, int64_t lo) {
  ETKIT_ASSIGN_OR_RETURN(auto list, ctx.int_list(v, what));
  if (list.size() != 2) return ctx.fail(std::string(what) + " must have 2 values, got " + std::to_string(list.size()));
  for (int64_t x : list) {
    if (x < lo || x > kMaxWindow) {
      return ctx.fail(std::string(what) + " value " + std::to_string(x) + " out of range [" + std::to_string(lo) +
                      ", " + std::to_string(kMaxWindow) + "]");
    }
  }
  return list;
}

// (input, kernel_size, stride, padding, dilation, ceil_mode, out, ret)
template <bool kNhwc>
Status max_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(auto k, pair_arg(ctx, *args[1], "kernel_size", 1));
  ETKIT_ASSIGN_OR_RETURN(auto s, pair_arg(ctx, *args[2], "stride", 1));
  ETKIT_ASSIGN_OR_RETURN(auto pad, pair_arg(ctx, *args[3], "padding", 0));
  ETKIT_ASSIGN_OR_RETURN(auto d, pair_arg(ctx, *args[4], "dilation", 1));
  ETKIT_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(ctx, *args[5], "ceil_mode"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  if (!is_8bit(input->dtype())) return ctx.fail("input must be CHAR or BYTE, not " + dtype_name(input->dtype()));
  if (out->dtype() != input->dtype()) {
    return ctx.fail("out must be " + dtype_name(input->dtype()) + " as input, not " + dtype_name(out->dtype()));
  }
  const char* layout = kNhwc ? "[N, H, W, C]" : "[N, C, H, W]";
  if (input->dim() != 4) return ctx.fail(std::string("input must be 4-D ") + layout + ", got " + input->shape_string());
  const int64_t batch = input->size(0);
  const int64_t channels = input->size(kNhwc ? 3 : 1);
  const int64_t ih = input->size(kNhwc ? 1 : 2), iw = input->size(kNhwc ? 2 : 3);
  const int64_t oh = pooled_size(ih, k[0], s[0], pad[0], d[0], ceil_mode);
  const int64_t ow = pooled_size(iw, k[1], s[1], pad[1], d[1], ceil_mode);
  if (oh <= 0 || ow <= 0) {
    return ctx.fail("kernel " + std::to_string(k[0]) + "x" + std::to_string(k[1]) + " does not fit input " +
                    input->shape_string() + " with this padding and dilation");
  }
  ETKIT_TRY(require_contiguous(ctx, *input, "input"));
  const int64_t shape_nchw[4] = {batch, channels, oh, ow}, shape_nhwc[4] = {batch, oh, ow, channels};
  ETKIT_TRY(resize_out(ctx, *out, kNhwc ? shape_nhwc : shape_nchw));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  // Element (n, c, y, x) of a contiguous tensor in this variant's layout.
  auto at = [&](int64_t n, int64_t c, int64_t y, int64_t x, int64_t h, int64_t w) {
    return kNhwc ? ((n * h + y) * w + x) * channels + c : ((n * channels + c) * h + y) * w + x;
  };
  auto pool = [&](auto tag) {
    using T = decltype(tag);
    const T* src = input->data_as<T>();
    T* dst = out->data_as<T>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t y = 0; y < oh; ++y) {
          for (int64_t x = 0; x < ow; ++x) {
            T best = std::numeric_limits<T>::lowest();  // a window entirely in padding keeps this
            for (int64_t ky = 0; ky < k[0]; ++ky) {
              const int64_t sy = y * s[0] - pad[0] + ky * d[0];
              if (sy < 0 || sy >= ih) continue;
              for (int64_t kx = 0; kx < k[1]; ++kx) {
                const int64_t sx = x * s[1] - pad[1] + kx * d[1];
                if (sx < 0 || sx >= iw) continue;
                best = std::max(best, src[at(n, c, sy, sx, ih, iw)]);
              }
            }
            dst[at(n, c, y, x, oh, ow)] = best;
          }
        }
      }
    }
  };
  if (input->dtype() == ScalarType::kChar) pool(int8_t{});
  else pool(uint8_t{});
  return {};
}

// ---- avg_pool2d -----------------------------------------------------------

// A pair from an int[2] argument that may also hold one value (repeated) or,
// when `fallback` is given, none.
Result<std::array<int64_t, 2>> pool_pair(KernelContext& ctx, const EValue& v, std::string_view what, int64_t lo,
                                         const std::array<int64_t, 2>* fallback) {
  ETKIT_ASSIGN_OR_RETURN(auto list, ctx.int_list(v, what));
  if (list.empty() && fallback) return *fallback;
  if (list.size() != 1 && list.size() != 2) {
    return ctx.fail(std::string(what) + " must have 1 or 2 values, got " + std::to_string(list.size()));
  }
  const std::array<int64_t, 2> pair{list[0], list.back()};
  for (int64_t x : pair) {
    if (x < lo || x > kMaxWindow) {
      return ctx.fail(std::string(what) + " value " + std::to_string(x) + " out of range [" + std::to_string(lo) +
                      ", " + std::to_string(kMaxWindow) + "]");
    }
  }
  return pair;
}

struct AvgWindow {
  int64_t kh, kw, sh, sw, ph, pw;
  bool count_include_pad;
  std::optional<int64_t> divisor_override;
  int32_t zero_point;
};

template <typename T, typename Acc>
void avg_pool_planes(const Tensor& input, const AvgWindow& w, int64_t oh, int64_t ow, Tensor& out) {
  const int64_t ih = input.size(input.dim() - 2), iw = input.size(input.dim() - 1);
  const int64_t planes = ih * iw == 0 ? 0 : input.numel() / (ih * iw);
  const T* src = input.data_as<T>();
  T* dst = out.data_as<T>();
  const bool fixed = w.divisor_override.has_value() || w.count_include_pad;
  const float fixed_inv = 1.f / float(w.divisor_override ? *w.divisor_override : w.kh * w.kw);
  for (int64_t n = 0; n < planes; ++n) {
    for (int64_t y = 0; y < oh; ++y) {
      const int64_t y0 = std::max<int64_t>(0, y * w.sh - w.ph), y1 = std::min(ih, y * w.sh + w.kh - w.ph);
      for (int64_t x = 0; x < ow; ++x) {
        const int64_t x0 = std::max<int64_t>(0, x * w.sw - w.pw), x1 = std::min(iw, x * w.sw + w.kw - w.pw);
        const int64_t count = (y1 - y0) * (x1 - x0);  // >= 1: padding is at most half the kernel
        // Taps outside the input (padding, or past it in ceil mode) count as the zero point.
        Acc acc = w.count_include_pad ? Acc(wrap32(int64_t(w.zero_point) * (w.kh * w.kw - count))) : Acc(0);
        for (int64_t r = y0; r < y1; ++r) {
          for (int64_t c = x0; c < x1; ++c) {
            if constexpr (std::is_same_v<Acc, float>) acc += src[(n * ih + r) * iw + c];
            else acc = wrap32(int64_t(acc) + src[(n * ih + r) * iw + c]);
          }
        }
        const float inv = fixed ? fixed_inv : 1.f / float(count);
        const float v = float(acc) * inv;
        if constexpr (std::is_same_v<T, float>) {
          dst[(n * oh + y) * ow + x] = v;
        } else {
          dst[(n * oh + y) * ow + x] = static_cast<T>(std::clamp(std::nearbyint(v), 0.0f, 255.0f));
        }
      }
    }
  }
}

// (input, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override?, in_zero_point?, channel_last, out, ret)
Status avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(auto k, pool_pair(ctx, *args[1], "kernel_size", 1, nullptr));
  ETKIT_ASSIGN_OR_RETURN(auto s, pool_pair(ctx, *args[2], "stride", 1, &k));
  const std::array<int64_t, 2> no_padding{0, 0};
  ETKIT_ASSIGN_OR_RETURN(auto p, pool_pair(ctx, *args[3], "padding", 0, &no_padding));
  ETKIT_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(ctx, *args[4], "ceil_mode"));
  AvgWindow w{k[0], k[1], s[0], s[1], p[0], p[1], false, std::nullopt, 0};
  ETKIT_ASSIGN_OR_RETURN(w.count_include_pad, bool_arg(ctx, *args[5], "count_include_pad"));
  if (!args[6]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(int64_t d, int_arg(ctx, *args[6], "divisor_override"));
    if (d == 0) return ctx.fail("divisor_override must not be 0");
    w.divisor_override = d;
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * zp, optional_tensor_arg(ctx, *args[7], "in_zero_point"));
  if (zp) {
    if (zp->dtype() != ScalarType::kInt || zp->numel() < 1) {
      return ctx.fail("in_zero_point must be an INT tensor with a value, got " + dtype_name(zp->dtype()) + " " +
                      zp->shape_string());
    }
    w.zero_point = zp->data_as<int32_t>()[0];
  }
  ETKIT_ASSIGN_OR_RETURN(bool channel_last, bool_arg(ctx, *args[8], "channel_last"));
  if (channel_last) return ctx.fail("channel_last is not supported (the reference has no NHWC avg_pool2d)");
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  const ScalarType t = input->dtype();
  if (t != ScalarType::kFloat && t != ScalarType::kByte) return ctx.fail("input must be FLOAT or BYTE, not " + dtype_name(t));
  if (out->dtype() != t) return ctx.fail("out must be " + dtype_name(t) + " as input, not " + dtype_name(out->dtype()));
  if (input->dim() != 3 && input->dim() != 4) return ctx.fail("input must be 3-D or 4-D, got " + input->shape_string());
  if (2 * w.ph > w.kh || 2 * w.pw > w.kw) return ctx.fail("padding must be at most half the kernel size");
  const size_t r = input->dim();
  const int64_t oh = pooled_size(input->size(r - 2), w.kh, w.sh, w.ph, 1, ceil_mode);
  const int64_t ow = pooled_size(input->size(r - 1), w.kw, w.sw, w.pw, 1, ceil_mode);
  if (oh <= 0 || ow <= 0) {
    return ctx.fail("kernel " + std::to_string(w.kh) + "x" + std::to_string(w.kw) + " does not fit input " +
                    input->shape_string() + " with this padding");
  }
  ETKIT_TRY(require_contiguous(ctx, *input, "input"));
  Shape shape = shape_of(*input);
  shape[r - 2] = oh;
  shape[r - 1] = ow;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  if (t == ScalarType::kFloat) avg_pool_planes<float, float>(*input, w, oh, ow, *out);
  else avg_pool_planes<uint8_t, int32_t>(*input, w, oh, ow, *out);
  return {};
}

}  // namespace

std::vector<KernelInfo> norm_pool_kernels() {
  return {
      {"cadence::quantized_layer_norm.out", layer_norm_out, 11, {9}},
      {"cadence::quantized_layer_norm.per_tensor_out", layer_norm_per_tensor_out, 11, {9}},
      {"cadence::quantized_max_pool2d.out", max_pool2d_out<false>, 8, {6}},
      {"cadence::quantized_max_pool2d_nchw.out", max_pool2d_out<false>, 8, {6}},
      {"cadence::quantized_max_pool2d_nhwc.out", max_pool2d_out<true>, 8, {6}},
      {"cadence::avg_pool2d.out", avg_pool2d_out, 11, {9}},
  };
}

}  // namespace etkit::rt::kernels::cadence
