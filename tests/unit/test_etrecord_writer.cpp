// The ETRecord writer: what it writes reads back to the same model, in both
// union encodings, and its wide form is the 2023 fixture's JSON.
#include <cmath>
#include <nlohmann/json.hpp>

#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/etrecord/etrecord_writer.h"
#include "libcore/formats/etrecord/node_metadata.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;

namespace {

bool same_item(const ArgItem& a, const ArgItem& b) {
  if (a.index() != b.index()) return false;
  if (const double* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    return (std::isnan(*x) && std::isnan(y)) || *x == y;
  }
  if (const ArgRef* x = std::get_if<ArgRef>(&a)) return x->name == std::get<ArgRef>(b).name;
  return a == b;
}

void check_same_graph(const Graph& a, const Graph& b, bool compare_names);

void check_same_argument(const Argument& a, const Argument& b, bool compare_names) {
  CHECK(a.variant == b.variant);
  CHECK(a.is_list == b.is_list);
  REQUIRE(a.items.size() == b.items.size());
  for (size_t i = 0; i < a.items.size(); ++i) CHECK(same_item(a.items[i], b.items[i]));
  CHECK((a.graph == nullptr) == (b.graph == nullptr));
  if (a.graph && b.graph) {
    CHECK(a.graph_name == b.graph_name);
    check_same_graph(*a.graph, *b.graph, compare_names);
  }
}

void check_same_sym(const SymInt& a, const SymInt& b) {
  CHECK(a.value == b.value);
  CHECK(a.expr == b.expr);
  CHECK(a.hint == b.hint);
}

void check_same_graph(const Graph& a, const Graph& b, bool compare_names) {
  REQUIRE(a.inputs.size() == b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) check_same_argument(a.inputs[i], b.inputs[i], compare_names);
  REQUIRE(a.outputs.size() == b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) check_same_argument(a.outputs[i], b.outputs[i], compare_names);
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    INFO("node " << x.name);
    if (compare_names) CHECK(x.name == y.name);
    CHECK(x.target == y.target);
    CHECK(x.op == y.op);
    CHECK(x.kind == y.kind);
    REQUIRE(x.inputs.size() == y.inputs.size());
    for (size_t k = 0; k < x.inputs.size(); ++k) {
      CHECK(x.inputs[k].name == y.inputs[k].name);
      check_same_argument(x.inputs[k].arg, y.inputs[k].arg, compare_names);
    }
    REQUIRE(x.outputs.size() == y.outputs.size());
    for (size_t k = 0; k < x.outputs.size(); ++k) check_same_argument(x.outputs[k], y.outputs[k], compare_names);
    CHECK(x.metadata.entries == y.metadata.entries);
    CHECK(x.metadata.debug_handle == y.metadata.debug_handle);
  }
  REQUIRE(a.tensor_values.size() == b.tensor_values.size());
  for (const auto& [name, meta] : a.tensor_values) {
    const TensorMeta* other = b.tensor(name);
    REQUIRE(other != nullptr);
    CHECK(meta.dtype == other->dtype);
    REQUIRE(meta.sizes.size() == other->sizes.size());
    for (size_t d = 0; d < meta.sizes.size(); ++d) check_same_sym(meta.sizes[d], other->sizes[d]);
    REQUIRE(meta.strides.size() == other->strides.size());
    for (size_t d = 0; d < meta.strides.size(); ++d) check_same_sym(meta.strides[d], other->strides[d]);
    check_same_sym(meta.storage_offset, other->storage_offset);
    CHECK(meta.device == other->device);
    CHECK(meta.layout == other->layout);
    CHECK(meta.requires_grad == other->requires_grad);
  }
  CHECK(a.sym_int_values.size() == b.sym_int_values.size());
  CHECK(a.sym_bool_values == b.sym_bool_values);
  CHECK(a.is_single_tensor_return == b.is_single_tensor_return);
}

void check_same_program(const ExportedProgram& a, const ExportedProgram& b, bool compare_names = true) {
  check_same_graph(a.graph, b.graph, compare_names);
  REQUIRE(a.input_specs.size() == b.input_specs.size());
  for (size_t i = 0; i < a.input_specs.size(); ++i) {
    CHECK(a.input_specs[i].kind == b.input_specs[i].kind);
    CHECK(a.input_specs[i].arg == b.input_specs[i].arg);
    CHECK(a.input_specs[i].target == b.input_specs[i].target);
    CHECK(a.input_specs[i].persistent == b.input_specs[i].persistent);
  }
  REQUIRE(a.output_specs.size() == b.output_specs.size());
  for (size_t i = 0; i < a.output_specs.size(); ++i) {
    CHECK(a.output_specs[i].kind == b.output_specs[i].kind);
    CHECK(a.output_specs[i].arg == b.output_specs[i].arg);
  }
  CHECK(a.module_call_fqns == b.module_call_fqns);
  CHECK(a.opset_version == b.opset_version);
  REQUIRE(a.range_constraints.size() == b.range_constraints.size());
  for (size_t i = 0; i < a.range_constraints.size(); ++i) {
    CHECK(a.range_constraints[i].symbol == b.range_constraints[i].symbol);
    CHECK(a.range_constraints[i].min_val == b.range_constraints[i].min_val);
    CHECK(a.range_constraints[i].max_val == b.range_constraints[i].max_val);
  }
  CHECK(a.schema_version == b.schema_version);
}

Argument tensor_arg(const std::string& name) { return Argument{"as_tensor", false, {ArgRef{name}}, nullptr, {}}; }

SymInt concrete(int64_t v) { return SymInt{v, {}, {}}; }

TensorMeta meta(int64_t dtype, std::vector<SymInt> sizes) {
  TensorMeta m;
  m.dtype = dtype;
  m.sizes = sizes;
  m.strides.assign(sizes.size(), concrete(1));
  m.storage_offset = concrete(0);
  m.layout = 7;
  return m;
}

Node make_node(std::string name, std::string target, std::vector<NamedArgument> inputs, std::vector<Argument> outputs,
               std::vector<std::pair<std::string, std::string>> metadata) {
  Node n;
  n.name = std::move(name);
  n.target = std::move(target);
  std::tie(n.kind, n.op) = classify_target(n.target);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  JsonValue m = JsonValue::object();
  for (auto& [k, v] : metadata) m.set(k, v);
  n.metadata = parse_node_metadata(m);
  return n;
}

// A program using most of the model: symbolic sizes, NaN/Infinity, lists
// with None, a nested graph, several spec kinds.
ExportedProgram rich_program() {
  ExportedProgram p;
  Graph& g = p.graph;
  g.inputs = {tensor_arg("p_w"), tensor_arg("b_running"), tensor_arg("x")};
  g.tensor_values["p_w"] = meta(7, {concrete(4)});
  g.tensor_values["b_running"] = meta(5, {concrete(4)});
  g.tensor_values["x"] = meta(7, {SymInt{std::nullopt, "s0", 3}, concrete(4)});
  g.tensor_values["x"].device = "cuda:0";
  g.sym_int_values["sym_size"] = SymInt{std::nullopt, "s0", std::nullopt};
  g.sym_bool_values["ge"] = "s0 >= 2";
  g.nodes.push_back(make_node("sym_size", "executorch.exir.dialects.edge.ops.aten.sym_size.int",
                              {{"self", tensor_arg("x")}, {"dim", Argument{"as_int", false, {int64_t{0}}, nullptr, {}}}},
                              {Argument{"as_sym_int", false, {ArgRef{"sym_size"}}, nullptr, {}}}, {}));
  auto branch = std::make_shared<Graph>();
  branch->inputs = {tensor_arg("a")};
  branch->outputs = {tensor_arg("neg")};
  branch->nodes.push_back(make_node("neg", "executorch.exir.dialects.edge.ops.aten.neg.default", {{"self", tensor_arg("a")}},
                                    {tensor_arg("neg")}, {{"debug_handle", "3"}}));
  branch->is_single_tensor_return = true;
  g.nodes.push_back(make_node(
      "aten_clamp_default", "executorch.exir.dialects.edge.ops.aten.clamp.default",
      {{"self", tensor_arg("x")},
       {"min", Argument{"as_float", false, {-std::numeric_limits<double>::infinity()}, nullptr, {}}},
       {"max", Argument{"as_float", false, {std::numeric_limits<double>::quiet_NaN()}, nullptr, {}}},
       {"sizes", Argument{"as_sym_ints", true, {ArgRef{"sym_size"}, int64_t{4}}, nullptr, {}}},
       {"opt", Argument{"as_optional_tensors", true, {ArgRef{"p_w"}, std::monostate{}}, nullptr, {}}},
       {"flags", Argument{"as_bools", true, {true, false}, nullptr, {}}},
       {"names", Argument{"as_strings", true, {std::string("a"), std::string("\xc3\xa9")}, nullptr, {}}},
       {"dtype", Argument{"as_scalar_type", false, {int64_t{7}}, nullptr, {}}},
       {"device", Argument{"as_device", false, {std::string("cpu")}, nullptr, {}}},
       {"none", Argument{"as_none", false, {std::monostate{}}, nullptr, {}}},
       {"fn", Argument{"as_graph", false, {}, branch, "true_graph_0"}}},
      {tensor_arg("aten_clamp_default")},
      {{"stack_trace", "  File \"m.py\", line 3, in forward\n    return x.clamp()\n"},
       {"nn_module_stack", "L__self__,,m.M;L__self___blocks_0,L['self'].blocks[0],m.Block"},
       {"source_fn_stack", "clamp,torch.clamp"},
       {"debug_handle", "1"}}));
  g.tensor_values["aten_clamp_default"] = meta(7, {SymInt{std::nullopt, "s0", std::nullopt}, concrete(4)});
  g.outputs = {tensor_arg("aten_clamp_default")};
  p.input_specs = {InputSpec{"parameter", "p_w", "w", true}, InputSpec{"buffer", "b_running", "running", false},
                   InputSpec{"user_input", "x", "", true}};
  p.output_specs = {OutputSpec{"user_output", "aten_clamp_default", ""}};
  p.module_call_fqns = {""};
  p.opset_version = {{"aten", 10}};
  p.range_constraints = {RangeConstraint{"s0", 2, std::numeric_limits<double>::infinity()}};
  p.schema_version = "5.3";
  p.verifiers = {"EDGE"};
  return p;
}

}  // namespace

TEST_CASE("etrecord writer: a rich program reads back the same in both union forms", "[etrecord][writer]") {
  const ExportedProgram original = rich_program();
  for (JsonStyle style : {JsonStyle::kNarrow, JsonStyle::kWide}) {
    INFO((style == JsonStyle::kWide ? "wide" : "narrow"));
    EtRecordWriter w(style);
    w.add_program("edge_dialect_exported_program", original);
    auto bytes = w.finish();
    REQUIRE(bytes.ok());
    auto r = read_etrecord(*bytes);
    REQUIRE(r.ok());
    const Program* edge = r->edge_program();
    REQUIRE(edge != nullptr);
    CHECK(edge->program.union_form == (style == JsonStyle::kWide ? UnionForm::kWide : UnionForm::kNarrow));
    // The wide (v0.1) form has no node names; single-output nodes get their output's name back.
    check_same_program(original, edge->program, style == JsonStyle::kNarrow);
    CHECK(edge->program.graph.nodes[1].name == "aten_clamp_default");
  }
}

TEST_CASE("etrecord writer: maps, side-cars and entry order", "[etrecord][writer]") {
  EtRecordWriter w;
  ExportedProgram p = rich_program();
  w.add_program("edge_dialect_exported_program/forward", p);
  w.add_entry("edge_dialect_exported_program/forward_state_dict", *write_torch_save_dict({}));
  w.add_entry("edge_dialect_exported_program/forward_example_inputs", {});
  DebugHandleMap handles;
  for (int i = 0; i < 12; ++i) handles["forward"][std::to_string(i)] = Handles{false, {i + 1}};
  handles["forward"]["5"] = Handles{true, {6, 7}};
  w.add_debug_handle_map(handles);
  DelegateMap delegates;
  delegates["forward"]["5"] = DelegateInfo{"XnnpackBackend", {{"12", Handles{true, {6}}}, {"2", Handles{true, {7}}}}};
  w.add_delegate_map(delegates);
  w.add_num_outs_map(NumOutsMap{{"forward", {{"5", 2}}}});
  w.add_export_graph_id(77);
  auto bytes = w.finish();
  REQUIRE(bytes.ok());

  // The raw entries: marker first and empty, STORED, JSON with ids in numeric order.
  auto zip = ZipReader::open(*bytes);
  REQUIRE(zip.ok());
  const std::vector<std::string> names = {"ETRECORD_V0",
                                          "edge_dialect_exported_program/forward",
                                          "edge_dialect_exported_program/forward_state_dict",
                                          "edge_dialect_exported_program/forward_example_inputs",
                                          "debug_handle_map",
                                          "delegate_map",
                                          "instruction_id_to_num_outs_map",
                                          "export_graph_id"};
  REQUIRE(zip->entries().size() == names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    CHECK(zip->entries()[i].name == names[i]);
    CHECK(zip->entries()[i].method == 0);
  }
  CHECK(zip->entries()[0].size == 0);
  const auto map_bytes = *zip->read(*zip->find("debug_handle_map"));
  const auto map_json = nlohmann::ordered_json::parse(map_bytes.begin(), map_bytes.end());
  std::vector<std::string> order;
  for (const auto& [key, value] : map_json["forward"].items()) order.push_back(key);
  CHECK(order == std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"});
  CHECK(map_json["forward"]["5"] == nlohmann::ordered_json::array({6, 7}));
  CHECK(map_json["forward"]["4"] == 5);

  auto r = read_etrecord(*bytes);
  REQUIRE(r.ok());
  CHECK(r->version.label == "v1.2");
  CHECK(r->debug_handle_map->at("forward").size() == 12);
  CHECK(r->debug_handle_map->at("forward").at("5").is_list);
  const DelegateInfo& info = r->delegate_map->at("forward").at("5");
  CHECK(info.name == "XnnpackBackend");
  REQUIRE(info.delegate_map.size() == 2);
  CHECK(info.delegate_map[0].first == "12");
  CHECK(r->num_outs_map->at("forward").at("5") == 2);
  CHECK(r->export_graph_id == 77);
  REQUIRE(r->side_cars.size() == 2);
  CHECK(r->side_cars[0].status == SideCar::Status::kReadable);
  CHECK(r->side_cars[1].status == SideCar::Status::kEmpty);
}

TEST_CASE("etrecord writer: the wide form reproduces the 2023 fixture's JSON", "[etrecord][writer][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto file = test::read_bytes(test::fixture("etrecord/mul_2023.etrecord"));
  auto record = read_etrecord(file);
  REQUIRE(record.ok());
  auto zip = ZipReader::open(file);
  REQUIRE(zip.ok());
  for (const Program& program : record->programs) {
    INFO(program.entry);
    const auto original_bytes = *zip->read(*zip->find(program.entry));
    auto original = nlohmann::json::parse(original_bytes.begin(), original_bytes.end());
    auto ours = nlohmann::json::parse(to_json(exported_program_to_json(program.program, JsonStyle::kWide)));
    // module_call_graph signatures (pytree specs) are not part of the model.
    original["graph_module"].erase("module_call_graph");
    ours["graph_module"].erase("module_call_graph");
    CHECK(ours == original);
  }

  // And the whole file survives a write/read cycle.
  EtRecordWriter w(JsonStyle::kWide);
  for (const Program& program : record->programs) w.add_program(program.entry, program.program);
  w.add_debug_handle_map(*record->debug_handle_map);
  w.add_delegate_map(*record->delegate_map);
  auto again = read_etrecord(*w.finish());
  REQUIRE(again.ok());
  CHECK(again->version.label == "v0.1");
  REQUIRE(again->programs.size() == 2);
  for (size_t i = 0; i < 2; ++i) check_same_program(record->programs[i].program, again->programs[i].program);
}
