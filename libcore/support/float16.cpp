#include "libcore/support/float16.h"

namespace etkit {

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal half: normalise into a float
      int shift = 0;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        ++shift;
      }
      bits = sign | uint32_t(127 - 15 + 1 - shift) << 23 | (mant & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | mant << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | mant << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  const uint16_t sign = uint16_t((f >> 16) & 0x8000);
  const int32_t exp = int32_t((f >> 23) & 0xff);
  uint32_t mant = f & 0x7fffff;
  if (exp == 0xff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));  // inf / nan
  int32_t e = exp - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00);  // overflow -> inf
  if (e <= 0) {  // subnormal or zero
    if (e < -10) return sign;
    mant |= 0x800000;
    const int shift = 14 - e;
    uint32_t half_mant = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half_mant & 1))) ++half_mant;
    return uint16_t(sign | half_mant);
  }
  uint32_t half = uint32_t(e) << 10 | (mant >> 13);
  const uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;  // may carry into the exponent: correct
  return uint16_t(sign | half);
}

uint16_t float_to_bfloat16(float value) {
  uint32_t u;
  std::memcpy(&u, &value, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

}  // namespace etkit
