#include "runner/kernels/shape/strided_copy.h"

#include <algorithm>

namespace etkit::rt::kernels {
namespace {

// Advances a row-major odometer over `sizes`, keeping `offset` in step.
inline void advance(int64_t* index, const Shape& sizes, const Shape& strides, int64_t& offset) {
  for (size_t d = sizes.size(); d-- > 0;) {
    if (++index[d] < sizes[d]) {
      offset += strides[d];
      return;
    }
    offset -= strides[d] * (sizes[d] - 1);
    index[d] = 0;
  }
}

// The copy loop for one element type (same dtype on both sides).
template <typename T>
void copy_elements(const StridedView& view, const Shape& out_sizes, const Shape& out_strides, int64_t n, void* out) {
  int64_t src_index[kMaxRank] = {}, dst_index[kMaxRank] = {};
  int64_t src = view.offset, dst = 0;
  const T* in = static_cast<const T*>(view.data);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) {
    o[dst] = in[src];
    advance(src_index, view.sizes, view.strides, src);
    advance(dst_index, out_sizes, out_strides, dst);
  }
}

// 2-D views into a contiguous out, in 32x32 tiles: a transpose then touches
// each source cache line once per tile instead of once per element.
template <typename T>
void copy_tiled_2d(const StridedView& view, void* out) {
  constexpr int64_t kTile = 32;
  const int64_t rows = view.sizes[0], cols = view.sizes[1];
  const int64_t rs = view.strides[0], cs = view.strides[1];
  const T* in = static_cast<const T*>(view.data) + view.offset;
  T* o = static_cast<T*>(out);
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) o[i * cols + j] = in[i * rs + j * cs];
      }
    }
  }
}

// Whether the view walks memory contiguously in logical order from its offset.
bool dense_in_logical_order(const StridedView& view) {
  int64_t expected = 1;
  for (size_t d = view.sizes.size(); d-- > 0;) {
    if (view.sizes[d] != 1 && view.strides[d] != expected) return false;
    expected *= view.sizes[d];
  }
  return true;
}

}  // namespace

Status copy_into(KernelContext& ctx, const StridedView& view, Tensor& out) {
  const int64_t n = view.numel();
  if (n != out.numel()) {
    return ctx.fail("cannot copy " + std::to_string(n) + " elements into out of " + std::to_string(out.numel()));
  }
  if (n == 0) return {};
  Shape out_sizes, out_strides;
  for (size_t d = 0; d < out.dim(); ++d) {
    out_sizes.push_back(out.size(d));
    out_strides.push_back(out.strides()[d]);
  }
  if (view.dtype == out.dtype()) {
    const size_t elem = out.element_size();
    // Same logical order on both sides and both dense: one memcpy.
    if (out.is_contiguous() && dense_in_logical_order(view)) {
      std::memcpy(out.data(), static_cast<const uint8_t*>(view.data) + view.offset * int64_t(elem), size_t(n) * elem);
      return {};
    }
    if (view.sizes.size() == 2 && out.is_contiguous()) {
      switch (elem) {
        case 1: copy_tiled_2d<uint8_t>(view, out.data()); return {};
        case 2: copy_tiled_2d<uint16_t>(view, out.data()); return {};
        case 4: copy_tiled_2d<uint32_t>(view, out.data()); return {};
        case 8: copy_tiled_2d<uint64_t>(view, out.data()); return {};
        default: break;
      }
    }
    switch (elem) {
      case 1: copy_elements<uint8_t>(view, out_sizes, out_strides, n, out.data()); return {};
      case 2: copy_elements<uint16_t>(view, out_sizes, out_strides, n, out.data()); return {};
      case 4: copy_elements<uint32_t>(view, out_sizes, out_strides, n, out.data()); return {};
      case 8: copy_elements<uint64_t>(view, out_sizes, out_strides, n, out.data()); return {};
      default: break;
    }
  }
  // Different dtypes (or unusual element sizes): convert element by element.
  int64_t src_index[kMaxRank] = {}, dst_index[kMaxRank] = {};
  int64_t src = view.offset, dst = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (view.dtype == out.dtype()) {
      const size_t elem = out.element_size();
      std::memcpy(static_cast<uint8_t*>(out.data()) + dst * int64_t(elem),
                  static_cast<const uint8_t*>(view.data) + src * int64_t(elem), elem);
    } else {
      store_as<double>(out.dtype(), out.data(), dst, load_as<double>(view.dtype, view.data, src));
    }
    advance(src_index, view.sizes, view.strides, src);
    advance(dst_index, out_sizes, out_strides, dst);
  }
  return {};
}

}  // namespace etkit::rt::kernels
