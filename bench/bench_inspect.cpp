// The Inspector's core on synthetic ETDumps (bench/synthetic_etdump.cpp) of
// 10^3..10^6 events:
//   BM_InspectBuild/<events>  build_event_blocks: grouping, folding, samples
//   BM_InspectTable/<events>  the same plus stats and the fancy_grid table
//                             written to /dev/null (et-inspect's default)
// Inputs are generated once per size, outside the timed loop; counters are
// input bytes/s and events/s.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>

#include "libcore/inspect/report.h"

#include "bench/synthetic_etdump.h"

namespace {

using namespace etkit;

struct Input {
  std::vector<uint8_t> bytes;
  uint64_t events = 0;
};

const Input& input(int64_t events) {
  static std::map<int64_t, Input> cache;
  auto it = cache.find(events);
  if (it == cache.end()) {
    Input in;
    in.bytes = bench::mobilenet_like_etdump(uint64_t(events), nullptr, &in.events);
    it = cache.emplace(events, std::move(in)).first;
  }
  return it->second;
}

void set_counters(benchmark::State& state, const Input& in) {
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(in.bytes.size()));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(in.events));
}

void BM_InspectBuild(benchmark::State& state) {
  const Input& in = input(state.range(0));
  for (auto _ : state) {
    auto built = inspect::build_event_blocks(ByteSpan(in.bytes));
    if (!built) state.SkipWithError(built.error().describe().c_str());
    benchmark::DoNotOptimize(built);
  }
  set_counters(state, in);
}

void BM_InspectTable(benchmark::State& state) {
  const Input& in = input(state.range(0));
  std::FILE* null = std::fopen("/dev/null", "w");
  for (auto _ : state) {
    auto built = inspect::build_event_blocks(ByteSpan(in.bytes));
    if (!built || !inspect::write_report(*built, {}, null)) state.SkipWithError("inspect failed");
  }
  std::fclose(null);
  set_counters(state, in);
}

BENCHMARK(BM_InspectBuild)->RangeMultiplier(10)->Range(1'000, 1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InspectTable)->RangeMultiplier(10)->Range(1'000, 1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
