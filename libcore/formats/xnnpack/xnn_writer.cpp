#include "libcore/formats/xnnpack/xnn_writer.h"

#include "xnnpack_generated.h"

namespace etkit::xnn {
namespace fb = etkit::xnn_fb;

namespace {

constexpr size_t kHeaderSize = 30;
constexpr size_t kConstantAlignment = 16;

flatbuffers::Offset<void> quant_params(flatbuffers::FlatBufferBuilder& b, const QuantParams& q) {
  switch (q.scheme) {
    case QuantScheme::kPerTensor: return fb::CreatePerTensorQuant(b, q.scale, q.zero_point).Union();
    case QuantScheme::kPerChannel:
      return fb::CreatePerChannelQuant(b, q.scales.empty() ? 0 : b.CreateVector(q.scales), q.channel_dim,
                                       q.scale_buffer_idx, q.num_scales).Union();
    case QuantScheme::kPerChannelGroup:
      return fb::CreatePerChannelGroupQuant(b, q.scales.empty() ? 0 : b.CreateVector(q.scales), q.channel_dim,
                                            q.group_size, q.scale_buffer_idx, q.num_scales).Union();
    case QuantScheme::kPerTokenDynamic: return fb::CreatePerTokenDynamicQuant(b, q.num_nonbatch_dims).Union();
    case QuantScheme::kNone: break;
  }
  return 0;
}

flatbuffers::Offset<fb::Value> value(flatbuffers::FlatBufferBuilder& b, const Value& v) {
  auto tensor = fb::CreateTensorValue(b, static_cast<fb::Datatype>(v.datatype), uint32_t(v.dims.size()),
                                      b.CreateVector(v.dims), v.constant_buffer_idx, v.external_id, v.flags, v.id,
                                      static_cast<fb::Datatype>(v.dq_datatype));
  if (!v.quantized) return fb::CreateValue(b, fb::ValueUnion::TensorValue, tensor.Union());
  auto params = quant_params(b, v.quant);
  auto q = fb::CreateQuantizedTensorValue(b, tensor, static_cast<fb::QuantParams>(v.quant.scheme), params);
  return fb::CreateValue(b, fb::ValueUnion::QuantizedTensorValue, q.Union());
}

uint32_t operand(const std::vector<uint32_t>& ids, size_t i) { return i < ids.size() ? ids[i] : kInvalidId; }

flatbuffers::Offset<void> node_params(flatbuffers::FlatBufferBuilder& b, const Node& n) {
  const auto& in = n.inputs;
  const uint32_t out = operand(n.outputs, 0);
  const Window& w = n.window;
  using T = NodeType;
  switch (n.type) {
    case T::kAdd: case T::kDiv: case T::kMinimum: case T::kMaximum: case T::kMultiply: case T::kSubtract:
    case T::kPReLU: case T::kBatchMatrixMultiply:
      return fb::CreateNode2x1(b, operand(in, 0), operand(in, 1), out, n.flags).Union();
    case T::kFullyConnected:
      return fb::CreateFullyConnected(b, operand(in, 0), operand(in, 1), operand(in, 2), out, n.flags).Union();
    case T::kConv2d: case T::kDepthwiseConv2d: case T::kConvTranspose2d:
      return fb::CreateConv(b, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.kernel_h, w.kernel_w, w.stride_h,
                            w.stride_w, w.dilation_h, w.dilation_w, n.group_input_channels, n.group_output_channels,
                            n.groups, n.adjustment_h, n.adjustment_w, operand(in, 0), operand(in, 1), operand(in, 2),
                            out, n.flags).Union();
    case T::kAvgPooling2d: case T::kMaxPooling2d:
      return fb::CreatePooling2D(b, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.kernel_h, w.kernel_w,
                                 w.stride_h, w.stride_w, w.dilation_h, w.dilation_w, operand(in, 0), out, n.flags).Union();
    case T::kArgMaxPooling2d:
      return fb::CreateArgMaxPooling2d(b, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.kernel_h, w.kernel_w,
                                       operand(in, 0), out, operand(n.outputs, 1), n.flags).Union();
    case T::kStaticTranspose:
      return fb::CreateStaticTranspose(b, uint32_t(n.perm.size()), b.CreateVector(n.perm), operand(in, 0), out, n.flags).Union();
    case T::kStaticResizeBilinear2D:
      return fb::CreateStaticResizeBilinear2D(b, n.new_height, n.new_width, operand(in, 0), out, n.flags).Union();
    case T::kStaticConstantPad:
      return fb::CreateStaticConstantPad(b, b.CreateVector(n.pre_paddings), b.CreateVector(n.post_paddings), n.scalar,
                                         operand(in, 0), out, n.flags).Union();
    case T::kStaticReshape:
      return fb::CreateStaticReshape(b, uint32_t(n.shape.size()), b.CreateVector(n.shape), operand(in, 0), out, n.flags).Union();
    case T::kStaticSlice:
      return fb::CreateStaticSlice(b, uint32_t(n.offsets.size()), b.CreateVector(n.offsets), b.CreateVector(n.shape),
                                   operand(in, 0), out, n.flags).Union();
    case T::kLeakyReLU: return fb::CreateLeakyReLU(b, n.scalar, operand(in, 0), out, n.flags).Union();
    case T::kELU: return fb::CreateElu(b, n.scalar, operand(in, 0), out, n.flags).Union();
    case T::kConcatenate2: case T::kConcatenate3: case T::kConcatenate4: case T::kConcatenate5:
      return fb::CreateCat(b, n.axis, operand(in, 0), operand(in, 1), operand(in, 2), operand(in, 3), out, n.flags,
                           operand(in, 4)).Union();
    case T::kScaledDotProductAttention:
      return fb::CreateScaledDotProductAttention(b, operand(in, 0), operand(in, 1), operand(in, 2), operand(in, 3),
                                                 operand(in, 4), out, n.flags).Union();
    case T::kNone: return 0;
    default:  // every remaining type is one input, one output
      return fb::CreateNode1x1(b, operand(in, 0), out, n.flags).Union();
  }
}

}  // namespace

std::vector<uint8_t> write_xnn_payload(const Graph& graph) {
  // Constants first, to know their offsets in the constant region.
  std::vector<uint8_t> region;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::ConstantDataOffset>> constants;
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    const Constant& c = graph.constants[i];
    if (i == 0) {
      constants.push_back(fb::CreateConstantDataOffset(b, 0, 0, b.CreateString("")));
    } else if (!c.named_key.empty()) {
      constants.push_back(fb::CreateConstantDataOffset(b, UINT64_MAX, c.size, b.CreateString(c.named_key)));
    } else {
      region.resize(align_up(region.size(), kConstantAlignment));
      constants.push_back(fb::CreateConstantDataOffset(b, region.size(), c.bytes.size()));
      region.insert(region.end(), c.bytes.begin(), c.bytes.end());
    }
  }
  std::vector<flatbuffers::Offset<fb::Value>> values;
  for (const auto& v : graph.values) values.push_back(value(b, v));
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  for (const auto& n : graph.nodes) {
    auto params = node_params(b, n);
    auto mm = n.has_output_min_max ? fb::CreateOutputMinMax(b, n.output_min, n.output_max) : 0;
    nodes.push_back(fb::CreateNode(b, static_cast<fb::NodeUnion>(n.type), params, n.debug_handle, mm));
  }
  auto root = fb::CreateGraph(b, b.CreateString(graph.version.empty() ? "0" : graph.version), b.CreateVector(nodes),
                              b.CreateVector(values), graph.num_externs, b.CreateVector(graph.input_ids),
                              b.CreateVector(graph.output_ids), 0, 0, b.CreateVector(constants));
  b.Finish(root, "XN00");

  const size_t fb_offset = align_up(kHeaderSize, kConstantAlignment);
  const size_t cd_offset = align_up(fb_offset + b.GetSize(), kConstantAlignment);
  std::vector<uint8_t> out(cd_offset + region.size(), 0);
  std::memcpy(out.data() + 4, "XH00", 4);
  out[8] = uint8_t(kHeaderSize);
  store_u32_le(out.data() + 10, uint32_t(fb_offset));
  store_u32_le(out.data() + 14, uint32_t(b.GetSize()));
  store_u32_le(out.data() + 18, uint32_t(cd_offset));
  store_u64_le(out.data() + 22, region.size());
  std::memcpy(out.data() + fb_offset, b.GetBufferPointer(), b.GetSize());
  if (!region.empty()) std::memcpy(out.data() + cd_offset, region.data(), region.size());
  return out;
}

}  // namespace etkit::xnn
