// Same-shape copies into out's own dim order: clone (and the Cadence flow's
// contiguous), the dim-order ops (_clone_dim_order, _to_dim_order_copy),
// _to_copy, copy and copy_, and
// their relatives _empty_dim_order (a resize) and native_dropout (a copy
// with a mask). The ones named "to" and copy/copy_ also convert dtypes. An NCHW input copied into a
// channels-last out (dim order 0,2,3,1) is transposed in memory.
#include "runner/kernels/shape/shape_ops.h"
#include "runner/kernels/stream_store.h"

namespace etkit::rt::kernels {
namespace {

Status copy_same_shape(KernelContext& ctx, const Tensor& self, Tensor& out, bool converts) {
  if (!converts) ETKIT_TRY(check_same_dtype(ctx, self, out));
  ETKIT_TRY(resize_out(ctx, out, self.sizes()));
  // One dtype, one layout: the bytes as they are, without building views.
  if (self.dtype() == out.dtype() && same_layout(self, out)) {
    if (out.data() != self.data() && out.nbytes() > 0) move_bytes(out.data(), self.data(), out.nbytes());
    return {};
  }
  // A conversion between contiguous tensors (yolox's float -> int64
  // _to_copy): the elements in order, without building views.
  if (self.is_contiguous() && out.is_contiguous() &&
      convert_elements(static_cast<uint8_t*>(out.data()), out.dtype(), static_cast<const uint8_t*>(self.data()),
                       self.dtype(), self.numel())) {
    return {};
  }
  return copy_view(ctx, View::of(out), View::of(self));
}

// An int[]? dim_order: None, or a permutation of self's dims equal to out's
// dim order (the memory planner lays out `out` that way).
Status check_dim_order(KernelContext& ctx, const EValue& v, const Tensor& self, const Tensor& out) {
  if (v.is_none()) return {};
  ETKIT_ASSIGN_OR_RETURN(auto order, ctx.int_list(v, "dim_order"));
  bool seen[kMaxRank] = {};
  bool permutation = order.size() == self.dim();
  for (size_t i = 0; permutation && i < order.size(); ++i) {
    permutation = order[i] >= 0 && order[i] < int64_t(self.dim()) && !seen[size_t(order[i])];
    if (permutation) seen[size_t(order[i])] = true;
  }
  if (!permutation) {
    return ctx.fail("dim_order " + list_string(order) + " is not a permutation of the " + std::to_string(self.dim()) +
                    " dims of self");
  }
  const auto od = out.dim_order();
  if (!std::equal(order.begin(), order.end(), od.begin(), od.end(), [](int64_t a, uint8_t b) { return a == b; })) {
    int64_t have[kMaxRank];
    for (size_t i = 0; i < od.size(); ++i) have[i] = od[i];
    return ctx.fail("dim_order " + list_string(order) + " does not match out's dim order " +
                    list_string(std::span<const int64_t>(have, od.size())));
  }
  return {};
}

// (self, memory_format?, out, ret)
Status clone_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_TRY(check_memory_format(ctx, *args[1]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  return copy_same_shape(ctx, *self, *out, false);
}

// (self, non_blocking, dim_order?, out, ret): _clone_dim_order and
// _to_dim_order_copy (converts).
KernelFn dim_order_copy(bool converts) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(ctx, *args[1], "non_blocking"));
    (void)non_blocking;  // host copies are synchronous
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    ETKIT_TRY(check_dim_order(ctx, *args[2], *self, *out));
    return copy_same_shape(ctx, *self, *out, converts);
  };
}

// (self, non_blocking, memory_format?, out, ret)
Status to_copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(ctx, *args[1], "non_blocking"));
  (void)non_blocking;
  ETKIT_TRY(check_memory_format(ctx, *args[2]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return copy_same_shape(ctx, *self, *out, true);
}

// src broadcast to self's shape (right-aligned; size-1 dims repeat).
Result<View> broadcast_src(KernelContext& ctx, const Tensor& self, const Tensor& src) {
  const size_t rank = self.dim();
  bool fits = src.dim() <= rank;
  for (size_t d = 0; fits && d < src.dim(); ++d) {
    const int32_t s = src.size(d), want = self.size(rank - src.dim() + d);
    fits = s == want || s == 1;
  }
  if (!fits) return ctx.fail("src " + src.shape_string() + " cannot be broadcast to self " + self.shape_string());
  View from = View::of(src);
  while (from.rank() < rank) from = from.with_broadcast_dim(0, 1);
  for (size_t d = 0; d < rank; ++d) {
    if (from.sizes[d] != self.size(d)) {
      from.sizes[d] = self.size(d);
      from.strides[d] = 0;
    }
  }
  return from;
}

// (self, src, non_blocking, out, ret): src broadcast to self's shape and
// converted to self's dtype.
Status copy_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[1], "src"));
  ETKIT_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(ctx, *args[2], "non_blocking"));
  (void)non_blocking;
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_ASSIGN_OR_RETURN(View from, broadcast_src(ctx, *self, *src));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  return copy_view(ctx, View::of(*out), from);
}

// (self, src, non_blocking, ret): the in-place form, writing self; a
// return slot holding another tensor receives a copy of the result.
// src may overlap self only as the very same tensor (then nothing moves).
Status copy_inplace(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * src, tensor_arg(ctx, *args[1], "src"));
  ETKIT_ASSIGN_OR_RETURN(bool non_blocking, bool_arg(ctx, *args[2], "non_blocking"));
  (void)non_blocking;
  ETKIT_ASSIGN_OR_RETURN(View from, broadcast_src(ctx, *self, *src));
  if (src != self) ETKIT_TRY(copy_view(ctx, View::of(*self), from));
  return copy_to_return_slot(ctx, *self, *args[3]);
}

// (int[] size, *, int[]? dim_order, out, ret): resizes out to `size`; the
// contents are unspecified (left as they are), as for torch.empty.
Status empty_dim_order_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> size, ctx.int_list(*args[0], "size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  for (int64_t s : size) {
    if (s < 0) return ctx.fail("size " + list_string(size) + " has a negative entry");
  }
  if (size.size() != out->dim()) {
    return ctx.fail("size " + list_string(size) + " has " + std::to_string(size.size()) + " dims, out has " +
                    std::to_string(out->dim()));
  }
  ETKIT_TRY(check_dim_order(ctx, *args[1], *out, *out));
  return resize_out(ctx, *out, size);
}

// (input, float p, bool? train, out0, out1, ret): out0 = the kept values
// scaled by 1 / (1 - p), out1 = the BOOL keep mask. Without training (or
// with p = 0) every element is kept; p = 1 drops all. Random masks
// (training with 0 < p < 1) are refused: a host runner compares runs, and
// ATen's random stream cannot be reproduced.
Status native_dropout_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(double p, double_arg(ctx, *args[1], "p"));
  bool train = true;  // ATen's default for train=None
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(train, bool_arg(ctx, *args[2], "train"));
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out0"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(ctx, *args[4], "out1"));
  if (!(p >= 0 && p <= 1)) return ctx.fail("p must be in [0, 1], got " + std::to_string(p));
  ETKIT_TRY(check_same_dtype(ctx, *input, *out));
  if (mask->dtype() != ScalarType::kBool) return ctx.fail("out1 must be BOOL, not " + dtype_name(mask->dtype()));
  const bool keep_all = !train || p == 0;
  if (!keep_all && p < 1) return ctx.fail("random dropout (train with 0 < p < 1) is not supported");
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  ETKIT_TRY(resize_out(ctx, *mask, input->sizes()));
  ElementBytes flag;
  flag.size = 1;
  flag.bytes[0] = keep_all ? 1 : 0;
  fill_view(View::of(*mask), flag);
  if (keep_all) return copy_view(ctx, View::of(*out), View::of(*input));
  ElementBytes zero;
  zero.size = out->element_size();
  fill_view(View::of(*out), zero);
  return {};
}

}  // namespace

void add_clone_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::clone.out", clone_out, 4, {2}});
  // The Cadence flow's contiguous.out(self, memory_format, out): clone's arguments, clone's copy.
  table.push_back({"aten::contiguous.out", clone_out, 4, {2}});
  table.push_back({"dim_order_ops::_clone_dim_order.out", dim_order_copy(false), 5, {3}});
  table.push_back({"dim_order_ops::_to_dim_order_copy.out", dim_order_copy(true), 5, {3}});
  table.push_back({"aten::_to_copy.out", to_copy_out, 5, {3}});
  table.push_back({"aten::copy.out", copy_out, 5, {3}});
  table.push_back({"aten::copy_", copy_inplace, 4, {0}});
  table.push_back({"dim_order_ops::_empty_dim_order.out", empty_dim_order_out, 4, {2}});
  table.push_back({"aten::native_dropout.out", native_dropout_out, 6, {3, 4}});
}

}  // namespace etkit::rt::kernels
