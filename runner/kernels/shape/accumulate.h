// Element-wise `dst += src` for the accumulating scatters (scatter_add,
// index_put with accumulate=True), on raw elements of one dtype: integers
// wrap (added as unsigned), BOOL adds as logical or, half and bfloat16 add
// in float.
#pragma once

#include "runner/kernels/shape/strided_copy.h"

namespace etkit::rt::kernels {

inline bool can_accumulate(ScalarType t) {
  return is_floating(t) || t == ScalarType::kBool || t == ScalarType::kByte || t == ScalarType::kChar ||
         t == ScalarType::kShort || t == ScalarType::kInt || t == ScalarType::kLong;
}

// dst and src point at one element of `dtype` each (can_accumulate(dtype)).
inline void accumulate_element(ScalarType dtype, uint8_t* dst, const uint8_t* src) {
  auto add = [&](auto tag) {
    using T = decltype(tag);
    T a, b;
    std::memcpy(&a, dst, sizeof(T));
    std::memcpy(&b, src, sizeof(T));
    T sum;
    if constexpr (std::is_same_v<T, bool>) {
      sum = a || b;
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      sum = static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else if constexpr (std::is_floating_point_v<T>) {
      sum = a + b;
    } else {  // Half / BFloat16 storage
      const double x = load_as_double<T>(&a, 0), y = load_as_double<T>(&b, 0);
      store_from_double<T>(&sum, 0, double(float(x) + float(y)));
    }
    std::memcpy(dst, &sum, sizeof(T));
  };
  dispatch_all_types(dtype, add);
}

inline Status check_can_accumulate(KernelContext& ctx, ScalarType t) {
  if (can_accumulate(t)) return {};
  return ctx.fail("cannot add values of dtype " + std::string(scalar_type_name(int(t))));
}

}  // namespace etkit::rt::kernels
