// Unary and binary elementwise nodes, softmax and convert. 8-bit quantized
// operands take XNNPACK's integer kernels or tables (quantized_unary,
// quantized_binary); the rest is computed in fp32 on float views of the
// operands (read_floats), then rounded or quantized into the output's
// datatype; the node's output min/max clamp applies to the arithmetic nodes
// as xnn_define_binary/unary with params do.
#include <algorithm>
#include <array>
#include <cstring>

#include "runner/backends/xnnpack/xnn_ops.h"
#include "runner/backends/xnnpack/xnn_ops_table.h"

namespace etkit::rt::xnnpack {
namespace {

// e^x without a library call, so the loops around it vectorise: x = n ln2
// + r with |r| <= ln2 / 2, e^r by its degree-6 Taylor polynomial (relative
// error below 2e-7), 2^n from the exponent bits. Inputs are clamped to
// [-87.3, 88.7], where the result is a normal float; NaN stays NaN. (Plain
// comparisons, not fmin/fmax, so the compiler can use vector min/max.)
inline float exp_approx(float input) {
  float x = input > -87.3f ? input : -87.3f;  // NaN -> -87.3 here, restored below
  x = x < 88.7f ? x : 88.7f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (x * 1.44269504f + kRound) - kRound;
  const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;  // ln 2 in two parts
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t bits = uint32_t(int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float result = p * scale;
  return input == input ? result : input;
}

template <typename F>
void map(const float* __restrict x, float* __restrict y, size_t n, F f) {
  for (size_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// One loop per node type, each with its formula inlined.
void unary_values(xnn::NodeType t, const float* x, float* y, size_t n, float param) {
  using T = xnn::NodeType;
  switch (t) {
    case T::kSigmoid: map(x, y, n, [](float v) { return 1.0f / (1.0f + exp_approx(-v)); }); break;
    case T::kFloor: map(x, y, n, [](float v) { return std::floor(v); }); break;
    case T::kCeiling: map(x, y, n, [](float v) { return std::ceil(v); }); break;
    case T::kSquareRoot: map(x, y, n, [](float v) { return std::sqrt(v); }); break;
    case T::kReciprocalSquareRoot: map(x, y, n, [](float v) { return 1.0f / std::sqrt(v); }); break;
    case T::kHardswish: map(x, y, n, [](float v) { return v * std::fmin(std::fmax(v + 3.0f, 0.0f), 6.0f) / 6.0f; }); break;
    case T::kLeakyReLU: map(x, y, n, [param](float v) { return v < 0 ? v * param : v; }); break;
    case T::kNegate: map(x, y, n, [](float v) { return -v; }); break;
    case T::kSquare: map(x, y, n, [](float v) { return v * v; }); break;
    case T::kELU: map(x, y, n, [param](float v) { return v < 0 ? param * std::expm1(v) : v; }); break;
    case T::kAbs: map(x, y, n, [](float v) { return std::fabs(v); }); break;
    case T::kLog: map(x, y, n, [](float v) { return std::log(v); }); break;
    case T::kGelu: map(x, y, n, [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678118654752f)); }); break;
    case T::kTanh: map(x, y, n, [](float v) { return std::tanh(v); }); break;
    case T::kExp: map(x, y, n, [](float v) { return std::exp(v); }); break;
    case T::kSin: map(x, y, n, [](float v) { return std::sin(v); }); break;
    case T::kCos: map(x, y, n, [](float v) { return std::cos(v); }); break;
    default: map(x, y, n, [](float v) { return v; }); break;  // Clamp (bounds applied after), Copy, Convert
  }
}

Status unary(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  ETKIT_TRY(call.runtime.reshape(out, in.dims));
  const size_t n = out.numel();
  // Copies of identical layouts move bytes (exact for every datatype).
  if ((call.node.type == xnn::NodeType::kCopy || call.node.type == xnn::NodeType::kConvert) && in.dtype == out.dtype &&
      (in.dtype == xnn::Datatype::kFp32 || !is_per_tensor_quantized(in.dtype) ||
       (in.scale == out.scale && in.zero_point == out.zero_point)) &&
      element_size(in.dtype) != 0) {
    if (out.data != in.data) std::memmove(out.data, in.data, n * element_size(in.dtype));
    return {};
  }
  ETKIT_ASSIGN_OR_RETURN(const bool done, quantized_unary(call));
  if (done) return {};
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(in, call.runtime.scratch(0)));
  float* y = output_floats(out, call.runtime.scratch(1));
  const xnn::NodeType t = call.node.type;
  unary_values(t, x, y, n, call.node.scalar);
  // Clamp's bounds are its output min/max; other unary nodes ignore them.
  if (t == xnn::NodeType::kClamp) clamp_all(y, n, call.node);
  return write_floats(out, y);
}

// Numpy broadcasting of two shapes, aligned at the last dimension.
Result<std::vector<size_t>> broadcast(std::span<const size_t> a, std::span<const size_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<size_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return node_error("shapes cannot broadcast (dimension " + std::to_string(i) + ": " + std::to_string(da) +
                                  " vs " + std::to_string(db) + ")");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element strides of `dims` broadcast to `shape` (0 where broadcast).
std::vector<size_t> broadcast_strides(std::span<const size_t> dims, std::span<const size_t> shape) {
  std::vector<size_t> strides(shape.size(), 0);
  size_t stride = 1;
  for (size_t k = dims.size(); k-- > 0;) {
    const size_t axis = shape.size() - dims.size() + k;
    strides[axis] = dims[k] == 1 ? 0 : stride;
    stride *= dims[k];
  }
  return strides;
}

template <typename Op>
void binary_loop(std::span<const size_t> shape, const float* a, std::span<const size_t> sa, const float* b,
                 std::span<const size_t> sb, float* y, Op op) {
  const size_t rank = shape.size();
  if (rank == 0) {
    y[0] = op(a[0], b[0]);
    return;
  }
  const size_t inner = shape[rank - 1], ia = sa[rank - 1], ib = sb[rank - 1];
  size_t outer = 1;
  for (size_t k = 0; k + 1 < rank; ++k) outer *= shape[k];
  std::array<size_t, 8> index{};
  for (size_t o = 0; o < outer; ++o) {
    size_t off_a = 0, off_b = 0;
    for (size_t k = 0; k + 1 < rank; ++k) {
      off_a += index[k] * sa[k];
      off_b += index[k] * sb[k];
    }
    const float* pa = a + off_a;
    const float* pb = b + off_b;
    float* py = y + o * inner;
    if (ia == 1 && ib == 1) {
      for (size_t i = 0; i < inner; ++i) py[i] = op(pa[i], pb[i]);
    } else if (ia == 1) {
      for (size_t i = 0; i < inner; ++i) py[i] = op(pa[i], pb[0]);
    } else if (ib == 1) {
      for (size_t i = 0; i < inner; ++i) py[i] = op(pa[0], pb[i]);
    } else {
      for (size_t i = 0; i < inner; ++i) py[i] = op(pa[i * ia], pb[i * ib]);
    }
    for (size_t k = rank - 1; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
}

Status binary(NodeCall& call) {
  Slot& a = *call.in[0];
  Slot& b = *call.in[1];
  Slot& out = *call.out[0];
  if (a.dims.size() > 6 || b.dims.size() > 6) return node_error("rank above 6");
  ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast(a.dims, b.dims));
  // PReLU's slope broadcasts over the channels, the last dimension.
  ETKIT_TRY(call.runtime.reshape(out, shape));
  const auto sa = broadcast_strides(a.dims, shape), sb = broadcast_strides(b.dims, shape);
  ETKIT_ASSIGN_OR_RETURN(const bool done, quantized_binary(call, shape, sa, sb));
  if (done) return {};
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(a, call.runtime.scratch(0)));
  ETKIT_ASSIGN_OR_RETURN(const float* z, read_floats(b, call.runtime.scratch(1)));
  float* y = output_floats(out, call.runtime.scratch(2));
  using T = xnn::NodeType;
  switch (call.node.type) {
    case T::kAdd: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return p + q; }); break;
    case T::kSubtract: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return p - q; }); break;
    case T::kMultiply: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return p * q; }); break;
    case T::kDiv: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return p / q; }); break;
    case T::kMinimum: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return std::fmin(p, q); }); break;
    case T::kMaximum: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return std::fmax(p, q); }); break;
    case T::kPReLU: binary_loop(shape, x, sa, z, sb, y, [](float p, float q) { return p < 0 ? p * q : p; }); break;
    default: return node_error("not a binary node");
  }
  // Minimum/Maximum/PReLU take no min/max (xnn_define_binary without params).
  if (call.node.type != T::kMinimum && call.node.type != T::kMaximum && call.node.type != T::kPReLU) {
    clamp_all(y, out.numel(), call.node);
  }
  return write_floats(out, y);
}

// Softmax over the last dimension, max-subtracted as XNNPACK computes it.
Status softmax(NodeCall& call) {
  Slot& in = *call.in[0];
  Slot& out = *call.out[0];
  ETKIT_TRY(call.runtime.reshape(out, in.dims));
  if (in.dims.empty()) return node_error("softmax needs at least one dimension");
  const size_t channels = in.dims.back();
  ETKIT_ASSIGN_OR_RETURN(const float* x, read_floats(in, call.runtime.scratch(0)));
  float* y = output_floats(out, call.runtime.scratch(1));
  const size_t rows = channels == 0 ? 0 : out.numel() / channels;
  for (size_t r = 0; r < rows; ++r) {
    const float* px = x + r * channels;
    float* py = y + r * channels;
    float max = -INFINITY;
    for (size_t c = 0; c < channels; ++c) max = std::fmax(max, px[c]);
    float sum = 0;
    for (size_t c = 0; c < channels; ++c) sum += (py[c] = exp_approx(px[c] - max));  // arguments <= 0
    const float inv = 1.0f / sum;
    for (size_t c = 0; c < channels; ++c) py[c] *= inv;
  }
  return write_floats(out, y);
}

// Convert to qdint8 (dynamic, per row) is handled by the fully connected
// node that reads it; here a dynamic output only takes the input's shape
// and float values, quantized by its consumer.
Status convert(NodeCall& call) {
  Slot& out = *call.out[0];
  if (out.dtype == xnn::Datatype::kQdint8) {
    Slot& in = *call.in[0];
    ETKIT_TRY(call.runtime.reshape(out, in.dims));
    return quantize_dynamic(in, out);
  }
  return unary(call);
}

}  // namespace

void add_elementwise_nodes(NodeTable& table) {
  using T = xnn::NodeType;
  for (T t : {T::kSigmoid, T::kFloor, T::kCeiling, T::kSquareRoot, T::kReciprocalSquareRoot, T::kHardswish,
              T::kLeakyReLU, T::kNegate, T::kSquare, T::kELU, T::kAbs, T::kLog, T::kGelu, T::kTanh, T::kExp, T::kSin,
              T::kCos, T::kClamp, T::kCopy}) {
    table[size_t(t)] = unary;
  }
  for (T t : {T::kAdd, T::kSubtract, T::kMultiply, T::kDiv, T::kMinimum, T::kMaximum, T::kPReLU}) table[size_t(t)] = binary;
  table[size_t(T::kSoftmax)] = softmax;
  table[size_t(T::kConvert)] = convert;
}

}  // namespace etkit::rt::xnnpack
