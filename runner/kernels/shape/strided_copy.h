// The one primitive behind the view/copy kernels: a strided view of a
// tensor's memory (sizes, element strides, offset) whose elements, in
// logical row-major order, are copied into `out`'s logical row-major order,
// whatever out's dim order, converting the dtype when they differ.
// permute/transpose/expand/select/slice only build the view.
#pragma once

#include "runner/kernels/elementwise.h"

namespace etkit::rt::kernels {

struct StridedView {
  const void* data = nullptr;
  ScalarType dtype = ScalarType::kFloat;
  int64_t offset = 0;  // in elements
  Shape sizes;
  Shape strides;

  static StridedView of(const Tensor& t) {
    StridedView v;
    v.data = t.data();
    v.dtype = t.dtype();
    for (size_t d = 0; d < t.dim(); ++d) {
      v.sizes.push_back(t.size(d));
      v.strides.push_back(t.strides()[d]);
    }
    return v;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// Copies numel(view) elements into out (already resized; same numel).
Status copy_into(KernelContext& ctx, const StridedView& view, Tensor& out);

}  // namespace etkit::rt::kernels
