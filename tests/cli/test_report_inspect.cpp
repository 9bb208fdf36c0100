// et-inspect's visual outputs as a user runs them: --format chrome-trace
// (parsed back: ts/dur in microseconds from the hand-chosen ticks, tracks,
// nesting) and --html (text, then in headless Chromium with the numbers
// the ticks give).
#include <map>
#include <regex>
#include <nlohmann/json.hpp>

#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/render/html_report.h"
#include "tests/cli/test_report_browser_check.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

struct Files {
  std::filesystem::path pte, etdump;
};

// x -> mul(x, c) -> relu -> out; two executions (nanosecond ticks):
//   run 0: Method::execute [900, 1800], OPERATOR_CALL #0 [1000, 1500] around
//          mul [1100, 1400], OPERATOR_CALL #1 [1500, 1700] around relu [1550, 1650]
//   run 1: Method::execute [1900, 2900], OPERATOR_CALL #0 [2000, 2700] around
//          mul [2100, 2600], OPERATOR_CALL #1 [2700, 2800] around relu [2720, 2780]
// and a Default block: Method::init [0, 10000], Program::load_method [0, 12000].
const Files& files() {
  static const Files f = [] {
    Files out;
    const auto dir = test::scratch_dir();
    out.pte = dir / "model.pte";
    test::write_bytes(out.pte, *pte::write_program(test::mul_relu_program()));

    etdump::EtDumpWriter w;
    w.begin_block("Default");
    w.add_profile_event("Method::init", -1, 0, 0, 10000);
    w.add_profile_event("Program::load_method", -1, 0, 0, 12000);
    struct Run {
      uint64_t execute[2], op0[2], mul[2], op1[2], relu[2];
    };
    for (const Run& r : {Run{{900, 1800}, {1000, 1500}, {1100, 1400}, {1500, 1700}, {1550, 1650}},
                         Run{{1900, 2900}, {2000, 2700}, {2100, 2600}, {2700, 2800}, {2720, 2780}}}) {
      w.begin_block("Execute");
      w.add_profile_event("native_call_mul.out", 0, 0, r.mul[0], r.mul[1]);
      w.add_profile_event("OPERATOR_CALL", 0, 0, r.op0[0], r.op0[1]);
      w.add_profile_event("native_call_relu.out", 0, 1, r.relu[0], r.relu[1]);
      w.add_profile_event("OPERATOR_CALL", 0, 1, r.op1[0], r.op1[1]);
      w.add_profile_event("Method::execute", -1, 0, r.execute[0], r.execute[1]);
    }
    out.etdump = dir / "run.etdp";
    test::write_bytes(out.etdump, w.finish());
    return out;
  }();
  return f;
}

std::string read_text(const std::filesystem::path& p) {
  const auto bytes = test::read_bytes(p);
  return {bytes.begin(), bytes.end()};
}

}  // namespace

TEST_CASE("et-inspect --format chrome-trace: one process per block, one track per run", "[report][trace][cli]") {
  const auto r = test::run_tool("et-inspect", test::shell_quote(files().etdump) + " --format chrome-trace");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json trace = json::parse(r.out);
  std::map<int, std::string> processes;
  std::map<std::pair<int, int>, std::string> threads;
  std::vector<json> slices;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "X") slices.push_back(e);
  }
  CHECK(processes == std::map<int, std::string>{{1, "Default"}, {2, "Execute"}});
  CHECK(threads == std::map<std::pair<int, int>, std::string>{{{1, 1}, "run 0"}, {{2, 1}, "run 0"}, {{2, 2}, "run 1"}});
  // 2 Default slices + 5 per execution; 10 metadata events.
  CHECK(slices.size() == 12);
  CHECK(trace["traceEvents"].size() == 22);

  auto slice = [&](const std::string& name, int tid) -> json {
    for (const auto& s : slices) {
      if (s["pid"] == 2 && s["tid"] == tid && s["name"] == name) return s;
    }
    FAIL("no " << name << " on track " << tid);
    return {};
  };
  // ns -> us: divide the ticks by 1000.
  CHECK(slice("OPERATOR_CALL", 1)["ts"].get<double>() == Approx(1.0));  // the first OPERATOR_CALL of run 0
  CHECK(slice("native_call_mul.out", 1)["ts"].get<double>() == Approx(1.1));
  CHECK(slice("native_call_mul.out", 1)["dur"].get<double>() == Approx(0.3));
  CHECK(slice("native_call_mul.out", 2)["ts"].get<double>() == Approx(2.1));
  CHECK(slice("native_call_mul.out", 2)["dur"].get<double>() == Approx(0.5));
  CHECK(slice("native_call_relu.out", 2)["dur"].get<double>() == Approx(0.06));
  CHECK(slice("Method::execute", 2)["dur"].get<double>() == Approx(1.0));
  CHECK(slice("native_call_relu.out", 1)["args"]["instruction_id"] == 1);
  CHECK(slice("native_call_relu.out", 1)["args"]["iteration"] == 0);
  CHECK(slice("native_call_relu.out", 2)["args"]["iteration"] == 1);

  // Each kernel lies within an OPERATOR_CALL of the same instruction on its track.
  for (const auto& s : slices) {
    if (s["name"].get<std::string>().rfind("native_call_", 0) != 0) continue;
    bool enclosed = false;
    for (const auto& parent : slices) {
      if (parent["name"] != "OPERATOR_CALL" || parent["tid"] != s["tid"] || parent["pid"] != s["pid"]) continue;
      if (parent["args"]["instruction_id"] != s["args"]["instruction_id"]) continue;
      enclosed = parent["ts"].get<double>() <= s["ts"].get<double>() &&
                 s["ts"].get<double>() + s["dur"].get<double>() <=
                     parent["ts"].get<double>() + parent["dur"].get<double>() + 1e-9;
    }
    CHECK(enclosed);
  }
}

TEST_CASE("et-inspect --format chrome-trace warns about slices beyond the overlap lanes", "[report][trace][cli]") {
  // 70 kernels of one run, kernel i spanning [10 i, 10 i + 10000): none
  // nests in another, so 64 get a lane each and 6 share the overflow lane.
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  for (int32_t i = 0; i < 70; ++i) {
    w.add_profile_event("native_call_k" + std::to_string(i) + ".out", 0, i, uint64_t(10 * i), uint64_t(10 * i + 10000));
  }
  const auto path = test::scratch_dir() / "staggered.etdp";
  test::write_bytes(path, w.finish());
  const auto r = test::run_tool("et-inspect", test::shell_quote(path) + " --format chrome-trace");
  CHECK(r.exit_code == 0);
  CHECK(r.err == "et-inspect: warning: " + path.string() +
                     ": process 'Execute', track 'run 0': 6 slices overlap more than 64 lanes deep and share the "
                     "lane 'run 0 (overflow)', where they may not nest\n");
  const json trace = json::parse(r.out);
  size_t slices = 0;
  for (const auto& e : trace["traceEvents"]) slices += e["ph"] == "X";
  CHECK(slices == 70);
}

TEST_CASE("et-inspect --html writes a self-contained report with the run's numbers", "[report][html][cli]") {
  const auto dir = test::scratch_dir();
  const auto html = dir / "report.html";
  const auto r = test::run_tool("et-inspect", test::shell_quote(files().etdump) + " --html " + test::shell_quote(html) +
                                                  " --program " + test::shell_quote(files().pte) + " -o /dev/null");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = read_text(html);
  CHECK(text.find("http:") == std::string::npos);
  CHECK(text.find("https:") == std::string::npos);
  // mul samples 300 and 500 ns -> ms: p10 0.0003 + 0.1 * 0.0002 = 0.00032
  // (0.00031999999999999997 in doubles), avg 0.0004.
  CHECK(text.find(">native_call_mul.out</td><td class=\"num\" data-v=\"0\">#0</td><td class=\"num\" data-v=\"2\">2</td>"
                  "<td class=\"num\" data-v=\"0.00031999999999999997\">0.00032</td>") != std::string::npos);
  CHECK(text.find(">0.0004</td>") != std::string::npos);
  // OPERATOR_CALL means 600 and 150 ns: shares 80% and 20%.
  CHECK(text.find("share of execution time: 80.0%") != std::string::npos);
  CHECK(text.find("share of execution time: 20.0%") != std::string::npos);
  CHECK(text.find("<td>model.pte (method forward)</td>") == std::string::npos);  // full path is shown
  CHECK(text.find("(method forward)</td>") != std::string::npos);

  const auto seen = test::open_in_browser(html, dir / "browser");
  if (!seen) return;
  CHECK(seen->status == "ok");
  // Rows: Method::init, Program::load_method, mul, relu, Method::execute.
  // Bars: mul, relu. Timeline of run 0: 5 slices. Graph: input, 2
  // instructions, the constant, output; 4 edges; both instructions linked.
  CHECK(seen->status_text ==
        "rendered: rows=5 bars=2 slices=5 nodes=5 edges=4 links=2 intermediates=0 chart_shown=yes "
        "timeline_shown=yes graph_shown=yes");
  // The OPERATOR_CALL mean (0.0005 + 0.0007) / 2 in doubles.
  CHECK(seen->dom.find("data-label=\"aten::mul.out\" data-value=\"0.00060000000000000006\"") != std::string::npos);
  CHECK(seen->dom.find("data-name=\"OPERATOR_CALL\" data-start=\"0.0001") != std::string::npos);
}

TEST_CASE("et-inspect --html: the table sorts in the browser (#sort= link)", "[report][html][browser][cli]") {
  const auto dir = test::scratch_dir();
  const auto html = dir / "report.html";
  REQUIRE(test::run_tool("et-inspect",
                         test::shell_quote(files().etdump) + " --html " + test::shell_quote(html) + " -o /dev/null")
              .exit_code == 0);
  const auto seen = test::open_in_browser(html, dir / "browser", "#sort=avg-desc");
  if (!seen) return;
  CHECK(seen->status == "ok");
  // Means in ms: load_method 0.012, init 0.01, execute (900 + 1000) / 2 ns,
  // mul 0.0004, relu (100 + 60) / 2 ns; rows were numbered in block order.
  std::vector<std::string> order;
  const std::regex row("<tr id=\"(row-[0-9]+)\">");
  for (auto it = std::sregex_iterator(seen->dom.begin(), seen->dom.end(), row); it != std::sregex_iterator(); ++it) {
    order.push_back((*it)[1]);
  }
  CHECK(order == std::vector<std::string>{"row-1", "row-0", "row-4", "row-2", "row-3"});
  CHECK(seen->dom.find("data-key=\"avg\" title=\"sort\" aria-sort=\"descending\"") != std::string::npos);
}

TEST_CASE("et-inspect --html: an unreadable program is bad input, nothing written", "[report][html][cli]") {
  const auto dir = test::scratch_dir();
  const auto r =
      test::run_tool("et-inspect", test::shell_quote(files().etdump) + " --html " + test::shell_quote(dir / "r.html") +
                                       " --program " + test::shell_quote(files().etdump) + " -o /dev/null");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-inspect: error: " + files().etdump.string() + ": is an ETDump, not a program\n");
  CHECK_FALSE(std::filesystem::exists(dir / "r.html"));
}

TEST_CASE("et-inspect --html: events that do not fit the program are a warning and a note", "[report][html][cli]") {
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_add.out", 0, 0, 110, 390);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 100, 400);
  const auto dir = test::scratch_dir();
  const auto dump = dir / "add.etdp";
  test::write_bytes(dump, w.finish());
  const auto html = dir / "report.html";
  const auto r = test::run_tool("et-inspect", test::shell_quote(dump) + " --html " + test::shell_quote(html) +
                                                  " --program " + test::shell_quote(files().pte) + " -o /dev/null");
  CHECK(r.exit_code == 0);
  const std::string warning =
      "block 0: 1 of 2 instruction events do not fit method 'forward' (an ETDump of another method or program?), "
      "e.g. 'native_call_add.out' at #0, which is aten::mul.out";
  CHECK(r.err == "et-inspect: warning: " + dump.string() + ": " + warning + "\n");
  CHECK(read_text(html).find(render::html_escape(warning)) != std::string::npos);
}

TEST_CASE("et-inspect --html: the graph of lenet_tutorial.pte has only the edges its instructions name",
          "[report][html][cli][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto html = test::scratch_dir() / "lenet.html";
  const auto r = test::run_tool("et-inspect", test::shell_quote(test::fixture("etdump/lenet_tutorial.etdp")) +
                                                  " --html " + test::shell_quote(html) + " --program " +
                                                  test::shell_quote(test::fixture("pte/lenet_tutorial.pte")) +
                                                  " -o /dev/null");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = read_text(html);
  // 25 value edges (worked out in test_render_program_graph.cpp from the
  // instruction list); max_pool's indices v28 share v11's arena bytes but
  // flow nowhere, and v27 flows from the first max_pool to the second conv.
  size_t edges = 0;
  for (size_t at = text.find("<path class=\"edge\""); at != std::string::npos;
       at = text.find("<path class=\"edge\"", at + 1)) {
    ++edges;
  }
  CHECK(edges == 25);
  CHECK(text.find("<title>v28 ") == std::string::npos);
  CHECK(text.find("<title>v27 FLOAT[1,6,14,14]</title>") != std::string::npos);
}
