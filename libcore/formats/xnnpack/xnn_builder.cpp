#include "libcore/formats/xnnpack/xnn_builder.h"

namespace etkit::xnn {

GraphBuilder::GraphBuilder() { graph_.constants.emplace_back(); }  // entry 0 is reserved

uint32_t GraphBuilder::input(std::vector<uint32_t> dims, Datatype dt) {
  return add_value(dt, std::move(dims), kExternalInput, next_external_++);
}
uint32_t GraphBuilder::output(std::vector<uint32_t> dims, Datatype dt) {
  return add_value(dt, std::move(dims), kExternalOutput, next_external_++);
}
uint32_t GraphBuilder::internal(std::vector<uint32_t> dims, Datatype dt) {
  return add_value(dt, std::move(dims), 0, kInvalidId);
}

uint32_t GraphBuilder::add_constant(std::vector<uint32_t> dims, Datatype dt, const void* data, size_t bytes) {
  auto& stored = storage_.emplace_back(bytes);
  if (bytes) std::memcpy(stored.data(), data, bytes);
  Constant c;
  c.bytes = ByteSpan(stored);
  c.size = stored.size();
  graph_.constants.push_back(std::move(c));
  const uint32_t id = add_value(dt, std::move(dims), 0, kInvalidId);
  graph_.values.back().constant_buffer_idx = uint32_t(graph_.constants.size() - 1);
  return id;
}

Node& GraphBuilder::node(NodeType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
  Node n;
  n.type = type;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.debug_handle = uint32_t(graph_.nodes.size() + 1);
  graph_.nodes.push_back(std::move(n));
  return graph_.nodes.back();
}

std::vector<uint8_t> GraphBuilder::payload() {
  graph_.num_externs = next_external_;
  return write_xnn_payload(graph_);
}

uint32_t GraphBuilder::add_value(Datatype dt, std::vector<uint32_t> dims, uint32_t flags, uint32_t external) {
  Value v;
  v.id = uint32_t(graph_.values.size());
  v.datatype = dt;
  v.dims = std::move(dims);
  v.flags = flags;
  v.external_id = external;
  if (flags & kExternalInput) graph_.input_ids.push_back(v.id);
  if (flags & kExternalOutput) graph_.output_ids.push_back(v.id);
  graph_.values.push_back(std::move(v));
  return graph_.values.back().id;
}

}  // namespace etkit::xnn
