// The HTML report as a person sees it: scripts/check_report.sh opens it in
// headless Chromium with the network blocked, keeps the DOM after the page's
// script ran, the console messages, the network log and a screenshot. Skips
// when Chromium is not installed.
#include <map>
#include <regex>

#include "examples/demo_models.h"
#include "libcore/render/html_report.h"
#include "libcore/render/inspect_report.h"
#include "tests/cli/test_report_browser_check.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

// Instruction i of the demo LeNet takes (i % 4 + 1) * 0.01 ms in both runs
// (its OPERATOR_CALL and its kernel alike), so #3, #7 and #11 are the most
// expensive (0.04 ms); the 14 times add up to 0.33 ms (three cycles of
// 1 + 2 + 3 + 4, then 1 + 2, hundredths).
double instruction_ms(int i) { return (i % 4 + 1) * 0.01; }

// The Inspector's view of two runs with those times, nanosecond ticks.
inspect::Inspection lenet_inspection() {
  inspect::EventBlock block;
  block.name = "Execute";
  block.run_count = 2;
  auto event = [&](std::string name, int32_t instruction, double ms, uint64_t start) {
    inspect::Event e;
    e.name = std::move(name);
    e.instruction_id = instruction;
    e.raw = {ms, ms};
    e.start_time = {start, start + 1'000'000};
    block.events.push_back(std::move(e));
  };
  uint64_t t = 5'000;
  for (int i = 0; i < 14; ++i) {
    const double ms = instruction_ms(i);
    event("native_call_" + demo::lenet_kernel_names()[size_t(i)], i, ms, t);
    event("OPERATOR_CALL", i, ms, t);
    t += uint64_t(ms * 1e6) + 1'000;
  }
  event("Method::execute", 0, 0.4, 0);
  inspect::Inspection inspection;
  inspection.blocks.push_back(std::move(block));
  return inspection;
}

// The report as et-inspect --html --program builds it: shares, op-type bars
// and the timeline come from the Inspection.
std::string lenet_report_html() {
  static const pte::Program program = demo::lenet();
  render::ReportSources sources;
  sources.title = "LeNet browser check";
  sources.plan = &program.execution_plan[0];
  return render::render_html_report(render::report_from_inspection(lenet_inspection(), sources));
}

// For each match of `pattern` in the DOM: its first group -> the number in
// its second group.
std::map<std::string, double> attribute_values(const std::string& dom, const std::string& pattern) {
  std::map<std::string, double> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), re); it != std::sregex_iterator(); ++it) {
    out[(*it)[1]] = std::stod((*it)[2]);
  }
  return out;
}

}  // namespace

TEST_CASE("report renders in headless Chromium without errors or network requests", "[report][browser]") {
  const auto dir = test::scratch_dir();
  const auto html = dir / "report.html";
  const std::string text = lenet_report_html();
  test::write_bytes(html, std::vector<uint8_t>(text.begin(), text.end()));

  const auto seen = test::open_in_browser(html, dir / "browser");
  if (!seen) return;  // skipped: no Chromium
  CHECK(seen->status == "ok");
  // 14 kernel rows + Method::execute (OPERATOR_CALL hidden); 5 op types
  // (convolution, relu, max_pool2d_with_indices, permute_copy, addmm);
  // 14 OPERATOR_CALL + 14 kernel + 1 Method::execute slices; 14 instructions
  // + input + 10 constants + output = 26 nodes, all 14 instructions linked.
  CHECK(seen->status_text ==
        "rendered: rows=15 bars=5 slices=29 nodes=26 edges=25 links=14 intermediates=0 chart_shown=yes "
        "timeline_shown=yes graph_shown=yes");
  CHECK(seen->dom.find("<td class=\"num\" data-v=\"0.040000000000000001\">0.04</td>") != std::string::npos);

  // Each instruction's share: its time over the 0.33 ms of all 14.
  const auto shares = attribute_values(seen->dom, "id=\"node-i([0-9]+)\" data-share=\"([^\"]+)\"");
  REQUIRE(shares.size() == 14);
  for (int i = 0; i < 14; ++i) {
    INFO("instruction " << i);
    CHECK(shares.at(std::to_string(i)) == Approx((i % 4 + 1) / 33.0));
  }
  CHECK(shares.at("3") == Approx(0.04 / 0.33));

  // Op-type bars: the instructions' times summed per operator.
  std::map<std::string, double> expected_bars;
  for (int i = 0; i < 14; ++i) {
    const std::string& kernel = demo::lenet_kernel_names()[size_t(i)];
    expected_bars["aten::" + kernel] += instruction_ms(i);
  }
  const auto bars = attribute_values(seen->dom, "data-label=\"([^\"]+)\" data-value=\"([^\"]+)\"");
  REQUIRE(bars.size() == expected_bars.size());
  for (const auto& [label, ms] : expected_bars) {
    INFO(label);
    REQUIRE(bars.count(label) == 1);
    CHECK(bars.at(label) == Approx(ms));
  }
  CHECK(bars.at("aten::addmm.out") == Approx(0.04 + 0.03 + 0.02));  // instructions 7, 10, 13
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
  const std::string text = lenet_report_html();
  test::write_bytes(html, std::vector<uint8_t>(text.begin(), text.end()));
  for (const std::string fragment : {"", "#sort=avg-desc"}) {
    const auto seen = test::open_in_browser(html, dir / "browser", fragment);
    if (!seen) return;  // skipped: no Chromium
    CHECK(seen->status == "ok");
  }
}
