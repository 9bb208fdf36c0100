// Shared helpers of the XNNPACK node functions: float views of any value
// (dequantizing or widening where the datatype is not fp32), storing float
// results back (rounding, quantizing, saturating), and output clamps.
#pragma once

#include <cmath>
#include <string>

#include "runner/backends/xnnpack/xnn_runtime.h"

namespace etkit::rt::xnnpack {

Error node_error(const NodeCall& call, const std::string& message);

// The element size of a datatype that is stored one element per byte group
// (4-bit types are not movable element by element: 0).
size_t element_size(xnn::Datatype d);
bool is_per_tensor_quantized(xnn::Datatype d);

// Values of `slot` as floats: the slot's own bytes when it is fp32, else a
// converted copy in `scratch` (fp16, bf16, int32, per-tensor quantized).
Result<const float*> read_floats(const NodeCall& call, const Slot& slot, std::vector<float>& scratch);
// A float buffer for the results of `slot` (already reshaped): the slot's
// bytes when fp32, else `scratch`, to be committed by write_floats.
float* output_floats(Slot& slot, std::vector<float>& scratch);
Status write_floats(const NodeCall& call, Slot& slot, const float* values);

// XNNPACK's quantization of one float: round to nearest even, add the zero
// point, saturate to the type.
int32_t quantize(float value, float scale, int32_t zero_point, int32_t qmin, int32_t qmax);

inline float clamp_output(float v, const xnn::Node& n) { return std::fmin(std::fmax(v, n.output_min), n.output_max); }
void clamp_all(float* data, size_t count, const xnn::Node& n);

// Checked product of dimensions.
Result<size_t> product(const NodeCall& call, std::span<const size_t> dims);

}  // namespace etkit::rt::xnnpack
