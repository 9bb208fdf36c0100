// IEEE binary16 ("half") and bfloat16 conversions, used wherever tensor
// bytes are read or written (JSON values, kernels, inputs).
#pragma once

#include <cstdint>
#include <cstring>

namespace etkit {

float half_to_float(uint16_t bits);
uint16_t float_to_half(float value);  // round to nearest even

inline float bfloat16_to_float(uint16_t bits) {
  const uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bfloat16(float value);  // round to nearest even

}  // namespace etkit
