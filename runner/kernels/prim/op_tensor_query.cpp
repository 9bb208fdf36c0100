// aten::sym_size.int, aten::sym_numel and aten::_local_scalar_dense: read a
// size, the element count or the single value of a tensor into a scalar.
#include "runner/kernels/kernel_util.h"
#include "runner/kernels/prim/prim_ops.h"

namespace etkit::rt::kernels::prim {
namespace {

// (self, dim, out)
Status sym_size_int(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(check_num_args(ctx, args, 3));
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  if (self->dim() == 0) return ctx.fail("dim " + std::to_string(dim_value) + " out of range for rank 0");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  return set_int(ctx, *args[2], self->size(dim));
}

// (self, out)
Status sym_numel(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(check_num_args(ctx, args, 2));
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  return set_int(ctx, *args[1], self->numel());
}

// (self, out): the first element (logical index 0 is at offset 0 in any dim
// order) as Int, Double or Bool by dtype; ExecuTorch accepts any non-empty
// tensor.
Status local_scalar_dense(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(check_num_args(ctx, args, 2));
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  if (self->numel() < 1) return ctx.fail("self has no elements");
  if (self->data() == nullptr) return ctx.fail("self has no data");
  const ScalarType dtype = self->dtype();
  EValue& out = *args[1];
  if (dtype == ScalarType::kBool) return set_bool(ctx, out, load_bool(self->data(), 0));
  Status status;
  const bool handled = dispatch_all_types(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_floating_point_v<T>) {
      status = set_double(ctx, out, load_as_double<T>(self->data(), 0));
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      const uint64_t v = self->data_as<uint64_t>()[0];
      status = v > uint64_t(INT64_MAX) ? ctx.fail("value " + std::to_string(v) + " does not fit an Int")
                                       : set_int(ctx, out, int64_t(v));
    } else {
      status = set_int(ctx, out, int64_t(self->data_as<T>()[0]));
    }
  });
  if (!handled) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(dtype))));
  return status;
}

}  // namespace

void add_tensor_query_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::sym_size.int", sym_size_int, 3, {}, true});
  table.push_back({"aten::sym_numel", sym_numel, 2, {}, true});
  table.push_back({"aten::_local_scalar_dense", local_scalar_dense, 2, {}, true});
}

}  // namespace etkit::rt::kernels::prim
