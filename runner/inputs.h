// Feeding a method: inputs from .npy or raw files or literals, all ones (as
// ExecuTorch's executor_runner), seeded random values, or a bundled test
// case; and reading outputs back for comparison or saving.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libcore/formats/bundled/bundled_program.h"
#include "runner/method.h"

namespace etkit::rt {

// The bytes and shape for one method input, kept alive by the caller.
struct InputData {
  bool is_tensor = true;
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> bytes;
  EValue scalar;  // for Int/Double/Bool inputs
};

// `spec` is a path to a .npy file, a raw little-endian .bin file (the
// input's declared dtype and shape), or for Int/Double/Bool inputs a literal.
Result<InputData> input_from_spec(const LoadedMethod& method, size_t index, const std::string& spec);
// Ones for tensors (true for BOOL); the traced value for scalars.
InputData input_ones(const LoadedMethod& method, size_t index);
// Uniform [0, 1) for floats, integers in [0, 10), booleans 50/50, from a
// 64-bit Mersenne Twister seeded with `seed` and the input index.
InputData input_random(const LoadedMethod& method, size_t index, uint64_t seed);
// Test case inputs of a bundled program.
Result<std::vector<InputData>> inputs_from_bundle(const LoadedMethod& method, const bundled::TestCase& test_case);

Status set_input(LoadedMethod& method, size_t index, const InputData& input);

struct OutputCheck {
  size_t index = 0;
  bool matched = false;
  std::string detail;  // why not, or the largest error
  double max_abs_error = 0;
};

// Compares every output with the test case's expected outputs using the
// runtime's rule (bundled_spec.md §3): dtypes and sizes equal; float types
// element-wise |a - b| <= atol + |rtol * b| with b the actual output, both
// NaN equal, same-signed infinities equal; other dtypes byte for byte.
Result<std::vector<OutputCheck>> verify_outputs(const LoadedMethod& method, const bundled::TestCase& test_case,
                                                double rtol, double atol);

}  // namespace etkit::rt
