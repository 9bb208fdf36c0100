// The enum codes of ExecuTorch's own serialization schema
// (exir/serde/schema.py, etrecord_spec.md §4.2). They differ from the
// runtime's ScalarType in .pte files (libcore/formats/scalar_type.h) and
// from current upstream torch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace etkit::etrecord {

// ScalarType: 0 UNKNOWN ... 7 float32 ... 14 uint16 (v0.5+), 15/16 float8 (v1.3+).
inline constexpr int64_t kSerdeFloat32 = 7;
inline constexpr int64_t kSerdeInt64 = 5;
inline constexpr int64_t kSerdeLayoutStrided = 7;

// Element size in bytes; 0 for UNKNOWN and codes outside the table.
size_t serde_dtype_size(int64_t code);
// torch's name without "torch.", e.g. "float32"; empty when unknown.
std::string_view serde_dtype_name(int64_t code);
// The abbreviation torch's graph printouts use, e.g. "f32", "i64", "b8".
std::string_view serde_dtype_short(int64_t code);
// The code of a torch dtype name ("float32", "int64", ...), or -1.
int64_t serde_dtype_from_name(std::string_view name);

// "torch.strided", "torch.sparse_coo", ...; empty when unknown.
std::string_view serde_layout_name(int64_t code);
// "torch.contiguous_format", "torch.channels_last", ...; empty when unknown.
std::string_view serde_memory_format_name(int64_t code);

}  // namespace etkit::etrecord
