// Visualization benchmarks (Google Benchmark): the program graph, its DOT
// text and the HTML report (layout + SVG + table) for a chain of N kernel
// calls with a constant each, and the Chrome trace of N nested slices.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "libcore/formats/program/program_builder.h"
#include "libcore/render/chrome_trace.h"
#include "libcore/render/html_report.h"
#include "libcore/render/program_graph_dot.h"

using namespace etkit;

namespace {

// x -> add(x, c0) -> add(., c1) -> ... ; every third add also reads the
// value two steps back, so layers are not a plain chain.
pte::ExecutionPlan chain(int n) {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {4});
  m.set_inputs({x});
  int32_t cur = x, prev = x;
  for (int i = 0; i < n; ++i) {
    const int32_t c = m.add_constant_tensor({4}, std::vector<float>{1, 2, 3, 4});
    const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {4});
    m.kernel_call("aten::add", "out", {cur, i % 3 == 0 ? prev : c, m.add_int(1), y, y});
    prev = cur;
    cur = y;
  }
  m.set_outputs({cur});
  return m.plan();
}

void BM_ProgramGraphDot(benchmark::State& state) {
  const auto plan = chain(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto graph = render::build_program_graph(plan);
    benchmark::DoNotOptimize(render::program_graph_to_dot(*graph));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ProgramGraphDot)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_HtmlReport(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  render::ReportData data;
  data.graph = *render::build_program_graph(chain(n));
  render::ReportTimeline timeline;
  for (int i = 0; i < n; ++i) {
    render::ReportRow row;
    row.block = "Execute";
    row.name = "native_call_add.out";
    row.instruction = render::InstructionRef{0, i};
    row.stats = render::ReportStats{1, 1, 1, 1, 1, 1};
    row.share = 1.0 / n;
    data.rows.push_back(row);
    data.nodes[{0, i}] = {1.0 / n, static_cast<size_t>(i), "", {}};
    timeline.slices.push_back({"OPERATOR_CALL", double(i), 1, 1, false, static_cast<size_t>(i)});
  }
  data.timeline = timeline;
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string html = render::render_html_report(data);
    bytes = html.size();
    benchmark::DoNotOptimize(html.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_HtmlReport)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

void BM_ChromeTrace(benchmark::State& state) {
  render::TraceInput input;
  render::TraceTrack track{"run 0", {}};
  for (int64_t i = 0; i < state.range(0); ++i) {
    const auto start = static_cast<uint64_t>(i) * 1000;
    track.slices.push_back({"OPERATOR_CALL", "Execute", start, 900, 1, {{"instruction_id", i}}});
    track.slices.push_back({"native_call_add.out", "Execute", start + 50, 800, 2, {{"instruction_id", i}}});
  }
  input.processes.push_back({"Execute", {track}});
  std::FILE* null = std::fopen("/dev/null", "w");
  for (auto _ : state) benchmark::DoNotOptimize(render::write_chrome_trace(input, null).ok());
  std::fclose(null);
  state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
BENCHMARK(BM_ChromeTrace)->Arg(100000)->Unit(benchmark::kMillisecond);

// The worst case for lane assignment: every slice starts inside all earlier
// ones and ends after them, so none nests and each wants its own lane.
void BM_ChromeTraceStaggered(benchmark::State& state) {
  render::TraceInput input;
  render::TraceTrack track{"run 0", {}};
  const auto n = static_cast<uint64_t>(state.range(0));
  for (uint64_t i = 0; i < n; ++i) track.slices.push_back({"OPERATOR_CALL", "Execute", i, n, 1, {}});
  input.processes.push_back({"Execute", {track}});
  std::FILE* null = std::fopen("/dev/null", "w");
  for (auto _ : state) benchmark::DoNotOptimize(render::write_chrome_trace(input, null).ok());
  std::fclose(null);
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ChromeTraceStaggered)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
