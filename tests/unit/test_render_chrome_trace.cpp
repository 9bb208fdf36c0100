// Chrome trace JSON parsed back: event count, ts/dur worked out by hand from
// raw ticks and the time scale, strict nesting per thread, track names.
#include <cstdio>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "libcore/render/chrome_trace.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

render::TraceSlice slice(std::string name, uint64_t start, uint64_t end, int level,
                         std::vector<render::TraceArg> args = {}) {
  return {std::move(name), "Execute", start, end - start, level, std::move(args)};
}

json write_and_parse(const render::TraceInput& input, std::vector<std::string>* warnings = nullptr) {
  const auto path = test::scratch_dir() / "trace.json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  REQUIRE(f);
  auto result = render::write_chrome_trace(input, f);
  std::fclose(f);
  REQUIRE(result.ok());
  if (warnings) *warnings = *result;
  const auto bytes = test::read_bytes(path);
  return json::parse(bytes.begin(), bytes.end());
}

// Nanosecond ticks: Method::execute [1000, 2000], OPERATOR_CALL #0 [1100,
// 1500] around native_call [1150, 1450], OPERATOR_CALL #1 and its kernel
// with the same span [1500, 1900]; a delegate event [1600, 1700] on its own
// track.
render::TraceInput sample_input() {
  render::TraceInput input;
  input.scale = *render::trace_time_scale("ns");
  render::TraceProcess defaults{"Default", {{"run 0", {slice("Method::init", 10, 990, 0)}}}};
  render::TraceProcess execute{"Execute", {}};
  execute.tracks.push_back(
      {"run 0",
       {
           slice("native_call_mul.out", 1150, 1450, 2, {{"instruction_id", int64_t{0}}}),
           slice("OPERATOR_CALL", 1100, 1500, 1, {{"instruction_id", int64_t{0}}}),
           slice("native_call_add.out", 1500, 1900, 2, {{"op_types", std::vector<std::string>{"aten.add.Tensor"}}}),
           slice("OPERATOR_CALL", 1500, 1900, 1),
           slice("Method::execute", 1000, 2000, 0),
       }});
  execute.tracks.push_back({"run 0 delegate", {slice("conv #1", 1600, 1700, 3, {{"is_delegated_op", true}})}});
  input.processes = {defaults, execute};
  return input;
}

}  // namespace

TEST_CASE("microseconds from ticks are exact for every time scale", "[render][trace]") {
  const auto ns = *render::trace_time_scale("ns");
  CHECK(render::ticks_to_us(17504192, ns) == "17504.192");
  CHECK(render::ticks_to_us(1500, ns) == "1.5");
  CHECK(render::ticks_to_us(1000, ns) == "1");
  CHECK(render::ticks_to_us(5, ns) == "0.005");
  CHECK(render::ticks_to_us(0, ns) == "0");
  CHECK(render::ticks_to_us(18446744073709551615ull, ns) == "18446744073709551.615");
  CHECK(render::ticks_to_us(42, *render::trace_time_scale("us")) == "42");
  CHECK(render::ticks_to_us(3, *render::trace_time_scale("ms")) == "3000");
  CHECK(render::ticks_to_us(2, *render::trace_time_scale("s")) == "2000000");
  CHECK(render::ticks_to_us(0, *render::trace_time_scale("s")) == "0");
  CHECK(render::ticks_to_us(7, *render::trace_time_scale("cycles")) == "7");
  CHECK_FALSE(render::trace_time_scale("minutes").ok());
}

TEST_CASE("chrome trace: tracks, events, microseconds and nesting", "[render][trace]") {
  const json trace = write_and_parse(sample_input());
  REQUIRE(trace.contains("traceEvents"));
  const auto& events = trace["traceEvents"];

  std::map<std::pair<int, int>, std::string> thread_names;
  std::map<int, std::string> process_names;
  std::vector<json> slices;
  for (const auto& e : events) {
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "X") slices.push_back(e);
  }
  CHECK(process_names == std::map<int, std::string>{{1, "Default"}, {2, "Execute"}});
  CHECK(thread_names ==
        std::map<std::pair<int, int>, std::string>{{{1, 1}, "run 0"}, {{2, 1}, "run 0"}, {{2, 2}, "run 0 delegate"}});
  // 1 Default slice, 5 on the operator track, 1 delegate slice; 2 process
  // names + 2 process sort indices + 3 thread names + 3 thread sort indices.
  CHECK(slices.size() == 7);
  CHECK(events.size() == 17);

  auto find = [&](const std::string& name, double ts) -> const json& {
    for (const auto& s : slices) {
      if (s["name"] == name && s["ts"].get<double>() == Approx(ts)) return s;
    }
    FAIL("no slice " << name << " at " << ts);
    return slices.front();
  };
  // 1100 ns -> 1.1 us, 400 ns -> 0.4 us.
  const auto& op0 = find("OPERATOR_CALL", 1.1);
  CHECK(op0["dur"].get<double>() == Approx(0.4));
  CHECK(op0["pid"] == 2);
  CHECK(op0["tid"] == 1);
  CHECK(op0["cat"] == "Execute");
  CHECK(op0["args"]["instruction_id"] == 0);
  const auto& kernel0 = find("native_call_mul.out", 1.15);
  CHECK(kernel0["dur"].get<double>() == Approx(0.3));
  const auto& execute = find("Method::execute", 1.0);
  CHECK(execute["dur"].get<double>() == Approx(1.0));
  const auto& delegate = find("conv #1", 1.6);
  CHECK(delegate["tid"] == 2);
  CHECK(delegate["args"]["is_delegated_op"] == true);
  CHECK(find("native_call_add.out", 1.5)["args"]["op_types"] == json::array({"aten.add.Tensor"}));
  CHECK(find("Method::init", 0.01)["dur"].get<double>() == Approx(0.98));

  // Per thread, in file order: every slice lies within the enclosing open
  // slice or after it (strict nesting, parents first). Ticks are exact in
  // nanoseconds, so compare in ns.
  std::map<std::pair<int, int>, std::vector<std::pair<long, long>>> open;
  for (const auto& s : slices) {
    const long start = std::lround(s["ts"].get<double>() * 1000);
    const long end = start + std::lround(s["dur"].get<double>() * 1000);
    auto& stack = open[{s["pid"], s["tid"]}];
    while (!stack.empty() && stack.back().second <= start) stack.pop_back();
    if (!stack.empty()) {
      CHECK(stack.back().first <= start);
      CHECK(end <= stack.back().second);
    }
    stack.push_back({start, end});
  }
  // With equal spans the lower level is the parent: OPERATOR_CALL #1 first.
  std::vector<std::string> order;
  for (const auto& s : slices) {
    if (s["tid"] == 1 && s["pid"] == 2) order.push_back(s["name"]);
  }
  CHECK(order == std::vector<std::string>{"Method::execute", "OPERATOR_CALL", "native_call_mul.out", "OPERATOR_CALL",
                                          "native_call_add.out"});
}

TEST_CASE("chrome trace: partially overlapping slices move to an overlap lane", "[render][trace]") {
  render::TraceInput input;
  input.processes.push_back(
      {"Execute", {{"run 0", {slice("a", 0, 1000, 1), slice("b", 500, 1500, 1), slice("c", 1500, 2000, 1)}}}});
  const json trace = write_and_parse(input);
  std::map<std::string, int> tid_of;
  std::map<int, std::string> names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") tid_of[e["name"]] = e["tid"];
    if (e["ph"] == "M" && e["name"] == "thread_name") names[e["tid"]] = e["args"]["name"];
  }
  CHECK(tid_of == std::map<std::string, int>{{"a", 1}, {"b", 2}, {"c", 1}});
  CHECK(names == std::map<int, std::string>{{1, "run 0"}, {2, "run 0 (overlap 1)"}});
  CHECK(trace["otherData"]["source_time_scale"] == "ns");
}

TEST_CASE("chrome trace: overlap lanes are capped, the rest share one overflow lane", "[render][trace]") {
  // Slice i spans [10 i, 10 i + 100000): each one starts inside all earlier
  // ones and ends after them, so no two nest and each would need a lane.
  constexpr size_t kSlices = 1000;
  render::TraceInput input;
  render::TraceTrack track{"run 0", {}};
  for (size_t i = 0; i < kSlices; ++i) {
    std::string name = "s";  // appended: "s" + ... trips a GCC 12 -Wrestrict false positive
    name += std::to_string(i);
    track.slices.push_back(slice(name, 10 * i, 10 * i + 100000, 1));
  }
  input.processes.push_back({"Execute", {track}});
  std::vector<std::string> warnings;
  const json trace = write_and_parse(input, &warnings);
  CHECK(warnings == std::vector<std::string>{"process 'Execute', track 'run 0': 936 slices overlap more than 64 "
                                             "lanes deep and share the lane 'run 0 (overflow)', where they may "
                                             "not nest"});
  std::map<int, std::string> names;
  std::map<int, size_t> per_tid;
  std::set<std::string> seen;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") names[e["tid"]] = e["args"]["name"];
    if (e["ph"] == "X") {
      ++per_tid[e["tid"]];
      seen.insert(e["name"]);
    }
  }
  CHECK(seen.size() == kSlices);
  // 64 lanes of one slice each, then the other 936 in the overflow lane.
  REQUIRE(names.size() == 65);
  CHECK(names[1] == "run 0");
  CHECK(names[64] == "run 0 (overlap 63)");
  CHECK(names[65] == "run 0 (overflow)");
  CHECK(per_tid[1] == 1);
  CHECK(per_tid[64] == 1);
  CHECK(per_tid[65] == kSlices - 64);
}

TEST_CASE("chrome trace: slices at the end of the tick range stay valid", "[render][trace]") {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  render::TraceInput input;
  input.processes.push_back(
      {"Execute", {{"run 0", {{"outer", "Execute", max - 10, 100, 0, {}}, {"inner", "Execute", max - 5, 2, 1, {}}}}}});
  const json trace = write_and_parse(input);
  std::map<std::string, int> tid_of;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") tid_of[e["name"]] = e["tid"];
  }
  // The outer slice ends at the largest tick, so the inner one still nests.
  CHECK(tid_of == std::map<std::string, int>{{"outer", 1}, {"inner", 1}});
}
