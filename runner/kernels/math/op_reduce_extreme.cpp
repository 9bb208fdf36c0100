// Extremes: amax.out / amin.out over a dim list (values, self's dtype),
// argmax.out / argmin.out over one dim or all (int64 positions),
// max.dim_max / min.dim_min over one dim (both values and positions), and
// max.unary_out / min.unary_out over all elements. NaN counts as the
// extreme, and the first of equal extremes wins, as in ExecuTorch's
// portable kernels; amax / amin report the last NaN's bits, as they do.
// Values compare in self's computation type, so int64 stays exact.
#include <cmath>
#include <limits>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/reduce_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Whether v replaces the current extreme `best` (the first NaN stays:
// op_argmax.cpp, op_max.cpp).
template <typename T>
bool better(T v, T best, bool max) {
  if (is_nan(best)) return false;
  if (is_nan(v)) return true;
  return max ? v > best : v < best;
}

Status empty_reduction(KernelContext& ctx, const ReducePlan& p, const Tensor& self, const Tensor& out) {
  if (out.numel() == 0) return {};
  const int64_t d = empty_reduced_dim(p, self);
  if (d >= 0) return ctx.fail("cannot reduce dim " + std::to_string(d) + " of size 0");
  return {};
}

// (self, int[1] dim, bool keepdim, out, ret); dim=[] reduces every dim.
KernelFn extreme_values(bool max) {
  return [max](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], false));
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    ETKIT_TRY(require_same_dtype(ctx, *self, *out));
    ReducePlan p;
    ETKIT_TRY(plan_reduction(ctx, *self, dims.dims, dims.all, keepdim, p));
    ETKIT_TRY(resize_out(ctx, *out, p.out_shape));
    bind_out(p, *out);
    ETKIT_TRY(empty_reduction(ctx, p, *self, *out));
    return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
      using CT = decltype(tag);
      const Reader<CT> read(*self);
      const Writer<CT> write(*out);
      for_each_output(p, [&](int64_t o, int64_t base) {
        CT best = read(base);  // the group's first element (all indices 0)
        for_each_folded(p, base, [&](int64_t i) {
          const CT v = read(i);
          // op_amax.cpp / op_amin.cpp: isnan(v) || v > acc, so a later NaN
          // replaces an earlier one (only the NaN's bits differ).
          if (is_nan(v) || (max ? v > best : v < best)) best = v;
        });
        write(o, best);
      });
    });
  };
}

// (self, int? dim, bool keepdim, out, ret); dim None: the flat position
// over all elements (keepdim then keeps every dim as size 1).
KernelFn extreme_index(bool max) {
  return [max](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    int64_t dim_storage[1] = {0};
    DimList dims;
    if (args[1]->is_none()) {
      dims.all = true;
    } else {
      ETKIT_ASSIGN_OR_RETURN(dim_storage[0], int_arg(ctx, *args[1], "dim"));
      dims.dims = dim_storage;
    }
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    if (out->dtype() != ScalarType::kLong) return ctx.fail("out must be LONG, not " + dtype_name(out->dtype()));
    if (self->dtype() == ScalarType::kBool) return ctx.fail("self dtype BOOL is not supported");
    ReducePlan p;
    ETKIT_TRY(plan_reduction(ctx, *self, dims.dims, dims.all, keepdim, p));
    if (dims.all && self->numel() == 0) return ctx.fail("cannot reduce an empty tensor");
    ETKIT_TRY(resize_out(ctx, *out, p.out_shape));
    bind_out(p, *out);
    ETKIT_TRY(empty_reduction(ctx, p, *self, *out));
    return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
      using CT = decltype(tag);
      const Reader<CT> read(*self);
      int64_t* indices = out->data_as<int64_t>();
      for_each_output(p, [&](int64_t o, int64_t base) {
        CT best = read(base);
        int64_t best_index = 0, position = 0;
        for_each_folded(p, base, [&](int64_t i) {
          const CT v = read(i);
          if (better(v, best, max)) {
            best = v;
            best_index = position;
          }
          ++position;
        });
        indices[o] = best_index;
      });
    });
  };
}

// (self, int dim, bool keepdim, values, indices, ret): the extreme along
// one dim and its position; a reduced dim of size 0 is an error (ATen's
// "Expected reduction dim to have non-zero size").
KernelFn extreme_with_index(bool max) {
  return [max](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(int64_t dim, int_arg(ctx, *args[1], "dim"));
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(ctx, *args[3], max ? "max" : "min"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[4], max ? "max_values" : "min_indices"));
    ETKIT_TRY(require_same_dtype(ctx, *self, *values));
    if (indices->dtype() != ScalarType::kLong) {
      return ctx.fail("indices must be LONG, not " + dtype_name(indices->dtype()));
    }
    const int64_t dims[1] = {dim};
    ReducePlan p;
    ETKIT_TRY(plan_reduction(ctx, *self, dims, false, keepdim, p));
    const int64_t empty = empty_reduced_dim(p, *self);
    if (empty >= 0) return ctx.fail("cannot reduce dim " + std::to_string(empty) + " of size 0");
    ETKIT_TRY(resize_out(ctx, *values, p.out_shape));
    ETKIT_TRY(resize_out(ctx, *indices, p.out_shape));
    ReducePlan index_plan = p;  // the same dims, with the indices' strides
    bind_out(p, *values);
    bind_out(index_plan, *indices);
    const StrideTable<3> strides = stride_table<3>({&p.kept_out, &index_plan.kept_out, &p.kept_in});
    return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
      using CT = decltype(tag);
      const Reader<CT> read(*self);
      const Writer<CT> write(*values);
      int64_t* positions = indices->data_as<int64_t>();
      strided_loop(p.kept, strides, [&](const std::array<int64_t, 3>& off) {
        CT best = read(off[2]);
        int64_t best_index = 0, position = 0;
        for_each_folded(p, off[2], [&](int64_t i) {
          const CT v = read(i);
          if (better(v, best, max)) {
            best = v;
            best_index = position;
          }
          ++position;
        });
        write(off[0], best);
        positions[off[1]] = best_index;
      });
    });
  };
}

// (self, out, ret): the extreme of all elements as a 0-dim out of a dtype
// self's values can be stored in. An empty self gives what ExecuTorch's
// op_max.cpp / op_min.cpp start from, -inf / +inf in out's dtype (its
// lowest / highest value without infinities); ATen refuses.
KernelFn extreme_of_all(bool max) {
  return [max](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
    ETKIT_TRY(check_can_store(ctx, self->dtype(), *out));
    ReducePlan p;
    ETKIT_TRY(plan_reduction(ctx, *self, {}, true, false, p));
    ETKIT_TRY(resize_out(ctx, *out, p.out_shape));
    if (self->numel() == 0) {
      const auto start = [max](auto tag) -> decltype(tag) {
        using lim = std::numeric_limits<decltype(tag)>;
        if constexpr (lim::has_infinity) return max ? -lim::infinity() : lim::infinity();
        else return max ? lim::lowest() : lim::max();
      };
      const ScalarType t = out->dtype();
      if (t == ScalarType::kHalf || t == ScalarType::kBFloat16) {
        const Writer<float> write(*out);
        write(0, start(float{}));
        return {};
      }
      if (!dispatch_real_and_bool(t, [&](auto tag) { out->data_as<decltype(tag)>()[0] = start(tag); })) {
        return ctx.fail("unsupported out dtype " + dtype_name(t));
      }
      return {};
    }
    return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
      using CT = decltype(tag);
      const Reader<CT> read(*self);
      CT best = read(0);  // all indices 0: offset 0 whatever the strides
      for_each_folded(p, 0, [&](int64_t i) {
        const CT v = read(i);
        if (better(v, best, max)) best = v;
      });
      const Writer<CT> write(*out);
      write(0, best);
    });
  };
}

}  // namespace

void add_extreme_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::amax.out", extreme_values(true), 5, {3}});
  table.push_back({"aten::amin.out", extreme_values(false), 5, {3}});
  table.push_back({"aten::argmax.out", extreme_index(true), 5, {3}});
  table.push_back({"aten::argmin.out", extreme_index(false), 5, {3}});
  table.push_back({"aten::max.dim_max", extreme_with_index(true), 6, {3, 4}});
  table.push_back({"aten::min.dim_min", extreme_with_index(false), 6, {3, 4}});
  table.push_back({"aten::max.unary_out", extreme_of_all(true), 3, {1}});
  table.push_back({"aten::min.unary_out", extreme_of_all(false), 3, {1}});
}

}  // namespace etkit::rt::kernels::math
