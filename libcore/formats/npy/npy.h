// NumPy .npy arrays (format versions 1.0-3.0), little-endian, C order: the
// interchange format for et-run inputs and outputs.
#pragma once

#include <string>
#include <vector>

#include "libcore/formats/scalar_type.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::npy {

struct Array {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;
  ByteSpan data;  // numel * element size bytes, row-major; points into the file
};

// Supported descr: |b1 |u1 |i1 <i2 <u2 <i4 <u4 <i8 <u8 <f2 <f4 <f8 (and '='
// for native little-endian).
Result<Array> read_npy(ByteSpan file);

// A version 1.0 file with the header padded to a 64-byte boundary. Dtypes
// without a NumPy equivalent (BFLOAT16, quantized) are refused.
Result<std::vector<uint8_t>> write_npy(ScalarType dtype, std::span<const int64_t> shape, ByteSpan data);

}  // namespace etkit::npy
