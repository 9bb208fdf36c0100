// Element-wise unary operators (self, *, out): three families.
//  * floating functions (exp, log, sigmoid, ...): any real or bool input,
//    a floating out; computed in double when self or out is double, else
//    in float (as ExecuTorch's unary_ufunc_realhbbf16_to_floathbf16);
//  * dtype-keeping ones (relu, neg, abs, floor, ceil, round, trunc, sign,
//    bitwise_not): computed in self's dtype, out may widen it;
//  * predicates (logical_not into any out dtype; isnan, isinf into BOOL).
#include <cmath>
#include <optional>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename CT, typename Fn>
void map_elements(const Tensor& in, Tensor& out, Fn fn) {
  if (try_dense_map<CT>(in, out, fn)) return;
  const Reader<CT> read(in);
  const Writer<CT> write(out);
  for_each_element(out, in, [&](int64_t o, int64_t i) { write(o, static_cast<CT>(fn(read(i)))); });
}

struct UnaryArgs {
  Tensor* self;
  Tensor* out;
};

Result<UnaryArgs> unary_args(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  return UnaryArgs{self, out};
}

template <typename Fn>
KernelInfo floating_unary(std::string name, Fn fn) {
  auto kernel = [fn](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(UnaryArgs a, unary_args(ctx, args));
    ETKIT_TRY(require_floating(ctx, *a.out, "out"));
    const ScalarType in = a.self->dtype();
    if (!is_floating(in) && !is_integral(in, true)) return ctx.fail("unsupported dtype " + dtype_name(in));
    if (in == ScalarType::kDouble || a.out->dtype() == ScalarType::kDouble) {
      map_elements<double>(*a.self, *a.out, fn);
    } else {
      map_elements<float>(*a.self, *a.out, fn);
    }
    return {};
  };
  return {"aten::" + name + ".out", kernel, 3, {1}};
}

// `allow_bool`: whether BOOL inputs are accepted.
template <typename Fn>
KernelInfo same_type_unary(std::string name, bool allow_bool, Fn fn) {
  auto kernel = [fn, allow_bool](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(UnaryArgs a, unary_args(ctx, args));
    const ScalarType in = a.self->dtype();
    if (in == ScalarType::kBool && !allow_bool) return ctx.fail("self dtype BOOL is not supported");
    ETKIT_TRY(check_can_store(ctx, in, *a.out));
    return dispatch_compute(ctx, in, [&](auto tag) {
      using CT = decltype(tag);
      map_elements<CT>(*a.self, *a.out, [&](CT x) { return fn(x); });
    });
  };
  return {"aten::" + name + ".out", kernel, 3, {1}};
}

// -x without signed overflow (INT_MIN wraps, as in PyTorch).
template <typename T>
T negate(T x) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
  } else {
    return -x;
  }
}

template <typename T>
T round_half_even(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::floor(x);
    const T diff = x - r;
    if (diff > T(0.5) || (diff == T(0.5) && std::fmod(r, T(2)) != 0)) r += 1;
    return r;
  } else {
    return x;
  }
}

// floor/ceil/trunc: integers are already integral.
template <typename T, typename F>
T integral_identity(T x, F f) {
  if constexpr (std::is_floating_point_v<T>) return f(x);
  else return x;
}

Status logical_not_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(UnaryArgs a, unary_args(ctx, args));
  const Writer<bool> write(*a.out);
  const Tensor& self = *a.self;
  for_each_element(*a.out, self, [&](int64_t o, int64_t i) { write(o, !truthy(self, i)); });
  return {};
}

Status bitwise_not_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(UnaryArgs a, unary_args(ctx, args));
  const ScalarType in = a.self->dtype();
  if (!is_integral(in, true)) return ctx.fail("self must be an integer or BOOL tensor, not " + dtype_name(in));
  ETKIT_TRY(check_can_store(ctx, in, *a.out));
  return dispatch_compute(ctx, in, [&](auto tag) {
    using CT = decltype(tag);
    map_elements<CT>(*a.self, *a.out, [](CT x) {
      if constexpr (std::is_same_v<CT, bool>) return !x;
      else if constexpr (std::is_integral_v<CT>) return static_cast<CT>(~x);
      else return x;  // not reached: floating inputs were rejected
    });
  });
}

// isnan / isinf: BOOL out.
template <typename Pred>
KernelInfo predicate_unary(std::string name, Pred pred) {
  auto kernel = [pred](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(UnaryArgs a, unary_args(ctx, args));
    if (a.out->dtype() != ScalarType::kBool) return ctx.fail("out must be BOOL, not " + dtype_name(a.out->dtype()));
    const Tensor& self = *a.self;
    if (!is_floating(self.dtype())) {  // integers are never NaN or infinite
      const Writer<bool> write(*a.out);
      for_each_element(*a.out, self, [&](int64_t o, int64_t) { write(o, false); });
      return {};
    }
    const Reader<double> read(self);
    const Writer<bool> write(*a.out);
    for_each_element(*a.out, self, [&](int64_t o, int64_t i) { write(o, pred(read(i))); });
    return {};
  };
  return {"aten::" + name + ".out", kernel, 3, {1}};
}

// (self, float? eps, out, ret): log(x / (1 - x)) into a floating out,
// with x first clamped to [eps, 1 - eps] when eps is given (op_logit.cpp).
// NaN stays NaN (the clamp's comparisons are false for it).
Status logit_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  std::optional<double> eps;
  if (!args[1]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(eps, double_arg(ctx, *args[1], "eps"));
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(require_floating(ctx, *out, "out"));
  const ScalarType in = self->dtype();
  if (!is_floating(in) && !is_integral(in, true)) return ctx.fail("unsupported dtype " + dtype_name(in));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  auto logit = [eps](auto x) {
    using T = decltype(x);
    if (eps) {
      const T lo = static_cast<T>(*eps), hi = static_cast<T>(1 - *eps);
      if (x < lo) x = lo;
      else if (x > hi) x = hi;
    }
    return std::log(x / (T(1) - x));
  };
  if (in == ScalarType::kDouble || out->dtype() == ScalarType::kDouble) map_elements<double>(*self, *out, logit);
  else map_elements<float>(*self, *out, logit);
  return {};
}

}  // namespace

void add_unary_kernels(std::vector<KernelInfo>& table) {
  table.push_back(floating_unary("exp", [](auto x) { return std::exp(x); }));
  table.push_back(floating_unary("expm1", [](auto x) { return std::expm1(x); }));
  table.push_back(floating_unary("log", [](auto x) { return std::log(x); }));
  table.push_back(floating_unary("log1p", [](auto x) { return std::log1p(x); }));
  table.push_back(floating_unary("log2", [](auto x) { return std::log2(x); }));
  table.push_back(floating_unary("log10", [](auto x) { return std::log10(x); }));
  table.push_back(floating_unary("sqrt", [](auto x) { return std::sqrt(x); }));
  table.push_back(floating_unary("rsqrt", [](auto x) { return decltype(x)(1) / std::sqrt(x); }));
  table.push_back(floating_unary("reciprocal", [](auto x) { return decltype(x)(1) / x; }));
  table.push_back(floating_unary("sigmoid", [](auto x) { return decltype(x)(1) / (decltype(x)(1) + std::exp(-x)); }));
  table.push_back(floating_unary("tanh", [](auto x) { return std::tanh(x); }));
  table.push_back(floating_unary("sin", [](auto x) { return std::sin(x); }));
  table.push_back(floating_unary("cos", [](auto x) { return std::cos(x); }));
  table.push_back(floating_unary("tan", [](auto x) { return std::tan(x); }));
  table.push_back(floating_unary("asin", [](auto x) { return std::asin(x); }));
  table.push_back(floating_unary("acos", [](auto x) { return std::acos(x); }));
  table.push_back(floating_unary("atan", [](auto x) { return std::atan(x); }));
  table.push_back(floating_unary("sinh", [](auto x) { return std::sinh(x); }));
  table.push_back(floating_unary("cosh", [](auto x) { return std::cosh(x); }));
  table.push_back(floating_unary("acosh", [](auto x) { return std::acosh(x); }));
  table.push_back(floating_unary("asinh", [](auto x) { return std::asinh(x); }));
  table.push_back(floating_unary("atanh", [](auto x) { return std::atanh(x); }));
  table.push_back(floating_unary("erf", [](auto x) { return std::erf(x); }));

  // As the portable kernel: NaN and -0.0 pass through (neither is < 0). One
  // comparison, made for every element, so that the loop vectorizes.
  table.push_back(same_type_unary("relu", false, [](auto x) { return !(x < decltype(x)(0)) ? x : decltype(x)(0); }));
  table.push_back(same_type_unary("neg", false, [](auto x) { return negate(x); }));
  table.push_back(same_type_unary("abs", false, [](auto x) {
    if constexpr (std::is_unsigned_v<decltype(x)>) return x;
    else return x < decltype(x)(0) ? negate(x) : x;
  }));
  table.push_back(same_type_unary("floor", false, [](auto x) { return integral_identity(x, [](auto v) { return std::floor(v); }); }));
  table.push_back(same_type_unary("ceil", false, [](auto x) { return integral_identity(x, [](auto v) { return std::ceil(v); }); }));
  table.push_back(same_type_unary("trunc", false, [](auto x) { return integral_identity(x, [](auto v) { return std::trunc(v); }); }));
  // torch.round rounds half to even.
  table.push_back(same_type_unary("round", false, [](auto x) { return round_half_even(x); }));
  table.push_back(same_type_unary("sign", true, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) return x;
    else if constexpr (std::is_floating_point_v<T>) return std::isnan(x) ? x : T((T(0) < x) - (x < T(0)));
    else return T((T(0) < x) - (x < T(0)));
  }));
  table.push_back({"aten::logit.out", logit_out, 4, {2}});
  table.push_back({"aten::logical_not.out", logical_not_out, 3, {1}});
  table.push_back({"aten::bitwise_not.out", bitwise_not_out, 3, {1}});
  table.push_back(predicate_unary("isnan", [](double x) { return std::isnan(x); }));
  table.push_back(predicate_unary("isinf", [](double x) { return std::isinf(x); }));
}

}  // namespace etkit::rt::kernels::math
