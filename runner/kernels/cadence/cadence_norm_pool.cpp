// cadence::quantized_layer_norm (.out with tensor input parameters,
// .per_tensor_out with scalars) and quantized_max_pool2d (NCHW under the
// names quantized_max_pool2d.out and quantized_max_pool2d_nchw.out, NHWC as
// quantized_max_pool2d_nhwc.out), as the generic reference computes them.
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
// The reference indexes raw memory, so tensors must be contiguous; the NHWC
// variant's tensors have logical shape [N, H, W, C].
#include <string>

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

}  // namespace

std::vector<KernelInfo> norm_pool_kernels() {
  return {
      {"cadence::quantized_layer_norm.out", layer_norm_out, 11, {9}},
      {"cadence::quantized_layer_norm.per_tensor_out", layer_norm_per_tensor_out, 11, {9}},
      {"cadence::quantized_max_pool2d.out", max_pool2d_out<false>, 8, {6}},
      {"cadence::quantized_max_pool2d_nchw.out", max_pool2d_out<false>, 8, {6}},
      {"cadence::quantized_max_pool2d_nhwc.out", max_pool2d_out<true>, 8, {6}},
  };
}

}  // namespace etkit::rt::kernels::cadence
