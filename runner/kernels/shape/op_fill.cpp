// Tensors from scalars and concatenation: full.out, full_like.out,
// scalar_tensor.out, cat.out.
#include "runner/kernels/shape/shape_ops.h"
#include "runner/kernels/shape/strided_copy.h"

namespace etkit::rt::kernels {
namespace {

Status fill(KernelContext& ctx, Tensor& out, const EValue& value) {
  if (is_integral(out.dtype(), false) && value.tag == Tag::kDouble) return ctx.fail("cannot fill an integer tensor with a float");
  const double v = value.scalar_as_double();
  for (int64_t i = 0; i < out.numel(); ++i) store_as<double>(out.dtype(), out.data(), i, v);
  return {};
}

// (size, fill_value, out, ret)
Status full_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[0], "size"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* value, scalar_arg(ctx, *args[1], "fill_value"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(resize_out(ctx, *out, size));
  return fill(ctx, *out, *value);
}

// (self, fill_value, memory_format?, out, ret)
Status full_like_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* value, scalar_arg(ctx, *args[1], "fill_value"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(resize_out(ctx, *out, a->sizes()));
  return fill(ctx, *out, *value);
}

// (s, out, ret)
Status scalar_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(const EValue* value, scalar_arg(ctx, *args[0], "s"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  if (out->numel() != 1) return ctx.fail("out must hold one element");
  const double v = value->scalar_as_double();
  store_as<double>(out->dtype(), out->data(), 0, v);
  return {};
}

// (tensors, dim, out, ret): 1-D empty tensors are skipped (legacy rule).
Status cat_out(KernelContext& ctx, std::span<EValue* const> args) {
  if (args[0]->tag != Tag::kTensorList) return ctx.fail("tensors must be a tensor list");
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const Tensor* ref = nullptr;
  for (const Tensor* t : args[0]->tensor_list) {
    if (!(t->dim() == 1 && t->numel() == 0)) {
      ref = t;
      break;
    }
  }
  if (!ref) {
    const int64_t empty[1] = {0};
    return resize_out(ctx, *out, empty);
  }
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, ref->dim()));
  Shape shape;
  for (size_t d = 0; d < ref->dim(); ++d) shape.push_back(d == dim ? 0 : ref->size(d));
  for (const Tensor* t : args[0]->tensor_list) {
    if (t->dim() == 1 && t->numel() == 0) continue;
    if (t->dim() != ref->dim()) return ctx.fail("tensors must have the same rank");
    for (size_t d = 0; d < t->dim(); ++d) {
      if (d != dim && t->size(d) != ref->size(d)) return ctx.fail("sizes must match except in dim " + std::to_string(dim));
    }
    shape[dim] += t->size(dim);
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  // Copy each input into the slab of out it occupies (a view of out).
  int64_t at = 0;
  for (const Tensor* t : args[0]->tensor_list) {
    if (t->dim() == 1 && t->numel() == 0) continue;
    if (!out->is_contiguous()) return ctx.fail("out must be contiguous");
    // Elements of the slab: out offset = at * stride(dim) + logical offsets.
    StridedView src = StridedView::of(*t);
    int64_t index[kMaxRank] = {};
    const int64_t n = t->numel();
    const size_t elem = out->element_size();
    int64_t src_off = 0;
    for (int64_t i = 0; i < n; ++i) {
      int64_t dst = at * out->strides()[dim];
      src_off = src.offset;
      for (size_t d = 0; d < t->dim(); ++d) {
        dst += index[d] * out->strides()[d];
        src_off += index[d] * src.strides[d];
      }
      if (t->dtype() == out->dtype()) {
        std::memcpy(static_cast<uint8_t*>(out->data()) + dst * int64_t(elem),
                    static_cast<const uint8_t*>(t->data()) + src_off * int64_t(elem), elem);
      } else {
        store_as<double>(out->dtype(), out->data(), dst, load_as<double>(t->dtype(), t->data(), src_off));
      }
      for (size_t d = t->dim(); d-- > 0;) {
        if (++index[d] < t->size(d)) break;
        index[d] = 0;
      }
    }
    at += t->size(dim);
  }
  return {};
}

}  // namespace

void add_fill_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::full.out", full_out, 4, {2}});
  table.push_back({"aten::full_like.out", full_like_out, 5, {3}});
  table.push_back({"aten::scalar_tensor.out", scalar_tensor_out, 3, {1}});
  table.push_back({"aten::cat.out", cat_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
