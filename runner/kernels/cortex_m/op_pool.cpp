// cortex_m::quantized_avg_pool2d.out and quantized_max_pool2d.out on int8
// [N, C, H, W] tensors of any dim order (CMSIS-NN's arm_avgpool_s8 /
// arm_max_pool_s8 on NHWC):
//   avg: sum of the taps inside the input / their count, rounded half away
//        from zero, clamped to int8 (padding is not counted). Input and output
//        share one quantization, so zero_point, multiplier and shift are
//        range-checked only (ExecuTorch's kernel ignores them too).
//   max: max of the taps inside the input, clamped to [activation_min,
//        activation_max]; input and output zero points must agree.
#include <algorithm>

#include "runner/kernels/cortex_m/cmsis_math.h"
#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

constexpr int64_t kMaxWindow = int64_t(1) << 20;

struct PoolWindow {
  int64_t kh, kw, sh, sw, ph, pw;
};

Result<PoolWindow> window_args(KernelContext& ctx, const EValue& kernel_v, const EValue& stride_v,
                               const EValue& padding_v) {
  ETKIT_ASSIGN_OR_RETURN(auto k, int_list_arg(ctx, kernel_v, "kernel_size", 2, 1, kMaxWindow));
  const int64_t kh = k[0], kw = k[1];
  ETKIT_ASSIGN_OR_RETURN(auto s, int_list_arg(ctx, stride_v, "stride", 2, 1, kMaxWindow));
  const int64_t sh = s[0], sw = s[1];
  ETKIT_ASSIGN_OR_RETURN(auto p, int_list_arg(ctx, padding_v, "padding", 2, 0, kMaxWindow));
  if (p[0] * 2 > kh || p[1] * 2 > kw) {
    return ctx.fail("padding must be at most half of kernel_size (every window must overlap the input)");
  }
  return PoolWindow{kh, kw, sh, sw, p[0], p[1]};
}

// PyTorch's pooling output extent: floor or ceil mode, and in ceil mode the
// last window must start inside the input or its left padding.
int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
  const int64_t span = in + 2 * p - k;
  if (span < 0) return 0;
  int64_t out = (span + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

Status prepare(KernelContext& ctx, const Tensor& in, Tensor& out, const PoolWindow& w, bool ceil_mode) {
  ETKIT_TRY(check_dtype(ctx, in, ScalarType::kChar, "input"));
  ETKIT_TRY(check_dtype(ctx, out, ScalarType::kChar, "out"));
  if (in.dim() != 4) return ctx.fail("input must be 4-D [N, C, H, W], got " + in.shape_string());
  const int64_t oh = pool_out_size(in.size(2), w.kh, w.sh, w.ph, ceil_mode);
  const int64_t ow = pool_out_size(in.size(3), w.kw, w.sw, w.pw, ceil_mode);
  if (oh <= 0 || ow <= 0) return ctx.fail("kernel_size does not fit input " + in.shape_string());
  const int64_t shape[4] = {in.size(0), in.size(1), oh, ow};
  ETKIT_TRY(resize_out(ctx, out, shape));
  if (overlaps(in, out)) return ctx.fail("out must not overlap input");
  return {};
}

// Calls reduce(value) for every tap of each window inside the input, then
// store(out_offset, count) per output element.
template <typename Begin, typename Tap, typename Store>
void pool_loops(const Tensor& in, Tensor& out, const PoolWindow& w, Begin&& begin, Tap&& tap, Store&& store) {
  const Nchw is = nchw(in), os = nchw(out);
  const int8_t* x = in.data_as<int8_t>();
  for (int64_t n = 0; n < os.n; ++n) {
    for (int64_t c = 0; c < os.c; ++c) {
      for (int64_t oy = 0; oy < os.h; ++oy) {
        const int64_t y0 = std::max<int64_t>(0, oy * w.sh - w.ph), y1 = std::min(is.h, oy * w.sh - w.ph + w.kh);
        for (int64_t ox = 0; ox < os.w; ++ox) {
          const int64_t x0 = std::max<int64_t>(0, ox * w.sw - w.pw), x1 = std::min(is.w, ox * w.sw - w.pw + w.kw);
          begin();
          for (int64_t iy = y0; iy < y1; ++iy) {
            for (int64_t ix = x0; ix < x1; ++ix) tap(x[n * is.sn + c * is.sc + iy * is.sh + ix * is.sw]);
          }
          store(n * os.sn + c * os.sc + oy * os.sh + ox * os.sw, std::max<int64_t>(0, y1 - y0) * std::max<int64_t>(0, x1 - x0));
        }
      }
    }
  }
}

// sum / count rounded half away from zero (C division truncates).
int32_t rounded_average(int64_t sum, int64_t count) {
  const int64_t half = count / 2;
  return static_cast<int32_t>(sum > 0 ? (sum + half) / count : (sum - half) / count);
}

// (input, kernel_size, stride, padding, [ceil_mode,] zero_point, multiplier,
//  shift, scratch, out, ret): programs exported before ceil_mode was added
// pass ten values, newer ones eleven.
Status quantized_avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  if (args.size() != 10 && args.size() != 11) {
    return ctx.fail("expected 10 or 11 arguments, got " + std::to_string(args.size()));
  }
  const bool has_ceil = args.size() == 11;
  const size_t q = has_ceil ? 5 : 4;  // zero_point's slot
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[q + 4], "out"));
  ETKIT_ASSIGN_OR_RETURN(PoolWindow w, window_args(ctx, *args[1], *args[2], *args[3]));
  bool ceil_mode = false;
  if (has_ceil) {
    ETKIT_ASSIGN_OR_RETURN(ceil_mode, bool_arg(ctx, *args[4], "ceil_mode"));
  }
  ETKIT_ASSIGN_OR_RETURN(int32_t zp, int_in_range(ctx, *args[q], "zero_point", -128, 127));
  ETKIT_ASSIGN_OR_RETURN(int32_t mult, multiplier_arg(ctx, *args[q + 1], "multiplier"));
  ETKIT_ASSIGN_OR_RETURN(int32_t shift, shift_arg(ctx, *args[q + 2], "shift"));
  (void)zp, (void)mult, (void)shift;
  ETKIT_ASSIGN_OR_RETURN(Tensor * scratch, tensor_arg(ctx, *args[q + 3], "scratch"));
  (void)scratch;
  ETKIT_TRY(prepare(ctx, *in, *out, w, ceil_mode));
  int8_t* y = out->data_as<int8_t>();
  int64_t sum = 0;
  pool_loops(
      *in, *out, w, [&] { sum = 0; }, [&](int8_t v) { sum += v; },
      [&](int64_t o, int64_t count) { y[o] = static_cast<int8_t>(clamp32(rounded_average(sum, count), -128, 127)); });
  return {};
}

// (input, kernel_size, stride, padding, dilation, ceil_mode,
//  input_zero_point, output_zero_point, activation_min, activation_max, out, ret)
Status quantized_max_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[10], "out"));
  ETKIT_ASSIGN_OR_RETURN(PoolWindow w, window_args(ctx, *args[1], *args[2], *args[3]));
  ETKIT_ASSIGN_OR_RETURN(auto dilation, int_list_arg(ctx, *args[4], "dilation", 2, 1, 1));
  (void)dilation;  // only 1 (checked by the range)
  ETKIT_ASSIGN_OR_RETURN(bool ceil_mode, bool_arg(ctx, *args[5], "ceil_mode"));
  if (ceil_mode) return ctx.fail("ceil_mode must be false (CMSIS-NN max pooling has no ceil mode)");
  ETKIT_ASSIGN_OR_RETURN(int32_t in_zp, int_in_range(ctx, *args[6], "input_zero_point", -128, 127));
  ETKIT_ASSIGN_OR_RETURN(int32_t out_zp, int_in_range(ctx, *args[7], "output_zero_point", -128, 127));
  if (in_zp != out_zp) {
    return ctx.fail("input_zero_point " + std::to_string(in_zp) + " and output_zero_point " + std::to_string(out_zp) +
                    " must be equal");
  }
  ETKIT_ASSIGN_OR_RETURN(Activation act, activation_args(ctx, *args[8], *args[9]));
  ETKIT_TRY(prepare(ctx, *in, *out, w, false));
  int8_t* y = out->data_as<int8_t>();
  int32_t best = -128;
  pool_loops(
      *in, *out, w, [&] { best = -128; }, [&](int8_t v) { best = std::max<int32_t>(best, v); },
      [&](int64_t o, int64_t) { y[o] = static_cast<int8_t>(clamp32(best, act.min, act.max)); });
  return {};
}

}  // namespace

// Slot 9 holds the out tensor in both argument layouts (out, then ret).
void add_pool_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::quantized_avg_pool2d.out", quantized_avg_pool2d_out, -1, {9}});
  table.push_back({"cortex_m::quantized_max_pool2d.out", quantized_max_pool2d_out, 12, {10}});
}

}  // namespace etkit::rt::kernels::cortex_m
