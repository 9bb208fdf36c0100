// Reorderings along dims: flip (a view with negative strides) and roll
// (each rolled dim splits into two windows that swap places).
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// (self, dims, out, ret)
Status flip_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[1], "dims"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  View src = View::of(*self);
  bool seen[kMaxRank] = {};
  for (int64_t value : dims) {
    ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, value, self->dim()));
    if (seen[d]) return ctx.fail("dims " + list_string(dims) + " repeats dim " + std::to_string(d));
    seen[d] = true;
    if (self->dim() > 0) src = src.flipped(d);
  }
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  return copy_view(ctx, View::of(*out), src);
}

// roll with no dims: over the flattened tensor, out[j] = self[(j - shift) mod n].
void roll_flat(const Tensor& self, int64_t shift, Tensor& out) {
  const View src = View::of(self), dst = View::of(out);
  const int64_t n = self.numel();
  const size_t e = src.element_size;
  int64_t j = 0;
  for_each_index(dst.sizes, [&](const int64_t* i) {
    int64_t flat = ((j++ - shift) % n + n) % n;
    int64_t from = 0;
    for (size_t d = src.rank(); d-- > 0;) {
      from += (flat % src.sizes[d]) * src.strides[d];
      flat /= src.sizes[d];
    }
    std::memmove(dst.at(offset_at(i, dst.strides)), src.at(from), e);
  });
}

// (self, shifts, dims, out, ret)
Status roll_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto shifts, ctx.int_list(*args[1], "shifts"));
  ETKIT_ASSIGN_OR_RETURN(auto dims, ctx.int_list(*args[2], "dims"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (dims.empty()) {
    if (shifts.size() != 1) return ctx.fail("shifts " + list_string(shifts) + " must have one entry when dims is empty");
    ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
    if (self->numel() > 0) roll_flat(*self, shifts[0], *out);
    return {};
  }
  if (shifts.size() != dims.size()) {
    return ctx.fail("shifts " + list_string(shifts) + " and dims " + list_string(dims) + " must have the same length");
  }
  int64_t shift[kMaxRank] = {};
  for (size_t k = 0; k < dims.size(); ++k) {
    ETKIT_ASSIGN_OR_RETURN(size_t d, dim_arg(ctx, dims[k], self->dim()));
    if (self->dim() > 0) shift[d] += shifts[k];
  }
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  if (self->numel() == 0) return {};
  // The rolled dims (shift mod size nonzero); each splits into two windows.
  size_t rolled[kMaxRank];
  size_t num_rolled = 0;
  for (size_t d = 0; d < self->dim(); ++d) {
    const int64_t n = self->size(d);
    shift[d] = (shift[d] % n + n) % n;
    if (shift[d] != 0) rolled[num_rolled++] = d;
  }
  const View src_all = View::of(*self), dst_all = View::of(*out);
  for (uint32_t pick = 0; pick < (1u << num_rolled); ++pick) {
    View src = src_all, dst = dst_all;
    for (size_t k = 0; k < num_rolled; ++k) {
      const size_t d = rolled[k];
      const int64_t n = self->size(d), s = shift[d];
      if (pick & (1u << k)) {  // the tail of self wraps to the front of out
        src = src.narrow(d, n - s, s);
        dst = dst.narrow(d, 0, s);
      } else {
        src = src.narrow(d, 0, n - s);
        dst = dst.narrow(d, s, n - s);
      }
    }
    ETKIT_TRY(copy_view(ctx, dst, src));
  }
  return {};
}

}  // namespace

void add_flip_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::flip.out", flip_out, 4, {2}});
  table.push_back({"aten::roll.out", roll_out, 5, {3}});
}

}  // namespace etkit::rt::kernels
