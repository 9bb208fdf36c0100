// EventBlocks from hand-made ETDumps (written with the project's writer), one
// grouping rule or quirk of inspector_spec.md §3 per test; expected numbers
// are worked out by hand in the comments.
#include <cstring>
#include <fstream>
#include <vector>

#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/inspect/event_blocks.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::inspect;
using etdump::EtDumpWriter;

namespace {

etdump::ProfileEvent delegate_event(int32_t instruction, int32_t id_int, std::optional<std::string> id_str,
                                    uint64_t start, uint64_t end) {
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

etdump::DebugEvent int_debug_event(int32_t instruction, uint64_t chain, int64_t value) {
  etdump::DebugEvent d;
  d.chain_index = chain;
  d.instruction_id = instruction;
  d.debug_entry.val = etdump::ValueType::kInt;
  d.debug_entry.int_value = value;
  return d;
}

etdump::DebugEvent tensor_debug_event(int32_t instruction, uint64_t chain, std::vector<int64_t> sizes, int64_t offset,
                                      bool output) {
  etdump::DebugEvent d;
  d.chain_index = chain;
  d.instruction_id = instruction;
  d.debug_entry.val = etdump::ValueType::kTensor;
  std::vector<int64_t> strides(sizes.size(), 1);
  d.debug_entry.tensor = etdump::Tensor{6 /* FLOAT */, std::move(sizes), std::move(strides), offset};
  if (output) d.debug_entry.output = true;
  return d;
}

Inspection build(const std::vector<uint8_t>& bytes, const BuildOptions& options = {}) {
  auto r = build_event_blocks(ByteSpan(bytes), options);
  INFO((r ? std::string() : r.error().describe()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

std::vector<std::string> names(const EventBlock& block) {
  std::vector<std::string> out;
  for (const Event& e : block.events) out.push_back(e.name);
  return out;
}

// One execution as the runtime writes it: a kernel (inner event first), its
// OPERATOR_CALL, then Method::execute outside any chain.
void execution(EtDumpWriter& w, uint64_t t0, uint64_t kernel_ns, int32_t bundled = -1) {
  w.begin_block("Execute", bundled);
  w.add_profile_event("native_call_add.out", 0, 0, t0 + 100, t0 + 100 + kernel_ns);
  w.add_profile_event("OPERATOR_CALL", 0, 0, t0 + 50, t0 + 150 + kernel_ns);
  w.add_profile_event("Method::execute", -1, 0, t0, t0 + 1000 + kernel_ns);
}

}  // namespace

TEST_CASE("repeated runs fold into one block with one sample per run", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Default");
  w.add_profile_event("Method::init", -1, 0, 10, 2010);
  execution(w, 10'000, 2'000);
  execution(w, 20'000, 4'000);
  execution(w, 30'000, 6'000);
  const Inspection in = build(w.finish());

  REQUIRE(in.blocks.size() == 2);
  CHECK(in.blocks[0].name == "Default");
  const EventBlock& exec = in.blocks[1];
  CHECK(exec.name == "Execute");
  CHECK(exec.run_count == 3);
  CHECK(exec.bundled_input_index == -1);
  // Keys in first-seen order: (0, chain 0) gives the kernel and
  // OPERATOR_CALL, (0, chain -1) gives Method::execute.
  CHECK(names(exec) == std::vector<std::string>{"native_call_add.out", "OPERATOR_CALL", "Method::execute"});
  const Event& kernel = exec.events[0];
  CHECK(kernel.instruction_id == 0);
  CHECK_FALSE(kernel.is_delegated_op);
  CHECK(kernel.delegate_debug_identifier.is_none());
  // 2000, 4000, 6000 ns -> ms
  CHECK(kernel.raw == std::vector<double>{0.002, 0.004, 0.006});
  CHECK(kernel.start_time == std::vector<uint64_t>{10'100, 20'100, 30'100});
  const PerfStats s = kernel.stats();
  CHECK(s.p50 == 0.004);
  CHECK(s.min == 0.002);
  CHECK(s.max == 0.006);
  CHECK(s.avg == Approx(0.004).epsilon(1e-12));
  CHECK(s.p10 == Approx(0.0024).epsilon(1e-12));  // 0.002 + 0.002 * 0.2
  // Framework events keep instruction id 0 (not -1).
  CHECK(exec.events[2].instruction_id == 0);
  CHECK(exec.events[2].raw == std::vector<double>{0.003, 0.005, 0.007});
  CHECK(in.warnings.empty());
}

TEST_CASE("runs that differ in events or bundled input index are separate blocks of the same name", "[inspect][blocks]") {
  EtDumpWriter w;
  execution(w, 0, 1'000);
  execution(w, 10'000, 3'000);
  // Another event set.
  w.begin_block("Execute");
  w.add_profile_event("native_call_mul.out", 0, 0, 20'000, 20'500);
  // Same events, another bundled input.
  execution(w, 30'000, 5'000, 1);
  execution(w, 40'000, 7'000);
  // A block that got no events has its events vector left out: skipped.
  w.begin_block("Execute");
  const Inspection in = build(w.finish());

  REQUIRE(in.blocks.size() == 3);
  CHECK(in.blocks[0].run_count == 3);  // runs 0, 1 and 4
  CHECK(in.blocks[0].events[0].raw == std::vector<double>{0.001, 0.003, 0.007});
  CHECK(in.blocks[1].events.size() == 1);
  CHECK(in.blocks[1].events[0].name == "native_call_mul.out");
  CHECK(in.blocks[2].bundled_input_index == 1);
  CHECK(in.blocks[2].events[0].raw == std::vector<double>{0.005});
  for (const EventBlock& b : in.blocks) CHECK(b.name == "Execute");
}

TEST_CASE("an equal signature later in a run overwrites the earlier one's timing in place", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  // A loop runs instruction 2 twice: only the last timing (300 -> 700)
  // survives, at the first position.
  w.add_profile_event("native_call_x.out", 0, 2, 100, 200);
  w.add_profile_event("native_call_y.out", 0, 3, 210, 260);
  w.add_profile_event("native_call_x.out", 0, 2, 300, 700);
  // Two chains run instruction 1 under one name: chain is not part of the
  // signature, so chain 1's timing replaces chain 0's.
  w.add_profile_event("native_call_z.out", 0, 1, 1000, 1100);
  w.add_profile_event("native_call_z.out", 1, 1, 2000, 2900);
  const Inspection in = build(w.finish());

  REQUIRE(in.blocks.size() == 1);
  const EventBlock& b = in.blocks[0];
  CHECK(names(b) == std::vector<std::string>{"native_call_x.out", "native_call_y.out", "native_call_z.out"});
  CHECK(b.events[0].raw == std::vector<double>{400 / 1e6});
  CHECK(b.events[0].start_time == std::vector<uint64_t>{300});
  CHECK(b.events[2].raw == std::vector<double>{900 / 1e6});
  CHECK(b.events[2].instruction_id == 1);
  CHECK(b.events[2].chain_index == 1);  // the chain of the timing kept
}

TEST_CASE("events keep the chain index the Inspector drops", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_a.out", 0, 0, 100, 200);
  w.add_profile_event("native_call_b.out", 2, 0, 200, 300);
  w.add_debug_event(int_debug_event(4, 3, 7));
  w.add_profile_event("Method::execute", -1, 0, 50, 400);
  const Inspection in = build(w.finish());
  REQUIRE(in.blocks.size() == 1);
  const EventBlock& b = in.blocks[0];
  REQUIRE(b.events.size() == 4);
  CHECK(b.events[0].chain_index == 0);
  CHECK(b.events[1].chain_index == 2);
  CHECK(b.events[2].chain_index == 3);  // a debug-only event (u64 chain)
  CHECK(b.events[2].instruction_id == 4);
  CHECK(b.events[3].chain_index == -1);
}

TEST_CASE("32-bit wrap-around: (2^32 - 1 - start) + end, delegate stamps scaled first", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_x.out", 0, 0, 4294967290u, 10);
  w.add_event({delegate_event(1, 3, std::nullopt, 4294967290u, 10), std::nullopt, std::nullopt});
  const auto bytes = w.finish();

  const Inspection ns = build(bytes);
  // (4294967295 - 4294967290) + 10 = 15 ticks: one less than modular 16.
  CHECK(ns.blocks[0].events[0].raw == std::vector<double>{15 / 1e6});
  // Delegated: both stamps divided by 1e6, then the same rule in floating point.
  CHECK(ns.blocks[0].events[1].raw == std::vector<double>{(4294967295.0 - 4294967290.0 / 1e6) + 10.0 / 1e6});

  BuildOptions cycles;
  cycles.source_time_scale = TimeScale::kCycles;
  cycles.target_time_scale = TimeScale::kCycles;
  const Inspection raw = build(bytes, cycles);
  CHECK(raw.blocks[0].events[0].raw == std::vector<double>{15.0});
  CHECK(raw.blocks[0].events[1].raw == std::vector<double>{15.0});

  EtDumpWriter big;
  big.begin_block("Execute");
  big.add_profile_event("native_call_x.out", 0, 0, (uint64_t(1) << 32) + 5, 3);
  const auto bad = big.finish();
  auto r = build_event_blocks(ByteSpan(bad));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "run_data[0].events[0]");
  CHECK(r.error().message.find("2^32-1") != std::string::npos);
}

TEST_CASE("delegate events: int and string ids name the event, time is scaled before subtracting", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  auto with_metadata = delegate_event(4, 0, std::nullopt, 17504192, 17776192);
  with_metadata.delegate_debug_metadata = std::vector<uint8_t>{1, 2};
  w.add_event({with_metadata, std::nullopt, std::nullopt});
  w.add_event({delegate_event(4, -1, "Convolution (NHWC, F32) IGEMM #1", 100, 300), std::nullopt, std::nullopt});
  w.add_profile_event("DELEGATE_CALL", 0, 4, 787303, 14796879);
  const Inspection in = build(w.finish());

  const EventBlock& b = in.blocks[0];
  REQUIRE(b.events.size() == 3);
  // Int id 0 is a valid id: the event is named "0".
  CHECK(b.events[0].name == "0");
  CHECK(b.events[0].is_delegated_op);
  CHECK(b.events[0].delegate_debug_identifier.kind == DelegateId::Kind::kInt);
  CHECK(b.events[0].delegate_debug_identifier.int_value == 0);
  CHECK(b.events[0].instruction_id == 4);
  // 17776192 / 1e6 - 17504192 / 1e6 = 0.272000000000002 (inspector_spec.md §7.5),
  // not 272000 / 1e6 = 0.272.
  CHECK(b.events[0].raw == std::vector<double>{0.272000000000002});
  CHECK(b.events[0].delegate_debug_metadatas == std::vector<std::vector<uint8_t>>{{1, 2}});
  CHECK(b.events[1].name == "Convolution (NHWC, F32) IGEMM #1");
  CHECK(b.events[1].delegate_debug_identifier.kind == DelegateId::Kind::kStr);
  CHECK(b.events[1].delegate_debug_metadatas.empty());  // all empty: not kept
  // DELEGATE_CALL itself is not delegated: the integer difference divided once.
  CHECK_FALSE(b.events[2].is_delegated_op);
  CHECK(b.events[2].raw == std::vector<double>{14.009576});
}

TEST_CASE("debug-only events are unnamed or named by a delegate id or a debug name, and debug names override", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  w.add_debug_event(int_debug_event(3, 0, 7));
  auto delegated = int_debug_event(5, 0, 8);
  delegated.delegate_debug_id_str = "d1";
  w.add_debug_event(delegated);
  // A profile event and a debug event of one instruction: the debug
  // signature is applied last and its non-empty name wins.
  w.add_profile_event("native_call_x.out", 0, 6, 10, 20);
  auto renamed = int_debug_event(6, 0, 9);
  renamed.name = "renamed";
  w.add_debug_event(renamed);
  // An empty debug name keeps the profile name; both events share the data.
  w.add_debug_event(int_debug_event(7, 0, 10));
  w.add_profile_event("native_call_y.out", 0, 7, 30, 40);
  w.add_profile_event("OPERATOR_CALL", 0, 7, 25, 45);
  const Inspection in = build(w.finish());

  const EventBlock& b = in.blocks[0];
  CHECK(names(b) == std::vector<std::string>{"", "d1", "renamed", "native_call_y.out", "OPERATOR_CALL"});
  CHECK_FALSE(b.events[0].has_perf_data());
  CHECK(b.events[0].start_time.empty());
  CHECK(b.events[0].instruction_id == 3);
  REQUIRE(b.events[0].debug_data.size() == 1);
  CHECK(b.events[0].debug_data[0].kind == DebugValue::Kind::kInt);
  CHECK(b.events[0].debug_data[0].int_value == 7);
  CHECK(b.events[1].is_delegated_op);
  CHECK(b.events[2].raw == std::vector<double>{10 / 1e6});
  CHECK(b.events[2].debug_data[0].int_value == 9);
  CHECK(b.events[3].debug_data[0].int_value == 10);
  CHECK(b.events[4].debug_data[0].int_value == 10);
}

TEST_CASE("run outputs: flagged tensors go to run_output, scalar outputs become an unnamed event", "[inspect][blocks]") {
  etdump::DebugBufferWriter buffer;
  const float logits[2] = {1.5f, -2.0f};
  const int64_t offset = buffer.append(ByteSpan(reinterpret_cast<const uint8_t*>(logits), sizeof logits));
  EtDumpWriter w;
  for (int run = 0; run < 2; ++run) {
    w.begin_block("Execute");
    w.add_profile_event("Method::execute", -1, 0, 0, 100);
    w.add_debug_event(tensor_debug_event(0, UINT64_MAX, {1, 2}, offset, /*output=*/true));
    // An Int program output carries no output flag.
    w.add_debug_event(int_debug_event(0, UINT64_MAX, 42));
  }
  // A third run whose output has another shape: kept as the same block (run
  // outputs are not part of the signature), with a warning.
  w.begin_block("Execute");
  w.add_profile_event("Method::execute", -1, 0, 0, 100);
  w.add_debug_event(tensor_debug_event(0, UINT64_MAX, {2}, offset, true));
  w.add_debug_event(int_debug_event(0, UINT64_MAX, 42));
  const auto bytes = w.finish();

  BuildOptions options;
  const std::vector<uint8_t> buffer_bytes = buffer.bytes();
  options.debug_buffer = ByteSpan(buffer_bytes);
  const Inspection in = build(bytes, options);
  REQUIRE(in.blocks.size() == 1);
  const EventBlock& b = in.blocks[0];
  CHECK(b.run_count == 3);
  REQUIRE(b.run_output.size() == 1);
  CHECK(b.run_output[0].kind == DebugValue::Kind::kTensor);
  CHECK(b.run_output[0].tensors[0].sizes == std::vector<int64_t>{1, 2});
  CHECK(names(b) == std::vector<std::string>{"Method::execute", ""});
  CHECK(b.events[1].instruction_id == 0);
  REQUIRE(b.events[1].debug_data.size() == 1);
  CHECK(b.events[1].debug_data[0].int_value == 42);
  REQUIRE(in.warnings.size() == 1);
  CHECK(in.warnings[0] == "block 'Execute': 1 of its 3 runs have run outputs that differ from the kept ones (the "
                          "Python Inspector stops with an AssertionError here)");
}

TEST_CASE("a tensor beyond the debug buffer is an error about the buffer", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  w.add_debug_event(tensor_debug_event(0, 0, {4}, 64, false));  // bytes [64, 80)
  const auto bytes = w.finish();
  const std::vector<uint8_t> short_buffer(70);
  BuildOptions options;
  options.debug_buffer = ByteSpan(short_buffer);
  auto r = build_event_blocks(ByteSpan(bytes), options);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.rfind("debug buffer", 0) == 0);
  CHECK(r.error().field == "run_data[0].events[0].debug_event.debug_entry.tensor");
  // Without a buffer the tensor inflates to zeros: no error.
  CHECK(build_event_blocks(ByteSpan(bytes)).ok());
}

TEST_CASE("allocation events make the Inspector fail", "[inspect][blocks]") {
  EtDumpWriter w;
  w.begin_block("Execute");
  const int32_t allocator = w.add_allocator("method");
  w.add_profile_event("native_call_x.out", 0, 0, 1, 2);
  w.add_allocation_event({allocator, 64});
  const auto bytes = w.finish();
  auto r = build_event_blocks(ByteSpan(bytes));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kUnsupported);
  CHECK(r.error().field == "run_data[0].events[1]");
  CHECK(r.error().message.find("allocation event") == 0);
}

TEST_CASE("empty dumps and blocks that hold only run outputs", "[inspect][blocks]") {
  EtDumpWriter empty;
  const Inspection none = build(empty.finish());
  CHECK(none.blocks.empty());

  EtDumpWriter w;
  w.begin_block("Default");  // no events: skipped
  w.begin_block("Execute");
  w.add_debug_event(tensor_debug_event(0, UINT64_MAX, {1}, -1, true));
  const Inspection in = build(w.finish());
  REQUIRE(in.blocks.size() == 1);
  CHECK(in.blocks[0].events.empty());
  CHECK(in.blocks[0].run_output.size() == 1);

  const std::vector<uint8_t> not_etdump(64, 0);
  CHECK_FALSE(build_event_blocks(ByteSpan(not_etdump)).ok());
}

TEST_CASE("exclude_warmup drops the first samples of every event", "[inspect][blocks]") {
  EtDumpWriter w;
  execution(w, 0, 1'000);
  execution(w, 10'000, 2'000);
  execution(w, 20'000, 3'000);
  Inspection in = build(w.finish());
  exclude_warmup(in, 1);
  CHECK(in.blocks[0].events[0].raw == std::vector<double>{0.002, 0.003});
  CHECK(in.blocks[0].events[0].start_time == std::vector<uint64_t>{10'100, 20'100});
  exclude_warmup(in, 5);
  CHECK_FALSE(in.blocks[0].events[0].has_perf_data());
}

TEST_CASE("truncated and corrupted dumps fail cleanly or build", "[inspect][blocks][malformed]") {
  EtDumpWriter w;
  w.begin_block("Default");
  w.add_profile_event("Method::init", -1, 0, 10, 2010);
  execution(w, 10'000, 2'000);
  w.add_event({delegate_event(1, -1, "conv #1", 5, 9), std::nullopt, std::nullopt});
  w.add_debug_event(int_debug_event(0, 0, 3));
  w.add_debug_event(tensor_debug_event(0, UINT64_MAX, {2, 2}, 0, true));
  const auto bytes = w.finish();
  const std::vector<uint8_t> buffer(16);
  BuildOptions options;
  options.debug_buffer = ByteSpan(buffer);
  REQUIRE(build_event_blocks(ByteSpan(bytes), options).ok());
  // Every prefix: the size prefix no longer fits, or the verifier refuses.
  for (size_t n = 0; n < bytes.size(); ++n) {
    CHECK_FALSE(build_event_blocks(ByteSpan(bytes.data(), n), options).ok());
  }
  // Single bit flips: whatever the verifier lets through must not crash.
  size_t built = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; bit += 3) {
      std::vector<uint8_t> flipped = bytes;
      flipped[i] = uint8_t(flipped[i] ^ (1u << bit));
      if (build_event_blocks(ByteSpan(flipped), options).ok()) ++built;
    }
  }
  CHECK(built > 0);
}

namespace {

// An ETDump built by flatc from JSON, independent of our writer: for fields
// our writer always writes.
std::vector<uint8_t> flatc_etdump(const std::string& json_text) {
  const auto dir = test::scratch_dir();
  {
    std::ofstream out(dir / "dump.json");
    out << json_text;
  }
  const auto r = test::run_shell(std::string(ETKIT_FLATC) + " --binary --size-prefixed -o " + dir.string() + " " +
                                 ETKIT_SCHEMAS_DIR + "/etdump.fbs " + (dir / "dump.json").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return test::read_bytes(dir / "dump.etdp");
}

}  // namespace

TEST_CASE("required fields and present-but-empty events vectors, from flatc-built dumps", "[inspect][blocks]") {
  // An events vector that is present but empty still makes a (zero-event)
  // block; an absent one does not.
  const Inspection empty = build(flatc_etdump(R"({"run_data": [{"name": "Execute", "events": []}, {"name": "Default"}]})"));
  REQUIRE(empty.blocks.size() == 1);
  CHECK(empty.blocks[0].events.empty());
  CHECK(empty.blocks[0].run_count == 1);

  // A tensor without sizes rejects the whole file, even one the Inspector
  // would never inflate (Python's decoder requires the field).
  auto r = build_event_blocks(ByteSpan(flatc_etdump(
      R"({"run_data": [{"name": "Execute", "events": [{"profile_event": {"name": "x", "instruction_id": 0}},
          {"debug_event": {"instruction_id": 0, "debug_entry": {"val": "Tensor", "tensor": {"strides": [1]}}}}]}]})")));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "run_data[0].events[1].debug_event.debug_entry.tensor");
  CHECK(r.error().message == "tensor without sizes or strides");

  r = build_event_blocks(ByteSpan(flatc_etdump(R"({"run_data": [{"name": "Execute", "events": [{"debug_event": {"instruction_id": 0}}]}]})")));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "debug event without debug_entry");

  r = build_event_blocks(ByteSpan(flatc_etdump(R"({"run_data": [{"events": []}]})")));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().field == "run_data[0]");
  CHECK(r.error().message == "block without a name");
}
