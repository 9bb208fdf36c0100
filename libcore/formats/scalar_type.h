// ExecuTorch's ScalarType: names and element sizes (pte_spec.md §2).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace etkit {

enum class ScalarType : int8_t {
  kByte = 0, kChar = 1, kShort = 2, kInt = 3, kLong = 4, kHalf = 5, kFloat = 6,
  kDouble = 7, kComplexHalf = 8, kComplexFloat = 9, kComplexDouble = 10, kBool = 11,
  kQInt8 = 12, kQUInt8 = 13, kQInt32 = 14, kBFloat16 = 15, kQUInt4x2 = 16, kQUInt2x4 = 17,
  kBits1x8 = 18, kBits2x4 = 19, kBits4x2 = 20, kBits8 = 21, kBits16 = 22,
  kFloat8e5m2 = 23, kFloat8e4m3fn = 24, kFloat8e5m2fnuz = 25, kFloat8e4m3fnuz = 26,
  kUInt16 = 27, kUInt32 = 28, kUInt64 = 29,
};

// The runtime accepts 0..29 (runtime/core/portable_type/scalar_type.h).
constexpr bool is_valid_scalar_type(int value) { return value >= 0 && value <= 29; }

// Element size in bytes; nullopt for values outside 0..29.
std::optional<size_t> element_size(int scalar_type);

// Schema name ("FLOAT"), or empty for unknown values.
std::string_view scalar_type_name(int scalar_type);

// The little-endian element at `p` as a double, for the plain numeric dtypes
// (integers, bool as 0/1, half, bfloat16, float, double); nullopt for the
// others (complex, quantized, bit-packed, float8). `p` must hold
// element_size() bytes. int64 values beyond 2^53 round.
std::optional<double> element_as_double(ScalarType type, const uint8_t* p);

}  // namespace etkit
