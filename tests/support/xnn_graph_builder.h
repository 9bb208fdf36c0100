// Builds XNNPACK delegate payloads for tests (through our writer, read back
// by our reader) and runs them on the host backend with float tensors.
#pragma once

#include <cstring>
#include <deque>
#include <vector>

#include "libcore/formats/xnnpack/xnn_reader.h"
#include "libcore/formats/xnnpack/xnn_writer.h"
#include "runner/backends/xnnpack/xnn_runtime.h"
#include "tests/support/test_support.h"

namespace etkit::test {

class XnnGraphBuilder {
 public:
  XnnGraphBuilder() { graph_.constants.emplace_back(); }  // entry 0 is reserved

  // An external input/output (argument index = the order of these calls).
  uint32_t input(std::vector<uint32_t> dims, xnn::Datatype dt = xnn::Datatype::kFp32) {
    return add_value(dt, std::move(dims), xnn::kExternalInput, next_external_++);
  }
  uint32_t output(std::vector<uint32_t> dims, xnn::Datatype dt = xnn::Datatype::kFp32) {
    return add_value(dt, std::move(dims), xnn::kExternalOutput, next_external_++);
  }
  uint32_t internal(std::vector<uint32_t> dims, xnn::Datatype dt = xnn::Datatype::kFp32) {
    return add_value(dt, std::move(dims), 0, xnn::kInvalidId);
  }
  template <typename T>
  uint32_t constant(std::vector<uint32_t> dims, const std::vector<T>& data, xnn::Datatype dt = xnn::Datatype::kFp32) {
    auto& bytes = storage_.emplace_back(data.size() * sizeof(T));
    if (!data.empty()) std::memcpy(bytes.data(), data.data(), bytes.size());
    xnn::Constant c;
    c.bytes = ByteSpan(bytes);
    c.size = bytes.size();
    graph_.constants.push_back(c);
    const uint32_t id = add_value(dt, std::move(dims), 0, xnn::kInvalidId);
    graph_.values.back().constant_buffer_idx = uint32_t(graph_.constants.size() - 1);
    return id;
  }
  xnn::Value& value(uint32_t id) { return graph_.values[id]; }
  xnn::Node& node(xnn::NodeType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs) {
    xnn::Node n;
    n.type = type;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.debug_handle = uint32_t(graph_.nodes.size() + 1);
    graph_.nodes.push_back(std::move(n));
    return graph_.nodes.back();
  }
  std::vector<uint8_t> payload() {
    graph_.num_externs = next_external_;
    return xnn::write_xnn_payload(graph_);
  }
  xnn::Graph& graph() { return graph_; }

 private:
  uint32_t add_value(xnn::Datatype dt, std::vector<uint32_t> dims, uint32_t flags, uint32_t external) {
    xnn::Value v;
    v.id = uint32_t(graph_.values.size());
    v.datatype = dt;
    v.dims = std::move(dims);
    v.flags = flags;
    v.external_id = external;
    if (flags & xnn::kExternalInput) graph_.input_ids.push_back(v.id);
    if (flags & xnn::kExternalOutput) graph_.output_ids.push_back(v.id);
    graph_.values.push_back(std::move(v));
    return graph_.values.back().id;
  }
  xnn::Graph graph_;
  uint32_t next_external_ = 0;
  std::deque<std::vector<uint8_t>> storage_;
};

// Runs a payload once: `args` in external-id order; inputs hold data,
// outputs are sized by `shape` and filled by the run.
struct XnnArg {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int32_t> shape;
  std::vector<uint8_t> bytes;  // input data, or the output after the run
};

template <typename T>
XnnArg xnn_arg(std::vector<int32_t> shape, const std::vector<T>& values, ScalarType dtype = ScalarType::kFloat) {
  XnnArg a{dtype, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(T))};
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}
inline XnnArg xnn_out(std::vector<int32_t> shape, ScalarType dtype = ScalarType::kFloat, size_t element = 4) {
  size_t n = 1;
  for (int32_t d : shape) n *= size_t(d);
  return XnnArg{dtype, std::move(shape), std::vector<uint8_t>(n * element)};
}

inline Status run_xnn(ByteSpan payload, std::vector<XnnArg>& args, rt::EventTracer* tracer = nullptr,
                      rt::xnnpack::Options options = {}) {
  auto graph = xnn::read_xnn_payload(payload);
  if (!graph) return std::move(graph).error();
  auto runtime = rt::xnnpack::Runtime::compile(std::move(graph).value(), nullptr, options);
  if (!runtime) return std::move(runtime).error();
  std::deque<rt::Tensor> tensors;
  std::vector<rt::EValue> values(args.size());
  std::vector<rt::EValue*> pointers;
  for (size_t i = 0; i < args.size(); ++i) {
    tensors.emplace_back(args[i].dtype, args[i].shape, std::vector<uint8_t>{}, args[i].bytes.data());
    values[i].tag = rt::Tag::kTensor;
    values[i].tensor = &tensors.back();
    pointers.push_back(&values[i]);
  }
  return (*runtime)->run(pointers, rt::DelegateCallContext{tracer, 0, 0});
}

template <typename T = float>
std::vector<T> values_of(const XnnArg& a) {
  std::vector<T> out(a.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), a.bytes.data(), out.size() * sizeof(T));
  return out;
}

}  // namespace etkit::test
