// The fixed-point arithmetic of CMSIS-NN's reference (plain C) kernels, as
// the cortex_m:: operators run it on a Cortex-M: Q31 doubling high
// multiplies, rounding divides by powers of two and the two-step
// requantization (multiply, then shift with rounding half away from zero).
// Results must match the target bit for bit, so every step here reproduces
// the target's two's-complement wrap-around explicitly (through uint32_t /
// int64_t) instead of relying on signed overflow, which is undefined in C++.
#pragma once

#include <cstdint>
#include <limits>

namespace etkit::rt::kernels::cortex_m {

inline constexpr int32_t kQ31Min = std::numeric_limits<int32_t>::min();
inline constexpr int32_t kQ31Max = std::numeric_limits<int32_t>::max();

// Two's-complement wrap of a 64-bit value to 32 bits (what the 32-bit
// registers of the target keep).
constexpr int32_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }
constexpr int32_t wrapping_add(int32_t a, int32_t b) { return wrap32(int64_t(a) + int64_t(b)); }
constexpr int32_t wrapping_sub(int32_t a, int32_t b) { return wrap32(int64_t(a) - int64_t(b)); }
constexpr int32_t wrapping_mul(int32_t a, int32_t b) { return wrap32(int64_t(a) * int64_t(b)); }
// a * 2^shift for shift in [0, 31], wrapping like a register shift.
constexpr int32_t wrapping_shl(int32_t a, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) << static_cast<unsigned>(shift));
}

// Rounded high half of 2*a*b (ARM's SQRDMULH): the product plus 2^30 (or
// 1 - 2^30 when the signs differ), divided by 2^31 truncating towards zero.
// The only overflowing case, MIN * MIN, saturates to MAX.
constexpr int32_t doubling_high_mult(int32_t a, int32_t b) {
  if (a == kQ31Min && b == kQ31Min) return kQ31Max;
  const int64_t nudge = ((a < 0) != (b < 0)) ? 1 - (int64_t(1) << 30) : (int64_t(1) << 30);
  return static_cast<int32_t>((int64_t(a) * int64_t(b) + nudge) / (int64_t(1) << 31));
}

// The requantization variant: always adds 2^30 and floors (arithmetic shift
// by 31). No saturation: the MIN * MIN case wraps as on the target.
constexpr int32_t doubling_high_mult_no_sat(int32_t a, int32_t b) {
  const int64_t v = int64_t(a) * int64_t(b) + (int64_t(1) << 30);
  // Arithmetic right shift of a negative value is defined (floor) in C++20.
  return wrap32(v >> 31);
}

// dividend / 2^exponent rounded to nearest, ties away from zero, for
// exponent in [0, 31]. Larger exponents (softmax of very long rows can ask
// for up to 35) get what the C reference computes on the target, where a
// register shift by 32 or more yields 0 (LSL) or the sign (ASR).
constexpr int32_t divide_by_power_of_two(int32_t dividend, int exponent) {
  const bool wide = exponent >= 32;
  const int32_t mask = wide ? -1 : static_cast<int32_t>((uint32_t(1) << exponent) - 1u);
  const int32_t remainder = dividend & mask;
  int32_t result = dividend >> (wide ? 31 : exponent);  // floor
  int32_t threshold = mask >> 1;
  if (result < 0) ++threshold;  // a negative exact half rounds down (away from zero)
  if (remainder > threshold) ++result;
  return result;
}

// val * multiplier * 2^shift / 2^31 with CMSIS-NN's default double rounding
// (not CMSIS_NN_USE_SINGLE_ROUNDING): a left shift (shift > 0) happens before
// the high multiply and wraps; a right shift (shift < 0) rounds half away
// from zero after it. shift in [-31, 31] (callers check).
constexpr int32_t requantize(int32_t val, int32_t multiplier, int32_t shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return divide_by_power_of_two(doubling_high_mult_no_sat(wrapping_shl(val, left), multiplier), right);
}

constexpr int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// ---- Softmax fixed point (input scaled to 5 integer bits) ----------------

// val * 2^exp saturated to Q31, exp in [0, 31).
constexpr int32_t saturating_mul_pow2(int32_t val, int exp) {
  const int32_t threshold = static_cast<int32_t>((uint32_t(1) << (31 - exp)) - 1u);
  if (val > threshold) return kQ31Max;
  if (val < -threshold) return kQ31Min;
  return wrapping_shl(val, exp);
}

// exp(x) in Q0.31 for x <= 0 given in Q5.26: a polynomial on the fraction
// [-1/4, 0) times precomputed exp(-2^k / 4) factors for the set bits of the
// remaining part. The constants are those of gemmlowp/CMSIS-NN, needed for
// bit-exact results.
constexpr int32_t exp_on_negative_values(int32_t val) {
  constexpr int kFractionBits = 24;  // 1/4 in Q5.26
  const int32_t quarter = int32_t(1) << kFractionBits;
  const int32_t val_mod_minus_quarter = (val & (quarter - 1)) - quarter;
  const int32_t remainder = wrapping_sub(val_mod_minus_quarter, val);
  // The fraction in Q0.31, shifted to the Taylor expansion point -1/8.
  const int32_t x = wrapping_add(wrapping_mul(val_mod_minus_quarter, 32), int32_t(1) << 28);
  const int32_t x2 = doubling_high_mult(x, x);
  const int32_t x3 = doubling_high_mult(x2, x);
  const int32_t x4_over_4 = divide_by_power_of_two(doubling_high_mult(x2, x2), 2);
  const int32_t poly = divide_by_power_of_two(
      wrapping_add(doubling_high_mult(wrapping_add(x4_over_4, x3), 715827883 /* 1/3 */), x2), 1);
  constexpr int32_t kExpMinusOneEighth = 1895147668;
  int32_t result = wrapping_add(kExpMinusOneEighth, doubling_high_mult(kExpMinusOneEighth, wrapping_add(x, poly)));
  // exp(-1/4), exp(-1/2), exp(-1), exp(-2), exp(-4), exp(-8), exp(-16) in Q0.31.
  constexpr int32_t kFactors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = 0; k < 7; ++k) {
    if (remainder & (int32_t(1) << (kFractionBits + k))) result = doubling_high_mult(result, kFactors[k]);
  }
  return val == 0 ? kQ31Max : result;
}

// 1 / (1 + x) for x in [0, 1) in Q0.31, by three Newton-Raphson steps from
// 48/17 - 32/17 * d (d the halved denominator).
constexpr int32_t one_over_one_plus_x(int32_t val) {
  const int64_t sum = int64_t(val) + int64_t(kQ31Max);
  const int32_t half_denominator = static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = wrapping_add(1515870810 /* 48/17 */, doubling_high_mult(half_denominator, -1010580540 /* -32/17 */));
  constexpr int32_t kOne = int32_t(1) << 29;  // 1 in Q2.29
  for (int i = 0; i < 3; ++i) {
    const int32_t error = wrapping_sub(kOne, doubling_high_mult(half_denominator, x));
    x = wrapping_add(x, saturating_mul_pow2(doubling_high_mult(x, error), 2));
  }
  return saturating_mul_pow2(x, 1);
}

// Leading zero bits of a 32-bit value (32 for 0), as the CLZ instruction.
constexpr int count_leading_zeros(uint32_t v) {
  int n = 0;
  for (uint32_t bit = 0x80000000u; bit != 0 && (v & bit) == 0; bit >>= 1) ++n;
  return n;
}

}  // namespace etkit::rt::kernels::cortex_m
