// The primitive behind the shape kernels: a strided window on a tensor's
// memory (a View), and copies and fills between views. A view's elements are
// visited in logical row-major order over its sizes; element `index` lives
// at data + (offset + sum index[d] * strides[d]) * element_size. Strides come
// from each tensor's own dim order (pte_spec.md §4.3), so every kernel built
// on views works for any dim order on inputs and outputs alike; permute,
// transpose, expand, select, slice, flip, ... only rearrange a view. Strides
// may be 0 (broadcast) or negative (flip).
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

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

// scalar_bytes' commonest case inline: an Int or Double into a FLOAT
// element, within float's range (or infinite, or NaN). False, having
// written nothing, for everything else, which scalar_bytes converts or
// refuses (a one-element fill spent a third of its time in the call and
// its dispatch, issue #15).
inline bool float_scalar_bytes(const EValue& value, ScalarType dtype, ElementBytes& out) {
  if (dtype != ScalarType::kFloat || (value.tag != Tag::kDouble && value.tag != Tag::kInt)) return false;
  const double v = value.scalar_as_double();
  if (std::isfinite(v) && std::fabs(v) > double(std::numeric_limits<float>::max())) return false;
  const float f = static_cast<float>(v);
  std::memcpy(out.bytes, &f, sizeof f);
  out.size = sizeof f;
  return true;
}

// Writes `value` into every element of dst.
void fill_view(const View& dst, const ElementBytes& value);
// The same on `n` consecutive elements of `element_size` bytes at p (a
// contiguous tensor's data).
// Inline: for one element the call was most of the fill (issue #15).
namespace detail {
// n copies of one element of sizeof(U) bytes, copied as a U: a fixed-size
// copy the compiler inlines, where a memcpy of a run-time size is a call
// per element.
template <typename U>
inline void fill_as(uint8_t* p, int64_t n, const uint8_t* bytes) {
  U v;
  std::memcpy(&v, bytes, sizeof(U));
  for (int64_t i = 0; i < n; ++i) std::memcpy(p + size_t(i) * sizeof(U), &v, sizeof(U));
}
}  // namespace detail

inline void fill_elements(uint8_t* p, int64_t n, size_t element_size, const ElementBytes& value) {
  switch (element_size) {
    case 1: std::memset(p, value.bytes[0], size_t(n)); return;
    case 2: detail::fill_as<uint16_t>(p, n, value.bytes); return;
    case 4: detail::fill_as<uint32_t>(p, n, value.bytes); return;
    case 8: detail::fill_as<uint64_t>(p, n, value.bytes); return;
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(p + size_t(i) * element_size, value.bytes, element_size);
  }
}

}  // namespace etkit::rt::kernels
