// aten::{add,sub,mul,div} with tensor or scalar `other`: broadcasting, type
// promotion, alpha, and div's rounding modes.
#include <cmath>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/kernel_groups.h"

namespace etkit::rt::kernels {
namespace {

enum class Arith { kAdd, kSub, kMul, kDiv };

std::string_view arith_name(Arith op) {
  switch (op) {
    case Arith::kAdd: return "add";
    case Arith::kSub: return "sub";
    case Arith::kMul: return "mul";
    default: return "div";
  }
}

enum class Rounding { kNone, kTrunc, kFloor };

Result<Rounding> rounding_arg(KernelContext& ctx, const EValue& v) {
  if (v.tag == Tag::kNone) return Rounding::kNone;
  if (v.tag == Tag::kString && v.s == "trunc") return Rounding::kTrunc;
  if (v.tag == Tag::kString && v.s == "floor") return Rounding::kFloor;
  return ctx.fail("rounding_mode must be None, 'trunc' or 'floor'");
}

// One element of `op` in the computation type CT; a template on the
// operator so that each loop is a plain one (no switch per element).
template <Arith OP>
struct ArithOp {
  double alpha_value;
  int64_t alpha_int;  // integer alpha as the integer it is (a double of 2^63 would not convert)
  Rounding rounding;
  bool* divided_by_zero;

  template <typename CT>
  CT operator()(CT x, CT y) const {
    if constexpr (std::is_integral_v<CT> && !std::is_same_v<CT, bool> && OP != Arith::kDiv) {
      const CT al = static_cast<CT>(alpha_int);
      if constexpr (OP == Arith::kAdd) return wrapping_add(x, wrapping_mul(al, y));
      else if constexpr (OP == Arith::kSub) return wrapping_sub(x, wrapping_mul(al, y));
      else return wrapping_mul(x, y);
    } else if constexpr (OP == Arith::kAdd) {
      const CT al = static_cast<CT>(alpha_value);
      if constexpr (std::is_same_v<CT, bool>) return static_cast<CT>(x || (al && y));
      else return static_cast<CT>(x + al * y);
    } else if constexpr (OP == Arith::kSub) {
      const CT al = static_cast<CT>(alpha_value);
      if constexpr (std::is_same_v<CT, bool>) return x;
      else return static_cast<CT>(x - al * y);
    } else if constexpr (OP == Arith::kMul) {
      if constexpr (std::is_same_v<CT, bool>) return static_cast<CT>(x && y);
      else return static_cast<CT>(x * y);
    } else if constexpr (std::is_floating_point_v<CT>) {
      const CT q = x / y;
      if (rounding == Rounding::kTrunc) return std::trunc(q);
      if (rounding == Rounding::kFloor) return std::floor(q);
      return q;
    } else if constexpr (std::is_same_v<CT, bool>) {
      return x;
    } else {
      if (y == 0) {
        *divided_by_zero = true;
        return CT{0};
      }
      // INT_MIN / -1 traps: negate, wrapping as ATen does.
      if constexpr (std::is_signed_v<CT>) {
        if (y == -1) return wrapping_sub(CT{0}, x);
      }
      CT q = static_cast<CT>(x / y);
      if (rounding == Rounding::kFloor && (x % y != 0) && ((x < 0) != (y < 0))) q = static_cast<CT>(q - 1);
      return q;
    }
  }
};

// All operands and out of one dtype CT, out already of the broadcast shape
// and each operand laid out densely against it: one vectorizable loop, no
// resize and no per-element conversion. Integer division (its zero check)
// stays on the general path.
template <Arith OP>
bool try_dense(const Tensor& a, const Tensor& b, Tensor& out, ScalarType compute, const ArithOp<OP>& fn) {
  const ScalarType t = out.dtype();
  if (a.dtype() != t || b.dtype() != t || compute != t) return false;
  bool done = false;
  dispatch_real_and_bool(t, [&](auto tag) {
    using CT = decltype(tag);
    if constexpr (!std::is_same_v<CT, bool>) {
      if constexpr (OP == Arith::kDiv && !std::is_floating_point_v<CT>) return;
      const DenseLayout layout = dense_binary_layout(a, b, out);
      if (layout.kind == DenseBinary::kNone) return;
      dense_zip(layout, a.data_as<CT>(), b.data_as<CT>(), out.data_as<CT>(), out.numel(), fn);
      done = true;
    }
  });
  return done;
}

// Runs the arithmetic with `b` as tensor; `alpha` scales b for add/sub.
template <Arith OP>
Status run_op(KernelContext& ctx, const Tensor& a, const Tensor& b, ScalarType common, const EValue* alpha,
              Rounding rounding, Tensor& out) {
  ScalarType compute = common;
  // True division of integers produces float (PyTorch's default dtype).
  if (OP == Arith::kDiv && rounding == Rounding::kNone && !is_floating(compute)) compute = ScalarType::kFloat;
  if (OP == Arith::kSub && compute == ScalarType::kBool) return ctx.fail("subtraction of bool tensors is not supported");
  if (alpha != nullptr && !is_floating(compute) && alpha->tag == Tag::kDouble) {
    return ctx.fail("alpha must be an integer for integral inputs");
  }
  bool divided_by_zero = false;
  const ArithOp<OP> fn{alpha ? alpha->scalar_as_double() : 1.0,
                       !alpha ? 1 : alpha->tag == Tag::kInt ? alpha->i : alpha->tag == Tag::kBool ? int64_t(alpha->b) : 0,
                       rounding, &divided_by_zero};
  if (try_dense(a, b, out, compute, fn)) return {};
  ETKIT_TRY(prepare_binary(ctx, a, b, out, compute));
  ETKIT_TRY(binary_loop(ctx, a, b, out, compute, fn));
  if (divided_by_zero) return ctx.fail("integer division by zero");
  return {};
}

Status run(KernelContext& ctx, Arith op, const Tensor& a, const Tensor& b, ScalarType common, const EValue* alpha,
           Rounding rounding, Tensor& out) {
  switch (op) {
    case Arith::kAdd: return run_op<Arith::kAdd>(ctx, a, b, common, alpha, rounding, out);
    case Arith::kSub: return run_op<Arith::kSub>(ctx, a, b, common, alpha, rounding, out);
    case Arith::kMul: return run_op<Arith::kMul>(ctx, a, b, common, alpha, rounding, out);
    default: return run_op<Arith::kDiv>(ctx, a, b, common, alpha, rounding, out);
  }
}

// (self, other, [alpha], out, ret) with a tensor `other`.
KernelFn tensor_variant(Arith op, bool has_alpha, bool has_rounding) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    const EValue* alpha = nullptr;
    if (has_alpha) {
      ETKIT_ASSIGN_OR_RETURN(alpha, scalar_arg(ctx, *args[2], "alpha"));
    }
    Rounding rounding = Rounding::kNone;
    if (has_rounding) {
      ETKIT_ASSIGN_OR_RETURN(rounding, rounding_arg(ctx, *args[2]));
    }
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[args.size() - 2], "out"));
    auto common = promote_types(a->dtype(), b->dtype());
    if (!common) return ctx.fail(common.error().message);
    return run(ctx, op, *a, *b, *common, alpha, rounding, *out);
  };
}

// (self, Scalar other, [alpha], out, ret).
KernelFn scalar_variant(Arith op, bool has_alpha, bool has_rounding) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(const EValue* other, scalar_arg(ctx, *args[1], "other"));
    const EValue* alpha = nullptr;
    if (has_alpha) {
      ETKIT_ASSIGN_OR_RETURN(alpha, scalar_arg(ctx, *args[2], "alpha"));
    }
    Rounding rounding = Rounding::kNone;
    if (has_rounding) {
      ETKIT_ASSIGN_OR_RETURN(rounding, rounding_arg(ctx, *args[2]));
    }
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[args.size() - 2], "out"));
    const ScalarTensor b(*other);
    return run(ctx, op, *a, b.tensor, promote_with_scalar(a->dtype(), *other), alpha, rounding, *out);
  };
}

}  // namespace

std::vector<KernelInfo> arithmetic_kernels() {
  std::vector<KernelInfo> table;
  for (Arith op : {Arith::kAdd, Arith::kSub, Arith::kMul, Arith::kDiv}) {
    const std::string name = "aten::" + std::string(arith_name(op));
    const bool alpha = op == Arith::kAdd || op == Arith::kSub;
    // Tensor: (self, other, [alpha], out) + ret; Scalar: (self, other, [alpha], out) + ret.
    const int n = alpha ? 5 : 4;
    table.push_back({name + ".out", tensor_variant(op, alpha, false), n, {n - 2}});
    table.push_back({name + ".Scalar_out", scalar_variant(op, alpha, false), n, {n - 2}});
  }
  table.push_back({"aten::div.out_mode", tensor_variant(Arith::kDiv, false, true), 5, {3}});
  table.push_back({"aten::div.Scalar_mode_out", scalar_variant(Arith::kDiv, false, true), 5, {3}});
  return table;
}

}  // namespace etkit::rt::kernels
