// The HTML report as text: self-contained (nothing fetched), the table's
// numbers, graph nodes coloured by share and linked to their rows. The
// browser test (tests/cli/test_report_browser.cpp) looks at it rendered.
#include <regex>

#include "libcore/formats/program/program_builder.h"
#include "libcore/render/html_report.h"
#include "tests/support/test_support.h"

using namespace etkit;
using render::InstructionRef;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// x -> conv(x, w) -> relu -> out.
render::ProgramGraph two_kernel_graph() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  const int32_t w = m.add_constant_tensor({2}, std::vector<float>{1, 2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  m.kernel_call("aten::convolution", "out", {x, w, y, y});
  m.kernel_call("aten::relu", "out", {y, z, z});
  m.set_inputs({x});
  m.set_outputs({z});
  return *render::build_program_graph(m.plan());
}

render::ReportData sample_report() {
  render::ReportData d;
  d.title = "demo <report>";
  d.summary = {{"ETDump", "run.etdp"}, {"runs", "3"}};
  d.unit = "ms";
  render::ReportRow conv;
  conv.block = "Execute";
  conv.name = "native_call_convolution.out";
  conv.instruction = InstructionRef{0, 0};
  conv.samples = 3;
  conv.stats = render::ReportStats{0.1, 0.2, 0.3, 0.2, 0.1, 0.3};
  conv.share = 0.6;
  conv.op_types = {"aten.convolution.default"};
  conv.source = "model.py:10";
  render::ReportRow relu;
  relu.block = "Execute";
  relu.name = "native_call_<relu>.out";
  relu.instruction = InstructionRef{0, 1};
  relu.samples = 3;
  relu.stats = render::ReportStats{0.01, 0.01, 0.02, 0.0123456789, 0.01, 0.02};
  relu.share = 0.4;
  render::ReportRow execute;
  execute.block = "Execute";
  execute.name = "Method::execute";
  execute.samples = 3;
  execute.stats = render::ReportStats{0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  render::ReportRow init;
  init.block = "Default";
  init.name = "Method::init";
  d.rows = {conv, relu, execute, init};
  d.op_type_times = {{"aten.convolution.default", 0.6}, {"aten.relu.default", 0.4}};
  d.timeline = render::ReportTimeline{"Execute, run 0",
                                      {{"Method::execute", 0, 0.5, 0, false, 2},
                                       {"OPERATOR_CALL", 0.01, 0.2, 1, false, std::nullopt},
                                       {"native_call_convolution.out", 0.02, 0.18, 2, false, 0},
                                       {"native_call_<relu>.out", 0.25, 0.01, 2, false, 1}}};
  d.graph = two_kernel_graph();
  d.nodes[{0, 0}] = {0.6, 0, "model.py:10", {"FLOAT[1,2] min=0 max=1"}};
  d.nodes[{0, 1}] = {0.4, 1, "", {}};
  d.intermediates = {{"Execute", "native_call_convolution.out", InstructionRef{0, 0}, 0, {"FLOAT[1,2] min=0 max=1"}}};
  return d;
}

}  // namespace

TEST_CASE("html report is self-contained: no URL, no fetch, everything inline", "[render][html]") {
  const std::string html = render::render_html_report(sample_report());
  CHECK(html.find("http://") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("//") == std::string::npos);  // not even protocol-relative URLs (or comments)
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  CHECK(html.find("fetch(") == std::string::npos);
  CHECK(html.find("XMLHttpRequest") == std::string::npos);
  // Every link points inside the page.
  const std::regex href("href=\"([^\"]*)\"");
  size_t links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator(); ++it, ++links) {
    CHECK((*it)[1].str().rfind('#', 0) == 0);
  }
  CHECK(links > 0);
  CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
  CHECK(count(html, "<script>") == 1);
  CHECK(count(html, "<style>") == 1);
}

TEST_CASE("html report table: rows with the given numbers, blanks without perf data", "[render][html]") {
  const std::string html = render::render_html_report(sample_report());
  CHECK(count(html, "<tr id=\"row-") == 4);
  // %.6g as the Inspector prints, full precision for sorting.
  CHECK(
      html.find("<tr id=\"row-0\"><td class=\"num\" data-v=\"0\">0</td><td>Execute</td><td>native_call_convolution.out"
                "</td><td class=\"num\" data-v=\"0\">#0</td><td class=\"num\" data-v=\"3\">3</td>"
                "<td class=\"num\" data-v=\"0.10000000000000001\">0.1</td>"
                "<td class=\"num\" data-v=\"0.20000000000000001\">0.2</td>"
                "<td class=\"num\" data-v=\"0.29999999999999999\">0.3</td>") != std::string::npos);
  CHECK(html.find(">0.0123457</td>") != std::string::npos);
  CHECK(html.find("native_call_&lt;relu&gt;.out") != std::string::npos);
  CHECK(html.find("<relu>") == std::string::npos);
  CHECK(html.find("<title>demo &lt;report&gt;</title>") != std::string::npos);
  // Method::init has no perf data: six empty stat cells and no share.
  const auto init = html.find("<tr id=\"row-3\">");
  REQUIRE(init != std::string::npos);
  const std::string row = html.substr(init, html.find("</tr>", init) - init);
  CHECK(count(row, "<td class=\"num\" data-v=\"\"></td>") == 8);  // instruction, 6 stats, share
  CHECK(html.find("60.0%</td>") != std::string::npos);
  CHECK(html.find("<th data-key=\"source\">source</th>") != std::string::npos);
  CHECK(html.find("<td>model.py:10</td>") != std::string::npos);
  CHECK(html.find("data-key=\"module\"") == std::string::npos);  // no row has one
}

TEST_CASE("html report graph: nodes coloured by share, linked to rows, with source and outputs", "[render][html]") {
  const std::string html = render::render_html_report(sample_report());
  // Conv has the largest share: red; relu at 0.4/0.6 = 2/3 of it, a third of
  // the way from amber (255,204,77) to red (229,57,53): (246,155,69).
  CHECK(
      html.find("<a href=\"#row-0\"><g class=\"node instruction\" id=\"node-i0\" data-share=\"0.59999999999999998\" "
                "data-row=\"0\"><title>#0 aten::convolution.out\nshare of execution time: 60.0%\nsource: model.py:10\n"
                "output: FLOAT[1,2] min=0 max=1</title>") != std::string::npos);
  CHECK(html.find("fill=\"#e53935\"/><text") != std::string::npos);
  CHECK(html.find("<a href=\"#row-1\"><g class=\"node instruction\" id=\"node-i1\"") != std::string::npos);
  CHECK(html.find("fill=\"#f69b45\"/>") != std::string::npos);
  CHECK(count(html, "class=\"node ") == 5);  // input, constant, 2 instructions, output
  CHECK(count(html, "<path class=\"edge") == 4);
  CHECK(html.find("id=\"node-const_1\"") != std::string::npos);
}

TEST_CASE("html report charts: op-type bars and timeline slices", "[render][html]") {
  const std::string html = render::render_html_report(sample_report());
  CHECK(count(html, "<g class=\"bar\"") == 2);
  CHECK(html.find("data-label=\"aten.convolution.default\" data-value=\"0.59999999999999998\"") != std::string::npos);
  CHECK(html.find("0.6 ms (60.0%)") != std::string::npos);
  CHECK(count(html, "<rect class=\"slice") == 4);
  CHECK(html.find("data-name=\"native_call_&lt;relu&gt;.out\" data-start=\"0.25\" data-duration=\"0.01\"") !=
        std::string::npos);
  CHECK(html.find("<h2>Timeline: Execute, run 0</h2>") != std::string::npos);
  CHECK(count(html, "id=\"intermediate-table\"") == 1);
}

TEST_CASE("html report without optional parts leaves their sections out", "[render][html]") {
  render::ReportData d;
  d.rows.push_back({});
  const std::string html = render::render_html_report(d);
  CHECK(html.find("id=\"events\"") != std::string::npos);
  CHECK(html.find("id=\"graph\"") == std::string::npos);
  CHECK(html.find("id=\"timeline\"") == std::string::npos);
  CHECK(html.find("id=\"optypes\"") == std::string::npos);
  CHECK(html.find("id=\"intermediates\"") == std::string::npos);
}
