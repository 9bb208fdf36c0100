// The XNNPACK delegate payload (schemas/xnnpack.fbs) as plain structs: what
// read_xnn_payload decodes, verified, and write_xnn_payload encodes. Ids are
// the serialized value ids (`id_out`) that nodes refer to; kInvalidId marks
// an absent optional operand (a bias, an attention mask).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libcore/support/bytes.h"

namespace etkit::xnn {

inline constexpr uint32_t kInvalidId = std::numeric_limits<uint32_t>::max();
inline constexpr uint32_t kExternalInput = 1;   // XNN_VALUE_FLAG_EXTERNAL_INPUT
inline constexpr uint32_t kExternalOutput = 2;  // XNN_VALUE_FLAG_EXTERNAL_OUTPUT
// Node flags (xnnpack.h).
inline constexpr uint32_t kTransposeWeights = 1;  // fully connected: filter is [input, output]; bmm: B is [.., n, k]
inline constexpr uint32_t kAlignCorners = 8;      // resize bilinear
inline constexpr uint32_t kTensorflowLegacy = 4;  // resize bilinear: half-pixel off
inline constexpr uint32_t kKeepDims = 0x40;       // global average pooling

// Wire values of XNNDatatype.
enum class Datatype : int16_t {
  kInvalid = 0, kFp32 = 1, kFp16 = 2, kQint8 = 3, kQuint8 = 4, kQint32 = 5, kQcint8 = 6, kQcint32 = 7,
  kQcint4 = 8, kQdint8 = 9, kQbint4 = 10, kQpint8 = 11, kInt32 = 12, kPfp32 = 13, kBf16 = 14,
};
std::string_view datatype_name(Datatype d);  // "fp32", "qint8", ...
bool is_valid_datatype(int value);
// Bytes for `numel` elements (4-bit types pack two per byte, rounded up).
uint64_t datatype_bytes(Datatype d, uint64_t numel);

// Order = the XNNQuantParams union tags.
enum class QuantScheme : uint8_t { kNone = 0, kPerChannel = 1, kPerTensor = 2, kPerTokenDynamic = 3, kPerChannelGroup = 4 };

struct QuantParams {
  QuantScheme scheme = QuantScheme::kNone;
  float scale = 1.0f;      // per tensor
  int32_t zero_point = 0;  // per tensor
  // Per channel (fp32) and per group (fp32 inline, converted to bf16 by the
  // runtime); empty when the scales are constant data (scale_buffer_idx).
  std::vector<float> scales;
  uint32_t scale_buffer_idx = 0;
  uint32_t num_scales = 0;
  int32_t channel_dim = 0;
  int32_t group_size = 0;
  int32_t num_nonbatch_dims = 0;  // per-token dynamic
};

struct Value {
  uint32_t id = 0;
  Datatype datatype = Datatype::kInvalid;
  std::vector<uint32_t> dims;
  uint32_t constant_buffer_idx = 0;  // 0: not a constant
  uint32_t external_id = kInvalidId; // index into the delegate call's arguments
  uint32_t flags = 0;
  Datatype dq_datatype = Datatype::kInvalid;  // legacy dynamic quantization of an input
  bool quantized = false;                     // an XNNQuantizedTensorValue
  QuantParams quant;

  bool is_constant() const { return constant_buffer_idx != 0; }
  bool is_external_input() const { return (flags & kExternalInput) != 0; }
  bool is_external_output() const { return (flags & kExternalOutput) != 0; }
};

// Wire tags of XNodeUnion (NONE = 0).
enum class NodeType : uint8_t {
  kNone, kAdd, kFullyConnected, kSoftmax, kSigmoid, kStaticTranspose, kClamp, kConv2d, kDiv,
  kStaticResizeBilinear2D, kStaticConstantPad, kAvgPooling2d, kMinimum, kDepthwiseConv2d, kMaxPooling2d,
  kMultiply, kSubtract, kFloor, kConvert, kGlobalAvgPooling2d, kStaticReshape, kArgMaxPooling2d, kSquareRoot,
  kCeiling, kHardswish, kLeakyReLU, kMaximum, kNegate, kSquare, kELU, kAbs, kPReLU, kConcatenate2,
  kConcatenate3, kConcatenate4, kStaticSlice, kScaledDotProductAttention, kBatchMatrixMultiply, kConcatenate5,
  kConvTranspose2d, kReciprocalSquareRoot, kLog, kGelu, kTanh, kExp, kSin, kCopy, kCos,
  kLast = kCos,
};
std::string_view node_type_name(NodeType t);  // the schema's name without "XNN": "Conv2d"

// Convolution and pooling geometry (pooling: kernel = pooling window).
struct Window {
  uint32_t pad_top = 0, pad_right = 0, pad_bottom = 0, pad_left = 0;
  uint32_t kernel_h = 1, kernel_w = 1;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t dilation_h = 1, dilation_w = 1;
};

struct Node {
  NodeType type = NodeType::kNone;
  uint32_t debug_handle = 0;
  float output_min = -std::numeric_limits<float>::infinity();
  float output_max = std::numeric_limits<float>::infinity();
  bool has_output_min_max = false;
  uint32_t flags = 0;
  // Operands in schema order: binary (a, b); fully connected / convolution
  // (input, filter, bias); attention (query, key, value, scale, mask);
  // concatenation (2..5 inputs).
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;  // argmax pooling: (values, indices)
  Window window;
  uint32_t groups = 1, group_input_channels = 0, group_output_channels = 0;
  uint32_t adjustment_h = 0, adjustment_w = 0;
  std::vector<uint32_t> perm;      // transpose
  std::vector<uint32_t> shape;     // reshape: new shape; slice: sizes
  std::vector<uint32_t> offsets;   // slice
  std::vector<uint32_t> pre_paddings, post_paddings;
  float scalar = 0;  // elu alpha, leaky relu slope, pad value
  uint32_t axis = 0;
  uint32_t new_height = 0, new_width = 0;
};

// Where a constant's bytes are: `bytes` (the payload's constant region or
// the legacy in-FlatBuffer buffers), or `named_key` in the program's named
// data, resolved by the runtime.
struct Constant {
  ByteSpan bytes;
  std::string named_key;
  uint64_t size = 0;  // declared size (named data) or bytes.size()
};

struct Graph {
  std::string identifier;  // "XN00" or "XN01"
  bool has_header = false; // "XH00" wrapper present
  std::string version;
  std::vector<Value> values;
  std::vector<Node> nodes;
  uint32_t num_externs = 0;
  std::vector<uint32_t> input_ids, output_ids;
  std::vector<Constant> constants;  // by constant_buffer_idx; entry 0 unused

  // The value with this id (or nullptr); ids are unique once read.
  const Value* find(uint32_t id) const;
  void index_values();  // (re)builds the id lookup; fails silently on duplicates (the reader rejects them)

 private:
  std::unordered_map<uint32_t, size_t> by_id_;
};

}  // namespace etkit::xnn
