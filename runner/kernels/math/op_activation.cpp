// Activations: hardtanh, clamp (Scalar and Tensor bounds), leaky_relu, gelu
// ('none' and 'tanh'), silu, hardsigmoid, hardswish. Floating activations
// compute in self's computation type (float for half/bfloat16); clamp and
// hardtanh also take integer tensors. NaN inputs stay NaN.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// lo <= x <= hi with NaN passing through (comparisons with NaN are false).
template <typename T>
T clamp_value(T x, bool has_lo, T lo, bool has_hi, T hi) {
  if (has_lo && x < lo) x = lo;
  if (has_hi && x > hi) x = hi;
  return x;
}

// ExecuTorch's portable clamp and hardtanh (min_override(max_override(x,
// lo), hi) in math_util.h): a NaN x stays, else a NaN bound is the result,
// lo's first. clamp_value alone would return x for a NaN bound, and its
// compares are what the dense loops vectorise, so callers take this only
// for tensor bounds or when a scalar bound is NaN.
template <typename T>
T clamp_nan_bounds(T x, bool has_lo, T lo, bool has_hi, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return x;
    if (has_lo && std::isnan(lo)) return lo;
    if (has_hi && std::isnan(hi)) return hi;
  }
  return clamp_value(x, has_lo, lo, has_hi, hi);
}

template <typename T>
bool nan_bound(bool has_lo, T lo, bool has_hi, T hi) {
  if constexpr (std::is_floating_point_v<T>) return (has_lo && std::isnan(lo)) || (has_hi && std::isnan(hi));
  else return false;
}

std::string scalar_text(const EValue& v) {
  if (v.tag == Tag::kDouble) {  // the shortest form that reads back exactly
    char buf[32];
    for (int precision = 15; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, v.d);
      if (std::strtod(buf, nullptr) == v.d) break;
    }
    return buf;
  }
  if (v.tag == Tag::kBool) return v.b ? "true" : "false";
  return std::to_string(v.i);
}

// A clamp bound must be representable in dtype `t` (ExecuTorch's
// check_bounds in op_clamp.cpp checks out's dtype; the computation type is
// checked too, since the bound is converted to it).
// A predicate, so that the success path builds no Status (four checks per
// call were a third of clamp's cost on stress_mlp's 0-dim tensors).
bool bound_fits(const EValue& bound, ScalarType t) {
  bool fits = true;
  if (is_integral(t, false)) {
    // An integral type here means the bound is an Int or Bool (a Double
    // would have made the computation floating, which out then refuses).
    const int64_t v = bound.tag == Tag::kBool ? int64_t(bound.b) : bound.i;
    dispatch_real_and_bool(t, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        if constexpr (std::is_signed_v<T>) {
          fits = v >= int64_t(std::numeric_limits<T>::min()) && v <= int64_t(std::numeric_limits<T>::max());
        } else {
          fits = v >= 0 && uint64_t(v) <= uint64_t(std::numeric_limits<T>::max());
        }
      }
    });
  } else if (t == ScalarType::kFloat || t == ScalarType::kHalf || t == ScalarType::kBFloat16) {
    const double v = bound.scalar_as_double();
    const double limit = t == ScalarType::kHalf ? 65504.0 : double(std::numeric_limits<float>::max());
    fits = !std::isfinite(v) || std::fabs(v) <= limit;
  }
  return fits;
}

Status check_bound(KernelContext& ctx, const EValue& bound, std::string_view what, ScalarType t) {
  if (bound_fits(bound, t)) return {};
  return ctx.fail(std::string(what) + " " + scalar_text(bound) + " is out of range for " + dtype_name(t));
}

// A bound as a FLOAT computation reads it (the general path's `bound`
// below), when it is a number float can hold (bound_fits for FLOAT: an
// Int or Bool always is); false otherwise.
inline bool float_bound(const EValue& v, float& out) {
  if (v.tag == Tag::kDouble) {
    if (std::isfinite(v.d) && std::fabs(v.d) > double(std::numeric_limits<float>::max())) return false;
    out = static_cast<float>(v.d);
    return true;
  }
  if (v.tag == Tag::kInt) {
    out = static_cast<float>(v.i);
    return true;
  }
  if (v.tag == Tag::kBool) {
    out = static_cast<float>(v.b);
    return true;
  }
  return false;
}

// clamp.out's common case, FLOAT self and out of the same sizes and memory
// layout, decided in one function: true when it wrote out. Every check of
// the general path holds when it does (a float self keeps the computation
// FLOAT whatever the bounds' tags, so out may store it; both bounds fit;
// out needs no resize); anything else, errors included, is left to the
// general path, which then decides and reports as before. Through the
// general path's out-of-line argument helpers, bound checks and dtype
// dispatch, clamp of one element took 1.14x ExecuTorch's portable kernel.
bool clamp_float_fast(std::span<EValue* const> args) {
  const EValue &a_self = *args[0], &a_lo = *args[1], &a_hi = *args[2], &a_out = *args[3];
  if (a_self.tag != Tag::kTensor || a_out.tag != Tag::kTensor || !a_self.tensor || !a_out.tensor) return false;
  const Tensor& self = *a_self.tensor;
  Tensor& out = *a_out.tensor;
  if (self.dtype() != ScalarType::kFloat || out.dtype() != ScalarType::kFloat || !same_layout(self, out)) return false;
  const bool has_lo = !a_lo.is_none(), has_hi = !a_hi.is_none();
  float lo = 0, hi = 0;
  if ((!has_lo && !has_hi) || (has_lo && !float_bound(a_lo, lo)) || (has_hi && !float_bound(a_hi, hi))) return false;
  if (nan_bound(has_lo, lo, has_hi, hi)) return false;
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const int64_t n = self.numel();
  for (int64_t i = 0; i < n; ++i) y[i] = clamp_value(x[i], has_lo, lo, has_hi, hi);
  return true;
}

// (self, Scalar? min, Scalar? max, out, ret)
Status clamp_out(KernelContext& ctx, std::span<EValue* const> args) {
  if (clamp_float_fast(args)) return {};
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  const EValue* lo = nullptr;
  const EValue* hi = nullptr;
  if (!args[1]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(lo, scalar_arg(ctx, *args[1], "min"));
  }
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(hi, scalar_arg(ctx, *args[2], "max"));
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (lo == nullptr && hi == nullptr) return ctx.fail("at least one of min and max must be given");
  ScalarType common = self->dtype();
  if (lo) common = promote_with_scalar(common, *lo);
  if (hi) common = promote_with_scalar(common, *hi);
  ETKIT_TRY(check_can_store(ctx, common, *out));
  // out's dtype is usually the computation's: then one check per bound.
  const ScalarType types[] = {common, out->dtype()};
  for (size_t k = 0; k < (types[1] == common ? 1u : 2u); ++k) {
    const ScalarType t = types[k];
    if (lo && !bound_fits(*lo, t)) return check_bound(ctx, *lo, "min", t);
    if (hi && !bound_fits(*hi, t)) return check_bound(ctx, *hi, "max", t);
  }
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  // A bound converted as a 0-dim tensor of its tag's dtype would be read
  // (static_cast of the double, int64 or bool), without building that tensor.
  const auto bound = [](auto tag, const EValue& v) {
    using CT = decltype(tag);
    return v.tag == Tag::kDouble ? static_cast<CT>(v.d)
           : v.tag == Tag::kBool ? static_cast<CT>(v.b)
                                 : static_cast<CT>(v.i);
  };
  return dispatch_compute(ctx, common, [&](auto tag) {
    using CT = decltype(tag);
    const CT l = lo ? bound(tag, *lo) : CT{};
    const CT h = hi ? bound(tag, *hi) : CT{};
    const auto run = [&](auto clamp) {
      if (try_dense_map<CT>(*self, *out, clamp)) return;
      const Reader<CT> read(*self);
      const Writer<CT> write(*out);
      for_each_element(*out, *self, [&](int64_t o, int64_t i) { write(o, clamp(read(i))); });
    };
    if (nan_bound(lo != nullptr, l, hi != nullptr, h)) {
      run([&](CT x) { return clamp_nan_bounds(x, lo != nullptr, l, hi != nullptr, h); });
    } else {
      run([&](CT x) { return clamp_value(x, lo != nullptr, l, hi != nullptr, h); });
    }
  });
}

// (self, Tensor? min, Tensor? max, out, ret): bounds broadcast with self.
Status clamp_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * lo, optional_tensor_arg(ctx, *args[1], "min"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * hi, optional_tensor_arg(ctx, *args[2], "max"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (lo == nullptr && hi == nullptr) return ctx.fail("at least one of min and max must be given");
  ScalarType common = self->dtype();
  for (const Tensor* bound : {lo, hi}) {
    if (bound == nullptr) continue;
    auto promoted = promote_types(common, bound->dtype());
    if (!promoted) return ctx.fail(promoted.error().message);
    common = *promoted;
  }
  ETKIT_TRY(check_can_store(ctx, common, *out));
  const Tensor& l = lo ? *lo : *self;
  const Tensor& h = hi ? *hi : *self;
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape3(ctx, *self, l, h));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const StrideTable<4> strides = {strides_of(*out), broadcast_strides(*self, shape), broadcast_strides(l, shape),
                                  broadcast_strides(h, shape)};
  return dispatch_compute(ctx, common, [&](auto tag) {
    using CT = decltype(tag);
    const Reader<CT> rx(*self), rl(l), rh(h);
    const Writer<CT> write(*out);
    strided_loop(shape, strides, [&](const std::array<int64_t, 4>& off) {
      write(off[0], clamp_nan_bounds(rx(off[1]), lo != nullptr, rl(off[2]), hi != nullptr, rh(off[3])));
    });
  });
}

// (self, Scalar min_val, Scalar max_val, out, ret): bounds in self's dtype.
Status hardtanh_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* lo, scalar_arg(ctx, *args[1], "min_val"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* hi, scalar_arg(ctx, *args[2], "max_val"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (self->dtype() == ScalarType::kBool) return ctx.fail("self dtype BOOL is not supported");
  ETKIT_TRY(check_can_store(ctx, self->dtype(), *out));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  const ScalarTensor lo_t(*lo), hi_t(*hi);
  return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
    using CT = decltype(tag);
    const CT l = Reader<CT>(lo_t.tensor)(0), h = Reader<CT>(hi_t.tensor)(0);
    const auto run = [&](auto clamp) {
      if (try_dense_map<CT>(*self, *out, clamp)) return;
      const Reader<CT> read(*self);
      const Writer<CT> write(*out);
      for_each_element(*out, *self, [&](int64_t o, int64_t i) { write(o, clamp(read(i))); });
    };
    if (nan_bound(true, l, true, h)) run([&](CT x) { return clamp_nan_bounds(x, true, l, true, h); });
    else run([&](CT x) { return clamp_value(x, true, l, true, h); });
  });
}

// Maps a floating self through fn in its computation type.
template <typename Fn>
Status floating_map(KernelContext& ctx, const Tensor& self, Tensor& out, Fn fn) {
  ETKIT_TRY(require_floating(ctx, self, "self"));
  ETKIT_TRY(check_can_store(ctx, self.dtype(), out));
  ETKIT_TRY(resize_out(ctx, out, self.sizes()));
  return dispatch_compute(ctx, self.dtype(), [&](auto tag) {
    using CT = decltype(tag);
    if constexpr (std::is_floating_point_v<CT>) {
      if (try_dense_map<CT>(self, out, fn)) return;
      const Reader<CT> read(self);
      const Writer<CT> write(out);
      for_each_element(out, self, [&](int64_t o, int64_t i) { write(o, static_cast<CT>(fn(read(i)))); });
    }
  });
}

// (self, Scalar negative_slope, out, ret)
Status leaky_relu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* slope, scalar_arg(ctx, *args[1], "negative_slope"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const double s = slope->scalar_as_double();
  const float s_float = static_cast<float>(s);
  return floating_map(ctx, *self, *out, [s, s_float](auto x) {
    using T = decltype(x);
    // x >= 0 ? x : x * slope (zeros unscaled, as op_leaky_relu.cpp), the
    // product taken whatever the sign and the result picked by a bit mask:
    // as a conditional, GCC keeps the multiply under a branch (it may not
    // speculate a floating-point operation) and a random sign costs a
    // misprediction every other element.
    using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const T scaled = x * (std::is_same_v<T, float> ? T(s_float) : static_cast<T>(s));
    const Bits keep = Bits(0) - Bits(x >= T(0));
    return std::bit_cast<T>((std::bit_cast<Bits>(x) & keep) | (std::bit_cast<Bits>(scaled) & ~keep));
  });
}

// (self, str approximate, out, ret)
Status gelu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  const EValue& approximate = *args[1];
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (approximate.tag != Tag::kString) {
    return ctx.fail("approximate must be a string, not " + std::string(tag_name(approximate.tag)));
  }
  if (approximate.s != "none" && approximate.s != "tanh") {
    return ctx.fail("approximate must be 'none' or 'tanh', not '" + std::string(approximate.s) + "'");
  }
  const bool tanh_form = approximate.s == "tanh";
  return floating_map(ctx, *self, *out, [tanh_form](auto x) {
    using T = decltype(x);
    if (std::isinf(x)) return x > 0 ? x : T(0);  // the formulas give inf * 0 there
    if (tanh_form) {
      const T k_beta = static_cast<T>(0.79788456080286535588);  // sqrt(2 / pi)
      const T k_kappa = static_cast<T>(0.044715);
      return T(0.5) * x * (T(1) + std::tanh(k_beta * (x + k_kappa * x * x * x)));
    }
    return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.70710678118654752440)));  // x / sqrt(2)
  });
}

// (self, Scalar alpha, Scalar scale, Scalar input_scale, out, ret):
// scale * x for x > 0, else alpha * scale * (exp(input_scale * x) - 1);
// out keeps self's floating dtype (op_elu.cpp). expm1 keeps small
// negative inputs accurate.
Status elu_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* alpha, scalar_arg(ctx, *args[1], "alpha"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* scale, scalar_arg(ctx, *args[2], "scale"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* input_scale, scalar_arg(ctx, *args[3], "input_scale"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(require_same_dtype(ctx, *self, *out));
  const double a = alpha->scalar_as_double(), s = scale->scalar_as_double(), is = input_scale->scalar_as_double();
  return floating_map(ctx, *self, *out, [a, s, is](auto x) {
    using T = decltype(x);
    if (x > T(0)) return x * static_cast<T>(s);
    return std::expm1(x * static_cast<T>(is)) * static_cast<T>(a * s);  // NaN falls here and stays NaN
  });
}

template <typename Fn>
KernelInfo simple_activation(std::string name, Fn fn) {
  auto kernel = [fn](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
    return floating_map(ctx, *self, *out, fn);
  };
  return {"aten::" + name + ".out", kernel, 3, {1}};
}

// relu6(x + 3) / 6
template <typename T>
T hard_gate(T x) {
  return std::min(std::max(x + T(3), T(0)), T(6)) / T(6);
}

}  // namespace

void add_activation_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::hardtanh.out", hardtanh_out, 5, {3}});
  table.push_back({"aten::clamp.out", clamp_out, 5, {3}});
  table.push_back({"aten::clamp.Tensor_out", clamp_tensor_out, 5, {3}});
  table.push_back({"aten::leaky_relu.out", leaky_relu_out, 4, {2}});
  table.push_back({"aten::gelu.out", gelu_out, 4, {2}});
  table.push_back({"aten::elu.out", elu_out, 6, {4}});
  table.push_back(simple_activation("silu", [](auto x) { return x / (decltype(x)(1) + std::exp(-x)); }));
  table.push_back(simple_activation("hardsigmoid", [](auto x) { return hard_gate(x); }));
  table.push_back(simple_activation("hardswish", [](auto x) { return x * hard_gate(x); }));
}

}  // namespace etkit::rt::kernels::math
