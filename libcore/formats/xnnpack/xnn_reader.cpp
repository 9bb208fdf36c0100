#include "libcore/formats/xnnpack/xnn_reader.h"

#include <cmath>
#include <cstring>
#include <unordered_set>

#include "libcore/formats/flatbuffer_verify.h"
#include "xnnpack_generated.h"

namespace etkit::xnn {
namespace fb = etkit::xnn_fb;

namespace {

// XNNHeader.h: magic "XH00" at 4, u16 header length at 8, then u32
// flatbuffer offset, u32 flatbuffer size, u32 constant-data offset, u64
// constant-data size; 30 bytes in all.
constexpr size_t kHeaderMinSize = 30;
constexpr uint32_t kMaxRank = 6;          // XNN_MAX_TENSOR_DIMS
constexpr uint32_t kMaxExterns = 4096;    // the official runtime's bound

std::string id_text(uint32_t id) { return id == kInvalidId ? "none" : std::to_string(id); }

Status read_quant(const fb::QuantizedTensorValue& q, const Value& v, QuantParams& out) {
  if (q.quant_params() == nullptr) return bad_input("quantized value without quant_params", "quant_params");
  switch (q.quant_params_type()) {
    case fb::QuantParams::PerTensorQuant: {
      const auto* p = q.quant_params_as_PerTensorQuant();
      out.scheme = QuantScheme::kPerTensor;
      out.scale = p->scale();
      out.zero_point = p->zero_point();
      if (!(out.scale > 0) || !std::isfinite(out.scale)) {
        return bad_input("per-tensor scale " + std::to_string(out.scale) + " is not a positive number", "quant_params.scale");
      }
      // 8-bit values: what xnn_define_quantized_tensor_value accepts (the
      // integer kernels rely on both).
      if (v.datatype == Datatype::kQint8 || v.datatype == Datatype::kQuint8) {
        const int32_t lo = v.datatype == Datatype::kQint8 ? -128 : 0, hi = lo + 255;
        if (out.zero_point < lo || out.zero_point > hi) {
          return bad_input("zero point " + std::to_string(out.zero_point) + " outside [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]", "quant_params.zero_point");
        }
        if (!std::isnormal(out.scale)) {
          return bad_input("per-tensor scale " + std::to_string(out.scale) + " is subnormal", "quant_params.scale");
        }
      }
      return {};
    }
    case fb::QuantParams::PerChannelQuant: {
      const auto* p = q.quant_params_as_PerChannelQuant();
      out.scheme = QuantScheme::kPerChannel;
      out.scales = copy_vector(p->scale());
      out.channel_dim = p->channel_dim();
      out.scale_buffer_idx = p->scale_buffer_idx();
      out.num_scales = p->scale_buffer_idx() ? p->num_scales() : uint32_t(out.scales.size());
      if (out.channel_dim < 0 || size_t(out.channel_dim) >= v.dims.size()) {
        return bad_input("channel_dim " + std::to_string(out.channel_dim) + " outside rank " +
                         std::to_string(v.dims.size()), "quant_params.channel_dim");
      }
      if (out.num_scales != v.dims[size_t(out.channel_dim)]) {
        return bad_input(std::to_string(out.num_scales) + " scales for " + std::to_string(v.dims[size_t(out.channel_dim)]) +
                         " channels", "quant_params.scale");
      }
      return {};
    }
    case fb::QuantParams::PerChannelGroupQuant: {
      const auto* p = q.quant_params_as_PerChannelGroupQuant();
      out.scheme = QuantScheme::kPerChannelGroup;
      out.scales = copy_vector(p->scale());
      out.channel_dim = p->channel_dim();
      out.group_size = p->group_size();
      out.scale_buffer_idx = p->scale_buffer_idx();
      out.num_scales = p->scale_buffer_idx() ? p->num_scales() : uint32_t(out.scales.size());
      if (v.dims.size() != 2) return bad_input("blockwise quantization needs a 2-D filter", "dims");
      if (out.group_size <= 0 || v.dims[1] % uint32_t(out.group_size) != 0) {
        return bad_input("group_size " + std::to_string(out.group_size) + " does not divide " +
                         std::to_string(v.dims[1]) + " input channels", "quant_params.group_size");
      }
      const uint64_t expected = uint64_t(v.dims[0]) * (v.dims[1] / uint32_t(out.group_size));
      if (out.num_scales != expected) {
        return bad_input(std::to_string(out.num_scales) + " scales, " + std::to_string(expected) + " expected",
                         "quant_params.scale");
      }
      return {};
    }
    case fb::QuantParams::PerTokenDynamicQuant: {
      out.scheme = QuantScheme::kPerTokenDynamic;
      out.num_nonbatch_dims = q.quant_params_as_PerTokenDynamicQuant()->num_nonbatch_dims();
      if (out.num_nonbatch_dims < 0 || size_t(out.num_nonbatch_dims) > v.dims.size()) {
        return bad_input("num_nonbatch_dims " + std::to_string(out.num_nonbatch_dims) + " outside rank " +
                         std::to_string(v.dims.size()), "quant_params.num_nonbatch_dims");
      }
      return {};
    }
    default:
      return bad_input("quantized value without quant_params", "quant_params");
  }
}

Result<Value> read_value(const fb::Value& fv) {
  const fb::TensorValue* t = nullptr;
  const fb::QuantizedTensorValue* q = nullptr;
  if (fv.value_type() == fb::ValueUnion::TensorValue) {
    t = fv.value_as_TensorValue();
  } else if (fv.value_type() == fb::ValueUnion::QuantizedTensorValue) {
    q = fv.value_as_QuantizedTensorValue();
    if (q) t = q->tensor_value();
  } else {
    return bad_input("value is neither a tensor nor a quantized tensor");
  }
  // A union tag without its table is valid FlatBuffers.
  if (!t) return bad_input("value without its tensor table");
  Value v;
  v.id = t->id_out();
  if (!is_valid_datatype(int(t->datatype())) || t->datatype() == fb::Datatype::invalid) {
    return bad_input("invalid datatype " + std::to_string(int(t->datatype())), "datatype");
  }
  v.datatype = static_cast<Datatype>(t->datatype());
  v.dims = copy_vector(t->dims());
  if (v.dims.size() != t->num_dims()) {
    return bad_input("num_dims " + std::to_string(t->num_dims()) + " but " + std::to_string(v.dims.size()) + " dims",
                     "dims");
  }
  if (v.dims.size() > kMaxRank) return bad_input("rank " + std::to_string(v.dims.size()) + " exceeds 6", "dims");
  v.constant_buffer_idx = t->constant_buffer_idx();
  v.external_id = t->external_id();
  v.flags = t->flags();
  if (v.flags & ~(kExternalInput | kExternalOutput)) {
    return bad_input("unsupported flag bits " + std::to_string(v.flags), "flags");
  }
  if ((v.flags & (kExternalInput | kExternalOutput)) && v.external_id == kInvalidId) {
    return bad_input("external value without external_id", "external_id");
  }
  if (v.is_constant() && v.flags) return bad_input("a constant cannot be an external input or output", "flags");
  const int dq = int(t->dq_datatype());
  if (!is_valid_datatype(dq)) return bad_input("invalid dq_datatype " + std::to_string(dq), "dq_datatype");
  v.dq_datatype = static_cast<Datatype>(dq);
  if (v.dq_datatype != Datatype::kInvalid &&
      (v.dq_datatype != Datatype::kQint8 || !v.is_external_input() || v.is_constant())) {
    return bad_input("dq_datatype is only allowed as qint8 on an external, non-constant input", "dq_datatype");
  }
  if (q) {
    v.quantized = true;
    auto s = read_quant(*q, v, v.quant);
    if (!s) return std::move(s).error();
  }
  return v;
}

Status read_node(const fb::Node& fn, Node& n) {
  n.type = static_cast<NodeType>(fn.node_type());
  n.debug_handle = fn.debug_handle();
  if (fn.node() == nullptr) return bad_input("node without its parameters table", "xnode_union");
  if (const auto* mm = fn.output_min_max()) {
    n.has_output_min_max = true;
    n.output_min = mm->output_min();
    n.output_max = mm->output_max();
    if (std::isnan(n.output_min) || std::isnan(n.output_max) || n.output_min > n.output_max) {
      return bad_input("output_min " + std::to_string(n.output_min) + " > output_max " + std::to_string(n.output_max),
                       "output_min_max");
    }
  }
  auto window = [&](const auto* c) {
    n.window = Window{c->padding_top(), c->padding_right(), c->padding_bottom(), c->padding_left(), 0, 0, 0, 0, 1, 1};
  };
  using U = fb::NodeUnion;
  switch (fn.node_type()) {
    case U::Add: case U::Div: case U::Minimum: case U::Maximum: case U::Multiply: case U::Subtract: case U::PReLU:
    case U::BatchMatrixMultiply: {
      const auto* p = static_cast<const fb::Node2x1*>(fn.node());
      n.inputs = {p->input1_id(), p->input2_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    case U::Softmax: case U::Sigmoid: case U::Clamp: case U::Floor: case U::Convert: case U::GlobalAvgPooling2d:
    case U::SquareRoot: case U::Ceiling: case U::Hardswish: case U::Negate: case U::Square: case U::Abs:
    case U::ReciprocalSquareRoot: case U::Log: case U::Gelu: case U::Tanh: case U::Exp: case U::Sin: case U::Copy:
    case U::Cos: {
      const auto* p = static_cast<const fb::Node1x1*>(fn.node());
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    case U::FullyConnected: {
      const auto* p = fn.node_as_FullyConnected();
      n.inputs = {p->input1_id(), p->filter_id(), p->bias_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    case U::Conv2d: case U::DepthwiseConv2d: case U::ConvTranspose2d: {
      const auto* p = static_cast<const fb::Conv*>(fn.node());
      window(p);
      n.window.kernel_h = p->kernel_height();
      n.window.kernel_w = p->kernel_width();
      n.window.stride_h = p->subsampling_height();
      n.window.stride_w = p->subsampling_width();
      n.window.dilation_h = p->dilation_height();
      n.window.dilation_w = p->dilation_width();
      n.groups = p->groups();
      n.group_input_channels = p->group_input_channels();
      n.group_output_channels = p->group_output_channels();
      n.adjustment_h = p->adjustment_height();
      n.adjustment_w = p->adjustment_width();
      n.inputs = {p->input1_id(), p->filter_id(), p->bias_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      if (n.groups == 0 || n.group_input_channels == 0 || n.group_output_channels == 0) {
        return bad_input("groups and group channel counts must be positive", "groups");
      }
      break;
    }
    case U::AvgPooling2d: case U::MaxPooling2d: {
      const auto* p = static_cast<const fb::Pooling2D*>(fn.node());
      window(p);
      n.window.kernel_h = p->pooling_height();
      n.window.kernel_w = p->pooling_width();
      n.window.stride_h = p->stride_height();
      n.window.stride_w = p->stride_width();
      n.window.dilation_h = p->dilation_height();
      n.window.dilation_w = p->dilation_width();
      // Average pooling has no dilation (xnn_define_average_pooling_2d).
      if (fn.node_type() == U::AvgPooling2d) n.window.dilation_h = n.window.dilation_w = 1;
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    case U::ArgMaxPooling2d: {
      const auto* p = fn.node_as_ArgMaxPooling2d();
      window(p);
      n.window.kernel_h = n.window.stride_h = p->pooling_height();
      n.window.kernel_w = n.window.stride_w = p->pooling_width();
      n.inputs = {p->input_id()};
      n.outputs = {p->output_value_id(), p->output_index_id()};
      n.flags = p->flags();
      break;
    }
    case U::StaticTranspose: {
      const auto* p = fn.node_as_StaticTranspose();
      n.perm = copy_vector(p->perm());
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      if (n.perm.size() != p->num_dims()) return bad_input("num_dims does not match perm", "perm");
      std::vector<bool> seen(n.perm.size(), false);
      for (uint32_t d : n.perm) {
        if (d >= seen.size() || seen[d]) return bad_input("perm is not a permutation", "perm");
        seen[d] = true;
      }
      break;
    }
    case U::StaticResizeBilinear2D: {
      const auto* p = fn.node_as_StaticResizeBilinear2D();
      n.new_height = p->new_height();
      n.new_width = p->new_width();
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      if (n.new_height == 0 || n.new_width == 0) return bad_input("new size must be positive", "new_height");
      break;
    }
    case U::StaticConstantPad: {
      const auto* p = fn.node_as_StaticConstantPad();
      n.pre_paddings = copy_vector(p->pre_paddings());
      n.post_paddings = copy_vector(p->post_paddings());
      n.scalar = p->padding_value();
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      if (n.pre_paddings.size() != n.post_paddings.size()) return bad_input("pre and post paddings differ in length", "pre_paddings");
      break;
    }
    case U::StaticReshape: {
      const auto* p = fn.node_as_StaticReshape();
      n.shape = copy_vector(p->new_shape());
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      if (n.shape.size() != p->num_dims()) return bad_input("num_dims does not match new_shape", "new_shape");
      if (n.shape.size() > kMaxRank) return bad_input("rank exceeds 6", "new_shape");
      break;
    }
    case U::StaticSlice: {
      const auto* p = fn.node_as_StaticSlice();
      n.offsets = copy_vector(p->offsets());
      n.shape = copy_vector(p->sizes());
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      if (n.offsets.size() != p->num_dims() || n.shape.size() != p->num_dims()) {
        return bad_input("num_dims does not match offsets and sizes", "offsets");
      }
      break;
    }
    case U::LeakyReLU: {
      const auto* p = fn.node_as_LeakyReLU();
      n.scalar = p->negative_slope();
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    case U::ELU: {
      const auto* p = fn.node_as_ELU();
      n.scalar = p->alpha();
      n.inputs = {p->input_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    case U::Concatenate2: case U::Concatenate3: case U::Concatenate4: case U::Concatenate5: {
      const auto* p = static_cast<const fb::Cat*>(fn.node());
      const size_t count = size_t(fn.node_type()) == size_t(U::Concatenate5) ? 5
                           : size_t(fn.node_type()) - size_t(U::Concatenate2) + 2;
      const uint32_t all[5] = {p->input1_id(), p->input2_id(), p->input3_id(), p->input4_id(), p->input5_id()};
      n.inputs.assign(all, all + count);
      n.outputs = {p->output_id()};
      n.axis = p->axis();
      n.flags = p->flags();
      break;
    }
    case U::ScaledDotProductAttention: {
      const auto* p = fn.node_as_ScaledDotProductAttention();
      n.inputs = {p->query_id(), p->key_id(), p->value_id(), p->scale_id(), p->mask_id()};
      n.outputs = {p->output_id()};
      n.flags = p->flags();
      break;
    }
    default:
      return bad_input("unknown node type " + std::to_string(int(fn.node_type())), "xnode_union_type");
  }
  return {};
}

// Which operands may be absent (kInvalidId): biases, the attention mask.
bool optional_operand(NodeType t, size_t slot) {
  switch (t) {
    case NodeType::kFullyConnected: case NodeType::kConv2d: case NodeType::kDepthwiseConv2d:
    case NodeType::kConvTranspose2d:
      return slot == 2;
    case NodeType::kScaledDotProductAttention:
      return slot == 4;
    default:
      return false;
  }
}

Status check_dataflow(const Graph& g) {
  std::unordered_set<uint32_t> written;
  for (const auto& v : g.values) {
    if (v.is_constant() || v.is_external_input()) written.insert(v.id);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string where = "xnodes[" + std::to_string(i) + "] (" + std::string(node_type_name(n.type)) + ")";
    for (size_t s = 0; s < n.inputs.size(); ++s) {
      const uint32_t id = n.inputs[s];
      if (id == kInvalidId && optional_operand(n.type, s)) continue;
      if (!g.find(id)) return bad_input("operand " + std::to_string(s) + " names value " + id_text(id) + ", which does not exist", where);
      if (!written.count(id)) {
        return bad_input("operand " + std::to_string(s) + " reads value " + std::to_string(id) +
                         " before any node writes it", where);
      }
    }
    for (uint32_t id : n.outputs) {
      const Value* v = g.find(id);
      if (!v) return bad_input("output names value " + id_text(id) + ", which does not exist", where);
      if (v->is_constant()) return bad_input("output value " + std::to_string(id) + " is a constant", where);
      if (v->is_external_input()) return bad_input("output value " + std::to_string(id) + " is an external input", where);
      if (!written.insert(id).second) return bad_input("value " + std::to_string(id) + " is written twice", where);
    }
  }
  for (const auto& v : g.values) {
    if (v.is_external_output() && !written.count(v.id)) {
      return bad_input("external output " + std::to_string(v.id) + " is written by no node", "xvalues");
    }
  }
  return {};
}

Status read_constants(const fb::Graph& root, ByteSpan constant_region, bool has_header, Graph& g) {
  if (const auto* cd = root.constant_data(); cd && cd->size() > 0) {
    for (flatbuffers::uoffset_t i = 0; i < cd->size(); ++i) {
      const auto* entry = cd->Get(i);
      const std::string where = "constant_data[" + std::to_string(i) + "]";
      Constant c;
      c.size = entry->size();
      if (entry->named_key() && entry->named_key()->size() > 0) {
        c.named_key = entry->named_key()->str();
      } else if (i > 0) {
        if (!has_header) return bad_input("constant data offsets without an XH00 header", where);
        if (!in_bounds(entry->offset(), entry->size(), constant_region.size())) {
          return bad_input("bytes [" + std::to_string(entry->offset()) + ", +" + std::to_string(entry->size()) +
                           ") lie outside the " + std::to_string(constant_region.size()) + "-byte constant data", where);
        }
        c.bytes = constant_region.subspan(entry->offset(), entry->size());
      }
      g.constants.push_back(std::move(c));
    }
  } else if (const auto* cb = root.constant_buffer()) {
    for (flatbuffers::uoffset_t i = 0; i < cb->size(); ++i) {
      Constant c;
      if (const auto* storage = cb->Get(i)->storage()) c.bytes = ByteSpan(storage->data(), storage->size());
      c.size = c.bytes.size();
      g.constants.push_back(std::move(c));
    }
  }
  return {};
}

Status check_constant_sizes(const Graph& g) {
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    const std::string where = "xvalues[" + std::to_string(i) + "]";
    auto check_index = [&](uint32_t idx, const char* field) -> Status {
      if (idx >= g.constants.size()) {
        return bad_input(std::string(field) + " " + std::to_string(idx) + " out of range (" +
                         std::to_string(g.constants.size()) + " constants)", where);
      }
      return {};
    };
    if (v.is_constant()) {
      ETKIT_TRY(check_index(v.constant_buffer_idx, "constant_buffer_idx"));
      uint64_t numel = 1;
      for (uint32_t d : v.dims) {
        if (d != 0 && numel > (uint64_t(1) << 40) / d) return bad_input("constant larger than 1 TiB", where);
        numel *= d;
      }
      const uint64_t need = datatype_bytes(v.datatype, numel);
      if (g.constants[v.constant_buffer_idx].size < need) {
        return bad_input("constant " + std::to_string(v.constant_buffer_idx) + " holds " +
                         std::to_string(g.constants[v.constant_buffer_idx].size) + " bytes, " + std::to_string(need) +
                         " needed for " + std::string(datatype_name(v.datatype)) + " dims", where);
      }
    }
    if (v.quant.scale_buffer_idx) ETKIT_TRY(check_index(v.quant.scale_buffer_idx, "scale_buffer_idx"));
  }
  return {};
}

}  // namespace

bool has_xnn_header(ByteSpan payload) {
  return payload.size() >= 8 && std::memcmp(payload.data() + 4, "XH00", 4) == 0;
}

Result<Graph> read_xnn_payload(ByteSpan payload) {
  Graph g;
  ByteSpan fb_bytes = payload;
  ByteSpan constant_region;
  if (has_xnn_header(payload)) {
    if (payload.size() < kHeaderMinSize) return bad_input("XH00 header truncated (" + std::to_string(payload.size()) + " bytes)", "header");
    g.has_header = true;
    const uint8_t* h = payload.data();
    const uint32_t fb_offset = load_u32_le(h + 10), fb_size = load_u32_le(h + 14);
    const uint32_t cd_offset = load_u32_le(h + 18);
    const uint64_t cd_size = load_u64_le(h + 22);
    if (!in_bounds(fb_offset, fb_size, payload.size()) || fb_size < 8) {
      return bad_input("flatbuffer [" + std::to_string(fb_offset) + ", +" + std::to_string(fb_size) +
                       ") does not fit the " + std::to_string(payload.size()) + "-byte payload", "header");
    }
    if (!in_bounds(cd_offset, cd_size, payload.size())) {
      return bad_input("constant data [" + std::to_string(cd_offset) + ", +" + std::to_string(cd_size) +
                       ") does not fit the " + std::to_string(payload.size()) + "-byte payload", "header");
    }
    if (cd_offset < uint64_t(fb_offset) + fb_size) return bad_input("constant data overlaps the flatbuffer", "header");
    fb_bytes = payload.subspan(fb_offset, fb_size);
    constant_region = payload.subspan(cd_offset, cd_size);
  }
  // FlatBuffers reads its scalars in place: the buffer must start aligned
  // (real payloads put it at offset 32 of a 16-byte aligned blob).
  if (reinterpret_cast<uintptr_t>(fb_bytes.data()) % 8 != 0) {
    return bad_input("the FlatBuffer does not start on an 8-byte boundary", "header");
  }
  g.identifier = identifier_at(fb_bytes, 4);
  if (g.identifier != "XN00" && g.identifier != "XN01") {
    return unsupported("XNNPACK payload identifier '" + g.identifier + "' is not XN00 or XN01", "identifier");
  }
  ETKIT_TRY(verify_flatbuffer(fb_bytes, "XNNPACK payload",
                              [](flatbuffers::Verifier& v) { return v.VerifyBuffer<fb::Graph>(nullptr); }));
  const auto* root = flatbuffers::GetRoot<fb::Graph>(fb_bytes.data());
  if (!root->xvalues() || !root->xnodes()) return bad_input("missing xvalues or xnodes");
  if (root->version()) g.version = root->version()->str();
  g.num_externs = root->num_externs();
  if (g.num_externs > kMaxExterns) return bad_input("num_externs " + std::to_string(g.num_externs) + " exceeds 4096", "num_externs");
  g.input_ids = copy_vector(root->input_ids());
  g.output_ids = copy_vector(root->output_ids());
  ETKIT_TRY(read_constants(*root, constant_region, g.has_header, g));

  std::unordered_set<uint32_t> ids;
  for (flatbuffers::uoffset_t i = 0; i < root->xvalues()->size(); ++i) {
    auto v = read_value(*root->xvalues()->Get(i));
    if (!v) return std::move(v).error().in("xvalues[" + std::to_string(i) + "]");
    if (v->id == kInvalidId || !ids.insert(v->id).second) {
      return bad_input("id_out " + id_text(v->id) + " is not unique", "xvalues[" + std::to_string(i) + "]");
    }
    if (v->flags && v->external_id >= g.num_externs) {
      return bad_input("external_id " + std::to_string(v->external_id) + " not below num_externs " +
                       std::to_string(g.num_externs), "xvalues[" + std::to_string(i) + "]");
    }
    g.values.push_back(std::move(v).value());
  }
  g.index_values();
  ETKIT_TRY(check_constant_sizes(g));
  for (flatbuffers::uoffset_t i = 0; i < root->xnodes()->size(); ++i) {
    Node n;
    auto s = read_node(*root->xnodes()->Get(i), n);
    if (!s) return std::move(s).error().in("xnodes[" + std::to_string(i) + "]");
    g.nodes.push_back(std::move(n));
  }
  ETKIT_TRY(check_dataflow(g));
  return g;
}

}  // namespace etkit::xnn
