// Reading ETRecords: a synthetic edge program of N nodes shaped like the demo
// LeNet's (stack trace, nested module stack, source_fn, from_node, tensor
// metadata per node), the whole read_etrecord, and the JSON parse alone
// (RapidJSON through our Python adapter into JsonValue) against RapidJSON's
// own DOM on the same text.
#include <benchmark/benchmark.h>

#include <rapidjson/document.h>

#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/etrecord/etrecord_writer.h"
#include "libcore/formats/etrecord/node_metadata.h"

using namespace etkit;
using namespace etkit::etrecord;

namespace {

ExportedProgram chain_program(int nodes) {
  ExportedProgram p;
  const auto tensor = [](const std::string& name) { return Argument{"as_tensor", false, {ArgRef{name}}, nullptr, {}}; };
  const auto meta = [] {
    TensorMeta m;
    m.dtype = 7;
    for (int64_t s : {1, 64, 28, 28}) m.sizes.push_back(SymInt{s, {}, {}});
    for (int64_t s : {50176, 784, 28, 1}) m.strides.push_back(SymInt{s, {}, {}});
    m.storage_offset.value = 0;
    m.layout = 7;
    return m;
  };
  p.graph.inputs = {tensor("x")};
  p.graph.tensor_values["x"] = meta();
  std::string previous = "x";
  for (int i = 0; i < nodes; ++i) {
    Node n;
    n.name = "aten_add_tensor_" + std::to_string(i);
    n.target = "executorch.exir.dialects.edge.ops.aten.add.Tensor";
    std::tie(n.kind, n.op) = classify_target(n.target);
    n.inputs = {{"self", tensor(previous)}, {"other", tensor("x")}, {"alpha", Argument{"as_int", false, {int64_t{1}}, nullptr, {}}}};
    n.outputs = {tensor(n.name)};
    const std::string block = std::to_string(i / 10);
    JsonValue m = JsonValue::object();
    m.set("stack_trace", "  File \"/src/model.py\", line 40, in forward\n    x = self.blocks(x)\n  File \"/src/model.py\", line " +
                             std::to_string(100 + i % 10) + ", in forward\n    x = x + self.skip(x)\n");
    m.set("nn_module_stack", "L__self__,,model.Net;L__self___blocks,blocks,torch.nn.modules.container.Sequential;L__self___blocks_" +
                                 block + ",L['self'].blocks[" + block + "],model.Block");
    m.set("source_fn_stack", "add,_operator.add");
    m.set("debug_handle", std::to_string(i + 1));
    m.set("from_node", R"([{"name": "add", "target": "aten.add.Tensor", "graph_id": 140000000000001, "pass_name": "", "action": "create", "from_node": []}])");
    n.metadata = parse_node_metadata(m);
    p.graph.tensor_values[n.name] = meta();
    previous = n.name;
    p.graph.nodes.push_back(std::move(n));
  }
  p.graph.outputs = {tensor(previous)};
  p.input_specs = {InputSpec{"user_input", "x", "", true}};
  p.output_specs = {OutputSpec{"user_output", previous, ""}};
  p.schema_version = "5.3";
  return p;
}

std::vector<uint8_t> etrecord_bytes(int nodes) {
  EtRecordWriter w;
  w.add_program("edge_dialect_exported_program/forward", chain_program(nodes));
  DebugHandleMap handles;
  for (int i = 0; i < nodes; ++i) handles["forward"][std::to_string(i)] = Handles{false, {i + 1}};
  w.add_debug_handle_map(handles);
  return *w.finish();
}

void BM_ReadEtRecord(benchmark::State& state) {
  const auto bytes = etrecord_bytes(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto record = read_etrecord(bytes);
    if (!record) state.SkipWithError(record.error().message.c_str());
    benchmark::DoNotOptimize(record);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.counters["file_bytes"] = static_cast<double>(bytes.size());
}
BENCHMARK(BM_ReadEtRecord)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_ParseJson(benchmark::State& state) {
  const std::string text = to_json(exported_program_to_json(chain_program(static_cast<int>(state.range(0))), JsonStyle::kNarrow));
  for (auto _ : state) {
    auto doc = parse_json(text);
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ParseJson)->Arg(10000)->Unit(benchmark::kMillisecond);

// RapidJSON's DOM with the same reading flags, without the adapter stream
// and the JsonValue tree: what the adapter costs.
void BM_RapidJsonDocument(benchmark::State& state) {
  const std::string text = to_json(exported_program_to_json(chain_program(static_cast<int>(state.range(0))), JsonStyle::kNarrow));
  for (auto _ : state) {
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag | rapidjson::kParseValidateEncodingFlag>(
        text.data(), text.size());
    benchmark::DoNotOptimize(doc);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_RapidJsonDocument)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
