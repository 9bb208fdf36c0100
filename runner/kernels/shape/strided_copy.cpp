#include "runner/kernels/shape/strided_copy.h"

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
  const bool same_type = view.dtype == out.dtype();
  const size_t elem = out.element_size();
  int64_t src_index[kMaxRank] = {}, dst_index[kMaxRank] = {};
  int64_t src = view.offset, dst = 0;
  const auto* in = static_cast<const uint8_t*>(view.data);
  auto* o = static_cast<uint8_t*>(out.data());
  for (int64_t i = 0; i < n; ++i) {
    if (same_type) {
      std::memcpy(o + dst * int64_t(elem), in + src * int64_t(elem), elem);
    } else {
      store_as<double>(out.dtype(), o, dst, load_as<double>(view.dtype, in, src));
    }
    advance(src_index, view.sizes, view.strides, src);
    advance(dst_index, out_sizes, out_strides, dst);
  }
  return {};
}

}  // namespace etkit::rt::kernels
