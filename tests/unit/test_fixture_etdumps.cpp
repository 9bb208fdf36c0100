// Real ETDumps written by the ExecuTorch runtime (../shared/fixtures/etdump)
// read through etkit::etdump::read_etdump, checked against facts derived
// independently of etkit:
//   * "flatc": Debian's flatc 2.0.8,
//       flatc --json --strict-json --defaults-json --raw-binary --size-prefixed
//             schemas/etdump.fbs -- FILE
//     (and once without --defaults-json to see which fields are on the wire),
//     summarised with python3;
//   * "raw": python3 struct.unpack on the file bytes;
//   * "spec": runtime_events.md §2/§6 and inspector_spec.md §1.
// No number below was printed by etkit.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/support/file.h"
#include "tests/support/test_support.h"

using namespace etkit;
using etkit::etdump::EtDump;
using etkit::etdump::ProfileEvent;
namespace ed = etkit::etdump;

namespace {

EtDump load_dump(const std::string& relative) {
  const auto bytes = test::read_bytes(test::fixture(relative));
  auto dump = ed::read_etdump(ByteSpan(bytes));
  INFO(relative << (dump ? std::string() : ": " + dump.error().describe()));
  REQUIRE(dump.ok());
  return std::move(dump).value();
}

const std::vector<ed::Event>& events_of(const ed::RunData& run) {
  REQUIRE(run.events.has_value());
  return *run.events;
}

const ProfileEvent& profile(const ed::Event& event) {
  REQUIRE(event.profile_event.has_value());
  return *event.profile_event;
}

std::string name_of(const ed::Event& event) {
  return event.profile_event && event.profile_event->name ? *event.profile_event->name : std::string("<none>");
}

bool is_delegate_event(const ed::Event& event) {
  return event.profile_event && !event.profile_event->name &&
         (event.profile_event->delegate_debug_id_str || event.profile_event->delegate_debug_id_int != -1);
}

// The 14 LeNet kernels, runtime_events.md §6 (instructions 0..13).
const std::vector<std::string> kLenetKernels = {
    "convolution", "relu", "max_pool2d_with_indices", "convolution", "relu", "max_pool2d_with_indices",
    "permute_copy", "addmm", "relu", "permute_copy", "addmm", "relu", "permute_copy", "addmm"};

}  // namespace

TEST_CASE("every fixture ETDump reads, both from bytes and from an InputFile", "[fixtures][etdump]") {
  ETKIT_REQUIRE_FIXTURES();
  // raw: file size and size prefix (= size - 4), ED00 at bytes 8..11.
  struct Facts {
    const char* file;
    size_t size;
    uint32_t prefix;
    size_t default_events;
    size_t execute_events;
  };
  // flatc: 2 blocks each, event counts per block.
  const Facts all[] = {{"etdump/lenet_tutorial.etdp", 2320, 2316, 2, 29},
                       {"etdump/mobilenet_v2_xnnpack.etdp", 6432, 6428, 2, 71}};
  for (const auto& f : all) {
    INFO(f.file);
    auto file = InputFile::open(test::fixture(f.file).string());
    REQUIRE(file.ok());
    const ByteSpan bytes = (*file)->bytes();
    CHECK(bytes.size() == f.size);
    CHECK(load_u32_le(bytes.data()) == f.prefix);
    CHECK(std::memcmp(bytes.data() + 8, "ED00", 4) == 0);
    auto layout = ed::etdump_layout(bytes);
    REQUIRE(layout.ok());
    CHECK(layout->size_prefixed);
    CHECK(layout->region.size() == f.size);

    auto dump = ed::read_etdump(bytes);
    INFO((dump ? std::string() : dump.error().describe()));
    REQUIRE(dump.ok());
    CHECK(dump->version == 0);  // absent on the wire, default 0
    REQUIRE(dump->run_data.size() == 2);
    CHECK(dump->run_data[0].name == "Default");
    CHECK(dump->run_data[1].name == "Execute");
    for (const auto& run : dump->run_data) {
      CHECK(run.bundled_input_index == -1);  // never recorded (runtime_events.md §5)
      CHECK_FALSE(run.allocators.has_value());
    }
    CHECK(events_of(dump->run_data[0]).size() == f.default_events);
    CHECK(events_of(dump->run_data[1]).size() == f.execute_events);
    // No debug or allocation events in either dump (flatc); each event has
    // exactly its profile_event.
    for (const auto& run : dump->run_data) {
      for (const auto& e : events_of(run)) {
        CHECK(e.profile_event.has_value());
        CHECK_FALSE(e.debug_event.has_value());
        CHECK_FALSE(e.allocation_event.has_value());
      }
    }
  }
}

TEST_CASE("lenet_tutorial.etdp: Default and Execute blocks, 14 kernel calls in order", "[fixtures][etdump]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto dump = load_dump("etdump/lenet_tutorial.etdp");
  REQUIRE(dump.run_data.size() == 2);

  // runtime_events.md §6 / flatc: Default = Method::init, Program::load_method, both (-1, 0).
  const auto& def = events_of(dump.run_data[0]);
  REQUIRE(def.size() == 2);
  CHECK(name_of(def[0]) == "Method::init");
  CHECK(name_of(def[1]) == "Program::load_method");
  for (const auto& e : def) {
    CHECK(profile(e).chain_index == -1);
    CHECK(profile(e).instruction_id == 0);
  }
  // flatc: timestamps (ns).
  CHECK(profile(def[0]).start_time == 399054);
  CHECK(profile(def[0]).end_time == 421538);
  CHECK(profile(def[1]).start_time == 398073);
  CHECK(profile(def[1]).end_time == 422930);

  // Execute = for i in 0..13: native_call_<op>.out (0, i), OPERATOR_CALL (0, i);
  // then Method::execute (-1, 0): 29 events.
  const auto& exec = events_of(dump.run_data[1]);
  REQUIRE(exec.size() == 29);
  size_t native_calls = 0;
  for (size_t i = 0; i < 14; ++i) {
    INFO("instruction " << i);
    const auto& kernel = profile(exec[2 * i]);
    const auto& op = profile(exec[2 * i + 1]);
    CHECK(name_of(exec[2 * i]) == "native_call_" + kLenetKernels[i] + ".out");
    CHECK(name_of(exec[2 * i + 1]) == "OPERATOR_CALL");
    native_calls += name_of(exec[2 * i]).rfind("native_call_", 0) == 0;
    CHECK(kernel.chain_index == 0);  // absent on the wire: the schema default
    CHECK(kernel.instruction_id == int32_t(i));
    CHECK(op.chain_index == 0);
    CHECK(op.instruction_id == int32_t(i));
    // OPERATOR_CALL encloses its native_call (flatc: holds for all 14).
    CHECK(op.start_time <= kernel.start_time);
    CHECK(kernel.end_time <= op.end_time);
    // Non-delegate events carry no delegate ids or metadata.
    CHECK(kernel.delegate_debug_id_int == -1);
    CHECK_FALSE(kernel.delegate_debug_id_str.has_value());
    CHECK_FALSE(kernel.delegate_debug_metadata.has_value());
  }
  CHECK(native_calls == 14);
  const auto& last = profile(exec[28]);
  CHECK(name_of(exec[28]) == "Method::execute");
  CHECK(last.chain_index == -1);
  CHECK(last.instruction_id == 0);
  CHECK(last.start_time == 425313);
  CHECK(last.end_time == 2324134);
  // flatc: the first kernel and its OPERATOR_CALL.
  CHECK(profile(exec[0]).start_time == 426786);
  CHECK(profile(exec[0]).end_time == 971569);
  CHECK(profile(exec[1]).start_time == 425624);
  CHECK(profile(exec[1]).end_time == 972440);
  // flatc: the last kernel (addmm, instruction 13).
  CHECK(profile(exec[26]).start_time == 2323213);
  CHECK(profile(exec[26]).end_time == 2323904);
}

TEST_CASE("lenet_tutorial.etdp kernel names follow lenet_tutorial.pte's operators", "[fixtures][etdump][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  // runtime_events.md §2.2/§9: native_call_ + Operator.name without "ns::"
  // + "." + overload, one per KernelCall, instruction_id = index in the chain.
  auto file = InputFile::open(test::fixture("pte/lenet_tutorial.pte").string());
  REQUIRE(file.ok());
  auto program = pte::read_program(*file);
  REQUIRE(program.ok());
  const auto& plan = program->execution_plan.at(0);
  const auto& instructions = plan.chains.at(0).instructions;

  const auto dump = load_dump("etdump/lenet_tutorial.etdp");
  const auto& exec = events_of(dump.run_data.at(1));
  std::vector<std::pair<std::string, int32_t>> from_dump;
  for (const auto& e : exec) {
    const std::string name = name_of(e);
    if (name.rfind("native_call_", 0) == 0) from_dump.emplace_back(name, profile(e).instruction_id);
  }
  std::vector<std::pair<std::string, int32_t>> from_program;
  for (size_t i = 0; i < instructions.size(); ++i) {
    const auto& call = std::get<pte::KernelCall>(instructions[i]);
    const auto& op = plan.operators.at(size_t(call.op_index));
    std::string bare = op.name.substr(op.name.find("::") + 2);
    from_program.emplace_back("native_call_" + bare + (op.overload.empty() ? "" : "." + op.overload), int32_t(i));
  }
  CHECK(from_dump == from_program);
}

TEST_CASE("mobilenet_v2_xnnpack.etdp: 65 + 1 XNNPACK delegate events with string ids", "[fixtures][etdump]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto dump = load_dump("etdump/mobilenet_v2_xnnpack.etdp");
  REQUIRE(dump.run_data.size() == 2);
  const auto& def = events_of(dump.run_data[0]);
  REQUIRE(def.size() == 2);
  CHECK(name_of(def[0]) == "Method::init");
  CHECK(name_of(def[1]) == "Program::load_method");
  CHECK(profile(def[0]).start_time == 787303);  // flatc
  CHECK(profile(def[0]).end_time == 14796879);

  const auto& exec = events_of(dump.run_data[1]);
  REQUIRE(exec.size() == 71);  // flatc: 65 + DELEGATE_CALL + 2 + 1 + DELEGATE_CALL + Method::execute

  // runtime_events.md §6: 66 delegate events in total, 65 before the first
  // DELEGATE_CALL, one before the second.
  CHECK(std::count_if(exec.begin(), exec.end(), is_delegate_event) == 66);
  CHECK(std::count_if(exec.begin(), exec.begin() + 65, is_delegate_event) == 65);

  for (size_t i = 0; i < 65; ++i) {
    INFO("event " << i);
    const auto& p = profile(exec[i]);
    CHECK_FALSE(p.name.has_value());  // delegate events have no name
    CHECK(p.chain_index == 0);
    CHECK(p.instruction_id == 0);
    CHECK(p.delegate_debug_id_int == -1);
    REQUIRE(p.delegate_debug_id_str.has_value());
    // flatc: present and empty.
    REQUIRE(p.delegate_debug_metadata.has_value());
    CHECK(p.delegate_debug_metadata->empty());
  }
  // flatc: the ids of the first events and the last one in the first call.
  CHECK(*profile(exec[0]).delegate_debug_id_str == "Transpose (ND, X32) #1");
  CHECK(*profile(exec[1]).delegate_debug_id_str == "Convolution (NHWC, F32) IGEMM #1");
  CHECK(*profile(exec[2]).delegate_debug_id_str == "Convolution (NHWC, F32) DWConv #1");
  CHECK(*profile(exec[3]).delegate_debug_id_str == "Fully Connected (NC, F32) GEMM #1");
  CHECK(*profile(exec[63]).delegate_debug_id_str == "Mean (ND) Reduce2 #1");
  CHECK(*profile(exec[64]).delegate_debug_id_str == "Transpose (ND, X32) #2");
  CHECK(profile(exec[0]).start_time == 17504192);
  CHECK(profile(exec[0]).end_time == 17776192);
  // python3 over flatc's JSON: 34 "Fully Connected (NC, F32) GEMM" and 17
  // "Convolution (NHWC, F32) DWConv" events in the first call.
  auto count_prefix = [&](const std::string& prefix) {
    return std::count_if(exec.begin(), exec.begin() + 65, [&](const ed::Event& e) {
      return e.profile_event && e.profile_event->delegate_debug_id_str &&
             e.profile_event->delegate_debug_id_str->rfind(prefix, 0) == 0;
    });
  };
  CHECK(count_prefix("Fully Connected (NC, F32) GEMM #") == 34);
  CHECK(count_prefix("Convolution (NHWC, F32) DWConv #") == 17);
  CHECK(count_prefix("Add (ND) #") == 10);

  // flatc: the framework events that follow.
  const auto& call0 = profile(exec[65]);
  CHECK(name_of(exec[65]) == "DELEGATE_CALL");
  CHECK(call0.chain_index == 0);
  CHECK(call0.instruction_id == 0);
  CHECK(call0.start_time == 14886907);
  CHECK(call0.end_time == 27520849);
  CHECK(name_of(exec[66]) == "native_call__clone_dim_order.out");
  CHECK(profile(exec[66]).instruction_id == 1);
  CHECK(name_of(exec[67]) == "OPERATOR_CALL");
  CHECK(profile(exec[67]).instruction_id == 1);
  CHECK(is_delegate_event(exec[68]));
  CHECK(*profile(exec[68]).delegate_debug_id_str == "Fully Connected (NC, F32) GEMM #1");
  CHECK(profile(exec[68]).instruction_id == 2);
  CHECK(name_of(exec[69]) == "DELEGATE_CALL");
  CHECK(profile(exec[69]).instruction_id == 2);
  CHECK(name_of(exec[70]) == "Method::execute");
  CHECK(profile(exec[70]).chain_index == -1);
  CHECK(profile(exec[70]).instruction_id == 0);
  CHECK(profile(exec[70]).start_time == 14886396);
  CHECK(profile(exec[70]).end_time == 27803814);

  // runtime_events.md §6: delegate events lie inside their DELEGATE_CALL's span.
  for (size_t i = 0; i < 65; ++i) {
    CHECK(profile(exec[i]).start_time >= call0.start_time);
    CHECK(profile(exec[i]).end_time <= call0.end_time);
  }
  CHECK(profile(exec[68]).start_time >= profile(exec[69]).start_time);
  CHECK(profile(exec[68]).end_time <= profile(exec[69]).end_time);
}
