// executorch_prim scalar operators on symbolic sizes: arithmetic,
// comparisons, conversions and sym_ite. Values follow Python: Int op Int is
// an Int (truediv gives a Double), a Double operand makes the result Double,
// Bool counts as the Int 0 or 1, floordiv.Scalar rounds toward -infinity.
// floordiv.int, mod.int and mod.Scalar on Ints truncate like C's / and %,
// exactly as ExecuTorch's kernels (kernels/prim_ops/register_prim_ops.cpp).
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "runner/kernels/kernel_util.h"
#include "runner/kernels/prim/prim_ops.h"

namespace etkit::rt::kernels::prim {
namespace {

// An Int (or Bool) or a Double operand.
struct Number {
  bool is_double = false;
  int64_t i = 0;
  double d = 0;
  double as_double() const { return is_double ? d : double(i); }
};

Result<Number> number_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  ETKIT_ASSIGN_OR_RETURN(const EValue* s, scalar_arg(ctx, v, what));
  Number n;
  if (s->tag == Tag::kDouble) {
    n.is_double = true;
    n.d = s->d;
  } else {
    n.i = s->tag == Tag::kBool ? int64_t(s->b) : s->i;
  }
  return n;
}

std::string format_double(double v) {
  char buf[32];  // the shortest form that reads back exactly
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// A Double rounded by the caller, as an Int.
Result<int64_t> to_int(KernelContext& ctx, double v) {
  // [-2^63, 2^63): the doubles an int64 can hold; NaN fails both tests.
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) {
    return ctx.fail("value " + format_double(v) + " does not fit an Int");
  }
  return static_cast<int64_t>(v);
}

double round_half_even(double v) {
  double r = std::floor(v);
  const double diff = v - r;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(r, 2.0) != 0)) r += 1;
  return r;
}

int64_t floor_div_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// Python's float floor division (exact quotient of a - fmod(a, b)); a zero
// divisor gives +-infinity, as ExecuTorch's floordiv.Scalar.
double floor_div_double(double a, double b) {
  if (b == 0) return std::signbit(a) ? -INFINITY : INFINITY;
  const double m = std::fmod(a, b);
  double q = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) q -= 1;
  if (q == 0) return std::copysign(0.0, a / b);
  double f = std::floor(q);
  if (q - f > 0.5) f += 1;
  return f;
}

// Python's float modulo: the sign follows b; a zero divisor gives NaN.
double floor_mod_double(double a, double b) {
  if (b == 0) return NAN;
  double m = std::fmod(a, b);
  if (m == 0) return std::copysign(0.0, b);
  if ((b < 0) != (m < 0)) m += b;
  return m;
}

enum class Bin { kAdd, kSub, kMul, kFloorDiv, kTruncDiv, kTrueDiv, kTruncMod, kMax, kMin, kEq, kGt, kLt, kGe, kLe };

bool is_comparison(Bin op) { return op >= Bin::kEq; }

template <typename T>
bool compare(Bin op, T a, T b) {
  switch (op) {
    case Bin::kEq: return a == b;
    case Bin::kGt: return a > b;
    case Bin::kLt: return a < b;
    case Bin::kGe: return a >= b;
    default: return a <= b;
  }
}

Status int_result(KernelContext& ctx, Bin op, int64_t a, int64_t b, EValue& out) {
  int64_t r = 0;
  switch (op) {
    case Bin::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return ctx.fail("integer overflow");
      break;
    case Bin::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return ctx.fail("integer overflow");
      break;
    case Bin::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return ctx.fail("integer overflow");
      break;
    case Bin::kFloorDiv:
      if (b == 0) return ctx.fail("integer division by zero");
      if (a == INT64_MIN && b == -1) return ctx.fail("integer overflow");
      r = floor_div_int(a, b);
      break;
    case Bin::kTruncDiv:
      if (b == 0) return ctx.fail("integer division by zero");
      if (a == INT64_MIN && b == -1) return ctx.fail("integer overflow");
      r = a / b;
      break;
    case Bin::kTruncMod:
      if (b == 0) return ctx.fail("integer modulo by zero");
      r = (a == INT64_MIN && b == -1) ? 0 : a % b;
      break;
    case Bin::kMax: r = std::max(a, b); break;
    default: r = std::min(a, b); break;
  }
  return set_int(ctx, out, r);
}

double double_result(Bin op, double a, double b) {
  switch (op) {
    case Bin::kAdd: return a + b;
    case Bin::kSub: return a - b;
    case Bin::kMul: return a * b;
    case Bin::kFloorDiv:
    case Bin::kTruncDiv: return floor_div_double(a, b);
    case Bin::kTruncMod: return floor_mod_double(a, b);
    case Bin::kMax: return std::isnan(a) || a > b ? a : b;  // NaN wins, as Python's max(nan, x)
    default: return std::isnan(a) || a < b ? a : b;
  }
}

// (a, b, out); `ints_only`: the .int overloads.
KernelFn binary(Bin op, bool ints_only) {
  return [op, ints_only](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_TRY(check_num_args(ctx, args, 3));
    Number a, b;
    if (ints_only) {
      ETKIT_ASSIGN_OR_RETURN(a.i, int_arg(ctx, *args[0], "a"));
      ETKIT_ASSIGN_OR_RETURN(b.i, int_arg(ctx, *args[1], "b"));
    } else {
      ETKIT_ASSIGN_OR_RETURN(a, number_arg(ctx, *args[0], "a"));
      ETKIT_ASSIGN_OR_RETURN(b, number_arg(ctx, *args[1], "b"));
    }
    EValue& out = *args[2];
    const bool ints = !a.is_double && !b.is_double;
    if (is_comparison(op)) {
      return set_bool(ctx, out, ints ? compare(op, a.i, b.i) : compare(op, a.as_double(), b.as_double()));
    }
    if (op == Bin::kTrueDiv) return set_double(ctx, out, a.as_double() / b.as_double());
    if (ints) return int_result(ctx, op, a.i, b.i, out);
    return set_double(ctx, out, double_result(op, a.as_double(), b.as_double()));
  };
}

enum class Un { kNeg, kSymFloat, kSymInt, kSymNot, kCeil, kRound, kTrunc };

// (a, out)
KernelFn unary(Un op) {
  return [op](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_TRY(check_num_args(ctx, args, 2));
    EValue& out = *args[1];
    if (op == Un::kSymNot) {
      ETKIT_ASSIGN_OR_RETURN(bool v, bool_arg(ctx, *args[0], "a"));
      return set_bool(ctx, out, !v);
    }
    ETKIT_ASSIGN_OR_RETURN(Number a, number_arg(ctx, *args[0], "a"));
    switch (op) {
      case Un::kNeg:
        if (a.is_double) return set_double(ctx, out, -a.d);
        if (a.i == INT64_MIN) return ctx.fail("integer overflow");
        return set_int(ctx, out, -a.i);
      case Un::kSymFloat: return set_double(ctx, out, a.as_double());
      default: break;
    }
    if (!a.is_double) return set_int(ctx, out, a.i);  // already integral
    double r = a.d;
    if (op == Un::kCeil) r = std::ceil(r);
    else if (op == Un::kRound) r = round_half_even(r);  // Python's round()
    else r = std::trunc(r);                              // sym_int and trunc
    ETKIT_ASSIGN_OR_RETURN(int64_t v, to_int(ctx, r));
    return set_int(ctx, out, v);
  };
}

// (b, t, f, out): copies t or f.
Status sym_ite(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(check_num_args(ctx, args, 4));
  ETKIT_ASSIGN_OR_RETURN(bool cond, bool_arg(ctx, *args[0], "b"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* chosen, scalar_arg(ctx, *args[cond ? 1 : 2], cond ? "t" : "f"));
  switch (chosen->tag) {
    case Tag::kInt: return set_int(ctx, *args[3], chosen->i);
    case Tag::kDouble: return set_double(ctx, *args[3], chosen->d);
    default: return set_bool(ctx, *args[3], chosen->b);
  }
}

}  // namespace

void add_scalar_kernels(std::vector<KernelInfo>& table) {
  const std::pair<const char*, Bin> binaries[] = {
      {"add", Bin::kAdd}, {"sub", Bin::kSub},       {"mul", Bin::kMul},         {"floordiv", Bin::kFloorDiv},
      {"truediv", Bin::kTrueDiv}, {"eq", Bin::kEq}, {"gt", Bin::kGt},           {"lt", Bin::kLt},
      {"ge", Bin::kGe},   {"le", Bin::kLe},         {"mod", Bin::kTruncMod},    {"sym_max", Bin::kMax},
      {"sym_min", Bin::kMin}};
  for (const auto& [name, op] : binaries) {
    table.push_back({"executorch_prim::" + std::string(name) + ".Scalar", binary(op, false), 3, {}, true});
  }
  table.push_back({"executorch_prim::floordiv.int", binary(Bin::kTruncDiv, true), 3, {}, true});
  table.push_back({"executorch_prim::mod.int", binary(Bin::kTruncMod, true), 3, {}, true});
  const std::pair<const char*, Un> unaries[] = {{"neg", Un::kNeg},     {"sym_float", Un::kSymFloat},
                                                {"sym_int", Un::kSymInt}, {"sym_not", Un::kSymNot},
                                                {"ceil", Un::kCeil},   {"round", Un::kRound},
                                                {"trunc", Un::kTrunc}};
  for (const auto& [name, op] : unaries) {
    table.push_back({"executorch_prim::" + std::string(name) + ".Scalar", unary(op), 2, {}, true});
  }
  table.push_back({"executorch_prim::sym_ite.Scalar", sym_ite, 4, {}, true});
}

}  // namespace etkit::rt::kernels::prim
