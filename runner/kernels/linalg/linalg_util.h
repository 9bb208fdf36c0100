// Small helpers shared by the linalg kernels: the normalized_shape check,
// resizing a named out argument, and reading (height, width) pairs from int lists.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "runner/kernels/kernel_util.h"

namespace etkit::rt::kernels::linalg {

// normalized_shape of a layer or RMS norm: non-empty and equal to the
// input's trailing dims.
inline Status check_normalized_shape(KernelContext& ctx, const Tensor& input, std::span<const int64_t> normalized) {
  if (normalized.empty()) return ctx.fail("normalized_shape must not be empty");
  const size_t rank = input.dim();
  bool matches = normalized.size() <= rank;
  for (size_t d = 0; matches && d < normalized.size(); ++d) {
    matches = input.size(rank - normalized.size() + d) == normalized[d];
  }
  if (!matches) {
    return ctx.fail("normalized_shape " + list_string(normalized) + " does not match the trailing dimensions of input " +
                    input.shape_string());
  }
  return {};
}

// "[0, 2, 3, 1]"
inline std::string dim_order_string(const Tensor& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.dim_order().size(); ++i) s += (i ? ", " : "") + std::to_string(int(t.dim_order()[i]));
  return s + "]";
}

// Resizes an out argument with a message naming it ("indices: cannot
// resize a static tensor").
inline Status resize_named(KernelContext& ctx, Tensor& t, std::span<const int64_t> sizes, std::string_view what) {
  auto s = t.resize(sizes);
  if (!s) return ctx.fail(std::string(what) + ": " + s.error().message);
  return {};
}

inline Status resize_named(KernelContext& ctx, Tensor& t, std::span<const int32_t> sizes, std::string_view what) {
  auto s = t.resize(sizes);
  if (!s) return ctx.fail(std::string(what) + ": " + s.error().message);
  return {};
}

// The dtypes the floating-point kernels (normalisation, pooling averages)
// compute in.
inline bool is_float_or_double(ScalarType t) { return t == ScalarType::kFloat || t == ScalarType::kDouble; }

// Window parameters (kernel sizes, strides, paddings, dilations) are bounded
// like tensor sizes, so that output-size arithmetic cannot overflow int64.
inline Status check_int32_entries(KernelContext& ctx, std::span<const int64_t> list, std::string_view what) {
  for (int64_t v : list) {
    if (v < INT32_MIN || v > INT32_MAX) {
      return ctx.fail(std::string(what) + " " + list_string(list) + " has an entry out of the int32 range");
    }
  }
  return {};
}

// A (height, width) pair from an int list of 1 or 2 entries (one entry
// repeats); `if_empty` when the list is empty and that is allowed.
inline Result<std::pair<int64_t, int64_t>> hw_pair(KernelContext& ctx, std::span<const int64_t> list,
                                                   std::string_view what,
                                                   const std::pair<int64_t, int64_t>* if_empty = nullptr) {
  ETKIT_TRY(check_int32_entries(ctx, list, what));
  if (list.empty() && if_empty) return *if_empty;
  if (list.size() == 1) return std::make_pair(list[0], list[0]);
  if (list.size() == 2) return std::make_pair(list[0], list[1]);
  return ctx.fail(std::string(what) + " must have " + (if_empty ? "0, 1 or 2" : "1 or 2") + " entries, got " +
                  list_string(list));
}

// floor(a / b) for b > 0 (C++ division truncates toward zero).
inline int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace etkit::rt::kernels::linalg
