// Comparisons eq/ne/lt/le/gt/ge (.Scalar_out and .Tensor_out) and
// logical_and/or/xor.out, with broadcasting. Comparisons run in the
// promoted dtype of the operands (integers widened to int64, so an
// out-of-range Int scalar compares exactly); logical ops test each operand
// for non-zero. The 0/1 result is written in out's dtype (usually BOOL).
#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe };

template <typename T>
bool compare(Cmp c, T x, T y) {
  switch (c) {
    case Cmp::kEq: return x == y;
    case Cmp::kNe: return x != y;
    case Cmp::kLt: return x < y;
    case Cmp::kLe: return x <= y;
    case Cmp::kGt: return x > y;
    default: return x >= y;
  }
}

Status compare_tensors(KernelContext& ctx, Cmp c, const Tensor& a, const Tensor& b, ScalarType common, Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, a.sizes(), b.sizes()));
  ETKIT_TRY(resize_out(ctx, out, shape));
  const ScalarType compute = is_integral(common, false) ? ScalarType::kLong : common;
  return dispatch_compute(ctx, compute, [&](auto tag) {
    using CT = decltype(tag);
    const Reader<CT> ra(a), rb(b);
    const Writer<bool> write(out);
    for_each_broadcast(out, a, b, [&](int64_t o, int64_t ia, int64_t ib) { write(o, compare(c, ra(ia), rb(ib))); });
  });
}

// (self, other, out, ret)
KernelFn tensor_compare(Cmp c) {
  return [c](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    auto common = promote_types(a->dtype(), b->dtype());
    if (!common) return ctx.fail(common.error().message);
    return compare_tensors(ctx, c, *a, *b, *common, *out);
  };
}

// (self, Scalar other, out, ret)
KernelFn scalar_compare(Cmp c) {
  return [c](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(const EValue* other, scalar_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    const ScalarType common = promote_with_scalar(a->dtype(), *other);
    if (a->is_contiguous() && out->is_contiguous()) {
      // One flat loop against the scalar, converted as compare_tensors
      // would read it from a 0-dim tensor of its tag's dtype; building that
      // tensor and the broadcast made module_model's eq 2.9x ExecuTorch's.
      ETKIT_TRY(resize_out(ctx, *out, a->sizes()));
      const ScalarType compute = is_integral(common, false) ? ScalarType::kLong : common;
      return dispatch_compute(ctx, compute, [&](auto tag) {
        using CT = decltype(tag);
        const CT y = other->tag == Tag::kDouble ? static_cast<CT>(other->d)
                     : other->tag == Tag::kBool ? static_cast<CT>(other->b)
                                                : static_cast<CT>(other->i);
        const Reader<CT> ra(*a);
        const Writer<bool> write(*out);
        for (int64_t i = 0, n = a->numel(); i < n; ++i) write(i, compare(c, ra(i), y));
      });
    }
    const ScalarTensor b(*other);
    return compare_tensors(ctx, c, *a, b.tensor, common, *out);
  };
}

enum class Logic { kAnd, kOr, kXor };

// (self, other, out, ret)
KernelFn logical(Logic op) {
  return [op](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, a->sizes(), b->sizes()));
    ETKIT_TRY(resize_out(ctx, *out, shape));
    const Writer<bool> write(*out);
    for_each_broadcast(*out, *a, *b, [&](int64_t o, int64_t ia, int64_t ib) {
      const bool x = truthy(*a, ia), y = truthy(*b, ib);
      write(o, op == Logic::kAnd ? (x && y) : op == Logic::kOr ? (x || y) : (x != y));
    });
    return {};
  };
}

}  // namespace

void add_comparison_kernels(std::vector<KernelInfo>& table) {
  const std::pair<const char*, Cmp> comparisons[] = {{"eq", Cmp::kEq}, {"ne", Cmp::kNe}, {"lt", Cmp::kLt},
                                                     {"le", Cmp::kLe}, {"gt", Cmp::kGt}, {"ge", Cmp::kGe}};
  for (const auto& [name, c] : comparisons) {
    table.push_back({"aten::" + std::string(name) + ".Scalar_out", scalar_compare(c), 4, {2}});
    table.push_back({"aten::" + std::string(name) + ".Tensor_out", tensor_compare(c), 4, {2}});
  }
  table.push_back({"aten::logical_and.out", logical(Logic::kAnd), 4, {2}});
  table.push_back({"aten::logical_or.out", logical(Logic::kOr), 4, {2}});
  table.push_back({"aten::logical_xor.out", logical(Logic::kXor), 4, {2}});
}

}  // namespace etkit::rt::kernels::math
