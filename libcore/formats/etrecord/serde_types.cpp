#include "libcore/formats/etrecord/serde_types.h"

#include <array>

namespace etkit::etrecord {
namespace {

struct DtypeInfo {
  std::string_view name;
  std::string_view short_name;
  uint8_t size;
};

// Indexed by code (exir/serde/schema.py ScalarType).
constexpr std::array<DtypeInfo, 17> kDtypes = {{
    {"", "", 0},  // UNKNOWN
    {"uint8", "u8", 1},
    {"int8", "i8", 1},
    {"int16", "i16", 2},
    {"int32", "i32", 4},
    {"int64", "i64", 8},
    {"float16", "f16", 2},
    {"float32", "f32", 4},
    {"float64", "f64", 8},
    {"complex32", "c32", 4},
    {"complex64", "c64", 8},
    {"complex128", "c128", 16},
    {"bool", "b8", 1},
    {"bfloat16", "bf16", 2},
    {"uint16", "u16", 2},
    {"float8_e5m2", "f8e5m2", 1},
    {"float8_e4m3fn", "f8e4m3fn", 1},
}};

const DtypeInfo* dtype(int64_t code) {
  if (code < 0 || code >= static_cast<int64_t>(kDtypes.size())) return nullptr;
  return &kDtypes[static_cast<size_t>(code)];
}

}  // namespace

size_t serde_dtype_size(int64_t code) {
  const DtypeInfo* d = dtype(code);
  return d == nullptr ? 0 : d->size;
}

std::string_view serde_dtype_name(int64_t code) {
  const DtypeInfo* d = dtype(code);
  return d == nullptr ? std::string_view{} : d->name;
}

std::string_view serde_dtype_short(int64_t code) {
  const DtypeInfo* d = dtype(code);
  return d == nullptr ? std::string_view{} : d->short_name;
}

int64_t serde_dtype_from_name(std::string_view name) {
  for (size_t i = 1; i < kDtypes.size(); ++i) {
    if (kDtypes[i].name == name) return static_cast<int64_t>(i);
  }
  return -1;
}

std::string_view serde_layout_name(int64_t code) {
  static constexpr std::array<std::string_view, 8> kNames = {
      "", "torch.sparse_coo", "torch.sparse_csr", "torch.sparse_csc",
      "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn", "torch.strided"};
  return code >= 0 && code < 8 ? kNames[static_cast<size_t>(code)] : std::string_view{};
}

std::string_view serde_memory_format_name(int64_t code) {
  static constexpr std::array<std::string_view, 5> kNames = {
      "", "torch.contiguous_format", "torch.channels_last", "torch.channels_last_3d", "torch.preserve_format"};
  return code >= 0 && code < 5 ? kNames[static_cast<size_t>(code)] : std::string_view{};
}

}  // namespace etkit::etrecord
