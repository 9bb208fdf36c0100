// executorch_prim::et_view.default (a view that shares its input's memory)
// and executorch_prim::et_copy_index.tensor (torch.map's result stacking),
// as kernels/prim_ops/et_view.cpp and et_copy_index.cpp in ExecuTorch.
#include "runner/kernels/kernel_util.h"
#include "runner/kernels/prim/prim_ops.h"

namespace etkit::rt::kernels::prim {
namespace {

std::string shape_of(std::span<const int64_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}

// (self, size, out): out takes the new sizes (at most one -1, inferred) and
// points at self's data; nothing is copied.
Status et_view(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(check_num_args(ctx, args, 3));
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[1], "size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  if (out->dtype() != self->dtype()) {
    return ctx.fail("out dtype " + std::string(scalar_type_name(int(out->dtype()))) + " differs from self dtype " +
                    std::string(scalar_type_name(int(self->dtype()))));
  }
  if (size.size() != out->dim()) {
    return ctx.fail("size has " + std::to_string(size.size()) + " entries but out has rank " +
                    std::to_string(out->dim()));
  }
  if (size.size() > kMaxRank) return ctx.fail("size has " + std::to_string(size.size()) + " entries, more than 16");
  // Sharing memory only reinterprets it when both use the default layout.
  if (!self->is_contiguous() || !out->is_contiguous()) return ctx.fail("self and out must have the default dim order");
  Shape shape(size.size());
  int64_t known = 1;
  size_t inferred = kMaxRank;
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] == -1) {
      if (inferred != kMaxRank) return ctx.fail("only one dimension can be -1");
      inferred = i;
      continue;
    }
    if (size[i] < 0) return ctx.fail("invalid size " + std::to_string(size[i]));
    shape[i] = size[i];
    if (__builtin_mul_overflow(known, size[i], &known)) return ctx.fail("size " + shape_of(size) + " overflows");
  }
  if (inferred != kMaxRank) {
    if (known == 0) return ctx.fail("cannot infer the -1 in " + shape_of(size) + ": another size is 0");
    shape[inferred] = self->numel() / known;
    known *= shape[inferred];
  }
  if (known != self->numel()) {
    return ctx.fail("size " + shape_of(size) + " is invalid for self of " + std::to_string(self->numel()) + " elements");
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  out->view_memory_of(*self);
  return {};
}

// (copy_to, copy_from, index): copy_to[index] = copy_from, first growing
// copy_to along dim 0 to index + 1 rows (a resize within its capacity).
Status et_copy_index(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_TRY(check_num_args(ctx, args, 3));
  ETKIT_ASSIGN_OR_RETURN(Tensor * to, tensor_arg(ctx, *args[0], "copy_to"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * from, tensor_arg(ctx, *args[1], "copy_from"));
  ETKIT_ASSIGN_OR_RETURN(int64_t index, int_arg(ctx, *args[2], "index"));
  if (to->dim() != from->dim() + 1) {
    return ctx.fail("copy_to has rank " + std::to_string(to->dim()) + ", copy_from rank " +
                    std::to_string(from->dim()) + ": they must differ by 1");
  }
  if (to->dtype() != from->dtype()) {
    return ctx.fail("copy_to dtype " + std::string(scalar_type_name(int(to->dtype()))) + " differs from copy_from dtype " +
                    std::string(scalar_type_name(int(from->dtype()))));
  }
  if (index < 0 || index >= INT32_MAX) return ctx.fail("index " + std::to_string(index) + " out of range");
  if (to->size(0) <= index) {
    Shape grown(to->dim());
    grown[0] = index + 1;
    for (size_t d = 0; d < from->dim(); ++d) grown[d + 1] = from->size(d);
    auto resized = to->resize(std::span<const int64_t>(grown.data(), grown.size()));
    if (!resized) return ctx.fail("copy_to: " + resized.error().message);
  }
  for (size_t d = 0; d < from->dim(); ++d) {
    if (to->size(d + 1) != from->size(d)) {
      return ctx.fail("copy_from shape " + from->shape_string() + " does not match the rows of copy_to " +
                      to->shape_string());
    }
  }
  const size_t element = to->element_size();
  auto* dst = static_cast<uint8_t*>(to->data());
  const auto* src = static_cast<const uint8_t*>(from->data());
  const int64_t n = from->numel();
  if (n == 0) return {};
  if (to->is_contiguous() && from->is_contiguous()) {
    std::memmove(dst + size_t(index * n) * element, src, size_t(n) * element);
    return {};
  }
  // Any dim order: walk copy_from's logical indices.
  int64_t pos[kMaxRank] = {};
  const size_t rank = from->dim();
  for (int64_t i = 0; i < n; ++i) {
    int64_t src_off = 0, dst_off = index * to->strides()[0];
    for (size_t d = 0; d < rank; ++d) {
      src_off += pos[d] * from->strides()[d];
      dst_off += pos[d] * to->strides()[d + 1];
    }
    std::memmove(dst + size_t(dst_off) * element, src + size_t(src_off) * element, element);
    for (size_t d = rank; d-- > 0;) {
      if (++pos[d] < from->size(d)) break;
      pos[d] = 0;
    }
  }
  return {};
}

}  // namespace

void add_view_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"executorch_prim::et_view.default", et_view, 3, {}, true});
  table.push_back({"executorch_prim::et_copy_index.tensor", et_copy_index, 3, {}, true});
}

}  // namespace etkit::rt::kernels::prim
