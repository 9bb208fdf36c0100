// Activations with parameters: hardtanh, clamp, leaky_relu, gelu, silu,
// hardsigmoid, hardswish.
#include <cmath>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/math/math_ops.h"

namespace etkit::rt::kernels {
namespace {

// Runs fn(x) elementwise in the input's compute type (floating inputs), out
// resized to self.
template <typename Fn>
Status floating_map(KernelContext& ctx, const Tensor& a, Tensor& out, Fn fn) {
  ETKIT_TRY(resize_out(ctx, out, a.sizes()));
  ScalarType compute = a.dtype();
  if (!is_floating(compute)) {
    if (!is_floating(out.dtype())) return ctx.fail("expected a floating-point tensor");
    compute = out.dtype();
  }
  return unary_loop(ctx, a, out, compute, [&](auto x) { return static_cast<decltype(x)>(fn(double(x))); });
}

// clamp(x, lo, hi) keeping the input's dtype (integer clamps stay integral).
Status clamp_impl(KernelContext& ctx, const Tensor& a, Tensor& out, const EValue* lo, const EValue* hi) {
  ETKIT_TRY(resize_out(ctx, out, a.sizes()));
  ScalarType compute = a.dtype();
  if (lo) compute = promote_with_scalar(compute, *lo);
  if (hi) compute = promote_with_scalar(compute, *hi);
  if (!can_cast(compute, out.dtype())) return ctx.fail("the clamped values cannot be stored in out's dtype");
  const double l = lo ? lo->scalar_as_double() : 0, h = hi ? hi->scalar_as_double() : 0;
  return unary_loop(ctx, a, out, compute, [&](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(x)) return x;
    }
    T v = x;
    if (lo && v < static_cast<T>(l)) v = static_cast<T>(l);
    if (hi && v > static_cast<T>(h)) v = static_cast<T>(h);
    return v;
  });
}

Status hardtanh_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* lo, scalar_arg(ctx, *args[1], "min_val"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* hi, scalar_arg(ctx, *args[2], "max_val"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return clamp_impl(ctx, *a, *out, lo, hi);
}

Status clamp_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  const EValue* lo = nullptr;
  const EValue* hi = nullptr;
  if (!args[1]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(lo, scalar_arg(ctx, *args[1], "min"));
  }
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(hi, scalar_arg(ctx, *args[2], "max"));
  }
  if (!lo && !hi) return ctx.fail("at least one of min and max must be given");
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return clamp_impl(ctx, *a, *out, lo, hi);
}

Status leaky_relu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* slope, scalar_arg(ctx, *args[1], "negative_slope"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const double s = slope->scalar_as_double();
  return floating_map(ctx, *a, *out, [s](double x) { return x > 0 ? x : x * s; });
}

Status gelu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  if (args[1]->tag != Tag::kString || (args[1]->s != "none" && args[1]->s != "tanh")) {
    return ctx.fail("approximate must be 'none' or 'tanh'");
  }
  const bool tanh_form = args[1]->s == "tanh";
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  return floating_map(ctx, *a, *out, [tanh_form](double x) {
    if (tanh_form) return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  });
}

template <typename Fn>
KernelInfo simple(const char* name, Fn fn) {
  return {name,
          [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
            ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
            ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
            return floating_map(ctx, *a, *out, fn);
          },
          3,
          {1}};
}

}  // namespace

void add_activation_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::hardtanh.out", hardtanh_out, 5, {3}});
  table.push_back({"aten::clamp.out", clamp_out, 5, {3}});
  table.push_back({"aten::leaky_relu.out", leaky_relu_out, 4, {2}});
  table.push_back({"aten::gelu.out", gelu_out, 4, {2}});
  table.push_back(simple("aten::silu.out", [](double x) { return x / (1 + std::exp(-x)); }));
  table.push_back(simple("aten::hardsigmoid.out", [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }));
  table.push_back(simple("aten::hardswish.out", [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; }));
}

}  // namespace etkit::rt::kernels
