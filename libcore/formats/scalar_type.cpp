#include "libcore/formats/scalar_type.h"

#include <array>
#include <cstring>

#include "libcore/support/float16.h"

namespace etkit {
namespace {

struct Info {
  std::string_view name;
  uint8_t size;
};

// Indexed by the enum value; sizes from runtime/core/portable_type/scalar_type.h.
constexpr std::array<Info, 30> kInfo = {{
    {"BYTE", 1}, {"CHAR", 1}, {"SHORT", 2}, {"INT", 4}, {"LONG", 8}, {"HALF", 2},
    {"FLOAT", 4}, {"DOUBLE", 8}, {"COMPLEX32", 4}, {"COMPLEX64", 8}, {"COMPLEX128", 16},
    {"BOOL", 1}, {"QINT8", 1}, {"QUINT8", 1}, {"QINT32", 4}, {"BFLOAT16", 2},
    {"QUINT4X2", 1}, {"QUINT2X4", 1}, {"BITS1X8", 1}, {"BITS2X4", 1}, {"BITS4X2", 1},
    {"BITS8", 1}, {"BITS16", 2}, {"FLOAT8E5M2", 1}, {"FLOAT8E4M3FN", 1},
    {"FLOAT8E5M2FNUZ", 1}, {"FLOAT8E4M3FNUZ", 1}, {"UINT16", 2}, {"UINT32", 4}, {"UINT64", 8},
}};

}  // namespace

std::optional<size_t> element_size(int scalar_type) {
  if (!is_valid_scalar_type(scalar_type)) return std::nullopt;
  return kInfo[static_cast<size_t>(scalar_type)].size;
}

std::string_view scalar_type_name(int scalar_type) {
  if (!is_valid_scalar_type(scalar_type)) return {};
  return kInfo[static_cast<size_t>(scalar_type)].name;
}

std::optional<double> element_as_double(ScalarType type, const uint8_t* p) {
  auto load = [p](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (type) {
    case ScalarType::kByte: return double(load(uint8_t{}));
    case ScalarType::kChar: return double(load(int8_t{}));
    case ScalarType::kShort: return double(load(int16_t{}));
    case ScalarType::kInt: return double(load(int32_t{}));
    case ScalarType::kLong: return double(load(int64_t{}));
    case ScalarType::kHalf: return double(half_to_float(load(uint16_t{})));
    case ScalarType::kFloat: return double(load(float{}));
    case ScalarType::kDouble: return load(double{});
    case ScalarType::kBool: return *p != 0 ? 1.0 : 0.0;
    case ScalarType::kBFloat16: return double(bfloat16_to_float(load(uint16_t{})));
    case ScalarType::kBits16:
    case ScalarType::kUInt16: return double(load(uint16_t{}));
    case ScalarType::kUInt32: return double(load(uint32_t{}));
    case ScalarType::kUInt64: return double(load(uint64_t{}));
    default: return std::nullopt;
  }
}

}  // namespace etkit
