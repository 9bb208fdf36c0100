// Shared helpers of the XNNPACK node functions: float views of any value
// (dequantizing or widening where the datatype is not fp32), storing float
// results back (rounding, quantizing, saturating), and output clamps.
#pragma once

#include <cmath>
#include <span>
#include <string>

#include "runner/backends/xnnpack/xnn_runtime.h"

namespace etkit::rt::xnnpack {

// A node's failure; the runtime prefixes the node's index and type.
Error node_error(const std::string& message);

// The element size of a datatype that is stored one element per byte group
// (4-bit types are not movable element by element: 0).
size_t element_size(xnn::Datatype d);
bool is_per_tensor_quantized(xnn::Datatype d);

// Values of `slot` as floats: the slot's own bytes when it is fp32, else a
// converted copy in `scratch` (fp16, bf16, int32, per-tensor quantized).
Result<const float*> read_floats(const Slot& slot, std::vector<float>& scratch);
// A float buffer for the results of `slot` (already reshaped): the slot's
// bytes when fp32, else `scratch`, to be committed by write_floats.
float* output_floats(Slot& slot, std::vector<float>& scratch);
Status write_floats(Slot& slot, const float* values);

// XNNPACK's quantization of one float (its convert operator): x times
// 1 / scale, saturated to [qmin, qmax] less the zero point, rounded to
// nearest even, plus the zero point.
int32_t quantize(float value, float scale, int32_t zero_point, int32_t qmin, int32_t qmax);

inline float clamp_output(float v, const xnn::Node& n) { return std::fmin(std::fmax(v, n.output_min), n.output_max); }
void clamp_all(float* data, size_t count, const xnn::Node& n);

// The kernel taps [first, last) of output position `o` that land inside an
// input of `in` pixels (the rest lie in the padding), so loops cost what the
// input holds however large a hostile kernel or padding is.
struct TapRange {
  size_t first, last;
};
TapRange valid_taps(size_t o, uint32_t stride, uint32_t dilation, uint32_t pad, uint32_t kernel, size_t in);

// An NHWC convolution's geometry: input N, H, W, C and output H, W, C.
struct ConvShape {
  size_t n, ih, iw, ic, oh, ow, oc;
};
Result<ConvShape> conv_shape(const NodeCall& call, const Slot& x, size_t out_channels);

// Quantized fully connected and convolutions with XNNPACK's integer
// arithmetic (xnn_ops_quantized.cpp), used when activations, weights and
// output are 8-bit quantized; called with the output already reshaped.
bool integer_path(const Slot& x, const Slot& w, const Slot& out);
Status quantized_fully_connected(NodeCall& call, size_t rows, size_t in_ch, size_t out_ch, bool transposed);
Status quantized_convolution(NodeCall& call, const ConvShape& s);
Status quantized_depthwise_convolution(NodeCall& call, const ConvShape& s, size_t multiplier);
// A fully connected node on dynamically quantized rows (qdint8) with
// per-channel int8 or int4 weights, as XNNPACK's qd8 GEMMs compute it.
Status dynamic_fully_connected(NodeCall& call, const Slot& x, size_t rows, size_t in_ch, size_t out_ch, bool transposed);

// XNNPACK's arithmetic on 8-bit per-tensor quantized values (qint8/quint8),
// as the version ExecuTorch pins (XNNPACK 92a7ad50) computes it; each scheme
// is one helper, shared by the nodes that use it (xnn_ops_quantized.cpp).
struct Q8 {
  bool is_signed = true;
  float scale = 1;
  int32_t zero_point = 0;
  int32_t lo() const { return is_signed ? -128 : 0; }
  int32_t hi() const { return is_signed ? 127 : 255; }
  int32_t of(uint8_t byte) const { return is_signed ? int32_t(int8_t(byte)) : int32_t(byte); }
  int32_t at(const uint8_t* data, size_t i) const { return of(data[i]); }
};
bool is_q8(const Slot& s);  // qint8 or quint8
Q8 q8_of(const Slot& s);
// fp32 requantization (qs8/qu8 GEMMs, vmul, vprelu): float(acc) * scale,
// clamped to [lo, hi] less the zero point, rounded to nearest even, plus it.
int32_t requantize_fp32(int32_t acc, float scale, int32_t zero_point, int32_t lo, int32_t hi);
// xnn_qs8_quantize / xnn_qu8_quantize: a float output min/max as a bound.
int32_t quantized_bound(float value, const Q8& out);
// The reference kernels' quantization: round(y * inv_scale + zero_point),
// NaN -> 0, saturated to [lo, hi].
int32_t quantize_reference(float y, float inv_scale, float zero_point, int32_t lo, int32_t hi);

// Nodes on 8-bit values computed as XNNPACK does; each returns false (and
// does nothing) when XNNPACK would not take its integer or table path for
// these datatypes, leaving the node to the float path.
Result<bool> quantized_unary(NodeCall& call);
// `stride_a`/`stride_b`: each operand's element strides broadcast to `shape` (0 where broadcast).
Result<bool> quantized_binary(NodeCall& call, std::span<const size_t> shape, std::span<const size_t> stride_a,
                              std::span<const size_t> stride_b);

// Checked product of dimensions.
Result<size_t> product(std::span<const size_t> dims);

}  // namespace etkit::rt::xnnpack
