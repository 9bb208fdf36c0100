// Operators whose out size depends on the data: nonzero (the coordinates
// of the non-zero elements), masked_select (the elements under a mask) and
// repeat_interleave.Tensor (each position i repeated repeats[i] times).
// Each counts first, resizes out (a dynamic out), then fills it.
#include <cmath>

#include "runner/kernels/math/math_util.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// Element `offset` of `t` is non-zero (NaN counts as non-zero, -0.0 not).
bool nonzero_at(const Tensor& t, int64_t offset) { return math::truthy(t, offset); }

// (self, out, ret): out is int64 [count, rank], the coordinates in
// row-major order.
Status nonzero_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  if (out->dtype() != ScalarType::kLong) return ctx.fail("out must be LONG, not " + dtype_name(out->dtype()));
  const View v = View::of(*self);
  int64_t count = 0;
  for_each_index(v.sizes, [&](const int64_t* c) { count += nonzero_at(*self, offset_at(c, v.strides)) ? 1 : 0; });
  const int64_t shape[2] = {count, int64_t(v.rank())};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View dst = View::of(*out);
  int64_t row = 0;
  for_each_index(v.sizes, [&](const int64_t* c) {
    if (!nonzero_at(*self, offset_at(c, v.strides))) return;
    for (size_t d = 0; d < v.rank(); ++d) {
      const int64_t at = row * dst.strides[0] + int64_t(d) * dst.strides[1];
      std::memcpy(dst.at(at), &c[d], sizeof(int64_t));
    }
    ++row;
  });
  return {};
}

// `t` broadcast to `shape` (right-aligned, size-1 dims repeat); the caller
// checked that it broadcasts.
View broadcast_view(const Tensor& t, const Shape& shape) {
  View v = View::of(t);
  while (v.rank() < shape.size()) v = v.with_broadcast_dim(0, 1);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (v.sizes[d] != shape[d]) {
      v.sizes[d] = shape[d];
      v.strides[d] = 0;
    }
  }
  return v;
}

// (self, mask, out, ret): self and the BOOL mask broadcast together; out
// is 1-D with the selected elements in row-major order.
Status masked_select_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(ctx, *args[1], "mask"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (mask->dtype() != ScalarType::kBool) return ctx.fail("mask must be BOOL, not " + dtype_name(mask->dtype()));
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, self->sizes(), mask->sizes()));
  const View values = broadcast_view(*self, shape), flags = broadcast_view(*mask, shape);
  int64_t count = 0;
  for_each_index(shape, [&](const int64_t* c) { count += *flags.at(offset_at(c, flags.strides)) != 0 ? 1 : 0; });
  const int64_t out_shape[1] = {count};
  ETKIT_TRY(resize_out(ctx, *out, out_shape));
  const View dst = View::of(*out);
  const size_t e = dst.element_size;
  int64_t next = 0;
  for_each_index(shape, [&](const int64_t* c) {
    if (*flags.at(offset_at(c, flags.strides)) == 0) return;
    std::memmove(dst.at(next * dst.strides[0]), values.at(offset_at(c, values.strides)), e);
    ++next;
  });
  return {};
}

// (repeats, output_size?, out, ret): repeats is 1-D int32/int64 and
// non-negative; out (repeats' dtype) holds i repeated repeats[i] times.
Status repeat_interleave_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * repeats, tensor_arg(ctx, *args[0], "repeats"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_index_dtype(ctx, *repeats, "repeats"));
  ETKIT_TRY(check_same_dtype(ctx, *repeats, *out));
  if (repeats->dim() != 1) return ctx.fail("repeats must have 1 dim, got " + repeats->shape_string());
  const int64_t n = repeats->size(0), stride = repeats->strides()[0];
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = load_index(*repeats, i * stride);
    if (r < 0) return ctx.fail("repeats must be non-negative, got " + std::to_string(r) + " at " + std::to_string(i));
    if (__builtin_add_overflow(total, r, &total) || total > INT32_MAX) {
      return ctx.fail("the repeats add up to more than " + std::to_string(INT32_MAX) + " elements");
    }
  }
  if (!args[1]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(int64_t output_size, int_arg(ctx, *args[1], "output_size"));
    if (output_size != total) {
      return ctx.fail("output_size " + std::to_string(output_size) + " differs from the repeats' sum " +
                      std::to_string(total));
    }
  }
  const int64_t shape[1] = {total};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const int64_t out_stride = out->strides()[0];
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = load_index(*repeats, i * stride);
    for (int64_t k = 0; k < r; ++k, ++at) {
      if (out->dtype() == ScalarType::kInt) out->data_as<int32_t>()[at * out_stride] = int32_t(i);  // i < n < 2^31
      else out->data_as<int64_t>()[at * out_stride] = i;
    }
  }
  return {};
}

}  // namespace

void add_select_dynamic_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::nonzero.out", nonzero_out, 3, {1}});
  table.push_back({"aten::masked_select.out", masked_select_out, 4, {2}});
  table.push_back({"aten::repeat_interleave.Tensor_out", repeat_interleave_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
