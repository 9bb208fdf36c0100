// What a profiled run costs end to end: executions of the tiny add program
// (1,000 aten::add.out calls on FLOAT[1]; per execution an "Execute" block
// of 2,001 profile events: OPERATOR_CALL and native_call_add.out per call,
// and Method::execute) from the first execute() to the ETDump's
// bytes written to a file, against the same executions untraced.
//
//   BM_UntracedRun/<executions>       the baseline
//   BM_TracedRunToDisk/<executions>   traced, finish(), file written
//   BM_DelegateEventsToDisk/<blocks>  no program: what a delegate records per
//                                     block (100 of its profile events with
//                                     metadata, 100 intermediate outputs,
//                                     an Int), written the same way
//
// Each iteration writes a new file: the previous iteration's is deleted
// outside the timing (renaming over it would free its blocks inside the
// timed rename: 13 ms for an 84 MB dump on this machine's ext4, the cost of
// replacing a file, not of tracing).
//
// Counters: ns per event (time / events) and, from getrusage, the process's
// peak RSS when the benchmark ends. ru_maxrss is a high-water mark of the
// whole process, so measure memory with one benchmark per process
// (--benchmark_filter), as docs/performance.md does.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/support/file.h"
#include "runner/executor.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

constexpr int kInstructions = 1000;
constexpr int64_t kEventsPerExecution = 2 * kInstructions + 1;

struct Loaded {
  std::vector<uint8_t> bytes;
  pte::Program program;
  std::unique_ptr<LoadedMethod> method;
};

std::unique_ptr<Loaded> tiny_add_program() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1});
  const int32_t one = m.add_int(1);
  for (int i = 0; i < kInstructions; ++i) m.kernel_call("aten::add", "out", {x, x, one, x, x});
  m.set_inputs({x});
  m.set_outputs({x});
  auto out = std::make_unique<Loaded>();
  out->bytes = std::move(pte::write_program(b.build())).value();
  out->program = std::move(pte::read_program(ByteSpan(out->bytes), nullptr)).value();
  LoadOptions options;
  options.kernels = &portable_kernel_registry();
  auto method = load_method(out->program, "forward", options);
  if (!method) throw std::runtime_error(method.error().describe());
  out->method = std::move(method).value();
  return out;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
}

std::string etdump_path() { return "/tmp/etkit-bench-tracing-" + std::to_string(getpid()) + ".etdp"; }

// The last iteration's dump deleted, outside the timing.
void remove_untimed(benchmark::State& state, const std::string& path) {
  state.PauseTiming();
  std::remove(path.c_str());
  state.ResumeTiming();
}

void set_counters(benchmark::State& state, int64_t executions) {
  const double events = double(executions) * kEventsPerExecution;
  state.counters["events"] = events;
  state.counters["ns_per_event"] = benchmark::Counter(double(state.iterations()) * events,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
                                                      benchmark::Counter::kIs1000);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void BM_UntracedRun(benchmark::State& state) {
  auto loaded = tiny_add_program();
  const int64_t executions = state.range(0);
  for (auto _ : state) {
    for (int64_t i = 0; i < executions; ++i) {
      Status s = execute(*loaded->method);
      if (!s) state.SkipWithError(s.error().describe().c_str());
    }
  }
  set_counters(state, executions);
}

// The tracer's ETDump written the way et-run writes it.
bool write_etdump(EventTracer& tracer, const std::string& path) { return tracer.write_etdump(path).ok(); }

void BM_TracedRunToDisk(benchmark::State& state) {
  auto loaded = tiny_add_program();
  const int64_t executions = state.range(0);
  const std::string path = etdump_path();
  for (auto _ : state) {
    remove_untimed(state, path);
    EventTracer tracer;
    tracer.set_max_bytes(UINT64_MAX);
    for (int64_t i = 0; i < executions; ++i) {
      Status s = execute(*loaded->method, &tracer);
      if (!s) state.SkipWithError(s.error().describe().c_str());
    }
    if (!write_etdump(tracer, path)) state.SkipWithError("cannot write the ETDump");
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f) {
    std::fseek(f, 0, SEEK_END);
    state.counters["file_MiB"] = double(std::ftell(f)) / (1024.0 * 1024.0);
    std::fclose(f);
  }
  std::remove(path.c_str());
  set_counters(state, executions);
}

constexpr int kDelegateNodes = 100;
constexpr int64_t kEventsPerDelegateBlock = 2 * kDelegateNodes + 1;

// The tracer's calls alone, the times taken as a delegate takes them. The
// outputs' tensors have no data: their bytes would go to the debug buffer, a
// file of its own, and this measures what the events themselves keep.
void BM_DelegateEventsToDisk(benchmark::State& state) {
  const int64_t blocks = state.range(0);
  const std::string path = etdump_path();
  Tensor output(ScalarType::kFloat, {1, 8}, {0, 1}, nullptr);
  const uint8_t metadata[] = {'x', 'n', 'n', 0, 1, 2, 3, 4};
  for (auto _ : state) {
    remove_untimed(state, path);
    EventTracer tracer(DebugLevel::kIntermediateOutputs);
    tracer.set_max_bytes(UINT64_MAX);
    for (int64_t b = 0; b < blocks; ++b) {
      tracer.create_block("Execute");
      for (int node = 0; node < kDelegateNodes; ++node) {
        DelegateDebugId id;
        id.integer = node;
        const uint64_t start = EventTracer::ticks();
        tracer.profile_delegate(0, 1, id, ByteSpan(metadata), start, EventTracer::ticks());
        tracer.log_delegate_output(0, 1, id, output);
      }
      EValue v;
      v.tag = Tag::kInt;
      v.i = b;
      tracer.log_value(0, 2, v, false);
    }
    if (!write_etdump(tracer, path)) state.SkipWithError("cannot write the ETDump");
  }
  std::remove(path.c_str());
  const double events = double(blocks) * kEventsPerDelegateBlock;
  state.counters["events"] = events;
  state.counters["ns_per_event"] = benchmark::Counter(double(state.iterations()) * events,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
                                                      benchmark::Counter::kIs1000);
  state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// ~100k, ~300k and ~10M events.
BENCHMARK(BM_UntracedRun)->Arg(50)->Arg(150)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TracedRunToDisk)->Arg(50)->Arg(150)->Unit(benchmark::kMillisecond)->UseRealTime();
// One run of 10M events is seconds long: a single iteration per repetition.
BENCHMARK(BM_TracedRunToDisk)->Arg(5000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
// ~100k and ~1M and ~10M delegate and debug events.
BENCHMARK(BM_DelegateEventsToDisk)->Arg(500)->Arg(5000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DelegateEventsToDisk)->Arg(50000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
