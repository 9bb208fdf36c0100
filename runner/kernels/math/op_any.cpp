// aten::any and aten::all, each as all_out (every element), dims_out (a dim
// list, None for all) and out (one dim). Any input dtype (NaN is true); out
// is BOOL or BYTE, as in op_any.cpp.
#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/reduce_util.h"

namespace etkit::rt::kernels::math {
namespace {

Status reduce_truth(KernelContext& ctx, const Tensor& self, const DimList& dims, bool keepdim, bool any, Tensor& out) {
  if (out.dtype() != ScalarType::kBool && out.dtype() != ScalarType::kByte) {
    return ctx.fail("out must be BOOL or BYTE, not " + dtype_name(out.dtype()));
  }
  ReducePlan p;
  ETKIT_TRY(plan_reduction(ctx, self, dims.dims, dims.all, keepdim, p));
  ETKIT_TRY(resize_out(ctx, out, p.out_shape));
  bind_out(p, out);
  auto* result = static_cast<uint8_t*>(out.data());  // BOOL and BYTE both hold 0 or 1
  for_each_output(p, [&](int64_t o, int64_t base) {
    bool acc = !any;  // any() of nothing is false, all() of nothing is true
    for_each_folded(p, base, [&](int64_t i) {
      const bool v = truthy(self, i);
      acc = any ? (acc || v) : (acc && v);
    });
    result[o] = acc ? 1 : 0;
  });
  return {};
}

// (self, out, ret)
KernelFn all_elements(bool any) {
  return [any](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
    return reduce_truth(ctx, *self, DimList{{}, true}, false, any, *out);
  };
}

// (self, int[1]? dim, bool keepdim, out, ret)
KernelFn over_dims(bool any) {
  return [any](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(DimList dims, dim_list_arg(ctx, *args[1], true));
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    return reduce_truth(ctx, *self, dims, keepdim, any, *out);
  };
}

// (self, int dim, bool keepdim, out, ret)
KernelFn over_dim(bool any) {
  return [any](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(int64_t dim, int_arg(ctx, *args[1], "dim"));
    ETKIT_ASSIGN_OR_RETURN(bool keepdim, bool_arg(ctx, *args[2], "keepdim"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    const int64_t dims[1] = {dim};
    return reduce_truth(ctx, *self, DimList{dims, false}, keepdim, any, *out);
  };
}

}  // namespace

void add_any_kernels(std::vector<KernelInfo>& table) {
  for (bool any : {true, false}) {
    const std::string name = any ? "aten::any" : "aten::all";
    table.push_back({name + ".all_out", all_elements(any), 3, {1}});
    table.push_back({name + ".dims_out", over_dims(any), 5, {3}});
    table.push_back({name + ".out", over_dim(any), 5, {3}});
  }
}

}  // namespace etkit::rt::kernels::math
