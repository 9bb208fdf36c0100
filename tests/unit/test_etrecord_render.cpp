// Text, table and DOT views of ETRecord graphs with nested graphs, delegates,
// symbolic sizes and names that need quoting.
#include <nlohmann/json.hpp>

#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "libcore/render/etrecord_dot.h"
#include "libcore/render/etrecord_text.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;
using namespace etkit::render;

namespace {

// One delegate call (its lowered module embedded as a JSON string), a cond
// with a nested graph, a SymInt node; module paths with quotes and brackets.
std::string tricky_program() {
  const std::string lowered = R"({"backend_id": "XnnpackBackend", "processed_bytes": "AAAA", "compile_specs": [],
      "original_module": {"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "a"}}],
          "outputs": [{"as_tensor": {"name": "aten_relu_default"}}],
          "nodes": [{"name": "aten_relu_default", "target": "executorch.exir.dialects.edge.ops.aten.relu.default",
                     "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "a"}}}],
                     "outputs": [{"as_tensor": {"name": "aten_relu_default"}}], "metadata": {"debug_handle": "3"}}],
          "tensor_values": {}}, "signature": {"input_specs": [], "output_specs": []}, "module_call_graph": []},
        "schema_version": {"major": 5, "minor": 3}}})";
  return R"({"graph_module": {"graph": {
      "inputs": [{"as_tensor": {"name": "x"}}],
      "outputs": [{"as_tensor": {"name": "getitem_1"}}],
      "nodes": [
        {"name": "sym_size", "target": "executorch.exir.dialects.edge.ops.aten.sym_size.int",
         "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "x"}}}, {"name": "dim", "arg": {"as_int": 0}}],
         "outputs": [{"as_sym_int": {"as_name": "sym_size"}}], "metadata": {}},
        {"name": "executorch_call_delegate", "target": "torch.ops.higher_order.executorch_call_delegate",
         "inputs": [{"name": "lowered_module_0", "arg": {"as_string": )" +
         nlohmann::json(lowered).dump() + R"(}}, {"name": "delegate_arg_1", "arg": {"as_tensor": {"name": "x"}}}],
         "outputs": [{"as_tensor": {"name": "getitem"}}],
         "metadata": {"debug_handle": "1", "nn_module_stack": "L__self__,,m.Net;L__self___blocks_0,L['self'].blocks[0],m.Block",
                      "stack_trace": "  File \"/src/m \"q\".py\", line 7, in forward\n    y = self.blocks[0](x)\n"}},
        {"name": "cond", "target": "torch.ops.higher_order.cond",
         "inputs": [{"name": "pred", "arg": {"as_bool": true}},
                    {"name": "true_fn", "arg": {"as_graph": {"name": "true_graph_0", "graph": {
                        "inputs": [{"as_tensor": {"name": "b"}}], "outputs": [{"as_tensor": {"name": "aten_neg_default"}}],
                        "nodes": [{"name": "aten_neg_default", "target": "executorch.exir.dialects.edge.ops.aten.neg.default",
                                   "inputs": [{"name": "self", "arg": {"as_tensor": {"name": "b"}}}],
                                   "outputs": [{"as_tensor": {"name": "aten_neg_default"}}], "metadata": {}}]}}}},
                    {"name": "operands", "arg": {"as_tensors": [{"name": "getitem"}]}},
                    {"name": "limit", "arg": {"as_float": -Infinity}}],
         "outputs": [{"as_tensors": [{"name": "getitem_1"}]}], "metadata": {"debug_handle": "2"}}],
      "tensor_values": {
        "x": {"dtype": 7, "sizes": [{"as_expr": {"expr_str": "s0"}}, {"as_int": 4}], "requires_grad": false,
              "device": {"type": "cpu"}, "strides": [{"as_int": 4}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7},
        "getitem": {"dtype": 13, "sizes": [{"as_expr": {"expr_str": "s0"}}, {"as_int": 4}], "requires_grad": false,
                    "device": {"type": "cpu"}, "strides": [{"as_int": 4}, {"as_int": 1}], "storage_offset": {"as_int": 0}, "layout": 7}},
      "sym_int_values": {"sym_size": {"as_expr": {"expr_str": "s0"}}}},
    "signature": {"input_specs": [{"user_input": {"arg": {"as_tensor": {"name": "x"}}}}],
                  "output_specs": [{"user_output": {"arg": {"as_tensor": {"name": "getitem_1"}}}}]},
    "module_call_graph": [{"fqn": ""}]},
   "range_constraints": {"s0": {"min_val": 2, "max_val": Infinity}}, "schema_version": {"major": 5, "minor": 3}})";
}

EtRecord tricky_record() {
  const std::string program = tricky_program();
  auto zip = write_zip({{"ETRECORD_V0", {}},
                        {"edge_dialect_exported_program/forward",
                         ByteSpan(reinterpret_cast<const uint8_t*>(program.data()), program.size())}});
  auto r = read_etrecord(*zip);
  REQUIRE(r.ok());
  return std::move(*r);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(text.substr(start, nl - start));
  return out;
}

}  // namespace

TEST_CASE("render: graph printout with symbolic sizes, a delegate and nested graphs", "[etrecord][render]") {
  const EtRecord r = tricky_record();
  const auto text = lines(graph_text(*r.edge_program()));
  const std::vector<std::string> expected = {
      "graph edge_dialect_exported_program/forward (method forward):",
      "    %x : f32[s0, 4] = placeholder  # user_input",
      "    %sym_size : SymInt(s0) = aten.sym_size.int(self=%x, dim=0)",
      "    %getitem : bf16[s0, 4] = executorch_call_delegate(lowered_module_0=<lowered XnnpackBackend, 3 bytes>, "
      "delegate_arg_1=%x)  # L['self'].blocks[0], /src/m \"q\".py:7, debug_handle=1",
      "    %getitem_1 : ? = cond(pred=True, true_fn=%true_graph_0, operands=[%getitem], limit=-inf)  # debug_handle=2",
      "    return (%getitem_1,)",
      "    lowered module of %executorch_call_delegate (XnnpackBackend), original graph:",
      "        %a : ? = placeholder",
      "        %aten_relu_default : ? = aten.relu.default(self=%a)  # debug_handle=3",
      "        return (%aten_relu_default,)",
      "    graph %true_graph_0 of %cond:",
      "        %b : ? = placeholder",
      "        %aten_neg_default : ? = aten.neg.default(self=%b)",
      "        return (%aten_neg_default,)",
  };
  CHECK(text == expected);
}

TEST_CASE("render: node table and summary of the tricky record", "[etrecord][render]") {
  const EtRecord r = tricky_record();
  const auto table = lines(nodes_table(*r.edge_program()));
  REQUIRE(table.size() == 4);
  CHECK(table[2].find("L['self'].blocks[0]") != std::string::npos);
  CHECK(table[2].find("/src/m \"q\".py:7") != std::string::npos);
  const std::string summary = summary_text(r, "t.etrecord");
  CHECK(summary.find("3 nodes (1 delegate, 1 edge, 1 higher_order) + 1 in nested graphs") != std::string::npos);
  CHECK(summary.find("debug_handle_map                absent") != std::string::npos);
}

TEST_CASE("render: DOT quoting and clusters, accepted by Graphviz", "[etrecord][render]") {
  const EtRecord r = tricky_record();
  const std::string dot = graph_dot(*r.edge_program());
  CHECK(dot.find("subgraph \"cluster_L['self'].blocks[0]\" {") != std::string::npos);
  CHECK(dot.find("graph [label=\"L['self'].blocks[0] (Block)\"];") != std::string::npos);
  CHECK(dot.find("m \\\"q\\\".py:7") != std::string::npos);  // quotes escaped inside the label
  CHECK(dot.find("\"n:executorch_call_delegate\" -> \"n:cond\";") != std::string::npos);
  CHECK(dot.find("\"n:sym_size\"") != std::string::npos);
  CHECK(dot.find("\"n:cond\" -> \"output\";") != std::string::npos);

  std::vector<std::string> files = {dot};
  if (!test::fixtures_dir().empty()) {
    auto mul = read_etrecord_file(test::fixture("etrecord/mul_2023.etrecord").string());
    REQUIRE(mul.ok());
    for (const Program& p : mul->programs) files.push_back(graph_dot(p));
  }
  if (test::run_shell("command -v dot").exit_code != 0) {
    WARN("skipped: Graphviz dot is not installed");
    return;
  }
  const auto dir = test::scratch_dir();
  for (size_t i = 0; i < files.size(); ++i) {
    const auto path = (dir / std::to_string(i)).replace_extension(".dot");
    test::write_bytes(path, std::vector<uint8_t>(files[i].begin(), files[i].end()));
    std::string command = "dot -Tsvg '";  // built piecewise: GCC 12 warns falsely (-Wrestrict) on "..." + string
    command += path.string();
    command += "' -o /dev/null";
    auto svg = test::run_shell(command);
    INFO(files[i]);
    CHECK(svg.exit_code == 0);
    CHECK(svg.err.empty());
  }
}
