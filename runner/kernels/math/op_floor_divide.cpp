// aten::floor_divide.out: a / b rounded toward negative infinity, with
// broadcasting and promotion (BOOL alone is refused, as op_floor_divide.cpp
// does). Integers: exact floor division; a zero divisor is an error and
// INT_MIN // -1 wraps to INT_MIN (no signed overflow). Floats follow
// ATen's div_floor_floating: the quotient is formed from fmod so that it is
// exact near integers, a zero divisor gives a / b (inf or NaN), and a zero
// quotient keeps the sign of a / b.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename T>
T floor_divide_float(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(T(0), a / b);
  T floored = std::floor(div);
  if (div - floored > T(0.5)) floored += 1;
  return floored;
}

// b != 0.
template <typename T>
T floor_divide_int(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(a));  // INT_MIN wraps
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}

// (self, other, out, ret)
Status floor_divide_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  auto common = promote_types(a->dtype(), b->dtype());
  if (!common) return ctx.fail(common.error().message);
  if (*common == ScalarType::kBool) return ctx.fail("floor_divide of BOOL values is not supported");
  ETKIT_TRY(prepare_binary(ctx, *a, *b, *out, *common));
  bool divided_by_zero = false;
  ETKIT_TRY(binary_loop(ctx, *a, *b, *out, *common, [&](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return floor_divide_float(x, y);
    } else if constexpr (std::is_same_v<T, bool>) {
      return x;  // refused above
    } else {
      if (y == 0) {
        divided_by_zero = true;
        return T(0);
      }
      return floor_divide_int(x, y);
    }
  }));
  if (divided_by_zero) return ctx.fail("integer division by zero");
  return {};
}

}  // namespace

void add_floor_divide_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::floor_divide.out", floor_divide_out, 4, {2}});
}

}  // namespace etkit::rt::kernels::math
