// Builds XNNPACK graphs value by value and node by node (as program_builder
// does for programs), for tests, benchmarks and the demo: external values
// get argument indices in the order they are added, constants are copied in.
#pragma once

#include <cstring>
#include <deque>
#include <vector>

#include "libcore/formats/xnnpack/xnn_writer.h"

namespace etkit::xnn {

class GraphBuilder {
 public:
  GraphBuilder();

  uint32_t input(std::vector<uint32_t> dims, Datatype dt = Datatype::kFp32);
  uint32_t output(std::vector<uint32_t> dims, Datatype dt = Datatype::kFp32);
  uint32_t internal(std::vector<uint32_t> dims, Datatype dt = Datatype::kFp32);
  template <typename T>
  uint32_t constant(std::vector<uint32_t> dims, const std::vector<T>& data, Datatype dt = Datatype::kFp32) {
    return add_constant(std::move(dims), dt, data.data(), data.size() * sizeof(T));
  }
  // The value or node just added stays valid until the next one is added.
  Value& value(uint32_t id) { return graph_.values[id]; }
  Node& node(NodeType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);

  Graph& graph() { return graph_; }
  std::vector<uint8_t> payload();

 private:
  uint32_t add_value(Datatype dt, std::vector<uint32_t> dims, uint32_t flags, uint32_t external);
  uint32_t add_constant(std::vector<uint32_t> dims, Datatype dt, const void* data, size_t bytes);
  Graph graph_;
  uint32_t next_external_ = 0;
  std::deque<std::vector<uint8_t>> storage_;  // constant bytes the graph's spans point into
};

}  // namespace etkit::xnn
