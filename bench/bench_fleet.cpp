// et-fleet's collector over a generated device lab of 1,000 ETDumps (10
// devices x 100 builds, 5 executions of the 14 LeNet kernels each:
// examples/fleet_lab.h), written once to a temporary directory:
//   BM_FleetRunOps/<jobs>     compare's and gate's reading: every dump to its per-op times
//   BM_FleetCsv/<jobs>        the long table as CSV, to /dev/null
//   BM_FleetSqlite/<jobs>     the long table as a SQLite database (temp file + rename)
//   BM_InspectOneDump         et-inspect's event model on one of the dumps, for scale
// Counters: dumps/s (items) and input bytes/s.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "examples/fleet_lab.h"
#include "libcore/fleet/commands.h"
#include "libcore/inspect/event_blocks.h"
#include "libcore/support/file.h"

namespace {

using namespace etkit;
namespace fs = std::filesystem;

struct Lab {
  fs::path dir;
  fleet::InputSet inputs;
  uint64_t bytes = 0;
};

const Lab& lab() {
  static const Lab the_lab = [] {
    Lab l;
    l.dir = fs::temp_directory_path() / ("etkit-bench-fleet-" + std::to_string(::getpid()));
    demo::LabOptions options;
    options.devices.clear();
    for (int d = 0; d < 10; ++d) options.devices.push_back("device" + std::to_string(d));
    options.builds = 100;
    options.executions = 5;
    if (!demo::write_fleet_lab(l.dir.string(), options).ok()) std::abort();
    l.inputs = *fleet::inputs_from_manifest((l.dir / "manifest.tsv").string());
    for (const auto& in : l.inputs.inputs) l.bytes += fs::file_size(in.path);
    std::atexit([] { fs::remove_all(lab().dir); });
    return l;
  }();
  return the_lab;
}

void set_counters(benchmark::State& state) {
  const Lab& l = lab();
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(l.inputs.inputs.size()));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(l.bytes));
}

fleet::CollectOptions options(benchmark::State& state) {
  fleet::CollectOptions o;
  o.jobs = size_t(state.range(0));
  return o;
}

void BM_FleetRunOps(benchmark::State& state) {
  const Lab& l = lab();
  for (auto _ : state) {
    auto runs = fleet::collect_run_ops(l.inputs, options(state), [](const std::string&) {});
    if (!runs.ok() || runs->size() != l.inputs.inputs.size()) state.SkipWithError("collect failed");
    benchmark::DoNotOptimize(runs);
  }
  set_counters(state);
}

void BM_FleetCsv(benchmark::State& state) {
  const Lab& l = lab();
  for (auto _ : state) {
    auto n = fleet::write_long_table(l.inputs, options(state), fleet::TableFormat::kCsv, "/dev/null",
                                     [](const std::string&) {});
    if (!n.ok()) state.SkipWithError(n.error().describe().c_str());
  }
  set_counters(state);
}

void BM_FleetSqlite(benchmark::State& state) {
  const Lab& l = lab();
  const std::string db = (l.dir / "lab.db").string();
  for (auto _ : state) {
    auto n = fleet::write_long_table(l.inputs, options(state), fleet::TableFormat::kSqlite, db, [](const std::string&) {});
    if (!n.ok()) state.SkipWithError(n.error().describe().c_str());
  }
  set_counters(state);
}

void BM_InspectOneDump(benchmark::State& state) {
  const Lab& l = lab();
  auto file = InputFile::open(l.inputs.inputs.front().path);
  if (!file.ok()) std::abort();
  for (auto _ : state) {
    auto built = inspect::build_event_blocks((*file)->bytes());
    benchmark::DoNotOptimize(built);
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t((*file)->bytes().size()));
}

BENCHMARK(BM_FleetRunOps)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FleetCsv)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FleetSqlite)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_InspectOneDump)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
