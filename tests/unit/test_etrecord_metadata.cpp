// Node metadata strings (etrecord_spec.md §4.5) and op labels (§4.4).
#include "libcore/formats/etrecord/exported_program_json.h"
#include "libcore/formats/etrecord/node_metadata.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etrecord;

TEST_CASE("metadata: nn_module_stack with a root entry and nested brackets", "[etrecord][metadata]") {
  // The spec's example, plus a path with brackets and commas inside them.
  auto stack = parse_nn_module_stack(
      "L__self__,,__main__.M;L__self__fc,fc,torch.nn.modules.linear.Linear;"
      "L__self___layers_0,L['self'].layers[0],torch.nn.modules.container.Sequential;"
      "L__self___getattr,getattr(L['self'], 'blocks')[1],mod.Block");
  REQUIRE(stack.ok());
  REQUIRE(stack->size() == 4);
  CHECK((*stack)[0].key == "L__self__");
  CHECK((*stack)[0].path.empty());
  CHECK((*stack)[0].type == "__main__.M");
  CHECK((*stack)[1].path == "fc");
  CHECK((*stack)[2].path == "L['self'].layers[0]");
  CHECK((*stack)[2].type == "torch.nn.modules.container.Sequential");
  CHECK((*stack)[3].path == "getattr(L['self'], 'blocks')[1]");
  CHECK((*stack)[3].type == "mod.Block");
  CHECK(module_path(*stack) == "getattr(L['self'], 'blocks')[1]");
  CHECK(parse_nn_module_stack("")->empty());
}

TEST_CASE("metadata: malformed module stacks are refused", "[etrecord][metadata]") {
  auto two = parse_nn_module_stack("key,path");
  REQUIRE_FALSE(two.ok());
  CHECK(two.error().message == "module stack entry 'key,path' has 2 fields, expected key,path,type");
  CHECK_FALSE(parse_nn_module_stack("a,b,c,d").ok());
  CHECK_FALSE(parse_nn_module_stack("a,L['x'],c]").ok());
  CHECK_FALSE(parse_nn_module_stack("a,L['x',c").ok());
}

TEST_CASE("metadata: source_fn_stack and torch_fn", "[etrecord][metadata]") {
  auto fns = parse_source_fn_stack("mul,_operator.mul;linear,torch.nn.modules.linear.Linear");
  REQUIRE(fns.ok());
  REQUIRE(fns->size() == 2);
  CHECK((*fns)[0].name == "mul");
  CHECK((*fns)[0].target == "_operator.mul");
  CHECK((*fns)[1].target == "torch.nn.modules.linear.Linear");

  auto doc = parse_json(R"({"torch_fn": "linear_1;builtin_function_or_method.linear", "debug_handle": "12",
                            "custom": "kept"})");
  REQUIRE(doc.ok());
  const NodeMetadata m = parse_node_metadata(*doc);
  REQUIRE(m.torch_fn.has_value());
  CHECK(m.torch_fn->first == "linear_1");
  CHECK(m.torch_fn->second == "builtin_function_or_method.linear");
  CHECK(m.debug_handle == 12);
  REQUIRE(m.entries.size() == 3);
  CHECK(m.entries[2] == std::make_pair(std::string("custom"), std::string("kept")));
  CHECK(m.problems.empty());
}

TEST_CASE("metadata: text that does not parse is a problem, not an error", "[etrecord][metadata]") {
  auto doc = parse_json(R"({"debug_handle": "2x", "nn_module_stack": "a,b", "from_node": "[{", "torch_fn": "x"})");
  REQUIRE(doc.ok());
  const NodeMetadata m = parse_node_metadata(*doc);
  CHECK_FALSE(m.debug_handle.has_value());
  CHECK_FALSE(m.nn_module_stack.has_value());
  CHECK_FALSE(m.from_node.has_value());
  REQUIRE(m.problems.size() == 4);
  CHECK(m.problems[0] == "debug_handle: '2x' is not an integer");
  CHECK(m.entries.size() == 4);
}

TEST_CASE("metadata: stack traces and their last frame", "[etrecord][metadata]") {
  const std::string trace =
      "  File \"/work/lenet.py\", line 40, in forward\n"
      "    x = self.features(x)\n"
      "  File \"/work/lenet.py\", line 21, in forward\n"
      "    x = self.conv1(x)\n";
  const auto frames = parse_stack_trace(trace);
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].file == "/work/lenet.py");
  CHECK(frames[0].line == 40);
  CHECK(frames[0].function == "forward");
  CHECK(frames[0].code == "x = self.features(x)");
  const auto last = last_frame(trace);
  REQUIRE(last.has_value());
  CHECK(last->line == 21);
  CHECK(last->code == "x = self.conv1(x)");
  CHECK_FALSE(last_frame("no frames here").has_value());
  // A frame without "in fn" and without a code line.
  const auto bare = parse_stack_trace("File \"a.py\", line 3");
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].line == 3);
  CHECK(bare[0].function.empty());
}

TEST_CASE("metadata: from_node provenance, nested", "[etrecord][metadata]") {
  auto sources = parse_from_node(
      R"([{"name": "linear", "target": "aten.linear.default", "graph_id": 140211, "pass_name": "run_decompositions",
           "action": "create+replace", "from_node": [{"name": "fc1", "target": "fc1", "graph_id": 99,
           "pass_name": "", "action": ["create"], "from_node": []}]}])");
  REQUIRE(sources.ok());
  REQUIRE(sources->size() == 1);
  const NodeSource& s = (*sources)[0];
  CHECK(s.name == "linear");
  CHECK(s.graph_id == 140211);
  CHECK(s.action == "create+replace");
  REQUIRE(s.from_node.size() == 1);
  CHECK(s.from_node[0].name == "fc1");
  CHECK(s.from_node[0].action == "create");  // older list form joined with '+'
  CHECK_FALSE(parse_from_node(R"({"name": "x"})").ok());
}

TEST_CASE("op labels follow the Inspector's node.target.__name__", "[etrecord][metadata]") {
  const auto label = [](std::string_view target) { return classify_target(target); };
  CHECK(label("executorch.exir.dialects.edge.ops.aten.mul.Tensor") == std::make_pair(OpKind::kEdge, std::string("aten.mul.Tensor")));
  CHECK(label("executorch.exir.dialects.backend.ops.qnn.conv.default").second == "qnn.conv.default");
  CHECK(label("torch.ops.aten.mul.Tensor") == std::make_pair(OpKind::kAten, std::string("mul.Tensor")));
  CHECK(label("torch.ops.quantized_decomposed.quantize_per_tensor.default").second == "quantize_per_tensor.default");
  CHECK(label("torch.ops.higher_order.executorch_call_delegate") ==
        std::make_pair(OpKind::kDelegateCall, std::string("executorch_call_delegate")));
  CHECK(label("executorch.exir.delegate.executorch_call_delegate").first == OpKind::kDelegateCall);
  CHECK(label("torch.ops.higher_order.cond") == std::make_pair(OpKind::kHigherOrder, std::string("cond")));
  CHECK(label("_operator.floordiv") == std::make_pair(OpKind::kSymbolic, std::string("floordiv")));
  CHECK(label("torch.sym_max") == std::make_pair(OpKind::kSymbolic, std::string("sym_max")));
  CHECK(label("memory.alloc").first == OpKind::kMemoryAlloc);
  CHECK(label("executorch.exir.memory.view") == std::make_pair(OpKind::kKnownFunction, std::string("view")));
}
