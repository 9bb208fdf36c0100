// aten::max_pool2d_with_indices.out, aten::avg_pool2d.out and
// aten::_adaptive_avg_pool2d.out over [N, C, H, W] or [C, H, W] inputs of any
// dim order (read through strides); out (and indices) contiguous.
#include <cmath>
#include <limits>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/linalg_ops.h"

namespace etkit::rt::kernels {
namespace {

struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil_mode = false;
};

Result<std::pair<int64_t, int64_t>> pair_of(KernelContext& ctx, std::span<const int64_t> list, std::string_view what,
                                            std::pair<int64_t, int64_t> if_empty) {
  if (list.empty()) return if_empty;
  if (list.size() == 1) return std::make_pair(list[0], list[0]);
  if (list.size() == 2) return std::make_pair(list[0], list[1]);
  return ctx.fail(std::string(what) + " must have 1 or 2 entries, got " + std::to_string(list.size()));
}

// PyTorch's pooling output size, with ceil_mode's rule that the last window
// must start inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

Result<Window> read_window(KernelContext& ctx, std::span<EValue* const> args, bool with_dilation) {
  Window w;
  ETKIT_ASSIGN_OR_RETURN(auto kernel, ctx.int_list(*args[1], "kernel_size"));
  ETKIT_ASSIGN_OR_RETURN(auto k, pair_of(ctx, kernel, "kernel_size", {0, 0}));
  ETKIT_ASSIGN_OR_RETURN(auto stride_list, ctx.int_list(*args[2], "stride"));
  ETKIT_ASSIGN_OR_RETURN(auto s, pair_of(ctx, stride_list, "stride", k));  // empty: the kernel size
  ETKIT_ASSIGN_OR_RETURN(auto padding_list, ctx.int_list(*args[3], "padding"));
  ETKIT_ASSIGN_OR_RETURN(auto p, pair_of(ctx, padding_list, "padding", {0, 0}));
  std::tie(w.kh, w.kw) = k;
  std::tie(w.sh, w.sw) = s;
  std::tie(w.ph, w.pw) = p;
  if (with_dilation) {
    ETKIT_ASSIGN_OR_RETURN(auto dilation_list, ctx.int_list(*args[4], "dilation"));
    ETKIT_ASSIGN_OR_RETURN(auto dl, pair_of(ctx, dilation_list, "dilation", {1, 1}));
    std::tie(w.dh, w.dw) = dl;
  }
  ETKIT_ASSIGN_OR_RETURN(w.ceil_mode, bool_arg(ctx, *args[with_dilation ? 5 : 4], "ceil_mode"));
  if (w.kh < 1 || w.kw < 1 || w.sh < 1 || w.sw < 1 || w.dh < 1 || w.dw < 1) {
    return ctx.fail("kernel_size, stride and dilation must be positive");
  }
  if (w.ph < 0 || w.pw < 0 || w.ph * 2 > w.kh || w.pw * 2 > w.kw) {
    return ctx.fail("padding must be non-negative and at most half the kernel size");
  }
  return w;
}

struct Planes {
  int64_t planes, c, h, w, oh, ow;
  bool batched;
};

Result<Planes> plan(KernelContext& ctx, const Tensor& in, const Window& w) {
  if (in.dim() != 3 && in.dim() != 4) return ctx.fail("input must be 3-D or 4-D, got " + in.shape_string());
  Planes p;
  p.batched = in.dim() == 4;
  const size_t hd = in.dim() - 2;
  p.c = in.size(hd - 1);
  p.planes = (p.batched ? in.size(0) : 1) * p.c;
  p.h = in.size(hd);
  p.w = in.size(hd + 1);
  p.oh = pooled_size(p.h, w.kh, w.sh, w.ph, w.dh, w.ceil_mode);
  p.ow = pooled_size(p.w, w.kw, w.sw, w.pw, w.dw, w.ceil_mode);
  if (p.oh < 1 || p.ow < 1) return ctx.fail("the pooling window is larger than the padded input");
  return p;
}

Shape out_shape(const Tensor& in, const Planes& p) {
  Shape s;
  for (size_t d = 0; d + 2 < in.dim(); ++d) s.push_back(in.size(d));
  s.push_back(p.oh);
  s.push_back(p.ow);
  return s;
}

// Element offset of (plane, y, x) in `t` where plane enumerates (n, c).
inline int64_t offset(const Tensor& t, const Planes& p, int64_t plane, int64_t y, int64_t x) {
  const auto s = t.strides();
  if (p.batched) return (plane / p.c) * s[0] + (plane % p.c) * s[1] + y * s[2] + x * s[3];
  return plane * s[0] + y * s[1] + x * s[2];
}

// (self, kernel_size, stride, padding, dilation, ceil_mode, out, indices, ret)
Status max_pool2d_with_indices_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[7], "indices"));
  ETKIT_ASSIGN_OR_RETURN(Window w, read_window(ctx, args, true));
  ETKIT_ASSIGN_OR_RETURN(Planes p, plan(ctx, *in, w));
  const Shape shape = out_shape(*in, p);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(resize_out(ctx, *indices, shape));
  if (out->dtype() != in->dtype()) return ctx.fail("out must have the input's dtype");
  if (indices->dtype() != ScalarType::kLong) return ctx.fail("indices must be LONG");
  if (!out->is_contiguous() || !indices->is_contiguous()) return ctx.fail("out and indices must be contiguous");
  bool ok = dispatch_real_and_bool(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = in->data_as<T>();
    T* dst = out->data_as<T>();
    int64_t* idx = indices->data_as<int64_t>();
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          bool found = false;
          T best{};
          int64_t best_index = -1;
          for (int64_t ky = 0; ky < w.kh; ++ky) {
            const int64_t y = oy * w.sh - w.ph + ky * w.dh;
            if (y < 0 || y >= p.h) continue;
            for (int64_t kx = 0; kx < w.kw; ++kx) {
              const int64_t x = ox * w.sw - w.pw + kx * w.dw;
              if (x < 0 || x >= p.w) continue;
              const T v = src[offset(*in, p, plane, y, x)];
              // NaN wins, as in PyTorch (and then stays).
              bool take = !found || v > best;
              if constexpr (std::is_floating_point_v<T>) take = take || std::isnan(v);
              if constexpr (std::is_floating_point_v<T>) take = take && !(found && std::isnan(best));
              if (take) {
                best = v;
                best_index = y * p.w + x;
                found = true;
              }
            }
          }
          const int64_t o = (plane * p.oh + oy) * p.ow + ox;
          dst[o] = best;
          idx[o] = best_index;
        }
      }
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(in->dtype()))));
  return {};
}

// (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override?, out, ret)
Status avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(bool count_include_pad, bool_arg(ctx, *args[5], "count_include_pad"));
  int64_t divisor_override = 0;
  if (!args[6]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(divisor_override, int_arg(ctx, *args[6], "divisor_override"));
    if (divisor_override == 0) return ctx.fail("divisor_override must not be 0");
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  ETKIT_ASSIGN_OR_RETURN(Window w, read_window(ctx, args, false));
  ETKIT_ASSIGN_OR_RETURN(Planes p, plan(ctx, *in, w));
  ETKIT_TRY(resize_out(ctx, *out, out_shape(*in, p)));
  if (out->dtype() != in->dtype() || !out->is_contiguous()) return ctx.fail("out must be contiguous with the input's dtype");
  bool ok = dispatch_compute_type(in->dtype(), [&](auto tag) {
    using CT = decltype(tag);
    if constexpr (std::is_same_v<CT, bool>) return;
    for (int64_t plane = 0; plane < p.planes; ++plane) {
      for (int64_t oy = 0; oy < p.oh; ++oy) {
        for (int64_t ox = 0; ox < p.ow; ++ox) {
          // The window clipped to the padded input, then to the input.
          const int64_t y0 = oy * w.sh - w.ph, x0 = ox * w.sw - w.pw;
          const int64_t y1 = std::min(y0 + w.kh, p.h + w.ph), x1 = std::min(x0 + w.kw, p.w + w.pw);
          const int64_t padded_count = (y1 - y0) * (x1 - x0);
          double sum = 0;
          int64_t count = 0;
          for (int64_t y = std::max<int64_t>(y0, 0); y < std::min(y1, p.h); ++y) {
            for (int64_t x = std::max<int64_t>(x0, 0); x < std::min(x1, p.w); ++x) {
              sum += load_as<double>(in->dtype(), in->data(), offset(*in, p, plane, y, x));
              ++count;
            }
          }
          const int64_t divisor = divisor_override ? divisor_override : count_include_pad ? padded_count : count;
          store_as<double>(out->dtype(), out->data(), (plane * p.oh + oy) * p.ow + ox, divisor ? sum / double(divisor) : 0.0);
        }
      }
    }
  });
  if (!ok || in->dtype() == ScalarType::kBool) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(in->dtype()))));
  return {};
}

// (self, output_size, out, ret): bins [floor(i*H/OH), ceil((i+1)*H/OH)).
Status adaptive_avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size_list, ctx.int_list(*args[1], "output_size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (size_list.size() != 2 || size_list[0] < 1 || size_list[1] < 1) return ctx.fail("output_size must be two positive sizes");
  if (in->dim() != 3 && in->dim() != 4) return ctx.fail("input must be 3-D or 4-D, got " + in->shape_string());
  Planes p;
  p.batched = in->dim() == 4;
  const size_t hd = in->dim() - 2;
  p.c = in->size(hd - 1);
  p.planes = (p.batched ? in->size(0) : 1) * p.c;
  p.h = in->size(hd);
  p.w = in->size(hd + 1);
  p.oh = size_list[0];
  p.ow = size_list[1];
  ETKIT_TRY(resize_out(ctx, *out, out_shape(*in, p)));
  if (out->dtype() != in->dtype() || !out->is_contiguous()) return ctx.fail("out must be contiguous with the input's dtype");
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      const int64_t y0 = oy * p.h / p.oh, y1 = ((oy + 1) * p.h + p.oh - 1) / p.oh;
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const int64_t x0 = ox * p.w / p.ow, x1 = ((ox + 1) * p.w + p.ow - 1) / p.ow;
        double sum = 0;
        for (int64_t y = y0; y < y1; ++y) {
          for (int64_t x = x0; x < x1; ++x) sum += load_as<double>(in->dtype(), in->data(), offset(*in, p, plane, y, x));
        }
        store_as<double>(out->dtype(), out->data(), (plane * p.oh + oy) * p.ow + ox, sum / double((y1 - y0) * (x1 - x0)));
      }
    }
  }
  return {};
}

}  // namespace

void linalg::add_pooling_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out, 9, {6, 7}});
  table.push_back({"aten::avg_pool2d.out", avg_pool2d_out, 9, {7}});
  table.push_back({"aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
