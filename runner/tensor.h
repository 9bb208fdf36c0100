// The runtime tensor: a view of dtype, shape, dim order and strides over
// memory the method owns (arena, constant segment, or runtime allocation).
// Strides are derived from the dim order (pte_spec.md §4.3); data is always
// dense in dim-order layout.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/formats/scalar_type.h"
#include "libcore/support/result.h"

namespace etkit::rt {

inline constexpr size_t kMaxRank = 16;
// Bound on the product of a tensor's sizes, zeros counted as ones (what its
// strides reach): 2^40, the loader's bound on bytes too.
inline constexpr int64_t kMaxSpan = int64_t(1) << 40;

class Tensor {
 public:
  Tensor() = default;
  Tensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order, void* data,
         pte::ShapeDynamism dynamism = pte::ShapeDynamism::kStatic);

  ScalarType dtype() const { return dtype_; }
  size_t dim() const { return sizes_.size(); }
  std::span<const int32_t> sizes() const { return sizes_; }
  int32_t size(size_t d) const { return sizes_[d]; }
  std::span<const uint8_t> dim_order() const { return dim_order_; }
  std::span<const int64_t> strides() const { return strides_; }
  int64_t numel() const { return numel_; }
  size_t element_size() const { return element_size_; }
  size_t nbytes() const { return size_t(numel_) * element_size_; }
  // Elements the memory behind data() holds (the upper bound for
  // DYNAMIC_BOUND tensors).
  int64_t capacity() const { return capacity_; }
  pte::ShapeDynamism dynamism() const { return dynamism_; }
  // Dim order 0..n-1: set once (resizing keeps the rank and dim order),
  // since the small kernels ask on every call.
  bool is_contiguous() const { return contiguous_; }
  bool is_channels_last() const;     // rank 4, dim order 0,2,3,1

  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* data_as() { return static_cast<T*>(data_); }
  template <typename T>
  const T* data_as() const { return static_cast<const T*>(data_); }

  // Memory the method must never write: a constant of the program or of
  // external data, mapped read-only from the file.
  bool read_only() const { return read_only_; }
  void mark_read_only() { read_only_ = true; }
  // Released by a FreeCall: any later use in the same execution is an error.
  bool released() const { return released_; }
  void set_released(bool released) { released_ = released; }

  // Resizes as a kernel resizes its out tensor: same rank; a STATIC tensor
  // only to its own sizes, a DYNAMIC_BOUND one up to its capacity.
  // Allocates nothing when the rank is unchanged.
  Status resize(std::span<const int64_t> sizes);
  Status resize(std::span<const int32_t> sizes);
  // Whether resize(sizes) would succeed, changing nothing.
  Status check_resize(std::span<const int32_t> sizes) const;
  // Makes this tensor a view of `other`'s memory (et_view): a view of a
  // constant is as read-only as the constant.
  void view_memory_of(const Tensor& other) {
    data_ = other.data_;
    read_only_ = other.read_only_;
  }

  std::string shape_string() const;  // "[2, 3]"

 private:
  void update_strides();
  ScalarType dtype_ = ScalarType::kFloat;
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int64_t> strides_;
  int64_t numel_ = 1;
  int64_t capacity_ = 1;
  size_t element_size_ = 4;
  void* data_ = nullptr;
  pte::ShapeDynamism dynamism_ = pte::ShapeDynamism::kStatic;
  bool read_only_ = false;
  bool released_ = false;
  bool contiguous_ = true;
};

// Strides of `sizes` laid out in `dim_order` (a size of 0 counts as 1).
void strides_from_dim_order(std::span<const int32_t> sizes, std::span<const uint8_t> dim_order,
                            std::span<int64_t> strides);

}  // namespace etkit::rt
