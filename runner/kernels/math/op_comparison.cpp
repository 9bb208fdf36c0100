// Comparisons (eq, ne, lt, le, gt, ge with a tensor or scalar `other`),
// logical and/or/xor, maximum/minimum, and where.self_out.
#include "runner/kernels/elementwise.h"
#include "runner/kernels/math/math_ops.h"

namespace etkit::rt::kernels {
namespace {

// A 0-dim tensor over a scalar EValue.
struct ScalarView {
  double d = 0;
  int64_t i = 0;
  bool b = false;
  Tensor tensor;
  explicit ScalarView(const EValue& v) {
    if (v.tag == Tag::kDouble) {
      d = v.d;
      tensor = Tensor(ScalarType::kDouble, {}, {}, &d);
    } else if (v.tag == Tag::kBool) {
      b = v.b;
      tensor = Tensor(ScalarType::kBool, {}, {}, &b);
    } else {
      i = v.i;
      tensor = Tensor(ScalarType::kLong, {}, {}, &i);
    }
  }
};

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe, kAnd, kOr, kXor, kMax, kMin };

template <typename T>
T apply(Cmp c, T x, T y) {
  switch (c) {
    case Cmp::kEq: return T(x == y);
    case Cmp::kNe: return T(x != y);
    case Cmp::kLt: return T(x < y);
    case Cmp::kLe: return T(x <= y);
    case Cmp::kGt: return T(x > y);
    case Cmp::kGe: return T(x >= y);
    case Cmp::kAnd: return T(bool(x) && bool(y));
    case Cmp::kOr: return T(bool(x) || bool(y));
    case Cmp::kXor: return T(bool(x) != bool(y));
    case Cmp::kMax: return x > y || x != x ? x : y;  // NaN propagates
    default: return x < y || x != x ? x : y;
  }
}

Status compare(KernelContext& ctx, Cmp c, const Tensor& a, const Tensor& b, ScalarType common, Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast_shape(ctx, a.sizes(), b.sizes()));
  ETKIT_TRY(resize_out(ctx, out, shape));
  const bool value_result = c == Cmp::kMax || c == Cmp::kMin;
  if (value_result && !can_cast(common, out.dtype())) return ctx.fail("the result cannot be stored in out's dtype");
  // Compare in the common type, convert the 0/1 (or value) to out's dtype.
  bool ok = dispatch_compute_type(common, [&](auto tag) {
    using CT = decltype(tag);
    const ScalarType ta = a.dtype(), tb = b.dtype(), to = out.dtype();
    for_each_broadcast(out, a, b, [&](int64_t o, int64_t ia, int64_t ib) {
      const CT r = apply<CT>(c, load_as<CT>(ta, a.data(), ia), load_as<CT>(tb, b.data(), ib));
      store_as<CT>(to, out.data(), o, r);
    });
  });
  if (!ok) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(common))));
  return {};
}

KernelFn tensor_cmp(Cmp c) {
  return [c](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    auto common = promote_types(a->dtype(), b->dtype());
    if (!common) return ctx.fail(common.error().message);
    return compare(ctx, c, *a, *b, *common, *out);
  };
}

KernelFn scalar_cmp(Cmp c) {
  return [c](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(const EValue* other, scalar_arg(ctx, *args[1], "other"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    ScalarView b(*other);
    return compare(ctx, c, *a, b.tensor, promote_with_scalar(a->dtype(), *other), *out);
  };
}

// (condition, self, other, out, ret): out = condition ? self : other, all
// three broadcast together.
Status where_self_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * cond, tensor_arg(ctx, *args[0], "condition"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[1], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * b, tensor_arg(ctx, *args[2], "other"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (cond->dtype() != ScalarType::kBool && cond->dtype() != ScalarType::kByte) return ctx.fail("condition must be BOOL");
  ETKIT_ASSIGN_OR_RETURN(auto ab, broadcast_shape(ctx, a->sizes(), b->sizes()));
  std::vector<int32_t> ab32(ab.begin(), ab.end());
  ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast_shape(ctx, cond->sizes(), ab32));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  auto common = promote_types(a->dtype(), b->dtype());
  if (!common) return ctx.fail(common.error().message);
  if (!can_cast(*common, out->dtype())) return ctx.fail("the result cannot be stored in out's dtype");
  // Two passes over the broadcast: where true from self, where false from other.
  bool ok = dispatch_compute_type(*common, [&](auto tag) {
    using CT = decltype(tag);
    for_each_broadcast(*out, *cond, *a, [&](int64_t o, int64_t ic, int64_t ia) {
      if (static_cast<const uint8_t*>(cond->data())[ic]) store_as<CT>(out->dtype(), out->data(), o, load_as<CT>(a->dtype(), a->data(), ia));
    });
    for_each_broadcast(*out, *cond, *b, [&](int64_t o, int64_t ic, int64_t ib) {
      if (!static_cast<const uint8_t*>(cond->data())[ic]) store_as<CT>(out->dtype(), out->data(), o, load_as<CT>(b->dtype(), b->data(), ib));
    });
  });
  if (!ok) return ctx.fail("unsupported dtype");
  return {};
}

}  // namespace

void add_comparison_kernels(std::vector<KernelInfo>& table) {
  const std::pair<const char*, Cmp> ops[] = {{"eq", Cmp::kEq}, {"ne", Cmp::kNe}, {"lt", Cmp::kLt},
                                             {"le", Cmp::kLe}, {"gt", Cmp::kGt}, {"ge", Cmp::kGe}};
  for (const auto& [name, c] : ops) {
    table.push_back({std::string("aten::") + name + ".Scalar_out", scalar_cmp(c), 4, {2}});
    table.push_back({std::string("aten::") + name + ".Tensor_out", tensor_cmp(c), 4, {2}});
  }
  table.push_back({"aten::logical_and.out", tensor_cmp(Cmp::kAnd), 4, {2}});
  table.push_back({"aten::logical_or.out", tensor_cmp(Cmp::kOr), 4, {2}});
  table.push_back({"aten::logical_xor.out", tensor_cmp(Cmp::kXor), 4, {2}});
  table.push_back({"aten::maximum.out", tensor_cmp(Cmp::kMax), 4, {2}});
  table.push_back({"aten::minimum.out", tensor_cmp(Cmp::kMin), 4, {2}});
  table.push_back({"aten::where.self_out", where_self_out, 5, {3}});
}

}  // namespace etkit::rt::kernels
