// Reductions over a set of dims: sum.IntList_out, mean.out, amax.out,
// amin.out, and argmax.out / argmin.out over one dim (or all). Accumulation
// is in double (int64 for integer sums).
#include <cmath>
#include <limits>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/math/math_ops.h"

namespace etkit::rt::kernels {
namespace {

struct Reduction {
  bool reduced[kMaxRank] = {};
  Shape out_shape;
  int64_t count = 1;  // elements folded into each output
};

// `dims` null or empty means every dim.
Result<Reduction> plan_reduction(KernelContext& ctx, const Tensor& a, std::span<const int64_t> dims, bool all, bool keepdim) {
  Reduction r;
  if (all || dims.empty()) {
    for (size_t d = 0; d < a.dim(); ++d) r.reduced[d] = true;
  } else {
    for (int64_t dv : dims) {
      ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, dv, a.dim()));
      if (a.dim() == 0) continue;
      if (r.reduced[d]) return ctx.fail("dim " + std::to_string(d) + " appears more than once");
      r.reduced[d] = true;
    }
  }
  for (size_t d = 0; d < a.dim(); ++d) {
    if (r.reduced[d]) {
      r.count *= a.size(d);
      if (keepdim) r.out_shape.push_back(1);
    } else {
      r.out_shape.push_back(a.size(d));
    }
  }
  return r;
}

// Calls fn(out_linear_index, input_offset) for each input element.
template <typename Fn>
void for_each_reduced(const Tensor& a, const Reduction& r, Fn fn) {
  const int64_t n = a.numel();
  int64_t index[kMaxRank] = {};
  for (int64_t i = 0; i < n; ++i) {
    int64_t out_index = 0, offset = 0;
    for (size_t d = 0; d < a.dim(); ++d) {
      offset += index[d] * a.strides()[d];
      if (!r.reduced[d]) out_index = out_index * a.size(d) + index[d];
    }
    fn(out_index, offset);
    for (size_t d = a.dim(); d-- > 0;) {
      if (++index[d] < a.size(d)) break;
      index[d] = 0;
    }
  }
}

enum class Op { kSum, kMean, kMax, kMin };

// (self, dim?, keepdim, [dtype?], out, ret)
KernelFn reduce(Op op, bool has_dtype) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    std::span<const int64_t> dims;
    if (!args[1]->is_none()) {
      ETKIT_ASSIGN_OR_RETURN(dims, ctx.int_list(*args[1], "dim"));
    }
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    const size_t out_slot = has_dtype ? 4 : 3;
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[out_slot], "out"));
    if (has_dtype && !args[3]->is_none()) {
      ETKIT_ASSIGN_OR_RETURN(int64_t dtype, int_arg(ctx, *args[3], "dtype"));
      if (dtype != int64_t(out->dtype())) return ctx.fail("dtype argument does not match out's dtype");
    }
    if (op == Op::kMean && !is_floating(out->dtype())) return ctx.fail("mean needs a floating-point out");
    ETKIT_ASSIGN_OR_RETURN(Reduction r, plan_reduction(ctx, *a, dims, args[1]->is_none(), keepdim));
    ETKIT_TRY(resize_out(ctx, *out, r.out_shape));
    if ((op == Op::kMax || op == Op::kMin) && a->numel() == 0) return ctx.fail("cannot reduce an empty tensor");
    thread_local std::vector<double> acc;
    thread_local std::vector<int64_t> int_acc;
    const int64_t outputs = out->numel();
    const bool integral = !is_floating(out->dtype()) && (op == Op::kSum);
    const double init = op == Op::kMax ? -INFINITY : op == Op::kMin ? INFINITY : 0.0;
    acc.assign(size_t(outputs), init);
    int_acc.assign(size_t(outputs), 0);
    const ScalarType dt = a->dtype();
    for_each_reduced(*a, r, [&](int64_t o, int64_t offset) {
      if (integral) {
        int_acc[size_t(o)] += load_as<int64_t>(dt, a->data(), offset);
        return;
      }
      const double v = load_as<double>(dt, a->data(), offset);
      double& slot = acc[size_t(o)];
      if (op == Op::kMax) slot = (std::isnan(v) || v > slot) ? v : slot;
      else if (op == Op::kMin) slot = (std::isnan(v) || v < slot) ? v : slot;
      else slot += v;
    });
    // out is written in logical order; for_each_element maps it to any dim order.
    Tensor logical(out->dtype(), std::vector<int32_t>(out->sizes().begin(), out->sizes().end()), {}, nullptr);
    for_each_element(logical, *out, [&](int64_t o, int64_t offset) {
      if (integral) store_as<int64_t>(out->dtype(), out->data(), offset, int_acc[size_t(o)]);
      else store_as<double>(out->dtype(), out->data(), offset, op == Op::kMean ? acc[size_t(o)] / double(r.count) : acc[size_t(o)]);
    });
    return {};
  };
}

// (self, dim?, keepdim, out, ret): index of the first extreme along dim.
KernelFn arg_extreme(bool max) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    if (out->dtype() != ScalarType::kLong) return ctx.fail("out must be LONG");
    if (a->numel() == 0) return ctx.fail("cannot reduce an empty tensor");
    int64_t dim_list[1] = {0};
    std::span<const int64_t> dims;
    const bool all = args[1]->is_none();
    if (!all) {
      ETKIT_ASSIGN_OR_RETURN(dim_list[0], int_arg(ctx, *args[1], "dim"));
      dims = dim_list;
    }
    ETKIT_ASSIGN_OR_RETURN(Reduction r, plan_reduction(ctx, *a, dims, all, keepdim && !all));
    ETKIT_TRY(resize_out(ctx, *out, r.out_shape));
    thread_local std::vector<double> best;
    thread_local std::vector<int64_t> seen;
    best.assign(size_t(out->numel()), 0);
    seen.assign(size_t(out->numel()), 0);
    int64_t* idx = out->data_as<int64_t>();
    for_each_reduced(*a, r, [&](int64_t o, int64_t offset) {
      const double v = load_as<double>(a->dtype(), a->data(), offset);
      const int64_t position = seen[size_t(o)]++;  // position along the reduced dim(s)
      const double b = best[size_t(o)];
      const bool better = position == 0 || (!std::isnan(b) && (std::isnan(v) || (max ? v > b : v < b)));
      if (better) {
        best[size_t(o)] = v;
        idx[o] = position;
      }
    });
    return {};
  };
}

}  // namespace

void add_reduction_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::sum.IntList_out", reduce(Op::kSum, true), 6, {4}});
  table.push_back({"aten::mean.out", reduce(Op::kMean, true), 6, {4}});
  table.push_back({"aten::amax.out", reduce(Op::kMax, false), 5, {3}});
  table.push_back({"aten::amin.out", reduce(Op::kMin, false), 5, {3}});
  table.push_back({"aten::argmax.out", arg_extreme(true), 5, {3}});
  table.push_back({"aten::argmin.out", arg_extreme(false), 5, {3}});
}

}  // namespace etkit::rt::kernels
