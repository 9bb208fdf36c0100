#include "runner/tensor.h"

#include <algorithm>

namespace etkit::rt {

void strides_from_dim_order(std::span<const int32_t> sizes, std::span<const uint8_t> dim_order,
                            std::span<int64_t> strides) {
  const size_t n = sizes.size();
  if (n == 0) return;
  strides[dim_order[n - 1]] = 1;
  for (size_t i = n - 1; i > 0; --i) {
    const uint8_t inner = dim_order[i];
    const int64_t size = sizes[inner] == 0 ? 1 : sizes[inner];
    strides[dim_order[i - 1]] = strides[inner] * size;
  }
}

Tensor::Tensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order, void* data,
               pte::ShapeDynamism dynamism)
    : dtype_(dtype),
      sizes_(std::move(sizes)),
      dim_order_(std::move(dim_order)),
      element_size_(etkit::element_size(static_cast<int>(dtype)).value_or(1)),
      data_(data),
      dynamism_(dynamism) {
  if (dim_order_.size() != sizes_.size()) {
    dim_order_.resize(sizes_.size());
    for (size_t i = 0; i < dim_order_.size(); ++i) dim_order_[i] = static_cast<uint8_t>(i);
  }
  for (size_t i = 0; i < dim_order_.size(); ++i) contiguous_ = contiguous_ && dim_order_[i] == i;
  strides_.resize(sizes_.size());
  update_strides();
  capacity_ = numel_;
}

void Tensor::update_strides() {
  numel_ = 1;
  for (int32_t s : sizes_) numel_ *= s;
  strides_from_dim_order(sizes_, dim_order_, strides_);
}

bool Tensor::is_channels_last() const {
  return dim_order_.size() == 4 && dim_order_[0] == 0 && dim_order_[1] == 2 && dim_order_[2] == 3 &&
         dim_order_[3] == 1;
}

template <typename Int>
static Status resize_impl(std::span<const Int> sizes, size_t rank, pte::ShapeDynamism dynamism,
                          std::span<const int32_t> current, int64_t capacity) {
  if (sizes.size() != rank) {
    return Error{ErrorKind::kRuntime, {}, {}, "cannot resize a rank-" + std::to_string(rank) + " tensor to rank " +
                                                  std::to_string(sizes.size())};
  }
  int64_t numel = 1;
  int64_t span = 1;  // the product with zeros as ones: the strides must stay small
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || sizes[i] > INT32_MAX) {
      return Error{ErrorKind::kRuntime, {}, {}, "invalid size " + std::to_string(sizes[i])};
    }
    // Checked before multiplying: numel <= span <= 2^40 never wraps.
    const int64_t factor = sizes[i] == 0 ? 1 : int64_t(sizes[i]);
    if (span > kMaxSpan / factor) return Error{ErrorKind::kRuntime, {}, {}, "sizes whose strides exceed 2^40 elements"};
    span *= factor;
    numel *= int64_t(sizes[i]);
    if (numel > capacity && dynamism != pte::ShapeDynamism::kStatic) break;
  }
  if (dynamism == pte::ShapeDynamism::kStatic) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (int64_t(sizes[i]) != current[i]) {
        return Error{ErrorKind::kRuntime, {}, {}, "cannot resize a static tensor"};
      }
    }
  } else if (numel > capacity) {
    return Error{ErrorKind::kRuntime, {}, {},
                 "resize to " + std::to_string(numel) + " elements exceeds the upper bound of " +
                     std::to_string(capacity)};
  }
  return {};
}

// Resizing to the current sizes always succeeds (they were checked when set)
// and changes nothing: kernels resize out on every call, mostly to the same
// sizes, so that case returns before the checks and the stride update.
Status Tensor::resize(std::span<const int64_t> sizes) {
  if (std::equal(sizes.begin(), sizes.end(), sizes_.begin(), sizes_.end())) return {};
  ETKIT_TRY(resize_impl(sizes, dim(), dynamism_, sizes_, capacity_));
  for (size_t i = 0; i < sizes.size(); ++i) sizes_[i] = static_cast<int32_t>(sizes[i]);
  update_strides();
  return {};
}

Status Tensor::resize(std::span<const int32_t> sizes) {
  if (std::equal(sizes.begin(), sizes.end(), sizes_.begin(), sizes_.end())) return {};
  ETKIT_TRY(resize_impl(sizes, dim(), dynamism_, sizes_, capacity_));
  for (size_t i = 0; i < sizes.size(); ++i) sizes_[i] = sizes[i];
  update_strides();
  return {};
}

Status Tensor::check_resize(std::span<const int32_t> sizes) const {
  return resize_impl(sizes, dim(), dynamism_, sizes_, capacity_);
}

std::string Tensor::shape_string() const {
  std::string s = "[";
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes_[i]);
  }
  return s + "]";
}

}  // namespace etkit::rt
