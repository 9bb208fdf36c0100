// From an ETDump through the Inspector's event blocks to the trace and report
// models. Ticks are nanoseconds chosen by hand; expected values follow from
// the adapters' rules (inspect_trace.h, inspect_report.h).
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/inspect/event_blocks.h"
#include "libcore/inspect/link.h"
#include "libcore/render/inspect_report.h"
#include "libcore/render/inspect_trace.h"
#include "tests/support/test_support.h"

using namespace etkit;
using render::InstructionRef;

namespace {

// Instruction 0: mul (kernel), instruction 1: a delegate call.
pte::ExecutionPlan plan() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::mul", "out", {x, x, y, y});
  m.delegate_call(m.add_delegate("XnnpackBackend", {1}), {y, z});
  m.set_inputs({x});
  m.set_outputs({z});
  return m.plan();
}

// One "Execute" run: OPERATOR_CALL #0 [1000, 1500] around its kernel
// [1100, 1400]; DELEGATE_CALL #1 [1550, 1700] around a backend event
// [1600, 1650]; Method::execute [900, 1800].
std::vector<uint8_t> dump() {
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_mul.out", 0, 0, 1100, 1400);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 1000, 1500);
  etdump::ProfileEvent delegate;
  delegate.chain_index = 0;
  delegate.instruction_id = 1;
  delegate.delegate_debug_id_str = "conv #1";
  delegate.delegate_debug_metadata = std::vector<uint8_t>{};
  delegate.start_time = 1600;
  delegate.end_time = 1650;
  w.add_profile_event(delegate);
  w.add_profile_event("DELEGATE_CALL", 0, 1, 1550, 1700);
  w.add_profile_event("Method::execute", -1, 0, 900, 1800);
  return w.finish();
}

inspect::Inspection inspection() {
  static const auto bytes = dump();
  auto built = inspect::build_event_blocks(ByteSpan(bytes));
  INFO((built ? std::string() : built.error().describe()));
  REQUIRE(built.ok());
  return std::move(built).value();
}

const render::TraceSlice* find(const render::TraceTrack& track, const std::string& name) {
  for (const auto& s : track.slices) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("trace from the Inspector: raw starts, tick durations, delegate track", "[render][trace][inspect]") {
  auto trace = render::trace_from_inspection(inspection());
  REQUIRE(trace.ok());
  CHECK(trace->scale.unit == "ns");
  REQUIRE(trace->processes.size() == 1);
  const auto& process = trace->processes[0];
  CHECK(process.name == "Execute");
  REQUIRE(process.tracks.size() == 2);
  CHECK(process.tracks[0].name == "run 0");
  CHECK(process.tracks[1].name == "run 0 delegate");
  CHECK(process.tracks[0].slices.size() == 4);
  REQUIRE(process.tracks[1].slices.size() == 1);

  const auto* op = find(process.tracks[0], "OPERATOR_CALL");
  REQUIRE(op);
  CHECK(op->start == 1000);
  CHECK(op->duration == 500);
  CHECK(op->level == 1);
  const auto* kernel = find(process.tracks[0], "native_call_mul.out");
  REQUIRE(kernel);
  CHECK(kernel->duration == 300);
  CHECK(kernel->level == 2);
  CHECK(find(process.tracks[0], "Method::execute")->level == 0);
  // Delegate: scaled before subtracting (1650/1e6 - 1600/1e6), back to 50 ticks.
  const auto& backend = process.tracks[1].slices[0];
  CHECK(backend.name == "conv #1");
  CHECK(backend.start == 1600);
  CHECK(backend.duration == 50);
  bool delegated = false, identifier = false;
  for (const auto& arg : backend.args) {
    if (arg.key == "is_delegated_op") delegated = std::get<bool>(arg.value);
    if (arg.key == "delegate_debug_identifier") identifier = std::get<std::string>(arg.value) == "conv #1";
  }
  CHECK(delegated);
  CHECK(identifier);
}

TEST_CASE("report from the Inspector: rows, shares, op types, timeline, graph links", "[render][html][inspect]") {
  const auto p = plan();
  render::ReportSources sources;
  sources.plan = &p;
  const auto data = render::report_from_inspection(inspection(), sources);
  CHECK(data.unit == "ms");

  // OPERATOR_CALL is hidden, as print_data_tabular hides it.
  std::vector<std::string> names;
  for (const auto& row : data.rows) names.push_back(row.name);
  CHECK(names == std::vector<std::string>{"native_call_mul.out", "conv #1", "DELEGATE_CALL", "Method::execute"});
  REQUIRE(data.rows[0].stats);
  CHECK(data.rows[0].stats->avg == Approx(0.0003));  // 300 ns in ms
  CHECK(data.rows[0].instruction == std::optional<InstructionRef>({0, 0}));
  CHECK_FALSE(data.rows[3].instruction.has_value());

  // Instruction times 500 (OPERATOR_CALL) and 150 ns (DELEGATE_CALL): 10/13
  // and 3/13; they sit on the kernel row and the DELEGATE_CALL row.
  REQUIRE(data.rows[0].share);
  CHECK(*data.rows[0].share == Approx(500.0 / 650));
  CHECK_FALSE(data.rows[1].share.has_value());
  REQUIRE(data.rows[2].share);
  CHECK(*data.rows[2].share == Approx(150.0 / 650));

  REQUIRE(data.op_type_times.size() == 2);
  CHECK(data.op_type_times[0].label == "aten::mul.out");
  CHECK(data.op_type_times[0].value == Approx(0.0005));
  CHECK(data.op_type_times[1].label == "delegate XnnpackBackend");
  CHECK(data.op_type_times[1].value == Approx(0.00015));

  REQUIRE(data.timeline);
  CHECK(data.timeline->title == "Execute, run 0 of 1");
  REQUIRE(data.timeline->slices.size() == 5);
  for (const auto& s : data.timeline->slices) {
    if (s.name == "OPERATOR_CALL") {
      CHECK(s.start == Approx(0.0001));  // 1000 - 900 ns
      CHECK(s.duration == Approx(0.0005));
      CHECK(s.lane == 1);
      CHECK(s.row == std::optional<size_t>(0));  // links to its kernel's row
    }
    if (s.name == "conv #1") {
      CHECK(s.lane == 3);
      CHECK(s.delegated);
      CHECK(s.start == Approx(0.0007));
    }
  }

  REQUIRE(data.graph);
  CHECK(data.nodes.at({0, 0}).row == std::optional<size_t>(0));
  CHECK(data.nodes.at({0, 1}).row == std::optional<size_t>(2));
  CHECK(*data.nodes.at({0, 0}).share == Approx(500.0 / 650));
  CHECK(data.notes.empty());
}

TEST_CASE("report from the Inspector: a program that does not match is noted, not coloured",
          "[render][html][inspect]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::relu", "out", {x, x, x});
  const auto small = m.plan();
  render::ReportSources sources;
  sources.plan = &small;
  const auto data = render::report_from_inspection(inspection(), sources);
  // 4 events name an instruction: at #0 mul's kernel (the method has relu
  // there) and its OPERATOR_CALL (which fits), at #1 (which the method lacks)
  // the backend's event and DELEGATE_CALL.
  REQUIRE(data.notes.size() == 2);
  CHECK(data.notes[0] ==
        "block 0: 3 of 4 instruction events do not fit method 'forward' (an ETDump of another method or program?), "
        "e.g. 'native_call_mul.out' at #0, which is aten::relu.out");
  CHECK(data.notes[1] ==
        "the ETDump has events for instruction #1, which method 'forward' does not have: the graph is shown without "
        "times");
  CHECK(data.graph);
  CHECK(data.nodes.empty());

  const auto without = render::report_from_inspection(inspection(), {});
  CHECK(without.notes == std::vector<std::string>{"no program given: the graph is not drawn"});
  CHECK_FALSE(without.graph);
}

TEST_CASE("instruction time shares: the scope's mean over the block's instruction total", "[render][graph][inspect]") {
  // OPERATOR_CALL #0 takes 500 ns, DELEGATE_CALL #1 150 ns; the kernel and
  // backend events inside them and Method::execute do not count.
  const auto p = plan();
  for (const pte::ExecutionPlan* method : {static_cast<const pte::ExecutionPlan*>(nullptr), &p}) {
    const auto shares = render::instruction_time_shares(inspection(), method);
    CHECK(shares.warnings.empty());
    REQUIRE(shares.share.size() == 2);
    CHECK(shares.share.at({0, 0}) == Approx(500.0 / 650));
    CHECK(shares.share.at({0, 1}) == Approx(150.0 / 650));
  }
}

TEST_CASE("instruction time shares: events keep their chain", "[render][graph][inspect]") {
  // Chain 0: mul at #0; chain 1: the delegate call at #0 (both instruction 0).
  auto two_chains = plan();
  two_chains.chains.push_back({});
  two_chains.chains[1].instructions.push_back(two_chains.chains[0].instructions[1]);
  two_chains.chains[0].instructions.pop_back();
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_mul.out", 0, 0, 1100, 1400);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 1000, 1500);
  w.add_profile_event("DELEGATE_CALL", 1, 0, 1550, 1850);
  w.add_profile_event("Method::execute", -1, 0, 900, 1900);
  const auto bytes = w.finish();
  auto built = inspect::build_event_blocks(ByteSpan(bytes));
  REQUIRE(built.ok());
  // 500 ns at (0, 0) and 300 ns at (1, 0): 800 ns in all.
  const auto shares = render::instruction_time_shares(*built, &two_chains);
  CHECK(shares.warnings.empty());
  REQUIRE(shares.share.size() == 2);
  CHECK(shares.share.at({0, 0}) == Approx(500.0 / 800));
  CHECK(shares.share.at({1, 0}) == Approx(300.0 / 800));
}

TEST_CASE("main block: of several Execute blocks, the one that fits the method, with a warning",
          "[render][graph][inspect]") {
  // Block 0 "Default"; block 1 "Execute" of another method (3 runs: relu at
  // #0, #1 and #2); block 2 "Execute" of forward (1 run: mul at #0, the
  // delegate at #1).
  etdump::EtDumpWriter w;
  w.begin_block("Default");
  w.add_profile_event("Method::init", -1, 0, 0, 50);
  for (int run = 0; run < 3; ++run) {
    w.begin_block("Execute");
    for (int32_t i = 0; i < 3; ++i) {
      w.add_profile_event("native_call_relu.out", 0, i, 100 + 100 * uint64_t(i), 150 + 100 * uint64_t(i));
      w.add_profile_event("OPERATOR_CALL", 0, i, 90 + 100 * uint64_t(i), 160 + 100 * uint64_t(i));
    }
  }
  w.begin_block("Execute");
  w.add_profile_event("native_call_mul.out", 0, 0, 1100, 1400);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 1000, 1500);
  w.add_profile_event("DELEGATE_CALL", 0, 1, 1550, 1700);
  const auto bytes = w.finish();
  auto built = inspect::build_event_blocks(ByteSpan(bytes));
  REQUIRE(built.ok());
  REQUIRE(built->blocks.size() == 3);

  const auto p = plan();
  const auto chosen = render::main_block(*built, &p);
  CHECK(chosen.block == std::optional<size_t>(2));
  CHECK(chosen.warnings ==
        std::vector<std::string>{"the ETDump has 2 'Execute' blocks with different events (runs of other methods, or "
                                 "runs that took other paths): the times are from block 2 (1 run), the one that fits "
                                 "method 'forward' best"});
  const auto shares = render::instruction_time_shares(*built, &p);
  CHECK(shares.share.at({0, 0}) == Approx(500.0 / 650));

  // Without a method: the block with the most runs.
  const auto unnamed = render::main_block(*built, nullptr);
  CHECK(unnamed.block == std::optional<size_t>(1));
  CHECK(unnamed.warnings ==
        std::vector<std::string>{"the ETDump has 2 'Execute' blocks with different events (runs of other methods, or "
                                 "runs that took other paths): the times are from block 1 (3 runs)"});

  // The report says the same, and uses block 2.
  render::ReportSources sources;
  sources.plan = &p;
  const auto data = render::report_from_inspection(*built, sources);
  REQUIRE_FALSE(data.notes.empty());
  CHECK(data.notes[0] == chosen.warnings[0]);
  CHECK(*data.nodes.at({0, 1}).share == Approx(150.0 / 650));
}

TEST_CASE("main block: events of another kind or operator do not fit", "[render][graph][inspect]") {
  const auto p = plan();  // #0 aten::mul.out, #1 a call of delegate XnnpackBackend
  auto check_misfit = [&](const std::string& name, int32_t instruction, const std::string& expected) {
    INFO(name);
    etdump::EtDumpWriter w;
    w.begin_block("Execute");
    w.add_profile_event(name, 0, instruction, 100, 200);
    const auto bytes = w.finish();
    auto built = inspect::build_event_blocks(ByteSpan(bytes));
    REQUIRE(built.ok());
    const auto chosen = render::main_block(*built, &p);
    CHECK(chosen.warnings == std::vector<std::string>{"block 0: 1 of 1 instruction events do not fit method "
                                                      "'forward' (an ETDump of another method or program?), e.g. " +
                                                      expected});
  };
  check_misfit("native_call_add.out", 0, "'native_call_add.out' at #0, which is aten::mul.out");
  check_misfit("native_call_mul.Scalar", 0, "'native_call_mul.Scalar' at #0, which is aten::mul.out");
  check_misfit("DELEGATE_CALL", 0, "'DELEGATE_CALL' at #0, which is aten::mul.out");
  check_misfit("OPERATOR_CALL", 1, "'OPERATOR_CALL' at #1, which is a call of delegate XnnpackBackend");
  check_misfit("MOVE_CALL", 1, "'MOVE_CALL' at #1, which is a call of delegate XnnpackBackend");
  check_misfit("OPERATOR_CALL", 2, "'OPERATOR_CALL' at #2, which the method does not have");

  // What does fit: the kernel's schema name, its scope, the delegate call
  // and a library kernel's own name.
  for (const auto& [name, instruction] : std::vector<std::pair<std::string, int32_t>>{
           {"native_call_mul.out", 0}, {"OPERATOR_CALL", 0}, {"DELEGATE_CALL", 1}, {"my_ns::my_op.out", 0}}) {
    INFO(name);
    etdump::EtDumpWriter w;
    w.begin_block("Execute");
    w.add_profile_event(name, 0, instruction, 100, 200);
    const auto bytes = w.finish();
    auto built = inspect::build_event_blocks(ByteSpan(bytes));
    REQUIRE(built.ok());
    CHECK(render::main_block(*built, &p).warnings.empty());
  }
}

TEST_CASE("with ETRecord links: op types, module path and source reach the report and the trace", "[render][inspect]") {
  inspect::RecordLinks links;
  links.debug_handle_map["0"] = {false, {10}};
  links.debug_handle_map["1"] = {true, {11}};
  links.delegate_map = std::map<std::string, inspect::DelegateEntry>{
      {"1", inspect::DelegateEntry{"XnnpackBackend", {{"conv #1", {true, {11}}}}}}};
  inspect::OpNode mul;
  mul.name = "aten_mul_tensor_";
  mul.op = "aten.mul.Tensor";
  mul.debug_handle = 10;
  mul.stack_trace =
      "  File \"/src/model.py\", line 7, in helper\n  File \"/src/model.py\", line 42, in forward\n"
      "    return x * x\n";
  mul.nn_module_stack = std::vector<inspect::ModuleStackEntry>{{"L__self___block", "block", "model.Block"},
                                                               {"L__self___block_mul", "block.mul", "model.Mul"}};
  links.op_nodes = {mul};
  auto linked = inspection();
  inspect::link_events(linked, links);

  const auto p = plan();
  render::ReportSources sources;
  sources.plan = &p;
  const auto data = render::report_from_inspection(linked, sources);
  REQUIRE(data.rows.size() == 4);
  CHECK(data.rows[0].op_types == std::vector<std::string>{"aten.mul.Tensor"});
  CHECK(data.rows[0].module_path == "block.mul");
  CHECK(data.rows[0].source == "/src/model.py:42");  // the last frame
  CHECK(data.rows[1].backend == "XnnpackBackend");
  CHECK(data.nodes.at({0, 0}).source == "/src/model.py:42");
  REQUIRE_FALSE(data.op_type_times.empty());
  CHECK(data.op_type_times[0].label == "aten.mul.Tensor");

  auto trace = render::trace_from_inspection(linked);
  REQUIRE(trace.ok());
  const auto* kernel = find(trace->processes[0].tracks[0], "native_call_mul.out");
  REQUIRE(kernel);
  std::map<std::string, render::TraceArgValue> args;
  for (const auto& arg : kernel->args) args.emplace(arg.key, arg.value);
  CHECK(std::get<std::vector<std::string>>(args.at("op_types")) == std::vector<std::string>{"aten.mul.Tensor"});
  CHECK(std::get<std::string>(args.at("module_path")) == "block.mul");
  CHECK(std::get<std::string>(args.at("source")) == "/src/model.py:42");
  CHECK(std::get<std::vector<int64_t>>(args.at("debug_handles")) == std::vector<int64_t>{10});
  CHECK(std::get<int64_t>(args.at("instruction_id")) == 0);
}
