// Report renderings (table alignment, CSV quoting, Markdown escaping, JSON
// with non-finite numbers) and instruction locations from linked events.
#include <cstdio>
#include <limits>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "libcore/compare/locations.h"
#include "libcore/compare/report.h"

using namespace etkit;
using namespace etkit::compare;

namespace {

std::string rendered(const Report& report, Format format) {
  char* data = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  REQUIRE(out != nullptr);
  const Status s = render(report, format, out);
  std::fclose(out);
  std::string text(data, size);
  std::free(data);
  REQUIRE(s.ok());
  return text;
}

Report sample() {
  Report r;
  r.command = "tensors";
  r.columns = {"value", "n", "mse"};
  r.rows.push_back({std::string("a, \"b\""), int64_t(3), 0.125});
  r.rows.push_back({std::string("x|y"), int64_t(12), std::numeric_limits<double>::infinity()});
  r.rows.push_back({std::string("z"), Cell(), 1.0 / 3});
  r.summary.emplace_back("verdict", std::string("within tolerance"));
  return r;
}

}  // namespace

TEST_CASE("report: table aligns number columns right, text left", "[et-compare][report]") {
  CHECK(rendered(sample(), Format::kTable) ==
        "value    n       mse\n"
        "a, \"b\"   3     0.125\n"
        "x|y     12       inf\n"
        "z           0.333333\n"
        "\n"
        "verdict: within tolerance\n");
}

TEST_CASE("report: csv quotes and keeps every digit, markdown escapes pipes", "[et-compare][report]") {
  CHECK(rendered(sample(), Format::kCsv) ==
        "value,n,mse\n"
        "\"a, \"\"b\"\"\",3,0.125\n"
        "x|y,12,inf\n"
        "z,,0.3333333333333333\n");
  CHECK(rendered(sample(), Format::kMarkdown) ==
        "| value | n | mse |\n"
        "|---|---|---|\n"
        "| a, \"b\" | 3 | 0.125 |\n"
        "| x\\|y | 12 | inf |\n"
        "| z |  | 0.333333 |\n"
        "\n"
        "- verdict: within tolerance\n");
}

TEST_CASE("report: json rows keyed by column, empty cells null, infinity as a string", "[et-compare][report]") {
  const auto doc = nlohmann::json::parse(rendered(sample(), Format::kJson));
  CHECK(doc["format"] == "etkit.compare/2");
  CHECK(doc["command"] == "tensors");
  CHECK(doc["columns"] == nlohmann::json::array({"value", "n", "mse"}));
  CHECK(doc["rows"][0]["value"] == "a, \"b\"");
  CHECK(doc["rows"][1]["mse"] == "inf");
  CHECK(doc["rows"][2]["n"].is_null());
  CHECK(doc["rows"][2]["mse"].get<double>() == 1.0 / 3);
  CHECK(doc["summary"]["verdict"] == "within tolerance");
  CHECK(parse_format("markdown").ok());
  CHECK_FALSE(parse_format("xml").ok());
  CHECK(format_number(std::nan("")) == "nan");
  CHECK(format_number(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(format_number(1234567.0) == "1.23457e+06");
}

TEST_CASE("locations: module path and source line of each instruction's linked events", "[et-compare][report]") {
  inspect::Inspection linked;
  inspect::EventBlock block;
  block.name = "Execute";
  auto event = [](std::string name, int32_t instruction) {
    inspect::Event e;
    e.name = std::move(name);
    e.instruction_id = instruction;
    return e;
  };
  inspect::Event conv = event("native_call_convolution.out", 0);
  conv.module_hierarchy.emplace_back(
      "aten_convolution_default_", std::vector<inspect::ModuleStackEntry>{{"L__self__", "", "M"},
                                                                          {"L__self___conv", "conv", "torch.nn.Conv2d"}});
  conv.stack_traces.emplace_back("aten_convolution_default_",
                                 "  File \"a.py\", line 3, in f\n    g()\n  File \"model.py\", line 18, in forward\n");
  inspect::Event relu = event("native_call_relu.out", 1);
  relu.stack_traces.emplace_back("aten_relu_default_", "  File \"model.py\", line 19, in forward\n");
  inspect::Event mean = event("native_call_mean.out", 2);
  mean.module_hierarchy.emplace_back("aten_mean_dim_", std::vector<inspect::ModuleStackEntry>{{"L__self___pool", "pool", "P"}});
  // Framework events share instruction id 0 but are never linked to nodes;
  // the OPERATOR_CALL after a kernel is linked the same way and changes nothing.
  block.events = {event("Method::init", 0), conv, event("OPERATOR_CALL", 0), relu, mean, event("OPERATOR_CALL", 3)};
  linked.blocks.push_back(block);

  const InstructionLocator locate = locator_from_linked_events(linked);
  CHECK(locate(0, 0) == "conv at model.py:18");  // the innermost frame
  CHECK(locate(0, 1) == "model.py:19");
  CHECK(locate(0, 2) == "pool");
  CHECK(locate(0, 3).empty());
  CHECK(locate(7, 0) == "conv at model.py:18");  // chains are not told apart
}
