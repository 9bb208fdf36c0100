#include "runner/backends/xnnpack/xnn_runtime.h"

#include <cstring>
#include <map>

#include "libcore/support/float16.h"
#include "runner/backends/xnnpack/xnn_ops.h"
#include "runner/backends/xnnpack/xnn_ops_table.h"

namespace etkit::rt::xnnpack {
namespace {

Error compile_error(std::string message, std::string field = {}) {
  return Error{ErrorKind::kBadInput, {}, std::move(field), std::move(message)};
}

bool matches_dtype(xnn::Datatype d, ScalarType t) {
  if (d == xnn::Datatype::kInt32 || d == xnn::Datatype::kQint32) return t == ScalarType::kInt || t == ScalarType::kLong;
  return t == scalar_type_of(d);
}

// A constant's bytes: in the payload, or by key in the program's named data.
Result<ByteSpan> constant_bytes(const xnn::Graph& g, uint32_t index, const NamedDataMap* named, const char* what,
                                const std::string& where) {
  const xnn::Constant& c = g.constants[index];
  if (c.named_key.empty()) return c.bytes;
  auto found = named ? named->find(c.named_key) : std::nullopt;
  if (!found) return compile_error(std::string(what) + " '" + c.named_key + "' is not in the program's named data", where);
  return *found;
}

// Scales stored as constant data: fp32 per channel, bf16 per block.
Status resolve_scales(Slot& slot, const xnn::Graph& g, const NamedDataMap* named, const std::string& where) {
  const auto& q = slot.def->quant;
  if (q.scheme == xnn::QuantScheme::kPerTensor) {
    slot.scale = q.scale;
    slot.zero_point = q.zero_point;
    return {};
  }
  if (q.scheme != xnn::QuantScheme::kPerChannel && q.scheme != xnn::QuantScheme::kPerChannelGroup) return {};
  // 4-bit weights are stored with a zero point of 8 (XNNCompiler).
  const bool four_bit = slot.dtype == xnn::Datatype::kQcint4 || slot.dtype == xnn::Datatype::kQbint4;
  slot.zero_point = four_bit ? 8 : 0;
  if (q.scale_buffer_idx == 0) {
    slot.channel_scales = q.scales;
    if (q.scheme == xnn::QuantScheme::kPerChannelGroup) {
      // The runtime converts inline fp32 block scales to bf16 (rounding up
      // by a constant factor first); keep that precision.
      for (float& s : slot.channel_scales) s = bfloat16_to_float(uint16_t(std::bit_cast<uint32_t>(s * 1.00389105f) >> 16));
    }
    return {};
  }
  ETKIT_ASSIGN_OR_RETURN(const ByteSpan bytes, constant_bytes(g, q.scale_buffer_idx, named, "scales", where));
  const bool bf16 = q.scheme == xnn::QuantScheme::kPerChannelGroup;
  const size_t width = bf16 ? 2 : 4;
  if (bytes.size() / width < q.num_scales) {
    return compile_error(std::to_string(q.num_scales) + " scales need " + std::to_string(q.num_scales * width) +
                         " bytes, the constant has " + std::to_string(bytes.size()), where);
  }
  slot.channel_scales.resize(q.num_scales);
  for (size_t i = 0; i < q.num_scales; ++i) {
    if (bf16) {
      uint16_t bits;
      std::memcpy(&bits, bytes.data() + 2 * i, 2);
      slot.channel_scales[i] = bfloat16_to_float(bits);
    } else {
      std::memcpy(&slot.channel_scales[i], bytes.data() + 4 * i, 4);
    }
  }
  return {};
}

}  // namespace

ScalarType scalar_type_of(xnn::Datatype d) {
  switch (d) {
    case xnn::Datatype::kFp16: return ScalarType::kHalf;
    case xnn::Datatype::kBf16: return ScalarType::kBFloat16;
    case xnn::Datatype::kQint8: case xnn::Datatype::kQcint8: case xnn::Datatype::kQdint8: return ScalarType::kChar;
    case xnn::Datatype::kQuint8: return ScalarType::kByte;
    case xnn::Datatype::kInt32: case xnn::Datatype::kQint32: case xnn::Datatype::kQcint32: return ScalarType::kInt;
    default: return ScalarType::kFloat;
  }
}

size_t Slot::numel() const {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

Result<std::unique_ptr<Runtime>> Runtime::compile(xnn::Graph graph, const NamedDataMap* named, Options options) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->graph_ = std::move(graph);
  rt->graph_.index_values();
  rt->options_ = options;
  const xnn::Graph& g = rt->graph_;
  rt->slots_.resize(g.values.size());
  std::map<uint32_t, Slot*> by_id;
  for (size_t i = 0; i < g.values.size(); ++i) {
    const xnn::Value& v = g.values[i];
    const std::string where = "xvalues[" + std::to_string(i) + "]";
    Slot& s = rt->slots_[i];
    s.def = &v;
    s.dtype = v.datatype;
    s.dims.assign(v.dims.begin(), v.dims.end());
    if (v.datatype == xnn::Datatype::kQpint8 || v.datatype == xnn::Datatype::kPfp32) {
      return Error{ErrorKind::kUnsupported, {}, where, "datatype " + std::string(xnn::datatype_name(v.datatype)) + " is not supported"};
    }
    if (v.is_constant()) {
      ETKIT_ASSIGN_OR_RETURN(const ByteSpan bytes, constant_bytes(g, v.constant_buffer_idx, named, "constant", where));
      size_t numel = 1;
      for (uint32_t d : v.dims) numel *= d;  // bounded by the reader's size check
      if (bytes.size() < xnn::datatype_bytes(v.datatype, numel)) {
        return compile_error("constant " + std::to_string(v.constant_buffer_idx) + " holds " + std::to_string(bytes.size()) +
                             " bytes, " + std::to_string(xnn::datatype_bytes(v.datatype, numel)) + " needed", where);
      }
      // Constants are read-only; node functions never write their inputs.
      s.data = const_cast<uint8_t*>(bytes.data());
    }
    ETKIT_TRY(resolve_scales(s, g, named, where));
    by_id[v.id] = &s;
  }
  std::map<std::string, uint32_t> name_counts;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const xnn::Node& n = g.nodes[i];
    const std::string where = "xnodes[" + std::to_string(i) + "]";
    NodeFn fn = node_function(n.type);
    if (!fn) {
      return Error{ErrorKind::kUnsupported, {}, where,
                   "node type " + std::string(xnn::node_type_name(n.type)) + " is not supported"};
    }
    CompiledNode cn{fn, {}, {}};
    for (uint32_t id : n.inputs) cn.in.push_back(id == xnn::kInvalidId ? nullptr : by_id.at(id));
    for (uint32_t id : n.outputs) cn.out.push_back(by_id.at(id));  // the reader checked every id
    rt->nodes_.push_back(std::move(cn));
    // Ids are fixed per node: XNNPACK's "#n" counts a name's earlier nodes in the graph.
    DelegateDebugId id;
    if (options.debug_ids == DebugIds::kDebugHandles) {
      id.integer = int32_t(n.debug_handle & 0x7fffffff);
    } else {
      const std::string name = xnnpack_operator_name(g, n);
      id.text = name + " #" + std::to_string(++name_counts[name]);
    }
    rt->event_ids_.push_back(std::move(id));
    const std::string meta = "{\"node\":" + std::to_string(i) + ",\"debug_handle\":" + std::to_string(n.debug_handle) +
                             ",\"type\":\"" + std::string(xnn::node_type_name(n.type)) + "\"}";
    rt->node_metadata_.emplace_back(meta.begin(), meta.end());
  }
  return rt;
}

std::vector<float>& Runtime::scratch(size_t which) {
  if (scratch_.size() <= which) scratch_.resize(which + 1);
  return scratch_[which];
}

Result<Runtime::Packed> Runtime::packed(const xnn::Value* constant, uint32_t layout, size_t bytes) {
  const auto key = std::make_tuple(constant, layout, bytes);
  if (auto it = packed_.find(key); it != packed_.end()) return Packed{it->second.data(), false};
  const uint64_t total = packed_bytes_ + bytes;
  if (total > options_.memory_limit) {
    return bad_input("needs " + std::to_string(total) + " bytes of packed filters, above the delegate's memory limit of " +
                     std::to_string(options_.memory_limit));
  }
  auto& v = packed_[key];
  v.resize((bytes + sizeof(float) - 1) / sizeof(float));
  packed_bytes_ = total;
  return Packed{v.data(), true};
}

Status Runtime::check_scratch(uint64_t bytes) const {
  if (bytes > options_.memory_limit) {
    return bad_input("needs " + std::to_string(bytes) + " bytes of scratch, above the delegate's memory limit of " +
                     std::to_string(options_.memory_limit));
  }
  return {};
}

Status Runtime::reshape(Slot& slot, std::span<const size_t> dims) {
  const uint64_t limit = options_.memory_limit;
  // Zeros count as ones, so an empty value cannot carry huge dimensions
  // (its strides and tensor sizes must stay representable).
  uint64_t numel = 1, span = 1;
  for (size_t d : dims) {
    const uint64_t extent = d == 0 ? 1 : d;
    if (d > uint64_t(INT32_MAX) || span > limit / extent) {
      return bad_input("a value of shape above the memory limit of " + std::to_string(limit) + " bytes");
    }
    span *= extent;
    numel *= d;
  }
  const uint64_t bytes = xnn::datatype_bytes(slot.dtype, numel);
  slot.dims.assign(dims.begin(), dims.end());
  if (slot.external) {
    Tensor& t = *slot.external;
    if (t.dim() != dims.size()) {
      // A rank-0 tensor is a 1-element XNNPACK value and vice versa: same
      // elements, the tensor keeps its own shape.
      if (uint64_t(t.numel()) != numel) {
        return bad_input("output has " + std::to_string(numel) + " elements in rank " + std::to_string(dims.size()) +
                         ", its tensor " + std::to_string(t.numel()) + " in rank " + std::to_string(t.dim()));
      }
      slot.data = static_cast<uint8_t*>(t.data());
      return {};
    }
    std::vector<int64_t> sizes(dims.size());
    for (size_t j = 0; j < dims.size(); ++j) sizes[t.dim_order()[j]] = int64_t(dims[j]);
    auto resized = t.resize(std::span<const int64_t>(sizes));
    if (!resized) return resized;
    if (t.data() == nullptr && t.nbytes() > 0) return bad_input("output tensor has no memory (freed?)");
    // An int64 output receives int32 values first, widened afterwards.
    slot.data = static_cast<uint8_t*>(t.data());
    return {};
  }
  const size_t floats = (bytes + sizeof(float) - 1) / sizeof(float);
  if (slot.own.size() < floats) {
    const uint64_t grown = internal_bytes_ + (floats - slot.own.size()) * sizeof(float);
    if (grown > limit) {
      return bad_input("internal values would take " + std::to_string(grown) +
                       " bytes, above the delegate's memory limit of " + std::to_string(limit));
    }
    slot.own.resize(floats);
    internal_bytes_ = grown;
  }
  slot.data = reinterpret_cast<uint8_t*>(slot.own.data());
  return {};
}

Status Runtime::bind_externals(std::span<EValue* const> args) {
  for (Slot& s : slots_) {
    s.external = nullptr;
    const xnn::Value& v = *s.def;
    if (!v.is_external_input() && !v.is_external_output()) continue;
    const std::string what = "delegate argument " + std::to_string(v.external_id);
    if (v.external_id >= args.size()) {
      return bad_input(what + " does not exist (the call passes " + std::to_string(args.size()) + ")");
    }
    const EValue& arg = *args[v.external_id];
    if (arg.tag != Tag::kTensor) return bad_input(what + " is " + std::string(tag_name(arg.tag)) + ", not a tensor");
    Tensor& t = *arg.tensor;
    if (!matches_dtype(v.datatype, t.dtype())) {
      return bad_input(what + " is " + std::string(scalar_type_name(int(t.dtype()))) + ", the graph expects " +
                       std::string(xnn::datatype_name(v.datatype)));
    }
    if (v.is_external_output() && t.read_only()) {
      return bad_input(what + " is an output of the delegate, but a constant of the program");
    }
    s.external = &t;
    if (v.is_external_input()) {
      if (t.dim() > 6) return bad_input(what + " has rank " + std::to_string(t.dim()) + ", XNNPACK takes at most 6");
      // XNNPACK sees the dims in memory order (XNNExecutor::prepare_args).
      s.dims.resize(t.dim());
      for (size_t j = 0; j < t.dim(); ++j) s.dims[j] = size_t(t.size(t.dim_order()[j]));
      s.data = static_cast<uint8_t*>(t.data());
    }
  }
  return {};
}

Status Runtime::finish_outputs() {
  for (Slot& s : slots_) {
    if (!s.external || !s.def->is_external_output() || s.external->dtype() != ScalarType::kLong) continue;
    // int32 results widen in place, from the back (XNNExecutor::convert_outputs).
    auto* wide = s.external->data_as<int64_t>();
    const auto* narrow = s.external->data_as<int32_t>();
    for (int64_t j = s.external->numel() - 1; j >= 0; --j) wide[j] = narrow[j];
  }
  return {};
}

Status Runtime::run(std::span<EValue* const> args, const DelegateCallContext& context) {
  ETKIT_TRY(bind_externals(args));
  EventTracer* tracer = context.tracer;
  const bool log_outputs = tracer && tracer->debug_level() >= DebugLevel::kIntermediateOutputs;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    CompiledNode& cn = nodes_[i];
    const xnn::Node& node = graph_.nodes[i];
    NodeCall call{node, cn.in, cn.out, *this};
    const uint64_t start = tracer ? EventTracer::ticks() : 0;
    Status status = cn.fn(call);
    const uint64_t end = tracer ? EventTracer::ticks() : 0;
    if (!status) {
      Error e = std::move(status).error();
      return std::move(e).in("xnodes[" + std::to_string(i) + "] (" + std::string(xnn::node_type_name(node.type)) + ")");
    }
    if (!tracer) continue;
    tracer->profile_delegate(context.chain, context.instruction, event_ids_[i], node_metadata_[i], start, end);
    if (log_outputs) {
      for (const Slot* out : cn.out) {
        if (out->dtype == xnn::Datatype::kQcint4 || out->dtype == xnn::Datatype::kQbint4) continue;
        std::vector<int32_t> sizes(out->dims.begin(), out->dims.end());
        std::vector<uint8_t> order(sizes.size());
        for (size_t d = 0; d < order.size(); ++d) order[d] = uint8_t(d);
        const Tensor view(scalar_type_of(out->dtype), std::move(sizes), std::move(order), out->data);
        tracer->log_delegate_output(context.chain, context.instruction, event_ids_[i], view);
      }
    }
  }
  return finish_outputs();
}

NodeFn node_function(xnn::NodeType type) {
  static const NodeTable table = [] {
    NodeTable t{};
    add_elementwise_nodes(t);
    add_linear_nodes(t);
    add_layout_nodes(t);
    return t;
  }();
  const auto i = size_t(type);
  return i < table.size() ? table[i] : nullptr;
}

}  // namespace etkit::rt::xnnpack
