// Tensors as the comparators see them: a dtype, a row-major shape and every
// element as a double, whatever file the tensor came from (.npy, an ETDump
// plus its debug buffer, a bundled program's expected outputs).
#pragma once

#include <cstdint>
#include <vector>

#include "libcore/formats/bundled/bundled_program.h"
#include "libcore/formats/etdump/etdump.h"
#include "libcore/formats/npy/npy.h"
#include "libcore/support/result.h"

namespace etkit::compare {

struct TensorValues {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int64_t> shape;  // empty for a 0-d tensor or a scalar value
  std::vector<double> values;  // row-major (logical) order
};

// Elements of `bytes` (contiguous, little-endian) as doubles. Integers beyond
// 2^53 lose their low bits. Complex, quantized and sub-byte dtypes are
// refused: their raw values mean nothing without scales or packing.
Result<std::vector<double>> elements_as_double(ScalarType dtype, ByteSpan bytes);

// Storage laid out by `strides` (in elements) reordered into row-major
// order. Empty strides mean contiguous. Strides that do not describe a dense
// layout (a permutation of the dims, as every dim order gives) are refused.
Result<std::vector<double>> to_row_major(std::vector<double> storage, const std::vector<int64_t>& shape,
                                         const std::vector<int64_t>& strides);

Result<TensorValues> from_npy(const npy::Array& array);

// A logged tensor read from the debug buffer. Unlike the Python Inspector,
// which ignores strides (inspector_spec.md §1.4), the recorded strides are
// honoured, so a channels-last tensor compares with a row-major reference.
Result<TensorValues> from_etdump(const etdump::Tensor& tensor, ByteSpan debug_buffer);

// A bundled expected output, laid out by its dim_order.
Result<TensorValues> from_bundled(const bundled::Tensor& tensor);

// The comparable parts of a logged value: one for a tensor, one per element
// of a tensor list (possibly none), a 0-d tensor for Int, Bool, Float and
// Double. Null and String values are refused.
Result<std::vector<TensorValues>> from_etdump_value(const etdump::Value& value, ByteSpan debug_buffer);

// A bundled Tensor, Int, Bool or Double expected output.
Result<TensorValues> from_bundled_value(const bundled::Value& value);

// "FLOAT[1, 10]".
std::string describe(const TensorValues& tensor);

}  // namespace etkit::compare
