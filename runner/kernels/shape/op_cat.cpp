// Joining tensors: cat (along an existing dim) and stack (along a new one).
// Each input is copied into its window of out; inputs of different dtypes
// are converted to out's dtype when their promoted type may be cast to it.
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// PyTorch's legacy rule: a 1-D tensor of size 0 is skipped whatever the
// other tensors' shapes (torch/_refs legacy_cat_wrap_dim).
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

Status check_promoted_dtype(KernelContext& ctx, std::span<Tensor* const> tensors, const Tensor& out) {
  ScalarType common = tensors[0]->dtype();
  for (const Tensor* t : tensors.subspan(1)) {
    auto promoted = promote_types(common, t->dtype());
    if (!promoted) return ctx.fail(promoted.error().message);
    common = *promoted;
  }
  if (!can_cast(common, out.dtype())) {
    return ctx.fail("result type " + dtype_name(common) + " cannot be stored in out of type " + dtype_name(out.dtype()));
  }
  return {};
}

// (tensors, dim, out, ret)
Status cat_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(auto tensors, tensor_list_arg(ctx, *args[0], "tensors"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (tensors.empty()) return ctx.fail("tensors must not be empty");
  ETKIT_TRY(check_promoted_dtype(ctx, tensors, *out));
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i]->dim() == 0) return ctx.fail("tensors[" + std::to_string(i) + "] is 0-dim and cannot be concatenated");
    if (!ref && !legacy_empty(*tensors[i])) ref = tensors[i];
  }
  if (!ref) {  // only [0] tensors: the result is [0]
    const int64_t empty[1] = {0};
    return resize_out(ctx, *out, empty);
  }
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, ref->dim()));
  Shape shape = shape_of(*ref);
  shape[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    if (legacy_empty(t)) continue;
    bool match = t.dim() == ref->dim();
    for (size_t d = 0; match && d < t.dim(); ++d) match = d == dim || t.size(d) == ref->size(d);
    if (!match) {
      return ctx.fail("tensors[" + std::to_string(i) + "] has shape " + t.shape_string() + ", which does not match " +
                      ref->shape_string() + " except in dimension " + std::to_string(dim));
    }
    shape[dim] += t.size(dim);
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View dst = View::of(*out);
  int64_t at = 0;
  for (const Tensor* t : tensors) {
    if (legacy_empty(*t)) continue;
    ETKIT_TRY(copy_view(ctx, dst.narrow(dim, at, t->size(dim)), View::of(*t)));
    at += t->size(dim);
  }
  return {};
}

// (tensors, dim, out, ret): all of one shape; out gets a new dim of
// len(tensors) at `dim`.
Status stack_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(auto tensors, tensor_list_arg(ctx, *args[0], "tensors"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (tensors.empty()) return ctx.fail("tensors must not be empty");
  ETKIT_TRY(check_promoted_dtype(ctx, tensors, *out));
  const Tensor& ref = *tensors[0];
  if (ref.dim() >= kMaxRank) return ctx.fail("cannot stack tensors of rank 16");
  for (size_t i = 1; i < tensors.size(); ++i) {
    const auto s = tensors[i]->sizes();
    if (!std::equal(s.begin(), s.end(), ref.sizes().begin(), ref.sizes().end())) {
      return ctx.fail("tensors[" + std::to_string(i) + "] has shape " + tensors[i]->shape_string() + ", expected " +
                      ref.shape_string());
    }
  }
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, ref.dim() + 1));
  Shape shape;
  for (size_t d = 0; d <= ref.dim(); ++d) {
    if (d == dim) shape.push_back(int64_t(tensors.size()));
    if (d < ref.dim()) shape.push_back(ref.size(d));
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View dst = View::of(*out);
  for (size_t i = 0; i < tensors.size(); ++i) {
    ETKIT_TRY(copy_view(ctx, dst.select(dim, int64_t(i)), View::of(*tensors[i])));
  }
  return {};
}

}  // namespace

void add_cat_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::cat.out", cat_out, 4, {2}});
  table.push_back({"aten::stack.out", stack_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
