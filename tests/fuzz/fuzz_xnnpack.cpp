#include <cmath>
#include <cstring>
#include <deque>
#include <vector>

#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/xnnpack/xnn_reader.h"
#include "libcore/formats/xnnpack/xnn_writer.h"
#include "runner/backends/xnnpack/xnn_runtime.h"
#include "tests/fuzz/fuzz_targets.h"

namespace etkit::fuzz {
namespace {

// Inputs and outputs are the declared shapes, kept small so one input
// explores the graph rather than the arithmetic.
constexpr uint64_t kMaxElements = 1 << 14;
constexpr uint64_t kMemoryLimit = uint64_t(64) << 20;

// What the reader accepts, the writer writes and the reader reads back the same.
void check_round_trip(const xnn::Graph& graph) {
  const auto bytes = xnn::write_xnn_payload(graph);
  auto again = xnn::read_xnn_payload(ByteSpan(bytes));
  if (!again || again->values.size() != graph.values.size() || again->nodes.size() != graph.nodes.size()) __builtin_trap();
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const auto& a = graph.nodes[i];
    const auto& b = again->nodes[i];
    if (a.type != b.type || a.inputs != b.inputs || a.outputs != b.outputs || a.debug_handle != b.debug_handle) __builtin_trap();
  }
  for (size_t i = 0; i < graph.values.size(); ++i) {
    const auto& a = graph.values[i];
    const auto& b = again->values[i];
    if (a.id != b.id || a.dims != b.dims || a.datatype != b.datatype || a.flags != b.flags) __builtin_trap();
  }
}

void run_payload(ByteSpan payload) {
  auto graph = xnn::read_xnn_payload(payload);
  if (!graph) return;
  check_round_trip(*graph);
  // One argument per external id, shaped as its value declares.
  std::vector<const xnn::Value*> by_external(graph->num_externs, nullptr);
  for (const auto& v : graph->values) {
    if (v.flags && v.external_id < by_external.size()) by_external[v.external_id] = &v;
  }
  rt::xnnpack::Options options;
  options.memory_limit = kMemoryLimit;
  auto runtime = rt::xnnpack::Runtime::compile(std::move(graph).value(), nullptr, options);
  if (!runtime) return;
  std::deque<rt::Tensor> tensors;
  std::deque<std::vector<uint8_t>> storage;
  std::vector<rt::EValue> values(by_external.size());
  std::vector<rt::EValue*> args;
  for (size_t i = 0; i < by_external.size(); ++i) {
    args.push_back(&values[i]);
    const xnn::Value* v = by_external[i];
    if (!v) continue;  // a None argument: the runtime must refuse it
    uint64_t numel = 1, span = 1;
    for (uint32_t d : v->dims) {
      numel *= d;
      span *= d == 0 ? 1 : d;
      if (span > kMaxElements) return;
    }
    const ScalarType st = rt::xnnpack::scalar_type_of(v->datatype);
    auto& bytes = storage.emplace_back(numel * 8 + 8);
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = uint8_t(b * 37 + 11);
    if (st == ScalarType::kFloat) {
      for (uint64_t e = 0; e < numel; ++e) {
        const float f = std::sin(float(e)) * 4.0f;
        std::memcpy(bytes.data() + 4 * e, &f, 4);
      }
    }
    std::vector<int32_t> sizes(v->dims.begin(), v->dims.end());
    std::vector<uint8_t> order(sizes.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = uint8_t(d);
    tensors.emplace_back(st, std::move(sizes), std::move(order), bytes.data(), pte::ShapeDynamism::kDynamicBound);
    values[i].tag = rt::Tag::kTensor;
    values[i].tensor = &tensors.back();
  }
  (void)(*runtime)->run(args, rt::DelegateCallContext{});
}

}  // namespace

int xnnpack_payload(const uint8_t* data, size_t size) {
  const ByteSpan bytes(data, size);
  auto program = pte::read_program(bytes, nullptr);
  if (!program) {
    run_payload(bytes);
    return 0;
  }
  for (const auto& plan : program->execution_plan) {
    for (const auto& d : plan.delegates) {
      if (d.id != "XnnpackBackend") continue;
      const auto& blobs = d.location == pte::DataLocation::kInline ? program->backend_delegate_data : program->segment_data;
      if (d.index < blobs.size()) run_payload(blobs[d.index]);
    }
  }
  return 0;
}

}  // namespace etkit::fuzz
