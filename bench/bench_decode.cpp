// et-dump-decode's core (decode_to_json) on synthetic ETDumps of 10^2..10^6
// events: bytes/s of input and events/s, output to /dev/null. Inputs are
// generated outside the timed loop with a fixed seed.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "examples/demo_models.h"
#include "libcore/formats/json/schema_json.h"

using namespace etkit;

namespace {

std::vector<uint8_t> dump_with_events(int64_t events) {
  demo::SyntheticRun run;
  // Each Execute block holds 14 x 2 kernel events + Method::execute.
  run.executions = int(std::max<int64_t>(1, events / 29));
  run.seed = 42;
  return demo::synthetic_etdump(run, nullptr);
}

void run_decode(benchmark::State& state, bool jsonl) {
  const auto bytes = dump_with_events(state.range(0));
  std::FILE* null = std::fopen("/dev/null", "w");
  for (auto _ : state) {
    Status s = jsonl ? decode_etdump_jsonl(ByteSpan(bytes), {}, null) : decode_to_json(FileKind::kEtDump, ByteSpan(bytes), {}, null);
    if (!s) state.SkipWithError(s.error().describe().c_str());
  }
  std::fclose(null);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
  state.SetItemsProcessed(int64_t(state.iterations()) * state.range(0));
}

void BM_DecodeEtdump(benchmark::State& state) { run_decode(state, false); }
void BM_DecodeEtdumpJsonl(benchmark::State& state) { run_decode(state, true); }
BENCHMARK(BM_DecodeEtdump)->RangeMultiplier(100)->Range(100, 1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeEtdumpJsonl)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
