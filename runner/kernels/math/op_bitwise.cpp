// Bitwise operators on integer and BOOL tensors: bitwise_{and,or,xor} and
// bitwise_{left,right}_shift, each with a tensor or a scalar `other`.
// Operands promote to a common integer (or BOOL) dtype that out must be
// able to hold; floating operands are refused (bitwise_op.h).
// Shifts follow ATen's CPU kernels rather than the C++ operators, so that
// no input is undefined behaviour: a shift amount that is negative or at
// least the bit width gives 0 for a left shift and the sign fill (0 or -1)
// for a right shift; left shifts drop the bits shifted out (two's
// complement wrap).
#include <climits>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

enum class Bitwise { kAnd, kOr, kXor, kLeftShift, kRightShift };

template <typename T>
bool shift_out_of_range(T amount) {
  constexpr int64_t bits = int64_t(sizeof(T) * CHAR_BIT);
  // ATen reads the amount as the signed type of the same width, so a
  // uint8 amount of 200 counts as negative.
  const auto signed_amount = static_cast<std::make_signed_t<T>>(amount);
  return signed_amount < 0 || int64_t(signed_amount) >= bits;
}

template <typename T>
T left_shift(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a;  // a << 0 == a and 1 << 1 == 2 (true): never changes truth
  } else {
    if (shift_out_of_range(b)) return T(0);
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << int(b)));
  }
}

template <typename T>
T right_shift(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && !b;  // 1 >> 1 == 0
  } else {
    if (shift_out_of_range(b)) {
      if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
      else return T(0);
    }
    return static_cast<T>(a >> int(b));  // arithmetic for signed T (C++20)
  }
}

template <typename T>
T apply(Bitwise op, T a, T b) {
  switch (op) {
    case Bitwise::kAnd: return static_cast<T>(a & b);
    case Bitwise::kOr: return static_cast<T>(a | b);
    case Bitwise::kXor: return static_cast<T>(a ^ b);
    case Bitwise::kLeftShift: return left_shift(a, b);
    default: return right_shift(a, b);
  }
}

Status check_integer_operand(KernelContext& ctx, ScalarType t, std::string_view what) {
  if (is_integral(t, true)) return {};
  return ctx.fail(std::string(what) + " must be an integer or BOOL tensor, not " + dtype_name(t));
}

Status run_bitwise(KernelContext& ctx, Bitwise op, const Tensor& a, const Tensor& b, ScalarType common, Tensor& out) {
  if (!is_integral(common, true)) return ctx.fail("operands must be integers or BOOL, not " + dtype_name(common));
  ETKIT_TRY(prepare_binary(ctx, a, b, out, common));
  return binary_loop(ctx, a, b, out, common, [op](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) return apply<T>(op, x, y);
    else return x;  // not reached: floating computation types were refused
  });
}

// (self, other, out, ret)
KernelFn tensor_variant(Bitwise op) {
  return [op](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    ETKIT_TRY(check_integer_operand(ctx, a->dtype(), "self"));
    ETKIT_TRY(check_integer_operand(ctx, b->dtype(), "other"));
    auto common = promote_types(a->dtype(), b->dtype());
    if (!common) return ctx.fail(common.error().message);
    return run_bitwise(ctx, op, *a, *b, *common, *out);
  };
}

// (self, Scalar other, out, ret): the scalar converts to the common dtype.
KernelFn scalar_variant(Bitwise op) {
  return [op](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(const EValue* other, scalar_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    ETKIT_TRY(check_integer_operand(ctx, a->dtype(), "self"));
    if (other->tag == Tag::kDouble) return ctx.fail("other must be an integer or bool scalar, not a float");
    const ScalarTensor b(*other);
    return run_bitwise(ctx, op, *a, b.tensor, promote_with_scalar(a->dtype(), *other), *out);
  };
}

}  // namespace

void add_bitwise_kernels(std::vector<KernelInfo>& table) {
  const std::pair<const char*, Bitwise> logic[] = {
      {"and", Bitwise::kAnd}, {"or", Bitwise::kOr}, {"xor", Bitwise::kXor}};
  for (const auto& [name, op] : logic) {
    table.push_back({"aten::bitwise_" + std::string(name) + ".Tensor_out", tensor_variant(op), 4, {2}});
    table.push_back({"aten::bitwise_" + std::string(name) + ".Scalar_out", scalar_variant(op), 4, {2}});
  }
  const std::pair<const char*, Bitwise> shifts[] = {{"left", Bitwise::kLeftShift}, {"right", Bitwise::kRightShift}};
  for (const auto& [name, op] : shifts) {
    table.push_back({"aten::bitwise_" + std::string(name) + "_shift.Tensor_out", tensor_variant(op), 4, {2}});
    table.push_back({"aten::bitwise_" + std::string(name) + "_shift.Tensor_Scalar_out", scalar_variant(op), 4, {2}});
  }
}

}  // namespace etkit::rt::kernels::math
