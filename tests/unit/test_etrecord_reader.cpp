// Reading ETRecords: the two real fixtures (etrecord_spec.md §8, §8.1) and
// hand-written files for each era and quirk. JSON here is written by hand
// from the spec, not produced by the library's writer.
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>

#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/etrecord/node_metadata.h"
#include "libcore/formats/etrecord/serde_types.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;

namespace {

std::vector<uint8_t> make_zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::vector<std::pair<std::string, ByteSpan>> spans;
  for (const auto& [name, text] : entries) {
    spans.emplace_back(name, ByteSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  }
  return *write_zip(spans);
}

const Node& node(const Program& p, const std::string& name) {
  for (const Node& n : p.program.graph.nodes) {
    if (n.name == name) return n;
  }
  FAIL("no node " << name);
  throw;  // unreachable
}

std::string ref(const ArgItem& item) {
  const ArgRef* r = std::get_if<ArgRef>(&item);
  return r == nullptr ? "<not a ref>" : r->name;
}

// A ZIP of STORED entries written byte by byte (APPNOTE.TXT 4.3), for what
// libzip refuses to write: duplicate names.
std::vector<uint8_t> raw_zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  const auto crc32 = [](const std::string& data) {
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char c : data) {
      crc ^= c;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
  };
  std::vector<uint8_t> out, central;
  const auto u16 = [](std::vector<uint8_t>& v, uint32_t x) {
    v.push_back(uint8_t(x));
    v.push_back(uint8_t(x >> 8));
  };
  const auto u32 = [&](std::vector<uint8_t>& v, uint32_t x) {
    u16(v, x & 0xFFFF);
    u16(v, x >> 16);
  };
  for (const auto& [name, data] : entries) {
    const auto offset = static_cast<uint32_t>(out.size());
    const uint32_t crc = crc32(data);
    const auto size = static_cast<uint32_t>(data.size());
    u32(out, 0x04034b50);  // local file header
    u16(out, 20), u16(out, 0), u16(out, 0), u16(out, 0), u16(out, 0x21);
    u32(out, crc), u32(out, size), u32(out, size);
    u16(out, static_cast<uint32_t>(name.size())), u16(out, 0);
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());
    u32(central, 0x02014b50);  // central directory header
    u16(central, 20), u16(central, 20), u16(central, 0), u16(central, 0), u16(central, 0), u16(central, 0x21);
    u32(central, crc), u32(central, size), u32(central, size);
    u16(central, static_cast<uint32_t>(name.size())), u16(central, 0), u16(central, 0), u16(central, 0), u16(central, 0);
    u32(central, 0), u32(central, offset);
    central.insert(central.end(), name.begin(), name.end());
  }
  const auto cd_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), central.begin(), central.end());
  u32(out, 0x06054b50);  // end of central directory
  u16(out, 0), u16(out, 0), u16(out, static_cast<uint32_t>(entries.size())), u16(out, static_cast<uint32_t>(entries.size()));
  u32(out, static_cast<uint32_t>(central.size())), u32(out, cd_offset), u16(out, 0);
  return out;
}

// torch.save of {} exactly as the 2023 fixture's side-cars hold it (6-byte pickle, §6), zipped here.
std::string empty_state_dict() {
  const std::string pkl("\x80\x02}q\x00.", 6);
  const auto zip = make_zip({{"archive/data.pkl", pkl}, {"archive/byteorder", "little"}, {"archive/version", "3\n"}});
  return std::string(zip.begin(), zip.end());
}

// A small narrow-form (v0.4+) edge program with one mul node.
std::string narrow_program(const std::string& schema, const std::string& node_name_field = "") {
  return R"({"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "y"}}],
    "nodes": [{)" + node_name_field + R"("target": "executorch.exir.dialects.edge.ops.aten.mul.Tensor",
      "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "other", "arg": {"as_tensor": {"name": "x"}}}],
      "outputs": [{"as_tensor": {"name": "y"}}], "metadata": {"debug_handle": "1"}}],
    "tensor_values": {}, "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false,
    "custom_obj_values": {}},
   "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                 "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "y"}}}}]},
   "module_call_graph": [{"fqn": ""}]},
  "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": )" + schema +
         R"(, "dialect": "", "verifiers": ["EDGE"]})";
}

// The same program in the wide form of v0.2/v0.3 (every union lists more
// than one key; TensorMeta unwrapped; storage_offset a SymInt union).
std::string wide_program() {
  return R"({"graph_module": {"graph": {
      "inputs": [{"as_none": null, "as_tensor": {"name": "x"}, "as_int": null}],
      "outputs": [{"as_none": null, "as_tensor": {"name": "y"}, "as_int": null}],
      "nodes": [{"target": "executorch.exir.dialects.edge.ops.aten.add.Tensor",
        "inputs": [{"name": "self", "arg": {"as_none": null, "as_tensor": {"name": "x"}, "as_int": null}},
                   {"name": "other", "arg": {"as_none": null, "as_tensor": {"name": "x"}, "as_int": null}},
                   {"name": "alpha", "arg": {"as_none": null, "as_tensor": null, "as_int": 0, "as_bool": null}},
                   {"name": "flag", "arg": {"as_none": null, "as_bool": false}},
                   {"name": "nothing", "arg": {"as_none": [], "as_tensor": null}}],
        "outputs": [{"as_none": null, "as_tensor": {"name": "y"}, "as_int": null}],
        "metadata": {"debug_handle": "2"}}],
      "tensor_values": {"x": {"dtype": 7, "sizes": [{"as_expr": null, "as_int": 2}], "requires_grad": false,
                              "device": {"type": "cpu", "index": null}, "strides": [{"as_expr": null, "as_int": 1}],
                              "storage_offset": {"as_expr": null, "as_int": 0}, "layout": 7}},
      "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false},
     "signature": {"input_specs": [{"user_input": {"arg": {"as_none": null, "as_tensor": {"name": "x"}}},
                                    "parameter": null, "buffer": null}],
                   "output_specs": [{"user_output": {"arg": {"as_none": null, "as_tensor": {"name": "y"}}},
                                     "loss_output": null}]},
     "module_call_graph": []},
    "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": {"major": -1, "minor": -1},
    "dialect": "EDGE"})";
}

}  // namespace

TEST_CASE("etrecord fixture mul_2023: entries, version and maps (spec 8)", "[etrecord][reader][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = read_etrecord_file(test::fixture("etrecord/mul_2023.etrecord").string());
  REQUIRE(r.ok());
  const std::vector<std::tuple<std::string, uint64_t, EntryKind>> expected = {
      {"ETRECORD_V0", 0, EntryKind::kMarker},
      {"aten_dialect_output/forward", 6559, EntryKind::kExtraProgram},
      {"aten_dialect_output/forward_state_dict", 864, EntryKind::kStateDict},
      {"edge_dialect_exported_program", 6652, EntryKind::kEdgeProgram},
      {"edge_dialect_exported_program_state_dict", 864, EntryKind::kStateDict},
      {"debug_handle_map", 2, EntryKind::kDebugHandleMap},
      {"delegate_map", 2, EntryKind::kDelegateMap},
  };
  REQUIRE(r->entries.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CHECK(r->entries[i].name == std::get<0>(expected[i]));
    CHECK(r->entries[i].size == std::get<1>(expected[i]));
    CHECK(r->entries[i].kind == std::get<2>(expected[i]));
  }
  CHECK(r->entries[2].program == "aten_dialect_output/forward");
  CHECK(r->version.label == "v0.1");
  CHECK_FALSE(r->empty());
  // Both maps are {} (§8: "Linking status").
  REQUIRE(r->debug_handle_map.has_value());
  CHECK(r->debug_handle_map->empty());
  REQUIRE(r->delegate_map.has_value());
  CHECK(r->delegate_map->empty());
  CHECK_FALSE(r->num_outs_map.has_value());
  CHECK_FALSE(r->export_graph_id.has_value());
  // Side-cars: torch.save archives of an empty dict, root "archive".
  REQUIRE(r->side_cars.size() == 2);
  for (const SideCar& s : r->side_cars) {
    CHECK(s.status == SideCar::Status::kReadable);
    CHECK(s.torch_save_zip);
    CHECK(s.content.root == "archive");
    CHECK(s.content.root_type == "dict");
    CHECK(s.content.root_items == 0);
  }
  CHECK(r->warnings.empty());
}

TEST_CASE("etrecord fixture mul_2023: side-cars listed but not opened on request", "[etrecord][reader][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  EtRecordLimits limits;
  limits.read_side_cars = false;
  auto r = read_etrecord_file(test::fixture("etrecord/mul_2023.etrecord").string(), limits);
  REQUIRE(r.ok());
  REQUIRE(r->side_cars.size() == 2);
  for (const SideCar& s : r->side_cars) {
    CHECK(s.status == SideCar::Status::kNeedsPython);
    CHECK(s.note == "not opened");
  }
  CHECK(r->programs.size() == 2);  // the graphs are still read
}

TEST_CASE("etrecord fixture mul_2023: the edge program field by field (spec 8)", "[etrecord][reader][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = read_etrecord_file(test::fixture("etrecord/mul_2023.etrecord").string());
  REQUIRE(r.ok());
  REQUIRE(r->edge_program_count() == 1);
  const Program* edge = r->edge_program("forward");
  REQUIRE(edge != nullptr);
  CHECK(edge->entry == "edge_dialect_exported_program");
  const ExportedProgram& p = edge->program;
  CHECK(p.schema_version == "1");
  CHECK(p.union_form == UnionForm::kWide);
  CHECK(p.opset_version == std::vector<std::pair<std::string, int64_t>>{{"aten", 10}});
  CHECK(p.range_constraints.empty());
  CHECK(p.module_call_fqns == std::vector<std::string>{""});
  REQUIRE(p.graph.inputs.size() == 2);
  CHECK(ref(p.graph.inputs[0].items[0]) == "arg0_1");
  CHECK(ref(p.graph.inputs[1].items[0]) == "arg1_1");
  REQUIRE(p.input_specs.size() == 2);
  CHECK(p.input_specs[0].kind == "user_input");
  CHECK(p.input_specs[0].arg == "arg0_1");
  CHECK(p.input_specs[1].kind == "user_input");
  REQUIRE(p.output_specs.size() == 1);
  CHECK(p.output_specs[0].kind == "user_output");
  CHECK(p.output_specs[0].arg == "aten_mul_tensor");

  REQUIRE(p.graph.nodes.size() == 1);
  const Node& mul = p.graph.nodes[0];
  CHECK(mul.name == "aten_mul_tensor");  // no name field before v1.0: the output's name
  CHECK(mul.name_derived);
  CHECK(mul.target == "executorch.exir.dialects.edge.ops.aten.mul.Tensor");
  CHECK(mul.op == "aten.mul.Tensor");
  CHECK(mul.kind == OpKind::kEdge);
  REQUIRE(mul.inputs.size() == 2);
  CHECK(mul.inputs[0].name == "self");
  CHECK(mul.inputs[0].arg.variant == "as_tensor");
  CHECK(ref(mul.inputs[0].arg.items[0]) == "arg0_1");
  CHECK(mul.inputs[1].name == "other");
  CHECK(ref(mul.inputs[1].arg.items[0]) == "arg1_1");
  CHECK(mul.output_names() == std::vector<std::string>{"aten_mul_tensor"});

  const NodeMetadata& m = mul.metadata;
  CHECK(m.debug_handle == 2);
  CHECK_FALSE(m.nn_module_stack.has_value());
  REQUIRE(m.source_fn_stack.size() == 1);
  CHECK(m.source_fn_stack[0].name == "mul");
  CHECK(m.source_fn_stack[0].target == "_operator.mul");
  REQUIRE(m.stack_trace.has_value());
  const auto frame = last_frame(*m.stack_trace);
  REQUIRE(frame.has_value());
  CHECK(frame->file.size() > std::string("examples/models/toy_model/model.py").size());
  CHECK(frame->file.substr(frame->file.size() - 34) == "examples/models/toy_model/model.py");
  CHECK(frame->line == 18);
  CHECK(frame->function == "forward");
  CHECK(frame->code == "return input * other");

  REQUIRE(p.graph.tensor_values.size() == 3);
  for (const char* name : {"arg0_1", "arg1_1", "aten_mul_tensor"}) {
    const TensorMeta* t = p.graph.tensor(name);
    REQUIRE(t != nullptr);
    CHECK(t->dtype == 7);
    CHECK(serde_dtype_name(t->dtype) == "float32");
    REQUIRE(t->sizes.size() == 2);
    CHECK(t->sizes[0].value == 3);
    CHECK(t->sizes[1].value == 2);
    CHECK(t->strides[0].value == 2);
    CHECK(t->strides[1].value == 1);
    CHECK(t->storage_offset.value == 0);
    CHECK(t->device == "cpu");
    CHECK(t->layout == 7);
  }
}

TEST_CASE("etrecord fixture mul_2023: the ATen program differs only in target and names", "[etrecord][reader][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = read_etrecord_file(test::fixture("etrecord/mul_2023.etrecord").string());
  REQUIRE(r.ok());
  const Program* aten = r->find_program("aten_dialect_output/forward");
  REQUIRE(aten != nullptr);
  CHECK(aten->kind == EntryKind::kExtraProgram);
  CHECK(aten->method == "forward");
  REQUIRE(aten->program.graph.nodes.size() == 1);
  const Node& mul = aten->program.graph.nodes[0];
  CHECK(mul.target == "torch.ops.aten.mul.Tensor");
  CHECK(mul.op == "mul.Tensor");
  CHECK(mul.kind == OpKind::kAten);
  CHECK(mul.name == "mul");
  CHECK_FALSE(mul.metadata.debug_handle.has_value());
}

TEST_CASE("etrecord fixture marker_only: an ETRecord without content (spec 8.1)", "[etrecord][reader][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = read_etrecord_file(test::fixture("etrecord/marker_only.etrecord").string());
  REQUIRE(r.ok());
  CHECK(r->empty());
  REQUIRE(r->entries.size() == 1);
  CHECK(r->entries[0].name == "ETRECORD_V0");
  CHECK(r->entries[0].size == 0);
  CHECK(r->programs.empty());
  CHECK_FALSE(r->debug_handle_map.has_value());
  CHECK_FALSE(r->delegate_map.has_value());
  CHECK(r->version.label == "unknown");
}

TEST_CASE("etrecord fixture mul_2023: every truncation is refused cleanly", "[etrecord][reader][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto bytes = test::read_bytes(test::fixture("etrecord/mul_2023.etrecord"));
  REQUIRE(bytes.size() == 15843);
  for (size_t n = 0; n < bytes.size(); n += 7) {
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK_FALSE(read_etrecord(prefix).ok());
  }
  // A flipped byte inside the edge program's JSON fails its CRC.
  auto flipped = bytes;
  const std::string needle = "aten_mul_tensor";
  auto at = std::search(flipped.begin() + 8000, flipped.end(), needle.begin(), needle.end());
  REQUIRE(at != flipped.end());
  *at ^= 0x20;
  auto r = read_etrecord(flipped);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("crc") != std::string::npos);
}

TEST_CASE("etrecord: a v1.0-style file with symbolic ints, Infinity/NaN, nested graphs and a delegate", "[etrecord][reader]") {
  // The lowered module a delegate call embeds as a JSON string (§4.7).
  const std::string lowered = R"({"backend_id": "XnnpackBackend", "processed_bytes": "aGVsbG8=",
      "compile_specs": [{"key": "max_threads", "value": "NA=="}],
      "original_module": {"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}],
          "outputs": [{"as_tensor": {"name": "aten_relu_default"}}],
          "nodes": [{"name": "aten_relu_default", "target": "executorch.exir.dialects.edge.ops.aten.relu.default",
                     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}],
                     "outputs": [{"as_tensor": {"name": "aten_relu_default"}}],
                     "metadata": {"debug_handle": "7"}}],
          "tensor_values": {}, "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": false},
        "signature": {"input_specs": [], "output_specs": []}, "module_call_graph": []},
        "opset_version": {}, "range_constraints": {}, "schema_version": {"major": 5, "minor": 3},
        "dialect": "", "verifiers": ["EDGE"]},
      "original_state_dict": "", "original_constants": ""})";
  const std::string lowered_string = nlohmann::json(lowered).dump();  // escaped as a JSON string
  const std::string branch = R"({"inputs": [{"as_tensor": {"name": "a"}}], "outputs": [{"as_tensor": {"name": "aten_mul_scalar"}}],
      "nodes": [{"name": "aten_mul_scalar", "target": "executorch.exir.dialects.edge.ops.aten.mul.Scalar",
                 "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "a"}}}, {"name": "other", "arg": {"as_float": NaN}}],
                 "outputs": [{"as_tensor": {"name": "aten_mul_scalar"}}], "metadata": {"debug_handle": "6"}}],
      "tensor_values": {}, "sym_int_values": {}, "sym_bool_values": {}, "is_single_tensor_return": true})";
  const std::string program = R"({"graph_module": {"graph": {
      "inputs": [{"as_tensor": {"name": "p_fc_weight"}}, {"as_tensor": {"name": "x"}}],
      "outputs": [{"as_tensor": {"name": "aten_add_tensor"}}],
      "nodes": [
        {"name": "sym_size", "target": "executorch.exir.dialects.edge.ops.aten.sym_size.int",
         "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "dim", "arg": {"as_int": 0}}],
         "outputs": [{"as_sym_int": {"as_name": "sym_size"}}], "metadata": {}},
        {"name": "mul", "target": "_operator.mul",
         "inputs": [{"name": "", "arg": {"as_sym_int": {"as_name": "sym_size"}}}, {"name": "", "arg": {"as_sym_int": {"as_int": 2}}}],
         "outputs": [{"as_sym_int": {"as_name": "mul"}}], "metadata": {}},
        {"name": "aten_full_default", "target": "executorch.exir.dialects.edge.ops.aten.full.default",
         "inputs": [{"name": "size", "arg": {"as_sym_ints": [{"as_name": "mul"}, {"as_int": 4}]}},
                    {"name": "fill_value", "arg": {"as_float": -Infinity}},
                    {"name": "dtype", "arg": {"as_scalar_type": 7}},
                    {"name": "device", "arg": {"as_device": {"type": "cpu"}}}],
         "outputs": [{"as_tensor": {"name": "aten_full_default"}}],
         "metadata": {"debug_handle": "1",
                      "stack_trace": "  File \"/m/net.py\", line 12, in forward\n    y = torch.full((2 * n, 4), -math.inf)\n",
                      "nn_module_stack": "L__self__,,m.Net;L__self___blocks_0,L['self'].blocks[0],m.Block",
                      "torch_fn": "full_1;builtin_function_or_method.full",
                      "from_node": "[{\"name\": \"full\", \"target\": \"aten.full.default\", \"graph_id\": 140211, \"pass_name\": \"\", \"action\": \"create\", \"from_node\": []}]"}},
        {"name": "executorch_call_delegate", "target": "torch.ops.higher_order.executorch_call_delegate",
         "inputs": [{"name": "lowered_module_0", "arg": {"as_string": )" +
                              lowered_string + R"(}},
                    {"name": "delegate_arg_1", "arg": {"as_tensor": {"name": "x"}}}],
         "outputs": [{"as_tensor": {"name": "getitem"}}, {"as_tensor": {"name": "getitem_1"}}],
         "metadata": {"debug_handle": "4"}},
        {"name": "cond", "target": "torch.ops.higher_order.cond",
         "inputs": [{"name": "pred", "arg": {"as_bool": true}},
                    {"name": "true_fn", "arg": {"as_graph": {"name": "true_graph_0", "graph": )" +
                              branch + R"(}}},
                    {"name": "false_fn", "arg": {"as_graph": {"name": "false_graph_0", "graph": )" +
                              branch + R"(}}},
                    {"name": "operands", "arg": {"as_tensors": [{"name": "getitem"}]}}],
         "outputs": [{"as_tensors": [{"name": "getitem_2"}]}], "metadata": {"debug_handle": "5"}},
        {"name": "aten_add_tensor", "target": "executorch.exir.dialects.edge.ops.aten.add.Tensor",
         "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "getitem_2"}}},
                    {"name": "other", "arg": {"as_optional_tensors": [{"as_tensor": {"name": "aten_full_default"}}, {"as_none": []}]}},
                    {"name": "alpha", "arg": {"as_float": Infinity}}],
         "outputs": [{"as_tensor": {"name": "aten_add_tensor"}}], "metadata": {"debug_handle": "8"}}],
      "tensor_values": {
        "x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "s0", "hint": {"as_int": 3}}}, {"as_int": 4}],
              "requires_grad": false, "device": {"type": "cpu"}, "strides": [{"as_int": 4}, {"as_int": 1}],
              "storage_offset": {"as_int": 0}, "layout": 7},
        "aten_add_tensor": {"dtype": 14, "sizes": [{"as_int": 6}], "requires_grad": false, "device": {"type": "cuda", "index": 1},
                            "strides": [{"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7}},
      "sym_int_values": {"sym_size": {"as_expr": {"expr_str": "s0"}}, "mul": {"as_expr": {"expr_str": "2*s0"}}},
      "sym_bool_values": {}, "is_single_tensor_return": false, "custom_obj_values": {}},
    "signature": {"input_specs": [{"parameter": {"arg": {"name": "p_fc_weight"}, "parameter_name": "fc.weight"}},
                                  {"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "aten_add_tensor"}}}}]},
    "module_call_graph": [{"fqn": ""}]},
   "opset_version": {"aten": 10}, "range_constraints": {"s0": {"min_val": 2, "max_val": Infinity}},
   "schema_version": {"major": 5, "minor": 3}, "dialect": "", "verifiers": ["EDGE"]})";

  const auto bytes = make_zip({
      {"ETRECORD_V0", ""},
      {"edge_dialect_exported_program", program},
      {"edge_dialect_exported_program_state_dict", empty_state_dict()},
      {"edge_dialect_exported_program_constants", empty_state_dict()},
      {"edge_dialect_exported_program_example_inputs", ""},
      {"export_graph_id", "140211"},
      {"debug_handle_map", R"({"forward": {"0": 1, "1": [2, 3], "3": 5}})"},
      {"delegate_map", R"({"forward": {"1": {"name": "XnnpackBackend", "delegate_map": {"12": [7], "2": [8], "1": 9}}}})"},
      {"instruction_id_to_num_outs_map", R"({"forward": {"1": 2}})"},
  });
  auto r = read_etrecord(bytes);
  REQUIRE(r.ok());
  CHECK(r->version.label == "v1.0-v1.1");
  CHECK(r->warnings.empty());
  const Program* edge = r->edge_program();
  REQUIRE(edge != nullptr);
  const ExportedProgram& p = edge->program;
  CHECK(p.union_form == UnionForm::kNarrow);
  CHECK(p.schema_version == "5.3");
  CHECK(p.verifiers == std::vector<std::string>{"EDGE"});
  REQUIRE(p.range_constraints.size() == 1);
  CHECK(p.range_constraints[0].min_val == 2);
  CHECK(p.range_constraints[0].max_val == std::numeric_limits<double>::infinity());
  REQUIRE(p.input_specs.size() == 2);
  CHECK(p.input_specs[0].kind == "parameter");
  CHECK(p.input_specs[0].arg == "p_fc_weight");
  CHECK(p.input_specs[0].target == "fc.weight");

  // Symbolic ints: a SymInt-producing edge op, then SymInt arithmetic.
  const Node& size = node(*edge, "sym_size");
  CHECK(size.output_names() == std::vector<std::string>{"sym_size"});
  const Node& mul = node(*edge, "mul");
  CHECK(mul.kind == OpKind::kSymbolic);
  CHECK(mul.op == "mul");
  CHECK(ref(mul.inputs[0].arg.items[0]) == "sym_size");
  CHECK(std::get<int64_t>(mul.inputs[1].arg.items[0]) == 2);
  CHECK(p.graph.sym_int_values.at("mul").expr == "2*s0");

  const Node& full = node(*edge, "aten_full_default");
  const Argument& sizes = full.inputs[0].arg;
  CHECK(sizes.is_list);
  REQUIRE(sizes.items.size() == 2);
  CHECK(ref(sizes.items[0]) == "mul");
  CHECK(std::get<int64_t>(sizes.items[1]) == 4);
  CHECK(std::get<double>(full.inputs[1].arg.items[0]) == -std::numeric_limits<double>::infinity());
  CHECK(std::get<int64_t>(full.inputs[2].arg.items[0]) == 7);
  CHECK(std::get<std::string>(full.inputs[3].arg.items[0]) == "cpu");
  REQUIRE(full.metadata.nn_module_stack.has_value());
  REQUIRE(full.metadata.nn_module_stack->size() == 2);
  CHECK((*full.metadata.nn_module_stack)[1].path == "L['self'].blocks[0]");
  CHECK(full.metadata.torch_fn->first == "full_1");
  REQUIRE(full.metadata.from_node.has_value());
  CHECK((*full.metadata.from_node)[0].graph_id == 140211);
  CHECK(last_frame(*full.metadata.stack_trace)->line == 12);

  // The delegate call: two outputs, the lowered module decoded from its first input.
  const Node& call = node(*edge, "executorch_call_delegate");
  CHECK(call.kind == OpKind::kDelegateCall);
  CHECK(call.op == "executorch_call_delegate");
  CHECK(call.output_names() == std::vector<std::string>{"getitem", "getitem_1"});
  REQUIRE(call.lowered != nullptr);
  CHECK(call.lowered->backend_id == "XnnpackBackend");
  CHECK(call.lowered->processed_bytes == 5);  // "aGVsbG8=" is "hello"
  CHECK(call.lowered->compile_spec_keys == std::vector<std::string>{"max_threads"});
  REQUIRE(call.lowered->original_module != nullptr);
  REQUIRE(call.lowered->original_module->graph.nodes.size() == 1);
  CHECK(call.lowered->original_module->graph.nodes[0].metadata.debug_handle == 7);

  // cond with two nested graphs, NaN inside.
  const Node& cond = node(*edge, "cond");
  CHECK(cond.kind == OpKind::kHigherOrder);
  CHECK(cond.op == "cond");
  REQUIRE(cond.inputs[1].arg.graph != nullptr);
  CHECK(cond.inputs[1].arg.graph_name == "true_graph_0");
  const Graph& branch_graph = *cond.inputs[1].arg.graph;
  REQUIRE(branch_graph.nodes.size() == 1);
  CHECK(branch_graph.is_single_tensor_return);
  CHECK(std::isnan(std::get<double>(branch_graph.nodes[0].inputs[1].arg.items[0])));
  CHECK(cond.output_names() == std::vector<std::string>{"getitem_2"});

  const Node& add = node(*edge, "aten_add_tensor");
  const Argument& optional = add.inputs[1].arg;
  REQUIRE(optional.items.size() == 2);
  CHECK(ref(optional.items[0]) == "aten_full_default");
  CHECK(std::holds_alternative<std::monostate>(optional.items[1]));
  CHECK(std::get<double>(add.inputs[2].arg.items[0]) == std::numeric_limits<double>::infinity());

  const TensorMeta* x = p.graph.tensor("x");
  REQUIRE(x != nullptr);
  CHECK(x->sizes[0].expr == "s0");
  CHECK(x->sizes[0].hint == 3);
  CHECK(x->sizes[1].value == 4);
  const TensorMeta* out = p.graph.tensor("aten_add_tensor");
  CHECK(serde_dtype_name(out->dtype) == "uint16");
  CHECK(out->device == "cuda:1");

  // Maps: int vs list handles, delegate ids in file order, num outs, graph id.
  const auto& handles = r->debug_handle_map->at("forward");
  CHECK_FALSE(handles.at("0").is_list);
  CHECK(handles.at("0").values == std::vector<int64_t>{1});
  CHECK(handles.at("1").is_list);
  CHECK(handles.at("1").values == std::vector<int64_t>{2, 3});
  const DelegateInfo& info = r->delegate_map->at("forward").at("1");
  CHECK(info.name == "XnnpackBackend");
  REQUIRE(info.delegate_map.size() == 3);
  CHECK(info.delegate_map[0].first == "12");
  CHECK(info.delegate_map[1].first == "2");
  CHECK(info.delegate_map[2].first == "1");
  CHECK_FALSE(info.delegate_map[2].second.is_list);
  CHECK(r->num_outs_map->at("forward").at("1") == 2);
  CHECK(r->export_graph_id == 140211);

  // Side-cars: constants readable, example inputs empty.
  REQUIRE(r->side_cars.size() == 3);
  CHECK(r->side_cars[1].kind == EntryKind::kConstants);
  CHECK(r->side_cars[1].status == SideCar::Status::kReadable);
  CHECK(r->side_cars[2].kind == EntryKind::kExampleInputs);
  CHECK(r->side_cars[2].status == SideCar::Status::kEmpty);
}

TEST_CASE("etrecord: wide unions pick the one non-null key, falsy values included", "[etrecord][reader]") {
  auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", wide_program()},
                                   {"debug_handle_map", "{}"}, {"delegate_map", "{}"}}));
  REQUIRE(r.ok());
  CHECK(r->version.label == "v0.2-v0.3");
  const ExportedProgram& p = r->edge_program()->program;
  CHECK(p.union_form == UnionForm::kWide);
  CHECK(p.dialect == "EDGE");
  const Node& add = p.graph.nodes[0];
  CHECK(add.name == "y");
  CHECK(add.inputs[2].arg.variant == "as_int");
  CHECK(std::get<int64_t>(add.inputs[2].arg.items[0]) == 0);
  CHECK(add.inputs[3].arg.variant == "as_bool");
  CHECK(std::get<bool>(add.inputs[3].arg.items[0]) == false);
  CHECK(add.inputs[4].arg.variant == "as_none");
  CHECK(p.graph.tensor("x")->storage_offset.value == 0);
  CHECK(p.output_specs[0].arg == "y");
}

TEST_CASE("etrecord: unions with no value or two values are malformed", "[etrecord][reader]") {
  std::string two = wide_program();
  const std::string from = R"({"as_none": null, "as_tensor": null, "as_int": 0, "as_bool": null})";
  two.replace(two.find(from), from.size(), R"({"as_none": null, "as_tensor": null, "as_int": 0, "as_bool": true})");
  auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", two}}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "edge_dialect_exported_program.graph_module.graph.nodes[0].inputs[2].arg");
  CHECK(r.error().message == "union with 2 values (as_int, as_bool)");

  std::string none = wide_program();
  none.replace(none.find(from), from.size(), R"({"as_none": null, "as_tensor": null})");
  auto n = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", none}}));
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().message == "union without a value");
}

TEST_CASE("etrecord: the version timeline (spec 2)", "[etrecord][reader]") {
  const std::string v04 = narrow_program(R"({"major": 5, "minor": 3})");
  const std::string v13 = narrow_program(R"({"major": 5, "minor": 4})", R"("name": "aten_mul_tensor", )");
  const std::string named = narrow_program(R"({"major": 5, "minor": 3})", R"("name": "aten_mul_tensor", )");
  const std::string pickled_none("\x80\x04N.", 4);
  struct Case {
    std::string label;
    std::vector<std::pair<std::string, std::string>> entries;
  };
  const std::vector<Case> cases = {
      {"pre-release (2023)", {{"ETRECORD_V0", ""}, {"et_dialect_graph_module/forward", v04}, {"program_buffer", "ET12"}}},
      {"v0.2-v0.3", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", wide_program()}}},
      {"v0.4-v0.6", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", v04},
                     {"edge_dialect_exported_program_constants", empty_state_dict()}}},
      {"v0.7", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", v04}, {"representative_inputs", pickled_none}}},
      {"v1.0-v1.1", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", named}, {"exported_program", named},
                     {"instruction_id_to_num_outs_map", "{}"}}},
      {"v1.2", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program/forward", named},
                {"edge_dialect_exported_program/decode", named}}},
      {"v1.3+", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program/forward", v13}}},
      {"v1.3+", {{"ETRECORD_V0", ""}, {"edge_dialect_exported_program/forward", named},
                 {"reference_outputs", empty_state_dict()}}},
  };
  for (const Case& c : cases) {
    INFO(c.entries[1].first << " -> " << c.label);
    auto r = read_etrecord(make_zip(c.entries));
    REQUIRE(r.ok());
    CHECK(r->version.label == c.label);
    CHECK_FALSE(r->version.evidence.empty());
  }
}

TEST_CASE("etrecord: v1.2 per-method edge programs", "[etrecord][reader]") {
  const std::string named = narrow_program(R"({"major": 5, "minor": 3})", R"("name": "aten_mul_tensor", )");
  auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""},
                                   {"edge_dialect_exported_program/forward", named},
                                   {"edge_dialect_exported_program/forward_state_dict", empty_state_dict()},
                                   {"edge_dialect_exported_program/decode", named},
                                   {"edge_after_transform/forward", named}}));
  REQUIRE(r.ok());
  CHECK(r->edge_program_count() == 2);
  REQUIRE(r->edge_program("decode") != nullptr);
  CHECK(r->edge_program("decode")->entry == "edge_dialect_exported_program/decode");
  CHECK(r->edge_program("missing") == nullptr);
  CHECK(r->entries[2].kind == EntryKind::kStateDict);
  CHECK(r->entries[2].program == "edge_dialect_exported_program/forward");
  CHECK(r->find_program("edge_after_transform/forward")->kind == EntryKind::kExtraProgram);
  CHECK(r->edge_program("forward")->program.graph.nodes[0].name == "aten_mul_tensor");
}

TEST_CASE("etrecord: side-cars that need Python are reported, not errors", "[etrecord][reader]") {
  const std::string v04 = narrow_program(R"({"major": 5, "minor": 3})");
  // A v0.2-v1.2 reference_outputs: {'forward': [[tensor]]} pickled with the tensor's storage rebuilt by
  // torch.storage._load_from_bytes (protocol 4 opcodes, as pickle.dumps writes).
  std::string legacy("\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00", 11);
  legacy += std::string("\x8c\x0dtorch.storage\x94\x8c\x10_load_from_bytes\x94\x93\x94.", 38);
  // A malformed state dict (not a zip, not a pickle).
  const auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""},
                                         {"edge_dialect_exported_program", v04},
                                         {"edge_dialect_exported_program_state_dict", "garbage"},
                                         {"reference_outputs", legacy},
                                         {"representative_inputs", std::string("\x80\x04N.", 4)}}));
  REQUIRE(r.ok());
  REQUIRE(r->side_cars.size() == 3);
  CHECK(r->side_cars[0].status == SideCar::Status::kMalformed);
  CHECK(r->side_cars[1].status == SideCar::Status::kNeedsPython);
  CHECK_FALSE(r->side_cars[1].torch_save_zip);
  CHECK(r->side_cars[1].note.find("plain pickle (ExecuTorch v0.2-v1.2)") == 0);
  CHECK(r->side_cars[1].note.find("torch.storage._load_from_bytes") != std::string::npos);
  CHECK(r->side_cars[2].status == SideCar::Status::kReadable);
  CHECK(r->side_cars[2].content.root_type == "None");
}

TEST_CASE("etrecord: files that are not ETRecords or have broken entries", "[etrecord][reader]") {
  auto not_zip = read_etrecord(ByteSpan(reinterpret_cast<const uint8_t*>("hello world, not a zip"), 22));
  REQUIRE_FALSE(not_zip.ok());
  CHECK(not_zip.error().message.find("not a readable zip archive") == 0);

  auto no_marker = read_etrecord(make_zip({{"debug_handle_map", "{}"}}));
  REQUIRE_FALSE(no_marker.ok());
  CHECK(no_marker.error().message == "not an ETRecord: no ETRECORD_V0 entry among 1 zip entries");

  auto bad_json = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", "{\"graph_module\": "}}));
  REQUIRE_FALSE(bad_json.ok());
  CHECK(bad_json.error().field == "edge_dialect_exported_program");
  CHECK(bad_json.error().message.find("json: ") == 0);

  auto bad_handles = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"debug_handle_map", R"({"forward": {"0": "1"}})"}}));
  REQUIRE_FALSE(bad_handles.ok());
  CHECK(bad_handles.error().field == "debug_handle_map.forward.0");

  auto bad_id = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"export_graph_id", "\"x\""}}));
  REQUIRE_FALSE(bad_id.ok());
  CHECK(bad_id.error().field == "export_graph_id");

  // Hostile nesting in a program is bounded by the JSON depth limit.
  auto deep = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", std::string(5000, '[')}}));
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().message.find("nesting deeper than") != std::string::npos);
}

TEST_CASE("etrecord: duplicate entries and side-cars without programs are warnings", "[etrecord][reader]") {
  auto r = read_etrecord(raw_zip({{"ETRECORD_V0", ""},
                                  {"debug_handle_map", R"({"forward": {"0": 1}})"},
                                  {"debug_handle_map", R"({"forward": {"0": 2}})"},
                                  {"lost_state_dict", empty_state_dict()}}));
  REQUIRE(r.ok());
  CHECK(r->debug_handle_map->at("forward").at("0").values == std::vector<int64_t>{2});
  REQUIRE(r->warnings.size() == 2);
  CHECK(r->warnings[0] == "entry 'debug_handle_map' appears more than once; the last one is used");
  CHECK(r->warnings[1] == "side-car 'lost_state_dict' belongs to no program entry");
}

TEST_CASE("etrecord: mutated program JSON, maps and pickles fail cleanly or read", "[etrecord][reader]") {
  // Entries of a small but complete record, mutated one at a time and re-zipped
  // (so the ZIP CRCs pass and the parsers see the damage).
  const std::string program = narrow_program(R"({"major": 5, "minor": 3})", R"("name": "aten_mul_tensor", )");
  // {'w': tensor [2, 3] float32}, protocol 2 as torch.save writes it (pieces split where a hex escape would run on).
  using namespace std::string_literals;  // ""s keeps the NUL bytes
  const std::string pkl = "\x80\x02}q\x00(X\x01\x00\x00\x00"s + "wq\x01" +
                          "ctorch._utils\n_rebuild_tensor_v2\nq\x02((X\x07\x00\x00\x00"s + "storageq\x03" +
                          "ctorch\nFloatStorage\nq\x04X\x01\x00\x00\x00"s + "0q\x05X\x03\x00\x00\x00"s +
                          "cpuq\x06K\x06tq\x07QK\x00K\x02K\x03\x86q\x08K\x03K\x01\x86q\x09\x89"s +
                          "ccollections\nOrderedDict\nq\x0a)Rq\x0btq\x0cRq\x0du.";
  const auto state_dict = [&](const std::string& p) {
    const auto zip = make_zip({{"archive/data.pkl", p}, {"archive/data/0", std::string(24, '\0')}, {"archive/version", "3\n"}});
    return std::string(zip.begin(), zip.end());
  };
  {
    auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", program},
                                     {"edge_dialect_exported_program_state_dict", state_dict(pkl)}}));
    REQUIRE(r.ok());
    INFO(r->side_cars[0].note);
    REQUIRE(r->side_cars[0].status == SideCar::Status::kReadable);
    REQUIRE(r->side_cars[0].content.tensors.size() == 1);
    CHECK(r->side_cars[0].content.tensors[0].sizes == std::vector<int64_t>{2, 3});
  }
  const std::string maps = R"({"forward": {"0": 1, "1": [2, 3]}})";
  std::mt19937 rng(7);
  int read_ok = 0, refused = 0;
  for (int round = 0; round < 600; ++round) {
    std::string p = program, s = pkl, m = maps;
    std::string& target = round % 3 == 0 ? p : round % 3 == 1 ? s : m;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k) {
      const size_t at = rng() % target.size();
      switch (rng() % 3) {
        case 0: target[at] = static_cast<char>(rng() % 256); break;
        case 1: target.erase(at, 1 + rng() % 4); break;
        default: target.insert(at, 1, "{[\"]}:,0N"[rng() % 9]);
      }
      if (target.empty()) target.assign(1, 'x');
    }
    auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", p},
                                     {"edge_dialect_exported_program_state_dict", state_dict(s)},
                                     {"debug_handle_map", m}}));
    (r.ok() ? read_ok : refused) += 1;
  }
  CHECK(read_ok + refused == 600);
  CHECK(refused > 0);
}

TEST_CASE("etrecord: lowered modules nested too deeply are a warning", "[etrecord][reader]") {
  // A program whose only node is a delegate call embedding `inner` (a lowered module's JSON, or "" for none).
  const auto program_with_delegate = [](const std::string& inner) {
    const std::string node =
        inner.empty()
            ? std::string()
            : R"({"name": "executorch_call_delegate", "target": "torch.ops.higher_order.executorch_call_delegate",
                  "inputs": [{"name": "lowered_module_0", "arg": {"as_string": )" +
                  nlohmann::json(inner).dump() + R"(}}], "outputs": [], "metadata": {}})";
    return R"({"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [)" + node +
           R"(]}}, "schema_version": {"major": 5, "minor": 3}})";
  };
  std::string lowered;  // innermost: a module without delegates
  for (int level = 0; level < 6; ++level) {
    lowered = R"({"backend_id": "B)" + std::to_string(level) + R"(", "original_module": )" +
              program_with_delegate(lowered) + "}";
  }
  auto r = read_etrecord(make_zip({{"ETRECORD_V0", ""}, {"edge_dialect_exported_program", program_with_delegate(lowered)}}));
  REQUIRE(r.ok());
  // Four levels are decoded; the fifth is named in a warning.
  const Node* call = &r->edge_program()->program.graph.nodes[0];
  for (int level = 0; level < 4; ++level) {
    REQUIRE(call->lowered != nullptr);
    REQUIRE(call->lowered->original_module != nullptr);
    call = &call->lowered->original_module->graph.nodes[0];
  }
  CHECK(call->lowered == nullptr);
  REQUIRE(call->metadata.problems.size() == 1);
  CHECK(call->metadata.problems[0] == "lowered module: lowered modules nested deeper than 4");
}
