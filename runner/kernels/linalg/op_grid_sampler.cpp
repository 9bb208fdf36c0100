// aten::grid_sampler_2d.out: samples input [N, C, H, W] at the normalized
// (x, y) positions of grid [N, Ho, Wo, 2] (-1 and 1 are the edges: pixel
// centers with align_corners, outer borders without) into out
// [N, C, Ho, Wo]. Interpolation 0 bilinear, 1 nearest (ties to even),
// 2 bicubic (A = -0.75); padding 0 zeros, 1 border (clamp), 2 reflection
// (mirror at the edges). The formulas are ATen's GridSampler.h: a
// coordinate that is not finite or beyond the int range reads as -100
// (out of bounds, so 0 or the clamped edge), which keeps every float ->
// integer conversion defined.
#include <cmath>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"

namespace etkit::rt::kernels::linalg {
namespace {

enum class Interp { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class Pad { kZeros = 0, kBorder = 1, kReflection = 2 };

template <typename T>
T unnormalize(T coord, int64_t size, bool align_corners) {
  if (align_corners) return (coord + 1) / 2 * T(size - 1);
  return ((coord + 1) * T(size) - 1) / 2;
}

template <typename T>
T clip(T x, int64_t size) {
  return std::min(T(size - 1), std::max(x, T(0)));
}

// Mirrors x into [twice_low / 2, twice_high / 2].
template <typename T>
T reflect(T x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return T(0);
  const T low = T(twice_low) / 2, span = T(twice_high - twice_low) / 2;
  x = std::fabs(x - low);
  const T extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));  // x is finite and bounded here
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

template <typename T>
T safe_coordinate(T x) {
  if (!std::isfinite(x) || x > T(INT32_MAX - 1) || x < T(INT32_MIN)) return T(-100);
  return x;
}

// Applies the padding mode to an (unnormalized) coordinate.
template <typename T>
T pad_coordinate(T x, int64_t size, Pad pad, bool align_corners) {
  x = safe_coordinate(x);
  if (pad == Pad::kBorder) {
    x = clip(x, size);
  } else if (pad == Pad::kReflection) {
    x = align_corners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1);
    x = clip(x, size);
  }
  return safe_coordinate(x);
}

template <typename T>
T cubic1(T x, T a) {
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}

template <typename T>
T cubic2(T x, T a) {
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

template <typename T>
T cubic_interp(T x0, T x1, T x2, T x3, T t) {
  const T a = T(-0.75);
  const T c0 = cubic2(t + 1, a), c1 = cubic1(t, a), c2 = cubic1(1 - t, a), c3 = cubic2(2 - t, a);
  return x0 * c0 + x1 * c1 + x2 * c2 + x3 * c3;
}

struct Plane {
  const void* data;
  ScalarType dtype;
  int64_t base, sy, sx, h, w;
};

template <typename T>
T at_or_zero(const Plane& p, int64_t y, int64_t x) {
  if (y < 0 || y >= p.h || x < 0 || x >= p.w) return T(0);
  return load_as<T>(p.dtype, p.data, p.base + y * p.sy + x * p.sx);
}

template <typename T>
T sample(const Plane& p, T gx, T gy, Interp interp, Pad pad, bool align_corners) {
  if (interp == Interp::kBicubic) {
    // Taps around the unpadded position; padding applies to each tap.
    const T ix = safe_coordinate(unnormalize(gx, p.w, align_corners));
    const T iy = safe_coordinate(unnormalize(gy, p.h, align_corners));
    const T fx = std::floor(ix), fy = std::floor(iy);
    const T tx = ix - fx, ty = iy - fy;
    const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
    auto tap = [&](int64_t y, int64_t x) {
      const T px = pad_coordinate(T(x), p.w, pad, align_corners);
      const T py = pad_coordinate(T(y), p.h, pad, align_corners);
      return at_or_zero<T>(p, static_cast<int64_t>(py), static_cast<int64_t>(px));
    };
    T rows[4];
    for (int64_t i = 0; i < 4; ++i) {
      const int64_t y = y0 - 1 + i;
      rows[i] = cubic_interp(tap(y, x0 - 1), tap(y, x0), tap(y, x0 + 1), tap(y, x0 + 2), tx);
    }
    return cubic_interp(rows[0], rows[1], rows[2], rows[3], ty);
  }
  const T ix = pad_coordinate(unnormalize(gx, p.w, align_corners), p.w, pad, align_corners);
  const T iy = pad_coordinate(unnormalize(gy, p.h, align_corners), p.h, pad, align_corners);
  if (interp == Interp::kNearest) {
    return at_or_zero<T>(p, static_cast<int64_t>(std::nearbyint(iy)), static_cast<int64_t>(std::nearbyint(ix)));
  }
  const T fx = std::floor(ix), fy = std::floor(iy);
  const int64_t x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
  // The corner weights as ATen forms them (distances to the far corners).
  const T east = ix - fx, south = iy - fy, west = (fx + 1) - ix, north = (fy + 1) - iy;
  return at_or_zero<T>(p, y0, x0) * west * north + at_or_zero<T>(p, y0, x0 + 1) * east * north +
         at_or_zero<T>(p, y0 + 1, x0) * west * south + at_or_zero<T>(p, y0 + 1, x0 + 1) * east * south;
}

// (input, grid, int interpolation_mode, int padding_mode, bool align_corners, out, ret)
Status grid_sampler_2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * grid, tensor_arg(ctx, *args[1], "grid"));
  ETKIT_ASSIGN_OR_RETURN(int64_t interp_value, int_arg(ctx, *args[2], "interpolation_mode"));
  ETKIT_ASSIGN_OR_RETURN(int64_t pad_value, int_arg(ctx, *args[3], "padding_mode"));
  ETKIT_ASSIGN_OR_RETURN(bool align_corners, bool_arg(ctx, *args[4], "align_corners"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  if (interp_value < 0 || interp_value > 2) {
    return ctx.fail("interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got " +
                    std::to_string(interp_value));
  }
  if (pad_value < 0 || pad_value > 2) {
    return ctx.fail("padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got " + std::to_string(pad_value));
  }
  const ScalarType t = input->dtype();
  if (!is_floating(t)) return ctx.fail("input must be floating point, not " + dtype_name(t));
  if (grid->dtype() != t || out->dtype() != t) return ctx.fail("grid and out must have input's dtype " + dtype_name(t));
  if (input->dim() != 4) return ctx.fail("input must be [N, C, H, W], got " + input->shape_string());
  if (grid->dim() != 4 || grid->size(3) != 2 || grid->size(0) != input->size(0)) {
    return ctx.fail("grid must be [N, H_out, W_out, 2] with input's N, got " + grid->shape_string());
  }
  if (input->size(2) == 0 || input->size(3) == 0) return ctx.fail("input " + input->shape_string() + " has an empty plane");
  const int64_t shape[4] = {input->size(0), input->size(1), grid->size(1), grid->size(2)};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const Interp interp = static_cast<Interp>(interp_value);
  const Pad pad = static_cast<Pad>(pad_value);
  const auto is = input->strides(), gs = grid->strides(), os = out->strides();
  auto run = [&](auto zero) {
    using T = decltype(zero);  // float for float/half/bfloat16, double for double
    for (int64_t n = 0; n < shape[0]; ++n) {
      for (int64_t y = 0; y < shape[2]; ++y) {
        for (int64_t x = 0; x < shape[3]; ++x) {
          const int64_t g = n * gs[0] + y * gs[1] + x * gs[2];
          const T gx = load_as<T>(t, grid->data(), g), gy = load_as<T>(t, grid->data(), g + gs[3]);
          for (int64_t c = 0; c < shape[1]; ++c) {
            const Plane p{input->data(), t, n * is[0] + c * is[1], is[2], is[3], input->size(2), input->size(3)};
            store_as<T>(t, out->data(), n * os[0] + c * os[1] + y * os[2] + x * os[3],
                        sample<T>(p, gx, gy, interp, pad, align_corners));
          }
        }
      }
    }
  };
  if (t == ScalarType::kDouble) run(0.0);
  else run(0.0f);
  return {};
}

}  // namespace

void add_grid_sampler_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::grid_sampler_2d.out", grid_sampler_2d_out, 7, {5}});
}

}  // namespace etkit::rt::kernels::linalg
