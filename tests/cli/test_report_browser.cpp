// The HTML report as a person sees it: scripts/check_report.sh opens it in
// headless Chromium with the network blocked, keeps the DOM after the page's
// script ran, the console messages, the network log and a screenshot. Skips
// when Chromium is not installed.
#include <nlohmann/json.hpp>

#include "examples/demo_models.h"
#include "libcore/render/html_report.h"
#include "tests/cli/test_report_browser_check.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

// The demo LeNet's graph with hand-made timings: instruction i takes
// (i % 4 + 1) * 0.01 ms, so #3, #7 and #11 are the most expensive (0.04).
render::ReportData lenet_report() {
  render::ReportData d;
  d.title = "LeNet browser check";
  d.summary = {{"runs", "2"}};
  d.graph = *render::build_program_graph(demo::lenet().execution_plan[0]);
  render::ReportTimeline timeline{"Execute, run 0", {{"Method::execute", 0, 0.4, 0, false, std::nullopt}}};
  double t = 0.005;
  for (int i = 0; i < 14; ++i) {
    const double ms = (i % 4 + 1) * 0.01;
    render::ReportRow row;
    row.block = "Execute";
    row.name = "native_call_" + demo::lenet_kernel_names()[size_t(i)];
    row.instruction = render::InstructionRef{0, i};
    row.samples = 2;
    row.stats = render::ReportStats{ms, ms, ms, ms, ms, ms};
    row.share = ms / 0.34;  // the 14 times add up to 0.34 ms
    d.rows.push_back(row);
    d.nodes[{0, i}] = {row.share, size_t(i), "", {}};
    timeline.slices.push_back({row.name, t, ms, 2, false, size_t(i)});
    t += ms + 0.001;
  }
  d.timeline = timeline;
  d.op_type_times = {{"convolution", 0.03}, {"addmm", 0.07}};
  return d;
}

}  // namespace

TEST_CASE("report renders in headless Chromium without errors or network requests", "[report][browser]") {
  const auto dir = test::scratch_dir();
  const auto html = dir / "report.html";
  const std::string text = render::render_html_report(lenet_report());
  test::write_bytes(html, std::vector<uint8_t>(text.begin(), text.end()));

  const auto seen = test::open_in_browser(html, dir / "browser");
  if (!seen) return;  // skipped: no Chromium
  CHECK(seen->status == "ok");
  // 14 rows and timeline slices (+ Method::execute), 2 bars; 14 instructions
  // + input + 10 constants + output = 26 nodes, all 14 instructions linked.
  CHECK(seen->status_text ==
        "rendered: rows=14 bars=2 slices=15 nodes=26 edges=25 links=14 intermediates=0 chart_shown=yes "
        "timeline_shown=yes graph_shown=yes");
  CHECK(seen->dom.find("<td class=\"num\" data-v=\"0.040000000000000001\">0.04</td>") != std::string::npos);
  CHECK(seen->dom.find("data-label=\"addmm\" data-value=\"0.070000000000000007\"") != std::string::npos);
  CHECK(seen->dom.find("id=\"node-i3\" data-share=\"0.11764705882352941\"") != std::string::npos);  // 0.04 / 0.34
}

TEST_CASE("check_report.sh: a missing report is a usage error (exit 2)", "[report][browser]") {
  const auto dir = test::scratch_dir();
  const std::string script = "bash " + std::string(ETKIT_SCRIPTS_DIR) + "/check_report.sh ";
  for (const std::string name : {"missing.html", "missing.html#sort=avg-desc"}) {
    const auto r = test::run_shell(script + test::shell_quote(dir / name) + " " + test::shell_quote(dir / "out"));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no such report: " + (dir / "missing.html").string()) != std::string::npos);
  }
}

TEST_CASE("check_report.sh: a report whose path has spaces, '#' and '%' opens", "[report][browser]") {
  const auto dir = test::scratch_dir() / "a b#c%d";
  std::filesystem::create_directories(dir);
  const auto html = dir / "report #1.html";
  const std::string text = render::render_html_report(lenet_report());
  test::write_bytes(html, std::vector<uint8_t>(text.begin(), text.end()));
  for (const std::string fragment : {"", "#sort=avg-desc"}) {
    const auto seen = test::open_in_browser(html, dir / "browser", fragment);
    if (!seen) return;  // skipped: no Chromium
    CHECK(seen->status == "ok");
  }
}
