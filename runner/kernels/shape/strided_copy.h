// The primitive behind the shape kernels: a strided window on a tensor's
// memory (a View), and copies and fills between views. A view's elements are
// visited in logical row-major order over its sizes; element `index` lives
// at data + (offset + sum index[d] * strides[d]) * element_size. Strides come
// from each tensor's own dim order (pte_spec.md §4.3), so every kernel built
// on views works for any dim order on inputs and outputs alike; permute,
// transpose, expand, select, slice, flip, ... only rearrange a view. Strides
// may be 0 (broadcast) or negative (flip).
#pragma once

#include "runner/kernels/elementwise.h"

namespace etkit::rt::kernels {

struct View {
  uint8_t* data = nullptr;  // the tensor's memory (not owned)
  ScalarType dtype = ScalarType::kFloat;
  size_t element_size = 4;
  int64_t offset = 0;  // in elements
  Shape sizes;
  Shape strides;  // in elements

  // The whole tensor in logical order.
  static View of(const Tensor& t);
  size_t rank() const { return sizes.size(); }
  int64_t numel() const;
  // Address of the element `off` elements from data.
  uint8_t* at(int64_t off) const { return data + off * int64_t(element_size); }

  // Views that share the memory (callers check dims and bounds).
  View select(size_t dim, int64_t index) const;  // drops dim
  View narrow(size_t dim, int64_t start, int64_t length, int64_t step = 1) const;
  View flipped(size_t dim) const;
  // Inserts a dim of `size` with stride 0 (a broadcast) before `dim`.
  View with_broadcast_dim(size_t dim, int64_t size) const;
};

// Copies src's elements, in logical order, into dst's logical order: the
// two may differ in shape (view_copy) but not in numel. Converts the dtype
// when the two differ (load as the source type, static_cast to the
// destination; half/bfloat16 via float, bool as != 0).
Status copy_view(KernelContext& ctx, const View& dst, const View& src);

// copy_view's conversion of `n` consecutive elements from dtype `from` at
// src to dtype `to` at dst, without views; false, having written nothing,
// when a dtype is not one copy_view converts.
bool convert_elements(uint8_t* dst, ScalarType to, const uint8_t* src, ScalarType from, int64_t n);

// The same-dtype core of copy_view without views: copies every index of
// `sizes` from src + sum index[d] * src_strides[d] elements to dst + sum
// index[d] * dst_strides[d] (strides in elements, pointers at element 0).
// Returns false, having copied nothing, when element_size is not 1, 2, 4
// or 8 (copy_view handles those element by element).
bool copy_elements(size_t element_size, size_t rank, const int64_t* sizes, uint8_t* dst, const int64_t* dst_strides,
                   const uint8_t* src, const int64_t* src_strides);

// One element's bytes in a given dtype (for fills).
struct ElementBytes {
  uint8_t bytes[16] = {};
  size_t size = 0;
};

// Converts a Scalar (Int, Double or Bool) to one element of `dtype`, as
// PyTorch's checked scalar cast: an integer out of the type's range, or a
// finite float beyond a float type's range, is an error; so is a Double
// with a fractional part for an integer dtype (stricter than PyTorch,
// which truncates). Any value converts to Bool (nonzero is true).
Result<ElementBytes> scalar_bytes(KernelContext& ctx, const EValue& value, ScalarType dtype, std::string_view what);

// Writes `value` into every element of dst.
void fill_view(const View& dst, const ElementBytes& value);
// The same on `n` consecutive elements of `element_size` bytes at p (a
// contiguous tensor's data).
void fill_elements(uint8_t* p, int64_t n, size_t element_size, const ElementBytes& value);

}  // namespace etkit::rt::kernels
