// Names of pre-v1.0 nodes, which the serialized graph leaves out: a
// single-output node takes its output's name, others the snake-cased op, and
// a taken name gets the first free suffix _1, _2, ... (etrecord_spec.md §4.3).
#include <chrono>
#include <string>

#include "libcore/formats/etrecord/exported_program_json.h"
#include "libcore/formats/etrecord/json_value.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;

namespace {

// A node without a name whose one output is the tensor `output`.
std::string unnamed_node(const std::string& output) {
  return R"({"target": "torch.ops.aten.relu.default", "inputs": [], "outputs": [{"as_tensor": {"name": ")" + output +
         R"("}}]})";
}

Result<ExportedProgram> program_with_nodes(const std::string& nodes) {
  ETKIT_ASSIGN_OR_RETURN(JsonValue doc,
                         parse_json(R"({"graph_module": {"graph": {"inputs": [], "outputs": [], "nodes": [)" + nodes + "]}}}"));
  return exported_program_from_json(doc);
}

}  // namespace

TEST_CASE("etrecord node names: taken names get the first free suffix", "[etrecord][names]") {
  // x_2 is named explicitly; four unnamed nodes output x, one outputs x_1.
  const std::string nodes =
      R"({"name": "x_2", "target": "torch.ops.aten.relu.default", "inputs": [], "outputs": []},)" + unnamed_node("x") +
      "," + unnamed_node("x") + "," + unnamed_node("x") + "," + unnamed_node("x") + "," + unnamed_node("x_1");
  auto p = program_with_nodes(nodes);
  REQUIRE(p.ok());
  std::vector<std::string> names;
  for (const Node& n : p->graph.nodes) names.push_back(n.name);
  // x free; x_1 free; x_2 explicit so x_3; then x_4; x_1 now taken so x_1_1.
  CHECK(names == std::vector<std::string>{"x_2", "x", "x_1", "x_3", "x_4", "x_1_1"});
  CHECK_FALSE(p->graph.nodes[0].name_derived);
  CHECK(p->graph.nodes[5].name_derived);
}

TEST_CASE("etrecord node names: 10000 nodes of one output name are named in linear time", "[etrecord][names]") {
  std::string nodes;
  for (int i = 0; i < 10000; ++i) {
    if (i > 0) nodes += ',';
    nodes += unnamed_node("y");
  }
  const auto start = std::chrono::steady_clock::now();
  auto p = program_with_nodes(nodes);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(p.ok());
  REQUIRE(p->graph.nodes.size() == 10000);
  CHECK(p->graph.nodes[0].name == "y");
  CHECK(p->graph.nodes[1].name == "y_1");
  CHECK(p->graph.nodes[9999].name == "y_9999");
  CHECK(seconds < 2.0);
}
