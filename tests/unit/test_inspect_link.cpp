// Linking events to an ETRecord's maps and graph, with hand-built
// RecordLinks (inspector_spec.md §6): handle resolution including the
// delegate-map substring quirk, backend names, num_outputs, op_types,
// stack traces, module hierarchy, find_total_for_module; mismatching links
// warn and leave events unlinked.
#include <vector>

#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/inspect/link.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::inspect;

namespace {

etdump::ProfileEvent delegated(int32_t instruction, int32_t id_int, std::optional<std::string> id_str, uint64_t start,
                               uint64_t end) {
  etdump::ProfileEvent e;
  e.chain_index = 0;
  e.instruction_id = instruction;
  e.delegate_debug_id_int = id_int;
  e.delegate_debug_id_str = std::move(id_str);
  e.delegate_debug_metadata = std::vector<uint8_t>{};
  e.start_time = start;
  e.end_time = end;
  return e;
}

// Instruction 0: a kernel; instruction 1: a delegate call with two delegated
// events (int id 12, string id "conv #1"); then Method::execute.
Inspection sample_inspection() {
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_add.out", 0, 0, 100, 2'100);   // 0.002 ms
  w.add_profile_event("OPERATOR_CALL", 0, 0, 50, 2'150);
  w.add_event({delegated(1, 12, std::nullopt, 3'000'000, 7'000'000), std::nullopt, std::nullopt});  // 4 ms
  w.add_event({delegated(1, -1, "conv #1", 7'000'000, 8'000'000), std::nullopt, std::nullopt});
  w.add_profile_event("DELEGATE_CALL", 0, 1, 2'900'000, 8'100'000);
  w.add_profile_event("Method::execute", -1, 0, 0, 9'000'000);
  const auto bytes = w.finish();
  auto r = build_event_blocks(ByteSpan(bytes));
  REQUIRE(r.ok());
  return std::move(r).value();
}

DebugHandles one(int64_t h) { return {false, {h}}; }
DebugHandles list(std::vector<int64_t> h) { return {true, std::move(h)}; }

OpNode node(std::string name, std::string op, int64_t handle, std::string module_key) {
  OpNode n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.debug_handle = handle;
  n.stack_trace = "File \"model.py\", line " + std::to_string(handle);
  n.nn_module_stack = std::vector<ModuleStackEntry>{{module_key, module_key.substr(10), "torch.nn.Linear"}};
  return n;
}

RecordLinks sample_links() {
  RecordLinks links;
  links.debug_handle_map = {{"0", one(5)}, {"1", list({7, 8, 9})}};
  DelegateEntry entry;
  entry.name = "XnnpackBackend";
  // Map order matters: for id 12, str(12) = "12" is found, then every key
  // that is a substring of "12" overwrites it, the last one ("2") winning.
  entry.delegate_map = {{"12", list({9})}, {"1", list({7})}, {"2", list({8})}, {"conv #1", list({7, 9})}};
  links.delegate_map = std::map<std::string, DelegateEntry>{{"1", entry}};
  links.num_outs_map = {{"1", 2}};
  links.op_nodes = {node("aten_add_tensor_", "aten.add.Tensor", 5, "L__self___fc1"),
                    node("aten_conv_", "aten.convolution.default", 7, "L__self___conv"),
                    node("aten_relu_", "aten.relu.default", 8, "L__self___conv"),
                    node("aten_relu_2_", "aten.relu.default", 8, "L__self___act"),
                    node("aten_mm_", "aten.mm.default", 9, "L__self___fc2")};
  return links;
}

const Event& named(const Inspection& in, const std::string& name) {
  for (const Event& e : in.blocks[0].events) {
    if (e.name == name) return e;
  }
  FAIL("no event " << name);
  return in.blocks[0].events[0];
}

}  // namespace

TEST_CASE("kernel events take the instruction's handle and its nodes' metadata", "[inspect][link]") {
  Inspection in = sample_inspection();
  link_events(in, sample_links());
  const Event& kernel = named(in, "native_call_add.out");
  REQUIRE(kernel.debug_handles.has_value());
  CHECK_FALSE(kernel.debug_handles->is_list);
  CHECK(kernel.debug_handles->values == std::vector<int64_t>{5});
  CHECK(kernel.num_outputs == 1);
  CHECK(kernel.op_types == std::vector<std::string>{"aten.add.Tensor"});
  REQUIRE(kernel.stack_traces.size() == 1);
  CHECK(kernel.stack_traces[0].first == "aten_add_tensor_");
  CHECK(kernel.stack_traces[0].second == "File \"model.py\", line 5");
  REQUIRE(kernel.module_hierarchy.size() == 1);
  CHECK((*kernel.module_hierarchy[0].second)[0].key == "L__self___fc1");
  CHECK_FALSE(kernel.delegate_backend_name.has_value());
  // OPERATOR_CALL shares the instruction, so it is linked the same way.
  CHECK(named(in, "OPERATOR_CALL").op_types == std::vector<std::string>{"aten.add.Tensor"});
  CHECK(in.warnings.empty());
}

TEST_CASE("DELEGATE_CALL gets the backend name and delegated events resolve through the delegate map", "[inspect][link]") {
  Inspection in = sample_inspection();
  link_events(in, sample_links());
  const Event& call = named(in, "DELEGATE_CALL");
  CHECK(call.delegate_backend_name == "XnnpackBackend");
  CHECK(call.debug_handles->values == std::vector<int64_t>{7, 8, 9});
  CHECK(call.debug_handles->is_list);
  CHECK(call.num_outputs == 2);
  // Handles 7, 8, 9 -> nodes in graph order; handle 8 has two nodes.
  CHECK(call.op_types ==
        std::vector<std::string>{"aten.convolution.default", "aten.relu.default", "aten.relu.default", "aten.mm.default"});
  CHECK(call.stack_traces.size() == 4);

  // Int id 12: the substring quirk ends on key "2".
  const Event& twelve = named(in, "12");
  CHECK(twelve.delegate_backend_name == "XnnpackBackend");
  CHECK(twelve.debug_handles->values == std::vector<int64_t>{8});
  CHECK(twelve.op_types == std::vector<std::string>{"aten.relu.default", "aten.relu.default"});
  CHECK(twelve.num_outputs == 2);
  // A string id found as given is used directly.
  CHECK(named(in, "conv #1").debug_handles->values == std::vector<int64_t>{7, 9});
}

TEST_CASE("framework events get handles but no graph metadata", "[inspect][link]") {
  Inspection in = sample_inspection();
  link_events(in, sample_links());
  const Event& execute = named(in, "Method::execute");
  CHECK(execute.debug_handles->values == std::vector<int64_t>{5});  // instruction 0's
  CHECK(execute.op_types.empty());
  CHECK(execute.stack_traces.empty());
}

TEST_CASE("a node already seen keeps its first metadata, but its op type repeats", "[inspect][link]") {
  Inspection in = sample_inspection();
  RecordLinks links = sample_links();
  links.debug_handle_map["0"] = list({5, 5});
  link_events(in, links);
  const Event& kernel = named(in, "native_call_add.out");
  CHECK(kernel.op_types == std::vector<std::string>{"aten.add.Tensor", "aten.add.Tensor"});
  CHECK(kernel.stack_traces.size() == 1);
}

TEST_CASE("links that do not match the dump warn and leave events unlinked", "[inspect][link]") {
  Inspection in = sample_inspection();
  RecordLinks links;
  links.method = "forward";
  links.debug_handle_map = {{"0", one(5)}};  // instruction 1 unknown
  links.warnings.push_back("the ETRecord has no method 'forward'");
  link_events(in, links);
  CHECK_FALSE(named(in, "DELEGATE_CALL").debug_handles.has_value());
  CHECK_FALSE(named(in, "12").debug_handles.has_value());
  CHECK_FALSE(named(in, "12").delegate_backend_name.has_value());
  REQUIRE(in.warnings.size() == 2);
  CHECK(in.warnings[0] == "the ETRecord has no method 'forward'");
  CHECK(in.warnings[1].rfind("3 events have instruction ids the ETRecord's debug_handle_map for 'forward' does not "
                             "know (first: 1)",
                             0) == 0);
}

TEST_CASE("delegated events without a delegate entry fall back to the instruction's handles", "[inspect][link]") {
  Inspection in = sample_inspection();
  RecordLinks links = sample_links();
  links.delegate_map.reset();
  link_events(in, links);
  CHECK(named(in, "12").debug_handles->values == std::vector<int64_t>{7, 8, 9});
  CHECK_FALSE(named(in, "12").delegate_backend_name.has_value());
  CHECK_FALSE(named(in, "DELEGATE_CALL").delegate_backend_name.has_value());
  REQUIRE(in.warnings.size() == 1);
  CHECK(in.warnings[0].rfind("2 delegated events have no delegate_map entry", 0) == 0);
}

TEST_CASE("find_total_for_module sums averages of events whose module keys contain the name", "[inspect][link]") {
  Inspection in = sample_inspection();
  CHECK(find_total_for_module(in, "fc1") == 0.0);  // not linked yet
  link_events(in, sample_links());
  // "fc1": only the kernel (0.002 ms); OPERATOR_CALL is linked to the same
  // node but excluded by name.
  CHECK(find_total_for_module(in, "fc1") == 0.002);
  // "conv": DELEGATE_CALL (5.2 ms), event 12 (4 ms), "conv #1" (1 ms), in
  // that order of events: 0.0 + 4.0 + 1.0 + 5.2.
  CHECK(find_total_for_module(in, "conv") == ((0.0 + 4.0) + 1.0) + 5.2);
  CHECK(find_total_for_module(in, "L__self__") > 0.0);
  CHECK(find_total_for_module(in, "decoder") == 0.0);
}

TEST_CASE("etkit's delegate metadata links XNNPACK node events when the delegate map is empty", "[inspect][link]") {
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  auto with_meta = [](std::string id, std::string meta) {
    auto e = delegated(1, -1, std::move(id), 10, 20);
    e.delegate_debug_metadata = std::vector<uint8_t>(meta.begin(), meta.end());
    return e;
  };
  // Node 0 is an inserted layout transpose (handle 65535, no source); node 1 comes from handle 8.
  w.add_event({with_meta("Transpose (ND, X32) #1", "{\"node\":0,\"debug_handle\":65535,\"type\":\"StaticTranspose\"}"),
               std::nullopt, std::nullopt});
  w.add_event({with_meta("Convolution (NHWC, F32) IGEMM #1", "{\"node\":1,\"debug_handle\":8,\"type\":\"Conv2d\"}"),
               std::nullopt, std::nullopt});
  w.add_profile_event("DELEGATE_CALL", 0, 1, 0, 30);
  const auto bytes = w.finish();
  auto built = build_event_blocks(ByteSpan(bytes));
  REQUIRE(built.ok());
  Inspection in = std::move(built).value();
  RecordLinks links = sample_links();
  links.delegate_map->at("1").delegate_map.clear();  // what XnnpackBackend.preprocess returns
  link_events(in, links);
  const Event& conv = named(in, "Convolution (NHWC, F32) IGEMM #1");
  REQUIRE(conv.debug_handles.has_value());
  CHECK(conv.debug_handles->values == std::vector<int64_t>{8});
  CHECK(conv.op_types == std::vector<std::string>{"aten.relu.default", "aten.relu.default"});
  CHECK(conv.stack_traces[0].second == "File \"model.py\", line 8");
  CHECK_FALSE(named(in, "Transpose (ND, X32) #1").debug_handles.has_value());
}
