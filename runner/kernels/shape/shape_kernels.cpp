#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {

std::vector<KernelInfo> shape_kernels() {
  std::vector<KernelInfo> table;
  add_reshape_kernels(table);
  add_permute_kernels(table);
  add_expand_kernels(table);
  add_clone_kernels(table);
  add_slice_kernels(table);
  add_strided_view_kernels(table);
  add_split_kernels(table);
  add_cat_kernels(table);
  add_pad_kernels(table);
  add_index_kernels(table);
  add_gather_kernels(table);
  add_fill_kernels(table);
  add_flip_kernels(table);
  add_pad_mode_kernels(table);
  add_rearrange_kernels(table);
  add_select_dynamic_kernels(table);
  return table;
}

Error dtype_mismatch_error(KernelContext& ctx, const Tensor& self, const Tensor& out) {
  return ctx.fail("out has dtype " + dtype_name(out.dtype()) + ", expected " + dtype_name(self.dtype()));
}

Result<std::span<Tensor* const>> tensor_list_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  if (v.tag != Tag::kTensorList) {
    return ctx.fail(std::string(what) + " must be a tensor list, not " + std::string(tag_name(v.tag)));
  }
  for (size_t i = 0; i < v.tensor_list.size(); ++i) {
    if (v.tensor_list[i] == nullptr) return ctx.fail(std::string(what) + "[" + std::to_string(i) + "] is None");
  }
  return v.tensor_list;
}

Error memory_format_error(KernelContext& ctx, const EValue& v) {
  if (v.tag != Tag::kInt) return ctx.fail("memory_format must be an int or None, not " + std::string(tag_name(v.tag)));
  return ctx.fail("memory_format " + std::to_string(v.i) + " is not supported (only contiguous or preserve)");
}

Status copy_to_return_slot(KernelContext& ctx, const Tensor& self, const EValue& ret) {
  if (ret.tag != Tag::kTensor || ret.tensor == nullptr || ret.tensor == &self || ret.tensor->data() == self.data()) return {};
  ETKIT_TRY(check_same_dtype(ctx, self, *ret.tensor));
  ETKIT_TRY(resize_out(ctx, *ret.tensor, self.sizes()));
  return copy_view(ctx, View::of(*ret.tensor), View::of(self));
}

Status check_index_dtype(KernelContext& ctx, const Tensor& index, std::string_view what) {
  if (index.dtype() != ScalarType::kLong && index.dtype() != ScalarType::kInt) {
    return ctx.fail(std::string(what) + " must be int64 or int32, not " + dtype_name(index.dtype()));
  }
  return {};
}

}  // namespace etkit::rt::kernels
