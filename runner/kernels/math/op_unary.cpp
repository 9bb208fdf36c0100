// Element-wise unary operators (self, *, out): floating functions compute in
// out's floating dtype (integer inputs are promoted), sign-preserving ones
// (relu, neg, abs) keep the dtype.
#include <cmath>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/math/math_ops.h"

namespace etkit::rt::kernels {
namespace {

enum class Kind { kFloating, kSameType, kLogical };

template <typename Fn>
KernelInfo unary(const char* name, Kind kind, Fn fn) {
  return {name,
          [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
            ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
            ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
            ETKIT_TRY(resize_out(ctx, *out, a->sizes()));
            ScalarType compute = a->dtype();
            if (kind == Kind::kFloating) {
              if (!is_floating(out->dtype())) {
                return ctx.fail("out must be floating point, not " + std::string(scalar_type_name(int(out->dtype()))));
              }
              if (!is_floating(compute)) compute = out->dtype();
            } else if (kind == Kind::kLogical) {
              compute = ScalarType::kBool;
            } else if (!can_cast(compute, out->dtype())) {
              return ctx.fail("result type " + std::string(scalar_type_name(int(compute))) + " cannot be stored in out of type " +
                              std::string(scalar_type_name(int(out->dtype()))));
            }
            return unary_loop(ctx, *a, *out, compute, [&](auto x) { return fn(x); });
          },
          3,
          {1}};
}

}  // namespace

void add_unary_kernels(std::vector<KernelInfo>& table) {
  using K = Kind;
  table.push_back(unary("aten::relu.out", K::kSameType, [](auto x) { return x > decltype(x){} ? x : decltype(x){}; }));
  table.push_back(unary("aten::neg.out", K::kSameType, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool>) return x;
    else return static_cast<decltype(x)>(-x);
  }));
  table.push_back(unary("aten::abs.out", K::kSameType, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool> || std::is_unsigned_v<decltype(x)>) return x;
    else return x < decltype(x){} ? static_cast<decltype(x)>(-x) : x;
  }));
  table.push_back(unary("aten::logical_not.out", K::kLogical, [](auto x) { return !x; }));
  table.push_back(unary("aten::bitwise_not.out", K::kSameType, [](auto x) {
    if constexpr (std::is_same_v<decltype(x), bool>) return !x;
    else if constexpr (std::is_integral_v<decltype(x)>) return static_cast<decltype(x)>(~x);
    else return x;
  }));
  // Floating functions: computed in the out dtype (float or double).
#define ETKIT_FLOAT_UNARY(op, expr) \
  table.push_back(unary("aten::" op ".out", K::kFloating, [](auto x) { return static_cast<decltype(x)>(expr); }))
  ETKIT_FLOAT_UNARY("exp", std::exp(x));
  ETKIT_FLOAT_UNARY("expm1", std::expm1(x));
  ETKIT_FLOAT_UNARY("log", std::log(x));
  ETKIT_FLOAT_UNARY("log1p", std::log1p(x));
  ETKIT_FLOAT_UNARY("log2", std::log2(x));
  ETKIT_FLOAT_UNARY("sqrt", std::sqrt(x));
  ETKIT_FLOAT_UNARY("rsqrt", 1 / std::sqrt(x));
  ETKIT_FLOAT_UNARY("reciprocal", 1 / x);
  ETKIT_FLOAT_UNARY("sigmoid", 1 / (1 + std::exp(-x)));
  ETKIT_FLOAT_UNARY("tanh", std::tanh(x));
  ETKIT_FLOAT_UNARY("sin", std::sin(x));
  ETKIT_FLOAT_UNARY("cos", std::cos(x));
  ETKIT_FLOAT_UNARY("tan", std::tan(x));
  ETKIT_FLOAT_UNARY("atan", std::atan(x));
  ETKIT_FLOAT_UNARY("erf", std::erf(x));
  ETKIT_FLOAT_UNARY("floor", std::floor(x));
  ETKIT_FLOAT_UNARY("ceil", std::ceil(x));
  ETKIT_FLOAT_UNARY("round", std::nearbyint(x));  // round half to even, as torch.round
  ETKIT_FLOAT_UNARY("trunc", std::trunc(x));
#undef ETKIT_FLOAT_UNARY
}

}  // namespace etkit::rt::kernels
