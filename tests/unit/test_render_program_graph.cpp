// The program graph and its DOT form, on a small program whose dataflow is
// worked out by hand from the argument layout rules in program_graph.h.
#include <algorithm>
#include <set>

#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/render/dot.h"
#include "libcore/render/graphviz.h"
#include "libcore/render/heat_color.h"
#include "libcore/render/program_graph.h"
#include "libcore/render/program_graph_dot.h"
#include "libcore/support/file.h"
#include "tests/support/test_support.h"

using namespace etkit;
using render::InstructionRef;

namespace {

// Values (in creation order):
//   0 x (input)  1 c (constant)  2 y  3 z  4 alpha=1  5 w (delegate output)
//   6 kernel=[2] (ints 6..7: list value 7 holds Int value 6) 8 pooled 9 indices
//   10 s (Int, sym_size output) 11 dim=0 12 b (Bool) 13 k=2
// Instructions:
//   0 mul.out(x, c, y, y)                       reads x, c; writes y
//   1 add.out(y, x, alpha, z, z)                reads y, x; writes z
//   2 delegate 0 (z, w)                         reads z (has a value); writes w
//   3 max_pool2d_with_indices.out(w, kernel, pooled, indices, pooled, indices)
//                                               reads w; writes pooled, indices
//   4 sym_size.int(w, dim, s)                   no echo: reads w; writes s
//   5 eq.Scalar(s, k, b)                        reads s; writes b
//   6 jump_false(b, 8)                          reads b; control edge to 8
//   7 free(w)                                   reads w
//   8 move(pooled, y)                           reads pooled; writes y
pte::ExecutionPlan small_plan() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 4});
  const int32_t c = m.add_constant_tensor({1, 4}, std::vector<float>{1, 2, 3, 4});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, 4});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {1, 4});
  const int32_t alpha = m.add_int(1);
  const int32_t w = m.add_planned_tensor(ScalarType::kFloat, {1, 4});
  const int32_t kernel = m.add_int_list({2});
  const int32_t pooled = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  const int32_t indices = m.add_planned_tensor(ScalarType::kLong, {1, 2});
  const int32_t s = m.add_int(0);
  const int32_t dim = m.add_int(0);
  const int32_t flag = m.add_bool(false);
  const int32_t k = m.add_int(2);
  REQUIRE(std::vector<int32_t>{x, c, y, z, alpha, w, kernel, pooled, indices, s, dim, flag, k} ==
          std::vector<int32_t>{0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13});
  m.kernel_call("aten::mul", "out", {x, c, y, y});
  m.kernel_call("aten::add", "out", {y, x, alpha, z, z});
  const int32_t backend = m.add_delegate("XnnpackBackend", {1, 2, 3});
  m.delegate_call(backend, {z, w});
  m.kernel_call("aten::max_pool2d_with_indices", "out", {w, kernel, pooled, indices, pooled, indices});
  m.kernel_call("aten::sym_size", "int", {w, dim, s});
  m.kernel_call("executorch_prim::eq", "Scalar", {s, k, flag});
  m.jump_false(flag, 8);
  m.free_value(w);
  m.move(pooled, y);
  m.set_inputs({x});
  m.set_outputs({y, indices});
  return m.plan();
}

using EdgeSet = std::set<std::tuple<std::string, std::string, int32_t>>;

EdgeSet edges_of(const render::ProgramGraph& g) {
  EdgeSet out;
  for (const auto& e : g.edges) out.insert({g.nodes[e.from].id, g.nodes[e.to].id, e.value});
  return out;
}

}  // namespace

TEST_CASE("program graph: nodes, value edges, delegate cluster and control edge", "[render][graph]") {
  const auto plan = small_plan();
  auto graph = render::build_program_graph(plan);
  REQUIRE(graph.ok());
  const auto& g = *graph;

  // 1 input + 9 instructions + 1 constant + 2 outputs.
  REQUIRE(g.nodes.size() == 13);
  std::vector<std::string> ids;
  for (const auto& n : g.nodes) ids.push_back(n.id);
  CHECK(ids == std::vector<std::string>{"in_0", "i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "const_1",
                                        "out_0", "out_1"});
  CHECK(g.nodes[1].label == "aten::mul.out");
  CHECK(g.nodes[3].label == "XnnpackBackend");
  CHECK(g.nodes[3].kind == render::NodeKind::kDelegate);
  CHECK(g.nodes[0].detail == "FLOAT[1,4]");
  CHECK(g.nodes[12].detail == "LONG[1,2]");

  REQUIRE(g.clusters.size() == 1);
  CHECK(g.clusters[0].id == "delegate_0");
  CHECK(g.clusters[0].label == "XnnpackBackend (delegate 0)");
  CHECK(g.nodes[3].cluster == std::optional<size_t>(0));
  CHECK_FALSE(g.nodes[1].cluster.has_value());

  const EdgeSet expected = {
      {"in_0", "i0", 0},  {"const_1", "i0", 1},  // mul reads x, c
      {"i0", "i1", 2},    {"in_0", "i1", 0},     // add reads y (from mul), x
      {"i1", "i2", 3},                           // delegate reads z
      {"i2", "i3", 5},                           // max_pool reads w
      {"i2", "i4", 5},                           // sym_size reads w
      {"i4", "i5", 10},                          // eq reads s
      {"i5", "i6", 12},                          // jump_false reads b
      {"i6", "i8", -1},                          // jump target
      {"i2", "i7", 5},                           // free reads w
      {"i3", "i8", 8},                           // move reads pooled
      {"i8", "out_0", 2},                        // y last written by the move
      {"i3", "out_1", 9},                        // indices from max_pool
  };
  CHECK(edges_of(g) == expected);
  const auto control = std::count_if(g.edges.begin(), g.edges.end(), [](const auto& e) { return e.control; });
  CHECK(control == 1);
  for (const auto& e : g.edges) {
    if (e.value == 8) CHECK(e.label == "v8 FLOAT[1,2]");
  }
}

TEST_CASE("program graph: elided views take the writer of the same bytes", "[render][graph]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 2, 2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, 2, 2});
  const auto offset = std::get<pte::Tensor>(m.plan().values[size_t(y)]).allocation_info->memory_offset;
  const int32_t flat = m.add_planned_tensor_at(ScalarType::kFloat, {1, 4}, offset);
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, {1, 4});
  m.kernel_call("aten::relu", "out", {x, y, y});
  m.kernel_call("aten::relu", "out", {flat, out, out});
  m.set_inputs({x});
  m.set_outputs({out});
  auto graph = render::build_program_graph(m.plan());
  REQUIRE(graph.ok());
  CHECK(edges_of(*graph) == EdgeSet{{"in_0", "i0", 0}, {"i0", "i1", 2}, {"i1", "out_0", 3}});
}

TEST_CASE("program graph: multi-output kernels write every item of their TensorList return slot",
          "[render][graph]") {
  // The emitter's layout for max_pool2d_with_indices.out: self, kernel, out,
  // indices, then the return slot [out, indices] (portable_ops.md, 9 slots).
  // The indices share the input's bytes: that is reuse, not dataflow.
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 4});
  const int32_t kernel = m.add_int_list({2});
  const int32_t pooled = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  const auto x_offset = std::get<pte::Tensor>(m.plan().values[size_t(x)]).allocation_info->memory_offset;
  const int32_t indices = m.add_planned_tensor_at(ScalarType::kLong, {1, 2}, x_offset);
  const int32_t ret = m.add_tensor_list({pooled, indices});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  m.kernel_call("aten::max_pool2d_with_indices", "out", {x, kernel, pooled, indices, ret});
  m.kernel_call("aten::relu", "out", {pooled, y, y});
  m.set_inputs({x});
  m.set_outputs({y, indices});
  auto graph = render::build_program_graph(m.plan());
  REQUIRE(graph.ok());
  CHECK(edges_of(*graph) == EdgeSet{{"in_0", "i0", x},
                                    {"i0", "i1", pooled},
                                    {"i1", "out_0", y},
                                    {"i0", "out_1", indices}});
}

TEST_CASE("program graph: lenet_tutorial.pte has only the edges its instructions name", "[render][graph][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  auto file = InputFile::open(test::fixture("pte/lenet_tutorial.pte").string());
  REQUIRE(file.ok());
  auto program = pte::read_program(*file);
  REQUIRE(program.ok());
  const auto* plan = program->find_method("forward");
  REQUIRE(plan != nullptr);
  auto graph = render::build_program_graph(*plan);
  REQUIRE(graph.ok());
  // Worked out from et-dump-decode's JSON of the program: input v10, output
  // v92, constants v0..v9, and the instructions (out arguments last)
  //   0 convolution(v10, v0, v1, ..., out v11)    1 relu(v11, out v26)
  //   2 max_pool2d_with_indices(v26, ..., out v27, indices v28, [v27, v28])
  //   3 convolution(v27, v2, v3, ..., out v41)    4 relu(v41, out v56)
  //   5 max_pool2d_with_indices(v56, ..., out v57, indices v58, [v57, v58])
  //   6 permute_copy(v4, .., out v72)   7 addmm(v5, v71, v72, .., out v76)   8 relu(v76, out v79)
  //   9 permute_copy(v6, .., out v80)  10 addmm(v7, v79, v80, .., out v84)  11 relu(v84, out v87)
  //  12 permute_copy(v8, .., out v88)  13 addmm(v9, v87, v88, .., out v92)
  // v71 FLOAT[1,400] is the elided flatten of v57 FLOAT[1,16,5,5] (same
  // offset 192000, same 1600 bytes, written by no instruction). v28 (LONG
  // indices) sits at v11's offset 18816 but is written by instruction 2 and
  // read by nobody: no edge from instruction 0 carries it.
  const EdgeSet expected = {
      {"in_0", "i0", 10},    {"const_0", "i0", 0},  {"const_1", "i0", 1},  {"i0", "i1", 11},
      {"i1", "i2", 26},      {"i2", "i3", 27},      {"const_2", "i3", 2},  {"const_3", "i3", 3},
      {"i3", "i4", 41},      {"i4", "i5", 56},      {"const_4", "i6", 4},  {"const_5", "i7", 5},
      {"i5", "i7", 71},      {"i6", "i7", 72},      {"i7", "i8", 76},      {"const_6", "i9", 6},
      {"const_7", "i10", 7}, {"i8", "i10", 79},     {"i9", "i10", 80},     {"i10", "i11", 84},
      {"const_8", "i12", 8}, {"const_9", "i13", 9}, {"i11", "i13", 87},    {"i12", "i13", 88},
      {"i13", "out_0", 92},
  };
  CHECK(edges_of(*graph) == expected);
}

TEST_CASE("program graph: an argument outside the values is an error naming it", "[render][graph]") {
  auto plan = small_plan();
  std::get<pte::KernelCall>(plan.chains[0].instructions[1]).args[1] = 99;
  auto graph = render::build_program_graph(plan);
  REQUIRE_FALSE(graph.ok());
  CHECK(graph.error().field == "execution_plan[forward].chains[0].instructions[1].args[1]");
  CHECK(graph.error().message == "value index 99 out of range (14 values)");

  plan = small_plan();
  std::get<pte::DelegateCall>(plan.chains[0].instructions[2]).delegate_index = 3;
  graph = render::build_program_graph(plan);
  REQUIRE_FALSE(graph.ok());
  CHECK(graph.error().message == "delegate_index 3 out of range (1 delegates)");
}

TEST_CASE("program graph: a tensor list item that is not a tensor is a literal", "[render][graph]") {
  // The program validator checks that list items are value indices, not
  // that they are tensors: here a TensorList holds the Int n.
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t n = m.add_int(3);
  const int32_t list = m.add_tensor_list({x, n});
  const int32_t w = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t backend = m.add_delegate("XnnpackBackend", {1});
  m.delegate_call(backend, {list, w});          // reads x (n needs no producer); writes w
  m.kernel_call("aten::cat", "out", {list, z, z});  // reads x; writes z
  m.set_inputs({x});
  m.set_outputs({w, z});
  REQUIRE(std::vector<int32_t>{x, n, list, w, z} == std::vector<int32_t>{0, 1, 2, 3, 4});
  auto graph = render::build_program_graph(m.plan());
  REQUIRE(graph.ok());
  CHECK(edges_of(*graph) ==
        EdgeSet{{"in_0", "i0", 0}, {"in_0", "i1", 0}, {"i0", "out_0", 3}, {"i1", "out_1", 4}});
}

TEST_CASE("dot writer: quoting, clusters and attributes", "[render][dot]") {
  CHECK(render::dot_quote("a\"b\\c\nd\x01") == "\"a\\\"b\\\\c\\nd\"");
  render::DotWriter dot("g \"1\"");
  dot.node_defaults({{"shape", "box"}});
  dot.begin_cluster("outer", {{"label", "Outer"}});
  dot.begin_cluster("inner");
  dot.node("a");
  dot.end_cluster();
  dot.end_cluster();
  dot.edge("a", "b", {{"label", "x"}, {"color", "red"}});
  CHECK(dot.finish() ==
        "digraph \"g \\\"1\\\"\" {\n"
        "  node [shape=\"box\"];\n"
        "  subgraph \"cluster_outer\" {\n"
        "    graph [label=\"Outer\"];\n"
        "    subgraph \"cluster_inner\" {\n"
        "      \"a\";\n"
        "    }\n"
        "  }\n"
        "  \"a\" -> \"b\" [label=\"x\", color=\"red\"];\n"
        "}\n");
}

TEST_CASE("heat colours and percentages", "[render][graph]") {
  CHECK(render::heat_color(0) == "#ffffff");
  CHECK(render::heat_color(0.5) == "#ffcc4d");  // the amber stop (255, 204, 77)
  CHECK(render::heat_color(1) == "#e53935");
  CHECK(render::heat_color(2) == "#e53935");
  // 1/3: two thirds of the way from white to amber: g 255-51*2/3 = 221, b 255-178*2/3 = 136.3.
  CHECK(render::heat_color(1.0 / 3) == "#ffdd88");
  CHECK(render::format_percent(0.123) == "12.3%");
  CHECK(render::format_percent(0.0001) == "<0.1%");
  CHECK(render::format_percent(0) == "0.0%");
}

TEST_CASE("program graph as DOT: edges, cluster and time-share colouring", "[render][graph][dot]") {
  auto graph = render::build_program_graph(small_plan());
  REQUIRE(graph.ok());
  render::GraphDotOptions options;
  options.time_share = {{InstructionRef{0, 0}, 0.75}, {InstructionRef{0, 1}, 0.25}};
  const std::string dot = render::program_graph_to_dot(*graph, options);

  CHECK(dot.rfind("digraph \"forward\" {\n", 0) == 0);
  CHECK(dot.find("\"in_0\" -> \"i0\" [label=\"v0 FLOAT[1,4]\"];") != std::string::npos);
  CHECK(dot.find("\"i3\" -> \"out_1\" [label=\"v9 LONG[1,2]\"];") != std::string::npos);
  CHECK(dot.find("\"i6\" -> \"i8\" [style=\"dashed\"") != std::string::npos);
  CHECK(dot.find("subgraph \"cluster_delegate_0\" {\n    graph [label=\"XnnpackBackend (delegate 0)\"") !=
        std::string::npos);
  // The hottest instruction is red, the other at a third of it; shares as labels.
  CHECK(dot.find("fillcolor=\"#e53935\", label=\"#0 aten::mul.out\\n75.0%\"") != std::string::npos);
  CHECK(dot.find("fillcolor=\"#ffdd88\", label=\"#1 aten::add.out\\n25.0%\"") != std::string::npos);
  CHECK(dot.find("fillcolor=\"#ffffff\", label=\"#3 aten::max_pool2d_with_indices.out\"") != std::string::npos);

  auto svg = render::render_dot(dot, "svg");
  if (!svg && svg.error().kind == ErrorKind::kUnsupported) {
    WARN("skipped: graphviz 'dot' is not installed");
    return;
  }
  INFO((svg ? std::string() : svg.error().describe()));
  REQUIRE(svg.ok());
  const std::string text(svg->begin(), svg->end());
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("XnnpackBackend (delegate 0)") != std::string::npos);
  CHECK(text.find("#0 aten::mul.out") != std::string::npos);
}

TEST_CASE("graphviz rejects broken DOT with its own message", "[render][dot]") {
  auto svg = render::render_dot("digraph { a -> }", "svg");
  if (!svg && svg.error().kind == ErrorKind::kUnsupported) {
    WARN("skipped: graphviz 'dot' is not installed");
    return;
  }
  REQUIRE_FALSE(svg.ok());
  CHECK(svg.error().message.rfind("graphviz 'dot -Tsvg' failed", 0) == 0);
}
