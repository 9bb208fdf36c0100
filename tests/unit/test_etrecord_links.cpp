// links_from_etrecord: the demo LeNet's ETRecord links every kernel
// instruction of lenet.pte to a node with a stack trace and module path; other
// records give warnings for what is missing.
#include <cmath>
#include <cstring>
#include <fstream>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/etrecord/etrecord_writer.h"
#include "libcore/formats/etrecord/node_metadata.h"
#include "libcore/inspect/etrecord_links.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;

namespace {

const EtRecord& demo_record() {
  static const EtRecord record = [] {
    auto bytes = demo::lenet_etrecord(demo::lenet());
    REQUIRE(bytes.ok());
    auto r = read_etrecord(*bytes);
    REQUIRE(r.ok());
    return std::move(*r);
  }();
  return record;
}

std::vector<std::string> lenet_py_lines() {
  std::ifstream in(std::string(ETKIT_SCHEMAS_DIR) + "/../examples/lenet.py");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(' ');
  return a == std::string::npos ? std::string() : s.substr(a);
}

}  // namespace

TEST_CASE("demo etrecord: every kernel instruction of lenet.pte links to a node with a trace and module path", "[etrecord][links]") {
  const pte::Program program = demo::lenet();
  const pte::ExecutionPlan& plan = *program.find_method("forward");
  auto links = inspect::links_from_etrecord(demo_record());
  REQUIRE(links.ok());
  CHECK(links->warnings.empty());
  CHECK(links->method == "forward");
  REQUIRE(links->delegate_map.has_value());
  CHECK(links->delegate_map->empty());
  CHECK(links->num_outs_map.empty());

  const auto& instructions = plan.chains[0].instructions;
  REQUIRE(instructions.size() == 14);
  CHECK(links->debug_handle_map.size() == instructions.size());
  for (size_t i = 0; i < instructions.size(); ++i) {
    INFO("instruction " << i);
    const auto& kernel = std::get<pte::KernelCall>(instructions[i]);
    const pte::Operator& op = plan.operators[static_cast<size_t>(kernel.op_index)];
    const auto it = links->debug_handle_map.find(std::to_string(i));
    REQUIRE(it != links->debug_handle_map.end());
    CHECK_FALSE(it->second.is_list);
    REQUIRE(it->second.values.size() == 1);
    // aten::convolution.out runs the edge node aten.convolution.default.
    const std::string label = "aten." + op.name.substr(6) + ".default";
    int found = 0;
    for (const inspect::OpNode& node : links->op_nodes) {
      if (node.debug_handle != it->second.values[0] || node.op != label) continue;
      ++found;
      CHECK(node.name.back() == '_');
      REQUIRE(node.stack_trace.has_value());
      CHECK(last_frame(*node.stack_trace).has_value());
      REQUIRE(node.nn_module_stack.has_value());
      REQUIRE(node.nn_module_stack->size() >= 2);
      CHECK(node.nn_module_stack->front().type == "lenet.LeNet");
      CHECK_FALSE(node.nn_module_stack->back().path.empty());
    }
    CHECK(found == 1);
  }
  // Linear layers: permute_copy and addmm share the handle of their nn.Linear call (etrecord_spec.md §5.5).
  CHECK(links->debug_handle_map.at("6").values == links->debug_handle_map.at("7").values);
  CHECK(links->debug_handle_map.at("5").values != links->debug_handle_map.at("6").values);
}

TEST_CASE("demo etrecord: the edge program mirrors the program's kernels and lenet.py", "[etrecord][links]") {
  const EtRecord& r = demo_record();
  CHECK(r.version.label == "v1.2");
  const Program* edge = r.edge_program("forward");
  REQUIRE(edge != nullptr);
  const auto& nodes = edge->program.graph.nodes;
  // 14 kernels plus the flatten the program elides.
  REQUIRE(nodes.size() == 15);
  const std::vector<std::string> ops = {
      "aten.convolution.default", "aten.relu.default",   "aten.max_pool2d_with_indices.default",
      "aten.convolution.default", "aten.relu.default",   "aten.max_pool2d_with_indices.default",
      "aten.view_copy.default",   "aten.permute_copy.default", "aten.addmm.default",
      "aten.relu.default",        "aten.permute_copy.default", "aten.addmm.default",
      "aten.relu.default",        "aten.permute_copy.default", "aten.addmm.default"};
  for (size_t i = 0; i < ops.size(); ++i) CHECK(nodes[i].op == ops[i]);

  // Shapes follow LeNet: conv1 [1,6,28,28], pool2 [1,16,5,5], flatten [1,400], logits [1,10].
  const auto shape = [&](const std::string& name) {
    std::vector<int64_t> s;
    for (const SymInt& d : edge->program.graph.tensor(name)->sizes) s.push_back(*d.value);
    return s;
  };
  CHECK(shape(nodes[0].name) == std::vector<int64_t>{1, 6, 28, 28});
  CHECK(shape(nodes[5].output_names()[0]) == std::vector<int64_t>{1, 16, 5, 5});
  CHECK(edge->program.graph.tensor(nodes[5].output_names()[1])->dtype == 5);  // int64 indices
  CHECK(shape(nodes[6].name) == std::vector<int64_t>{1, 400});
  CHECK(shape(nodes[14].name) == std::vector<int64_t>{1, 10});
  // The flatten reads the second pool's values; fc1's addmm reads the flatten.
  CHECK(std::get<ArgRef>(nodes[6].inputs[0].arg.items[0]).name == nodes[5].output_names()[0]);
  CHECK(std::get<ArgRef>(nodes[8].inputs[1].arg.items[0]).name == nodes[6].name);
  // Defaulted trailing arguments are left out, as torch's decompositions pass them.
  CHECK(nodes[2].inputs.size() == 3);  // self, kernel_size, stride
  CHECK(nodes[8].inputs.size() == 3);  // self, mat1, mat2 (beta = alpha = 1)
  CHECK(nodes[0].inputs.size() == 9);

  // Every stack frame quotes the line of examples/lenet.py it names.
  const auto lines = lenet_py_lines();
  REQUIRE(lines.size() > 60);
  for (const Node& n : nodes) {
    INFO(n.name);
    const auto frames = parse_stack_trace(*n.metadata.stack_trace);
    REQUIRE_FALSE(frames.empty());
    for (const SourceLocation& f : frames) {
      CHECK(f.file == "examples/lenet.py");
      REQUIRE(f.line >= 1);
      REQUIRE(static_cast<size_t>(f.line) <= lines.size());
      CHECK(trim(lines[static_cast<size_t>(f.line) - 1]) == f.code);
    }
  }
  CHECK(module_path(*nodes[0].metadata.nn_module_stack) == "features.conv1");
  CHECK(module_path(*nodes[1].metadata.nn_module_stack) == "features");
  CHECK(module_path(*nodes[6].metadata.nn_module_stack).empty());
  CHECK(module_path(*nodes[13].metadata.nn_module_stack) == "classifier.fc3");
}

TEST_CASE("demo etrecord: the state dict holds the program's weights", "[etrecord][links]") {
  const pte::Program program = demo::lenet();
  auto bytes = demo::lenet_etrecord(program);
  REQUIRE(bytes.ok());
  auto r = read_etrecord(*bytes);
  REQUIRE(r.ok());
  const SideCar& state = r->side_cars[0];
  REQUIRE(state.status == SideCar::Status::kReadable);
  REQUIRE(state.content.tensors.size() == 10);
  CHECK(state.content.tensors[0].path == "features.conv1.weight");
  CHECK(state.content.tensors[0].sizes == std::vector<int64_t>{6, 1, 5, 5});
  CHECK(state.content.tensors[9].path == "classifier.fc3.bias");
  // demo_models.cpp draws conv1's weight as weights(150, seed 1, 1/sqrt(25)).
  auto zip = ZipReader::open(*bytes);
  REQUIRE(zip.ok());
  const auto archive = *zip->read(*zip->find("edge_dialect_exported_program/forward_state_dict"));
  auto stored = read_torch_storage(archive, state.content, state.content.tensors[0].storage_key);
  REQUIRE(stored.ok());
  const auto expected = demo::weights(150, 1, 1.0f / std::sqrt(25.0f));
  REQUIRE(stored->size() == expected.size() * 4);
  CHECK(std::memcmp(stored->data(), expected.data(), stored->size()) == 0);
  // The parameters are the placeholders the signature names.
  CHECK(r->edge_program()->program.input_specs[0].target == "features.conv1.weight");
}

TEST_CASE("demo etrecord: a program that is not lenet.py's is refused", "[etrecord][links]") {
  auto mlp = demo::lenet_etrecord(demo::mlp());
  REQUIRE_FALSE(mlp.ok());
  CHECK(mlp.error().message.find("the demo program and examples/lenet.py disagree") == 0);
}

TEST_CASE("links: the 2023 fixture has a graph but empty maps", "[etrecord][links][fixture]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = read_etrecord_file(test::fixture("etrecord/mul_2023.etrecord").string());
  REQUIRE(r.ok());
  auto links = inspect::links_from_etrecord(*r);
  REQUIRE(links.ok());
  CHECK(links->debug_handle_map.empty());
  REQUIRE(links->delegate_map.has_value());
  CHECK(links->delegate_map->empty());
  REQUIRE(links->op_nodes.size() == 1);
  const inspect::OpNode& mul = links->op_nodes[0];
  CHECK(mul.name == "aten_mul_tensor_");  // spec 8: forward[aten_mul_tensor_ (op aten.mul.Tensor, debug_handle 2)]
  CHECK(mul.op == "aten.mul.Tensor");
  CHECK(mul.debug_handle == 2);
  CHECK(mul.stack_trace.has_value());
  CHECK_FALSE(mul.nn_module_stack.has_value());
  REQUIRE(links->warnings.size() == 3);
  CHECK(links->warnings[0] == "debug_handle_map has no method 'forward' (methods: none): no event can be linked to graph nodes");
  CHECK(links->warnings[1] == "delegate_map has no method 'forward' (methods: none): delegated events fall back to debug_handle_map");
  CHECK(links->warnings[2] == "the etrecord has no instruction_id_to_num_outs_map: every event counts one output");
}

TEST_CASE("links: marker-only records, other methods, several edge programs, memory.alloc", "[etrecord][links]") {
  ETKIT_REQUIRE_FIXTURES();
  auto empty = read_etrecord_file(test::fixture("etrecord/marker_only.etrecord").string());
  REQUIRE(empty.ok());
  auto none = inspect::links_from_etrecord(*empty);
  REQUIRE(none.ok());
  CHECK(none->op_nodes.empty());
  CHECK_FALSE(none->delegate_map.has_value());
  REQUIRE(none->warnings.size() == 3);
  CHECK(none->warnings[2] == "no edge program for method 'forward' (0 edge programs): events get no stack traces or module paths");

  // Another method of a single-method record: the maps warn, the only edge program is used.
  auto other = inspect::links_from_etrecord(demo_record(), "decode");
  REQUIRE(other.ok());
  CHECK(other->method == "decode");
  CHECK(other->debug_handle_map.empty());
  CHECK(other->op_nodes.size() == 15);
  REQUIRE(other->warnings.size() == 4);
  CHECK(other->warnings[0] == "debug_handle_map has no method 'decode' (methods: forward): no event can be linked to graph nodes");
  CHECK(other->warnings[3] ==
        "no edge program for method 'decode': linking against the only one, 'edge_dialect_exported_program/forward'");

  // Two edge programs, neither of them the method asked for; memory.alloc nodes are not op nodes.
  ExportedProgram p = demo_record().edge_program()->program;
  Node alloc;
  alloc.name = "alloc";
  alloc.target = "memory.alloc";
  std::tie(alloc.kind, alloc.op) = classify_target(alloc.target);
  p.graph.nodes.insert(p.graph.nodes.begin(), alloc);
  EtRecordWriter w;
  w.add_program("edge_dialect_exported_program/forward", p);
  w.add_program("edge_dialect_exported_program/decode", p);
  auto two = read_etrecord(*w.finish());
  REQUIRE(two.ok());
  auto forward = inspect::links_from_etrecord(*two, "forward");
  REQUIRE(forward.ok());
  CHECK(forward->op_nodes.size() == 15);
  CHECK(forward->op_nodes[0].name == "aten_convolution_default_");
  auto missing = inspect::links_from_etrecord(*two, "prefill");
  REQUIRE(missing.ok());
  CHECK(missing->op_nodes.empty());
  CHECK(missing->warnings.back() ==
        "no edge program for method 'prefill' (2 edge programs): events get no stack traces or module paths");
}
