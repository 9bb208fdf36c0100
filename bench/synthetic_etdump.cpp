// The benchmarks' ETDump: what `et-run` with profiling writes for a
// MobileNetV2-like program of 100 instructions, 91 portable kernel calls and
// 9 DELEGATE_CALLs into an XNNPACK-like delegate (219 events per execution,
// 6,848 blocks for 1.5 million events). Events follow ExecuTorch's ETDumpGen
// (runtime_events.md §2): a "Default" block with Method::init and
// Program::load_method, then one "Execute" block per execution with
// native_call_<op> + OPERATOR_CALL per kernel instruction, delegate events
// (delegate_debug_id_str, empty delegate_debug_metadata) + DELEGATE_CALL per
// delegate instruction, all at chain_index 0, then Method::execute and, with
// a debug buffer, the program output. Events are written when they end, so an
// inner event precedes the one around it. Timestamps are nanoseconds on one
// monotonic clock; durations come from std::mt19937(42) used directly (its
// output is fixed by the standard, unlike the distributions').
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "libcore/formats/etdump/debug_buffer.h"
#include "bench/synthetic_etdump.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/scalar_type.h"

namespace etkit::bench {

namespace {

constexpr int32_t kInstructions = 100;
constexpr int kLogits = 1000;

struct Instruction {
  std::string name;  // "native_call_<op>.<overload>"; empty for a DELEGATE_CALL
  uint64_t typical_ns;
  std::vector<std::string> delegate_events;  // a DELEGATE_CALL's, in order
};

struct Kernel {
  const char* name;
  uint64_t typical_ns;
};

// Inverted-residual blocks (expand, depthwise, project convolutions, each with
// batch norm, ReLU6 as hardtanh, a residual add) and the classifier head; op
// names as the runtime logs them: no namespace, with the overload.
std::vector<Instruction> mobilenet_like_program() {
  static const Kernel kBlock[] = {
      {"native_call_convolution.out", 18'000}, {"native_call__native_batch_norm_legit_no_training.out", 3'000},
      {"native_call_hardtanh.out", 1'200},     {"native_call_convolution.out", 9'000},
      {"native_call__native_batch_norm_legit_no_training.out", 3'000}, {"native_call_hardtanh.out", 1'200},
      {"native_call_convolution.out", 15'000}, {"native_call__native_batch_norm_legit_no_training.out", 2'500},
      {"native_call_add.out", 1'500}};
  static const Kernel kHead[] = {{"native_call_mean.out", 2'000},
                                 {"native_call_view_copy.out", 300},
                                 {"native_call_permute_copy.out", 4'000},
                                 {"native_call_addmm.out", 25'000}};
  std::vector<Instruction> program;
  size_t next = 0;
  int delegate_calls = 0;
  for (int32_t i = 0; i < kInstructions - int32_t(std::size(kHead)); ++i) {
    if (i % 10 == 9) {
      // A delegated inverted-residual block: XNNPACK runs the 1x1 convolutions
      // as GEMMs and numbers operators per kind ("<op> #<n>"), as in
      // fixtures/etdump/mobilenet_v2_xnnpack.etdp.
      const int k = delegate_calls++;
      program.push_back({"", 40'000,
                         {"Fully Connected (NC, F32) GEMM #" + std::to_string(2 * k + 1),
                          "Convolution (NHWC, F32) DWConv #" + std::to_string(k + 1),
                          "Fully Connected (NC, F32) GEMM #" + std::to_string(2 * k + 2)}});
    } else {
      const Kernel& kernel = kBlock[next++ % std::size(kBlock)];
      program.push_back({kernel.name, kernel.typical_ns, {}});
    }
  }
  for (const Kernel& kernel : kHead) program.push_back({kernel.name, kernel.typical_ns, {}});
  return program;
}

}  // namespace

std::vector<uint8_t> mobilenet_like_etdump(uint64_t target_events, std::vector<uint8_t>* debug_buffer,
                                           uint64_t* event_count) {
  const std::vector<Instruction> program = mobilenet_like_program();
  std::mt19937 rng(42);
  // Between 80% and 120% of the typical duration.
  auto duration = [&rng](uint64_t typical) { return typical * 4 / 5 + rng() % (typical * 2 / 5 + 1); };

  etdump::EtDumpWriter writer;
  etdump::DebugBufferWriter buffer;
  uint64_t clock = 1'000'000;
  uint64_t events = 0;

  writer.begin_block("Default");
  writer.add_profile_event("Method::init", -1, 0, clock + 2'000, clock + 180'000);
  writer.add_profile_event("Program::load_method", -1, 0, clock, clock + 200'000);
  events += 2;
  clock += 250'000;

  std::vector<float> logits(kLogits);
  for (uint64_t execution = 0;; ++execution) {
    const bool log_output = debug_buffer != nullptr && execution % 10 == 9;
    const uint64_t closing_events = 1 + (log_output ? 1 : 0);
    // At least one instruction, then the closing events.
    if (execution > 0 && events + 2 + closing_events > target_events) break;
    writer.begin_block("Execute");
    const uint64_t execute_start = clock;
    clock += 300;
    for (int32_t i = 0; i < kInstructions; ++i) {
      const Instruction& instruction = program[size_t(i)];
      const uint64_t cost = instruction.name.empty() ? instruction.delegate_events.size() + 1 : 2;
      if (i > 0 && events + cost + closing_events > target_events) break;
      const uint64_t call_start = clock;
      if (instruction.name.empty()) {
        clock += 200;  // delegate dispatch before its first operator
        for (const std::string& id : instruction.delegate_events) {
          etdump::ProfileEvent e;
          e.chain_index = 0;
          e.instruction_id = i;
          e.delegate_debug_id_str = id;
          e.delegate_debug_metadata = std::vector<uint8_t>{};
          e.start_time = clock;
          e.end_time = clock + duration(instruction.typical_ns / instruction.delegate_events.size());
          clock = e.end_time + 50;
          writer.add_profile_event(e);
        }
        writer.add_profile_event("DELEGATE_CALL", 0, i, call_start, clock + 100);
        clock += 100;
      } else {
        const uint64_t kernel_start = call_start + 40;
        const uint64_t kernel_end = kernel_start + duration(instruction.typical_ns);
        writer.add_profile_event(instruction.name, 0, i, kernel_start, kernel_end);
        writer.add_profile_event("OPERATOR_CALL", 0, i, call_start, kernel_end + 30);
        clock = kernel_end + 30;
      }
      events += cost;
      clock += 20;
    }
    writer.add_profile_event("Method::execute", -1, 0, execute_start, clock + 200);
    ++events;
    if (log_output) {
      // Program outputs are logged outside any chain: -1 in the unsigned field.
      for (int k = 0; k < kLogits; ++k) logits[size_t(k)] = float(int(rng() % 2001) - 1000) / 100.0f;
      etdump::DebugEvent d;
      d.chain_index = UINT64_MAX;
      d.instruction_id = 0;
      etdump::Tensor t{static_cast<int8_t>(ScalarType::kFloat), {1, kLogits}, {kLogits, 1}, -1};
      t.offset = buffer.append(ByteSpan(reinterpret_cast<const uint8_t*>(logits.data()), logits.size() * sizeof(float)));
      d.debug_entry.val = etdump::ValueType::kTensor;
      d.debug_entry.tensor = std::move(t);
      d.debug_entry.output = true;
      writer.add_debug_event(d);
      ++events;
    }
    clock += 5'000 + rng() % 1'000;  // the caller's work between executions
  }
  if (debug_buffer != nullptr) *debug_buffer = buffer.bytes();
  if (event_count != nullptr) *event_count = events;
  return writer.finish();
}

}  // namespace etkit::bench
