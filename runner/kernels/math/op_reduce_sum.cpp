// Sum-based reductions over a dim list: sum.IntList_out, mean.out,
// mean.dtype_out, var.out, var.correction_out and var_mean.correction_out;
// products over one dim or all (prod.int_out, prod.out). A None or empty dim list
// reduces every dim. The accumulator is out's computation type (float for
// float/half/bfloat16, double, int64 for integer outs), as the portable
// kernels do; integer sums wrap on overflow like PyTorch's.
#include <algorithm>
#include <cmath>
#include <optional>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/reduce_util.h"

namespace etkit::rt::kernels::math {
namespace {

// A `ScalarType? dtype` argument must name out's dtype.
Result<std::optional<ScalarType>> checked_dtype(KernelContext& ctx, const EValue& v, const Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, dtype_arg(ctx, v));
  if (dtype && *dtype != out.dtype()) {
    return ctx.fail("dtype " + dtype_name(*dtype) + " does not match out dtype " + dtype_name(out.dtype()));
  }
  return dtype;
}

Status prepare(KernelContext& ctx, const Tensor& self, const DimList& dims, bool keepdim, Tensor& out, ReducePlan& p) {
  ETKIT_TRY(plan_reduction(ctx, self, dims.dims, dims.all, keepdim, p));
  ETKIT_TRY(resize_out(ctx, out, p.out_shape));
  bind_out(p, out);
  return {};
}

template <typename ACC>
void sum_blocks(const ACC* x, ACC* y, int64_t outer, int64_t count, int64_t inner, bool mean);

// Contiguous self and out of the accumulator's own dtype whose reduced dims
// are adjacent: self is [outer, count, inner] and out [outer, inner]. Each
// output is still summed from 0 in increasing order of the reduced index,
// the generic loop's order, so the bits are the same; the generic loop
// pays a strided walk per output (18 ns each on dnf_training's [1, 100]
// over dim 0, 3x ExecuTorch's portable kernel).
template <typename ACC>
bool sum_contiguous_block(const Tensor& self, const ReducePlan& p, Tensor& out, bool mean) {
  if (self.dtype() != native_dtype<ACC>() || out.dtype() != self.dtype() || !self.is_contiguous() ||
      !out.is_contiguous()) {
    return false;
  }
  size_t first = p.rank, last = 0;
  for (size_t d = 0; d < p.rank; ++d) {
    if (p.reduced[d]) {
      first = std::min(first, d);
      last = d;
    }
  }
  if (first == p.rank) return false;  // a 0-dim self: the generic loop
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < p.rank; ++d) {
    if (d < first) outer *= self.size(d);
    else if (d > last) inner *= self.size(d);
    else if (!p.reduced[d]) return false;  // reduced dims not adjacent
  }
  sum_blocks(self.data_as<ACC>(), out.data_as<ACC>(), outer, p.count, inner, mean);
  return true;
}

// y[a, b] = sum over r of x[a, r, b] (divided by count for the mean), each
// from 0 in increasing r.
template <typename ACC>
void sum_blocks(const ACC* x, ACC* y, int64_t outer, int64_t count, int64_t inner, bool mean) {
  const ACC divisor = static_cast<ACC>(count);
  for (int64_t a = 0; a < outer; ++a, x += count * inner, y += inner) {
    if (inner == 1) {
      ACC acc = 0;
      for (int64_t r = 0; r < count; ++r) acc += x[r];
      y[0] = mean ? acc / divisor : acc;
      continue;
    }
    for (int64_t b = 0; b < inner; ++b) y[b] = 0;
    for (int64_t r = 0; r < count; ++r) {
      const ACC* row = x + r * inner;
      for (int64_t b = 0; b < inner; ++b) y[b] += row[b];
    }
    if (mean) {
      for (int64_t b = 0; b < inner; ++b) y[b] = y[b] / divisor;  // an empty mean is 0/0 = NaN
    }
  }
}

// out = sum (or sum / count for the mean) of each folded group.
Status sum_into(KernelContext& ctx, const Tensor& self, const ReducePlan& p, Tensor& out, bool mean) {
  if (sum_contiguous_block<float>(self, p, out, mean) || sum_contiguous_block<double>(self, p, out, mean)) return {};
  if (out.dtype() == ScalarType::kBool) {  // a BOOL sum is an "any"
    const Writer<bool> write(out);
    for_each_output(p, [&](int64_t o, int64_t base) {
      bool any = false;
      for_each_folded(p, base, [&](int64_t i) { any = any || truthy(self, i); });
      write(o, any);
    });
    return {};
  }
  if (is_integral(out.dtype(), false)) {
    const Reader<int64_t> read(self);
    const Writer<int64_t> write(out);
    for_each_output(p, [&](int64_t o, int64_t base) {
      uint64_t acc = 0;  // unsigned: wraps instead of overflowing
      for_each_folded(p, base, [&](int64_t i) { acc += static_cast<uint64_t>(read(i)); });
      write(o, static_cast<int64_t>(acc));
    });
    return {};
  }
  return dispatch_compute(ctx, out.dtype(), [&](auto tag) {
    using ACC = decltype(tag);
    if constexpr (std::is_floating_point_v<ACC>) {
      const Reader<ACC> read(self);
      const Writer<ACC> write(out);
      const ACC count = static_cast<ACC>(p.count);
      for_each_output(p, [&](int64_t o, int64_t base) {
        ACC acc = 0;
        for_each_folded(p, base, [&](int64_t i) { acc += read(i); });
        write(o, mean ? acc / count : acc);  // an empty mean is 0/0 = NaN
      });
    }
  });
}

// (self, int[1]? dim, bool keepdim, ScalarType? dtype, out, ret)
Status sum_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], true));
  ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, checked_dtype(ctx, *args[3], *out));
  // With a dtype, self is converted to it first; otherwise out must hold self's values.
  if (!dtype) ETKIT_TRY(check_can_store(ctx, self->dtype(), *out));
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, *self, dims, keepdim, *out, p));
  return sum_into(ctx, *self, p, *out, false);
}

// The mean's dtype rules (check_mean_dim_args): a floating dtype equal to
// out's, or without one a floating self and out.
Status check_mean_dtypes(KernelContext& ctx, const Tensor& self, const EValue& dtype_value, const Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, checked_dtype(ctx, dtype_value, out));
  if (dtype) {
    if (!is_floating(*dtype)) return ctx.fail("dtype must be floating point, not " + dtype_name(*dtype));
    return {};
  }
  ETKIT_TRY(require_floating(ctx, self, "self"));
  return require_floating(ctx, out, "out");
}

// mean.out's common case, decided without a ReducePlan: contiguous self
// and out of one floating dtype (FLOAT or DOUBLE), no dtype argument, and
// valid reduced dims that are adjacent in self. Then self is [outer,
// count, inner] and the sums are sum_contiguous_block's, the same bits.
// Every check of the general path holds when it writes out (the dims in
// range and not repeated, the floating dtypes); anything else, errors
// included, returns nullopt for the general path to decide and report as
// before. A resize of out it cannot do is the general path's error too
// (the same shape, the same message). Through the plan (six Shapes filled
// and bound), mean of two elements took 1.00x ExecuTorch's portable kernel.
std::optional<Status> mean_fast(KernelContext& ctx, const Tensor& self, const DimList& dims, bool keepdim,
                                const EValue& dtype, Tensor& out) {
  const ScalarType t = self.dtype();
  if (!dtype.is_none() || out.dtype() != t || (t != ScalarType::kFloat && t != ScalarType::kDouble) ||
      !self.is_contiguous() || !out.is_contiguous()) {
    return std::nullopt;
  }
  const int64_t rank = int64_t(self.dim());
  if (rank == 0) return std::nullopt;  // a 0-dim self: the general path
  bool reduced[kMaxRank] = {};
  for (int64_t d = 0; d < rank; ++d) reduced[d] = dims.all;
  for (int64_t value : dims.dims) {
    if (value < -rank || value >= rank) return std::nullopt;
    const int64_t d = value < 0 ? value + rank : value;
    if (reduced[d]) return std::nullopt;
    reduced[d] = true;
  }
  int64_t first = -1, last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    if (first < 0) first = d;
    else if (last != d - 1) return std::nullopt;  // reduced dims not adjacent
    last = d;
  }
  if (first < 0) return std::nullopt;  // nothing reduced (dims.all on no dims cannot happen at rank > 0)
  int64_t outer = 1, count = 1, inner = 1, out_shape[kMaxRank];
  size_t out_rank = 0;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = self.size(size_t(d));
    if (reduced[d]) {
      count *= size;
      if (keepdim) out_shape[out_rank++] = 1;
    } else {
      (d < first ? outer : inner) *= size;
      out_shape[out_rank++] = size;
    }
  }
  ETKIT_TRY(resize_out(ctx, out, std::span<const int64_t>(out_shape, out_rank)));
  if (t == ScalarType::kFloat) sum_blocks(self.data_as<float>(), out.data_as<float>(), outer, count, inner, true);
  else sum_blocks(self.data_as<double>(), out.data_as<double>(), outer, count, inner, true);
  return Status{};
}

// (self, int[1]? dim, bool keepdim, ScalarType? dtype, out, ret)
Status mean_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], true));
  ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  if (auto done = mean_fast(ctx, *self, dims, keepdim, *args[3], *out)) return std::move(*done);
  ETKIT_TRY(check_mean_dtypes(ctx, *self, *args[3], *out));
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, *self, dims, keepdim, *out, p));
  return sum_into(ctx, *self, p, *out, true);
}

// (self, ScalarType? dtype, out, ret): the mean of every element.
Status mean_dtype_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_mean_dtypes(ctx, *self, *args[1], *out));
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, *self, DimList{{}, true}, false, *out, p));
  return sum_into(ctx, *self, p, *out, true);
}

// Sum of squared deviations / (count - correction); NaN when that is not
// positive (op_var.cpp).
Status variance(KernelContext& ctx, const Tensor& self, const DimList& dims, double correction, bool keepdim, Tensor& out) {
  ETKIT_TRY(require_floating(ctx, self, "self"));
  ETKIT_TRY(require_floating(ctx, out, "out"));
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, self, dims, keepdim, out, p));
  const double denominator = double(p.count) - correction;
  return dispatch_compute(ctx, out.dtype(), [&](auto tag) {
    using ACC = decltype(tag);
    if constexpr (std::is_floating_point_v<ACC>) {
      const Reader<ACC> read(self);
      const Writer<ACC> write(out);
      for_each_output(p, [&](int64_t o, int64_t base) {
        if (p.count == 0 || denominator <= 0) {
          write(o, ACC(NAN));
          return;
        }
        ACC sum = 0;
        for_each_folded(p, base, [&](int64_t i) { sum += read(i); });
        const ACC mean = sum / static_cast<ACC>(p.count);
        ACC squares = 0;
        for_each_folded(p, base, [&](int64_t i) {
          const ACC d = read(i) - mean;
          squares += d * d;
        });
        write(o, static_cast<ACC>(squares / static_cast<ACC>(denominator)));
      });
    }
  });
}

// (self, int[1]? dim, bool unbiased, bool keepdim, out, ret)
Status var_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], true));
  ETKIT_ASSIGN_OR_RETURN(bool unbiased, bool_arg(ctx, *args[2], "unbiased"));
  ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[3], "keepdim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  return variance(ctx, *self, dims, unbiased ? 1.0 : 0.0, keepdim, *out);
}

// (self, int[1]? dim, Scalar? correction, bool keepdim, out, ret);
// correction defaults to 1.
Status var_correction_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], true));
  double correction = 1.0;
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(const EValue* c, scalar_arg(ctx, *args[2], "correction"));
    correction = c->scalar_as_double();
  }
  ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[3], "keepdim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  return variance(ctx, *self, dims, correction, keepdim, *out);
}

// (self, int[1]? dim, *, Scalar? correction, bool keepdim, out0 (var),
// out1 (mean), ret). As ATen's Welford projection: var = M2 / max(N -
// correction, 0), so a non-positive divisor gives inf (or NaN when every
// value equals the mean), and the mean is the plain mean; an empty group
// gives NaN for both. (ExecuTorch's op_var_mean.cpp writes NaN to both
// whenever N - correction <= 0.)
Status var_mean_correction_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], true));
  double correction = 1.0;
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(const EValue* c, scalar_arg(ctx, *args[2], "correction"));
    correction = c->scalar_as_double();
  }
  ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[3], "keepdim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * var, tensor_arg(ctx, *args[4], "out0"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mean, tensor_arg(ctx, *args[5], "out1"));
  ETKIT_TRY(require_floating(ctx, *self, "self"));
  ETKIT_TRY(require_floating(ctx, *var, "out0"));
  if (mean->dtype() != var->dtype()) {
    return ctx.fail("out1 dtype " + dtype_name(mean->dtype()) + " differs from out0 dtype " + dtype_name(var->dtype()));
  }
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, *self, dims, keepdim, *var, p));
  ReducePlan mean_plan = p;
  ETKIT_TRY(resize_out(ctx, *mean, p.out_shape));
  bind_out(mean_plan, *mean);
  const double divisor = std::max(double(p.count) - correction, 0.0);
  const StrideTable<3> strides = stride_table<3>({&p.kept_out, &mean_plan.kept_out, &p.kept_in});
  return dispatch_compute(ctx, var->dtype(), [&](auto tag) {
    using ACC = decltype(tag);
    if constexpr (std::is_floating_point_v<ACC>) {
      const Reader<ACC> read(*self);
      const Writer<ACC> write_var(*var), write_mean(*mean);
      strided_loop(p.kept, strides, [&](const std::array<int64_t, 3>& off) {
        if (p.count == 0) {
          write_var(off[0], ACC(NAN));
          write_mean(off[1], ACC(NAN));
          return;
        }
        ACC sum = 0;
        for_each_folded(p, off[2], [&](int64_t i) { sum += read(i); });
        const ACC m = sum / static_cast<ACC>(p.count);
        ACC squares = 0;
        for_each_folded(p, off[2], [&](int64_t i) {
          const ACC d = read(i) - m;
          squares += d * d;
        });
        write_var(off[0], static_cast<ACC>(squares / static_cast<ACC>(divisor)));
        write_mean(off[1], m);
      });
    }
  });
}

// The product's dtype rules (check_prod_out_args): out is `dtype` when
// given, else int64 for an integer or BOOL self, else self's dtype. A
// floating self into an integer out is refused (converting NaN or huge
// values to an integer has no defined result).
Status check_prod_dtypes(KernelContext& ctx, const Tensor& self, const EValue& dtype_value, const Tensor& out) {
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, checked_dtype(ctx, dtype_value, out));
  if (!dtype) {
    const ScalarType expected = is_integral(self.dtype(), true) ? ScalarType::kLong : self.dtype();
    if (out.dtype() != expected) {
      return ctx.fail("out must be " + dtype_name(expected) + " for self dtype " + dtype_name(self.dtype()) + ", not " +
                      dtype_name(out.dtype()));
    }
  }
  if (is_floating(self.dtype()) && !is_floating(out.dtype())) {
    return ctx.fail("cannot take the product of " + dtype_name(self.dtype()) + " values in " + dtype_name(out.dtype()));
  }
  if (!is_floating(self.dtype()) && !is_integral(self.dtype(), true)) {
    return ctx.fail("unsupported dtype " + dtype_name(self.dtype()));
  }
  return {};
}

// out = the product of each folded group (1 for an empty one), in out's
// computation type; integer products wrap (multiplied mod 2^64, then
// narrowed, which is the same as wrapping in the narrow type).
Status prod_into(KernelContext& ctx, const Tensor& self, const ReducePlan& p, Tensor& out) {
  if (out.dtype() == ScalarType::kBool) {  // a BOOL product is an "all"
    const Writer<bool> write(out);
    for_each_output(p, [&](int64_t o, int64_t base) {
      bool all = true;
      for_each_folded(p, base, [&](int64_t i) { all = all && truthy(self, i); });
      write(o, all);
    });
    return {};
  }
  if (is_integral(out.dtype(), false)) {
    const Reader<int64_t> read(self);  // self is integral here (checked)
    const Writer<int64_t> write(out);
    for_each_output(p, [&](int64_t o, int64_t base) {
      uint64_t acc = 1;
      for_each_folded(p, base, [&](int64_t i) { acc *= static_cast<uint64_t>(read(i)); });
      write(o, static_cast<int64_t>(acc));
    });
    return {};
  }
  return dispatch_compute(ctx, out.dtype(), [&](auto tag) {
    using ACC = decltype(tag);
    if constexpr (std::is_floating_point_v<ACC>) {
      const Reader<ACC> read(self);
      const Writer<ACC> write(out);
      for_each_output(p, [&](int64_t o, int64_t base) {
        ACC acc = 1;
        for_each_folded(p, base, [&](int64_t i) { acc *= read(i); });
        write(o, acc);
      });
    }
  });
}

// (self, int dim, bool keepdim, *, ScalarType? dtype, out, ret)
Status prod_int_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(check_prod_dtypes(ctx, *self, *args[3], *out));
  const int64_t dims[1] = {dim};
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, *self, DimList{dims, false}, keepdim, *out, p));
  return prod_into(ctx, *self, p, *out);
}

// (self, *, ScalarType? dtype, out, ret): the product of every element.
Status prod_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_prod_dtypes(ctx, *self, *args[1], *out));
  ReducePlan p;
  ETKIT_TRY(prepare(ctx, *self, DimList{{}, true}, false, *out, p));
  return prod_into(ctx, *self, p, *out);
}

}  // namespace

void add_sum_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::sum.IntList_out", sum_out, 6, {4}});
  table.push_back({"aten::mean.out", mean_out, 6, {4}});
  table.push_back({"aten::mean.dtype_out", mean_dtype_out, 4, {2}});
  table.push_back({"aten::var.out", var_out, 6, {4}});
  table.push_back({"aten::var.correction_out", var_correction_out, 6, {4}});
  table.push_back({"aten::var_mean.correction_out", var_mean_correction_out, 7, {4, 5}});
  table.push_back({"aten::prod.int_out", prod_int_out, 6, {4}});
  table.push_back({"aten::prod.out", prod_out, 4, {2}});
}

}  // namespace etkit::rt::kernels::math
