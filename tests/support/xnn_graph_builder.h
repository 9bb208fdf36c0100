// Runs XNNPACK payloads built with xnn::GraphBuilder (through our writer,
// read back by our reader) on the host backend.
#pragma once

#include <cstring>
#include <deque>
#include <vector>

#include "libcore/formats/xnnpack/xnn_reader.h"
#include "libcore/formats/xnnpack/xnn_builder.h"
#include "runner/backends/xnnpack/xnn_runtime.h"
#include "tests/support/test_support.h"

namespace etkit::test {

using XnnGraphBuilder = xnn::GraphBuilder;

// Runs a payload once: `args` in external-id order; inputs hold data,
// outputs are sized by `shape` and filled by the run.
struct XnnArg {
  ScalarType dtype = ScalarType::kFloat;
  std::vector<int32_t> shape;
  std::vector<uint8_t> bytes;  // input data, or the output after the run
  std::vector<uint8_t> dim_order = {};  // empty: contiguous
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

// One execution of a compiled runtime on `args` (outputs written into them).
inline Status run_xnn_runtime(rt::xnnpack::Runtime& runtime, std::vector<XnnArg>& args,
                              rt::EventTracer* tracer = nullptr) {
  std::deque<rt::Tensor> tensors;
  std::vector<rt::EValue> values(args.size());
  std::vector<rt::EValue*> pointers;
  for (size_t i = 0; i < args.size(); ++i) {
    tensors.emplace_back(args[i].dtype, args[i].shape, args[i].dim_order, args[i].bytes.data());
    values[i].tag = rt::Tag::kTensor;
    values[i].tensor = &tensors.back();
    pointers.push_back(&values[i]);
  }
  return runtime.run(pointers, rt::DelegateCallContext{tracer, 0, 0});
}

inline Status run_xnn(ByteSpan payload, std::vector<XnnArg>& args, rt::EventTracer* tracer = nullptr,
                      rt::xnnpack::Options options = {}) {
  auto graph = xnn::read_xnn_payload(payload);
  if (!graph) return std::move(graph).error();
  auto runtime = rt::xnnpack::Runtime::compile(std::move(graph).value(), nullptr, options);
  if (!runtime) return std::move(runtime).error();
  return run_xnn_runtime(**runtime, args, tracer);
}

template <typename T = float>
std::vector<T> values_of(const XnnArg& a) {
  std::vector<T> out(a.bytes.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), a.bytes.data(), out.size() * sizeof(T));
  return out;
}

// 8-bit per-tensor quantization in hand-built graphs (qint8 or quint8).
struct QP {
  float scale;
  int32_t zp;
};
inline int32_t lo_of(xnn::Datatype d) { return d == xnn::Datatype::kQint8 ? -128 : 0; }
inline int32_t hi_of(xnn::Datatype d) { return d == xnn::Datatype::kQint8 ? 127 : 255; }
inline ScalarType st_of(xnn::Datatype d) { return d == xnn::Datatype::kQint8 ? ScalarType::kChar : ScalarType::kByte; }
// A stored byte as the datatype reads it.
inline int32_t value_of(xnn::Datatype d, uint8_t byte) {
  return d == xnn::Datatype::kQint8 ? int32_t(int8_t(byte)) : int32_t(byte);
}
inline void set_q(XnnGraphBuilder& g, uint32_t id, QP q) {
  g.value(id).quantized = true;
  g.value(id).quant.scheme = xnn::QuantScheme::kPerTensor;
  g.value(id).quant.scale = q.scale;
  g.value(id).quant.zero_point = q.zp;
}

}  // namespace etkit::test
