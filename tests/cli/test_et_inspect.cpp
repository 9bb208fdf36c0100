// et-inspect as a user runs it: stdout, stderr and exit code apart, for
// every option and the bad inputs.
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<json> jsonl(const std::string& text) {
  std::vector<json> out;
  for (const std::string& line : lines_of(text)) out.push_back(json::parse(line));
  return out;
}

// A dump with 3 folded executions of two kernels (durations in ns:
// conv 3000/5000/7000, relu 1000 each), Method::execute, and a debug buffer
// holding the conv's FLOAT[2] output [1.5, -2.0] logged in every run.
struct Files {
  std::filesystem::path dir, etdp, debug, alloc, empty, outputs_only;
};

const Files& files() {
  static const Files f = [] {
    Files out;
    out.dir = test::scratch_dir();
    etdump::DebugBufferWriter buffer;
    const float values[2] = {1.5f, -2.0f};
    const int64_t offset = buffer.append(ByteSpan(reinterpret_cast<const uint8_t*>(values), sizeof values));
    etdump::EtDumpWriter w;
    w.begin_block("Default");
    w.add_profile_event("Method::init", -1, 0, 0, 50'000);
    for (uint64_t run = 0; run < 3; ++run) {
      const uint64_t t0 = 1'000'000 * (run + 1);
      w.begin_block("Execute");
      etdump::DebugEvent d;
      d.chain_index = 0;
      d.instruction_id = 0;
      d.debug_entry.val = etdump::ValueType::kTensor;
      d.debug_entry.tensor = etdump::Tensor{6, {2}, {1}, offset};
      w.add_debug_event(d);
      w.add_profile_event("native_call_convolution.out", 0, 0, t0 + 100, t0 + 100 + 3'000 + 2'000 * run);
      w.add_profile_event("OPERATOR_CALL", 0, 0, t0 + 50, t0 + 9'000);
      w.add_profile_event("native_call_relu.out", 0, 1, t0 + 10'000, t0 + 11'000);
      w.add_profile_event("OPERATOR_CALL", 0, 1, t0 + 9'950, t0 + 11'050);
      w.add_profile_event("Method::execute", -1, 0, t0, t0 + 20'000);
    }
    out.etdp = out.dir / "run.etdp";
    out.debug = out.dir / "run.bin";
    test::write_bytes(out.etdp, w.finish());
    test::write_bytes(out.debug, buffer.bytes());

    etdump::EtDumpWriter a;
    a.begin_block("Execute");
    a.add_allocation_event({a.add_allocator("method"), 64});
    out.alloc = out.dir / "alloc.etdp";
    test::write_bytes(out.alloc, a.finish());

    etdump::EtDumpWriter e;
    e.begin_block("Execute");
    out.empty = out.dir / "empty.etdp";
    test::write_bytes(out.empty, e.finish());

    etdump::EtDumpWriter o;
    o.begin_block("Execute");
    o.add_profile_event("native_call_x.out", 0, 0, 0, 10);
    o.begin_block("Execute");
    etdump::DebugEvent output;
    output.chain_index = UINT64_MAX;
    output.instruction_id = 0;
    output.debug_entry.val = etdump::ValueType::kInt;
    output.debug_entry.int_value = 1;
    output.debug_entry.output = true;
    o.add_debug_event(output);
    out.outputs_only = out.dir / "outputs_only.etdp";
    test::write_bytes(out.outputs_only, o.finish());
    return out;
  }();
  return f;
}

void check_one_line_error(const test::CommandResult& r, const std::string& start) {
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("et-inspect: error: " + start, 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("et-inspect prints print_data_tabular's table by default", "[cli][inspect]") {
  const auto r = test::run_tool("et-inspect", test::shell_quote(files().etdp));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto lines = lines_of(r.out);
  // 4 rows (Method::init, conv, relu, Method::execute): top, header, rule,
  // 4 rows with 3 rules between them, bottom.
  REQUIRE(lines.size() == 11);
  CHECK(lines[0].rfind("╒════╤", 0) == 0);
  CHECK(lines[1].find("│ event_name                  │   p10 (ms) │") != std::string::npos);
  // conv: 0.003, 0.005, 0.007 ms; p10 = 0.003 + 0.002 * 0.2 = 0.0034.
  CHECK(lines[5].find("│ native_call_convolution.out │     0.0034 │      0.005 │     0.0066 │      0.005 │      0.003 "
                      "│      0.007 │") != std::string::npos);
  CHECK(lines[5].find("[1000100, 2000100, 3000100]") != std::string::npos);
  CHECK(r.out.find("OPERATOR_CALL") == std::string::npos);
}

TEST_CASE("et-inspect --format tsv, csv, markdown, json, jsonl", "[cli][inspect]") {
  const auto tsv = test::run_tool("et-inspect", "--format tsv " + test::shell_quote(files().etdp));
  CHECK(tsv.exit_code == 0);
  auto lines = lines_of(tsv.out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] ==
        "\tevent_block_name\tevent_name\tp10 (ms)\tp50 (ms)\tp90 (ms)\tavg (ms)\tmin (ms)\tmax (ms)\top_types\t"
        "is_delegated_op\tdelegate_backend_name\tstart_time");
  // Full precision: 0.003 + 0.002 * 0.2 in floating point.
  CHECK(lines[2] == "1\tExecute\tnative_call_convolution.out\t0.0034000000000000002\t0.005\t0.0066\t0.005\t0.003\t"
                    "0.007\t[]\tFalse\t\t[1000100, 2000100, 3000100]");

  const auto csv = test::run_tool("et-inspect", "--format csv " + test::shell_quote(files().etdp));
  lines = lines_of(csv.out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[3] == "2,Execute,native_call_relu.out,0.001,0.001,0.001,0.001,0.001,0.001,[],False,,"
                    "\"[1010000, 2010000, 3010000]\"");

  const auto md = test::run_tool("et-inspect", "--format markdown " + test::shell_quote(files().etdp));
  lines = lines_of(md.out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[1].rfind("|---:|:---", 0) == 0);

  const auto js = test::run_tool("et-inspect", "--format json " + test::shell_quote(files().etdp));
  CHECK(js.exit_code == 0);
  const json doc = json::parse(js.out);
  CHECK(doc["format"] == "etkit.inspect/1");
  CHECK(doc["view"] == "events");
  CHECK(doc["target_time_scale"] == "ms");
  REQUIRE(doc["blocks"].size() == 2);
  CHECK(doc["blocks"][1]["run_count"] == 3);
  const json& conv = doc["blocks"][1]["events"][0];
  CHECK(conv["name"] == "native_call_convolution.out");
  CHECK(conv["perf_data"]["raw"] == json::array({0.003, 0.005, 0.007}));
  CHECK(conv["debug_data"][0]["type"] == "tensor");
  CHECK(conv["debug_data"][0]["tensor"]["dtype"] == "FLOAT");

  const auto jl = test::run_tool("et-inspect", "--format jsonl " + test::shell_quote(files().etdp));
  const auto rows = jsonl(jl.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[3]["name"] == "Method::execute");
  CHECK(rows[3]["block"] == "Execute");
  CHECK(rows[3]["index"] == 3);
}

TEST_CASE("et-inspect --sort, --top, --filter, --block", "[cli][inspect]") {
  auto r = test::run_tool("et-inspect", "--format jsonl --sort avg " + test::shell_quote(files().etdp));
  auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 4);
  // Sorted within each block, blocks in order; indices kept.
  CHECK(rows[0]["name"] == "Method::init");
  CHECK(rows[1]["name"] == "Method::execute");
  CHECK(rows[1]["index"] == 3);
  CHECK(rows[2]["name"] == "native_call_convolution.out");
  CHECK(rows[3]["name"] == "native_call_relu.out");

  r = test::run_tool("et-inspect", "--format jsonl --top 1 --block Execute " + test::shell_quote(files().etdp));
  rows = jsonl(r.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["name"] == "Method::execute");

  r = test::run_tool("et-inspect", "--format jsonl --sort name " + test::shell_quote(files().etdp));
  rows = jsonl(r.out);
  CHECK(rows[1]["name"] == "Method::execute");
  CHECK(rows[2]["name"] == "native_call_convolution.out");

  r = test::run_tool("et-inspect", "--format jsonl --filter 'relu|init' " + test::shell_quote(files().etdp));
  rows = jsonl(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["name"] == "Method::init");
  CHECK(rows[1]["name"] == "native_call_relu.out");
  CHECK(rows[1]["index"] == 2);
}

TEST_CASE("et-inspect --filter matches a 200 KB event name without exhausting the stack", "[cli][inspect]") {
  // libstdc++'s std::regex recursed once per character of the name here.
  const std::string long_name = "conv" + std::string(200'000, 'x');
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event(long_name, 0, 0, 100, 300);
  w.add_profile_event("relu", 0, 1, 300, 400);
  const auto path = test::scratch_dir() / "long_name.etdp";
  test::write_bytes(path, w.finish());

  const auto r = test::run_tool("et-inspect", "--format jsonl --filter 'conv.*' " + test::shell_quote(path));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["name"] == long_name);
  // POSIX extended syntax: alternation and anchors; a name without a match is dropped.
  const auto relu =
      jsonl(test::run_tool("et-inspect", "--format jsonl --filter '^(relu|gelu)$' " + test::shell_quote(path)).out);
  REQUIRE(relu.size() == 1);
  CHECK(relu[0]["name"] == "relu");
}

TEST_CASE("et-inspect --group-by op-type totals per op type", "[cli][inspect]") {
  const auto r = test::run_tool("et-inspect", "--group-by op-type --format json " + test::shell_quote(files().etdp));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(doc["view"] == "op_types");
  const json& rows = doc["rows"];
  // Framework events and OPERATOR_CALL are left out: conv 0.005 ms and relu
  // 0.001 ms of a 0.006 ms block.
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["op_type"] == "convolution.out");
  CHECK(rows[0]["count"] == 1);
  CHECK(rows[0]["total"].get<double>() == Approx(0.005));
  CHECK(rows[0]["share"].get<double>() == Approx(100.0 * 5 / 6));
  CHECK(rows[1]["op_type"] == "relu.out");
  CHECK(rows[1]["cumulative"].get<double>() == Approx(100.0));

  const auto table = test::run_tool("et-inspect", "--group-by op-type " + test::shell_quote(files().etdp));
  CHECK(table.out.find("│ op_type         │   count │   total (ms) │") != std::string::npos);
}

TEST_CASE("et-inspect time scales and --exclude-warmup", "[cli][inspect]") {
  auto r = test::run_tool("et-inspect", "--format jsonl --target-time-scale us " + test::shell_quote(files().etdp));
  auto rows = jsonl(r.out);
  CHECK(rows[1]["perf_data"]["raw"] == json::array({3.0, 5.0, 7.0}));
  r = test::run_tool("et-inspect",
                     "--format jsonl --source-time-scale us --target-time-scale s " + test::shell_quote(files().etdp));
  rows = jsonl(r.out);
  CHECK(rows[1]["perf_data"]["raw"][0].get<double>() == 3000 / 1e6);
  r = test::run_tool("et-inspect", "--format jsonl --exclude-warmup 1 " + test::shell_quote(files().etdp));
  rows = jsonl(r.out);
  CHECK(rows[1]["perf_data"]["raw"] == json::array({0.005, 0.007}));
  // Method::init had one sample: none left, so its stats are missing.
  CHECK(rows[0]["perf_data"].is_null());
}

TEST_CASE("et-inspect --debug-buffer adds a debug_data summary column", "[cli][inspect]") {
  const auto r = test::run_tool(
      "et-inspect", "--debug-buffer " + test::shell_quote(files().debug) + " " + test::shell_quote(files().etdp));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("│ debug_data ") != std::string::npos);
  CHECK(r.out.find("float32[2] min=-2 max=1.5 mean=-0.25 [1.5, -2]") != std::string::npos);
  const auto one =
      test::run_tool("et-inspect", "--max-values 1 --format tsv --debug-buffer " + test::shell_quote(files().debug) +
                                       " " + test::shell_quote(files().etdp));
  CHECK(one.out.find("float32[2] min=-2 max=1.5 mean=-0.25 [1.5, ...]") != std::string::npos);

  // A buffer too short for the logged tensor: the error names the buffer.
  const auto short_buffer = files().dir / "short.bin";
  test::write_bytes(short_buffer, std::vector<uint8_t>(3));
  const auto bad = test::run_tool(
      "et-inspect", "--debug-buffer " + test::shell_quote(short_buffer) + " " + test::shell_quote(files().etdp));
  check_one_line_error(bad, short_buffer.string() + ": run_data[1].events[0]");
}

TEST_CASE("et-inspect --find-total-for-module prints Python's float", "[cli][inspect]") {
  const auto r = test::run_tool("et-inspect", "--find-total-for-module fc1 " + test::shell_quote(files().etdp));
  CHECK(r.exit_code == 0);
  CHECK(r.out == "0.0\n");
  CHECK(r.err.find("warning: no ETRecord") != std::string::npos);
}

TEST_CASE("et-inspect reads standard input for -", "[cli][inspect]") {
  const auto from_file = test::run_tool("et-inspect", "--format tsv " + test::shell_quote(files().etdp));
  const auto from_stdin = test::run_tool("et-inspect", "--format tsv -", files().etdp.string());
  CHECK(from_stdin.exit_code == 0);
  CHECK(from_stdin.out == from_file.out);
}

TEST_CASE("et-inspect -o writes the file", "[cli][inspect]") {
  const auto out = files().dir / "table.tsv";
  const auto r =
      test::run_tool("et-inspect", "--format tsv -o " + test::shell_quote(out) + " " + test::shell_quote(files().etdp));
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  const auto stdout_run = test::run_tool("et-inspect", "--format tsv " + test::shell_quote(files().etdp));
  const auto bytes = test::read_bytes(out);
  CHECK(std::string(bytes.begin(), bytes.end()) == stdout_run.out);
}

TEST_CASE("et-inspect rejects bad input and usage with one line and exit 2", "[cli][inspect]") {
  const auto& f = files();
  check_one_line_error(test::run_tool("et-inspect", test::shell_quote(f.dir / "missing.etdp")),
                       (f.dir / "missing.etdp").string());
  const auto junk = f.dir / "junk.etdp";
  test::write_bytes(junk, std::vector<uint8_t>(100, 7));
  check_one_line_error(test::run_tool("et-inspect", test::shell_quote(junk)), junk.string() + ": not an ETDump");
  check_one_line_error(test::run_tool("et-inspect", test::shell_quote(f.alloc)),
                       f.alloc.string() + ": run_data[0].events[0]: allocation event");
  check_one_line_error(test::run_tool("et-inspect", test::shell_quote(f.empty)),
                       f.empty.string() + ": no events to inspect");
  check_one_line_error(test::run_tool("et-inspect", "--source-time-scale cycles " + test::shell_quote(f.etdp)),
                       "cannot convert between cycles and a time unit");
  check_one_line_error(test::run_tool("et-inspect", "--filter '(' " + test::shell_quote(f.etdp)),
                       "--filter: invalid regular expression '(': ");
  check_one_line_error(test::run_tool("et-inspect", "--sort speed " + test::shell_quote(f.etdp)),
                       "unknown sort key 'speed'");
  check_one_line_error(test::run_tool("et-inspect", "--group-by op-type --sort avg " + test::shell_quote(f.etdp)),
                       "--sort applies");
  const auto bad_format = test::run_tool("et-inspect", "--format xml " + test::shell_quote(f.etdp));
  CHECK(bad_format.exit_code == 2);
  CHECK(bad_format.out.empty());
  CHECK(test::run_tool("et-inspect", "").exit_code == 2);
  const auto help = test::run_tool("et-inspect", "--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Exit codes:") != std::string::npos);
}

TEST_CASE("et-inspect rejects options the chosen output would ignore", "[cli][inspect]") {
  const auto& f = files();
  auto usage_error = [&](const std::string& args, const std::vector<std::string>& message_parts) {
    INFO(args);
    const auto r = test::run_tool("et-inspect", args + " " + test::shell_quote(f.etdp));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    for (const std::string& part : message_parts) CHECK(r.err.find(part) != std::string::npos);
  };
  // --find-total-for-module prints one number: no report, table or trace.
  const auto html = f.dir / "total.html";
  usage_error("--find-total-for-module fc1 --html " + test::shell_quote(html),
              {"--find-total-for-module", " excludes ", "--html"});
  CHECK_FALSE(std::filesystem::exists(html));
  for (const std::string option : {"--format csv", "--sort avg", "--top 1", "--filter conv", "--block Execute",
                                   "--group-by op-type", "--columns event_name", "--source"}) {
    const std::string name = option.substr(0, option.find(' '));
    usage_error("--find-total-for-module fc1 " + option, {"--find-total-for-module", " excludes ", name});
  }
  // --program only draws the graph of the --html report.
  usage_error("--program " + test::shell_quote(f.etdp), {"--program requires --html"});
  // The trace holds every event of every block: the table's selections do not apply.
  for (const std::string option : {"--sort avg", "--top 1", "--filter conv", "--block Execute", "--group-by op-type",
                                   "--columns event_name", "--source"}) {
    const std::string name = option.substr(0, option.find(' '));
    usage_error("--format chrome-trace " + option, {name + " does not apply to --format chrome-trace"});
  }
}

TEST_CASE("et-inspect leaves out blocks without events, with a warning", "[cli][inspect]") {
  const auto r = test::run_tool("et-inspect", "--format tsv " + test::shell_quote(files().outputs_only));
  CHECK(r.exit_code == 0);
  CHECK(lines_of(r.out).size() == 2);
  CHECK(r.err == "et-inspect: warning: " + files().outputs_only.string() +
                     ": block 'Execute' has no events and is left out (the Python Inspector fails on it)\n");
}

TEST_CASE("et-inspect reads the fixtures and the demo dump", "[cli][inspect][fixtures]") {
  std::vector<uint8_t> buffer;
  demo::SyntheticRun run;
  run.executions = 4;
  run.log_program_output = true;
  const auto demo = files().dir / "demo.etdp";
  test::write_bytes(demo, demo::synthetic_etdump(run, &buffer));
  const auto r = test::run_tool("et-inspect", "--format jsonl " + test::shell_quote(demo));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 2 + 14 + 1);
  CHECK(rows[2]["perf_data"]["raw"].size() == 4);

  ETKIT_REQUIRE_FIXTURES();
  const auto lenet = test::run_tool("et-inspect", test::shell_quote(test::fixture("etdump/lenet_tutorial.etdp")));
  CHECK(lenet.exit_code == 0);
  CHECK(lines_of(lenet.out).size() == 3 + 17 * 2);
  const auto mobilenet =
      test::run_tool("et-inspect", "--block Execute --filter GEMM --format tsv " +
                                       test::shell_quote(test::fixture("etdump/mobilenet_v2_xnnpack.etdp")));
  CHECK(mobilenet.exit_code == 0);
  CHECK(lines_of(mobilenet.out).size() == 1 + 36);  // 35 "... GEMM #n" and one "IGEMM #1"
}

TEST_CASE("et-inspect --etrecord links a real run of the demo LeNet to its graph", "[cli][inspect][etrecord]") {
  const auto dir = test::scratch_dir();
  const pte::Program program = demo::lenet();
  auto pte_bytes = pte::write_program(program);
  REQUIRE(pte_bytes.ok());
  test::write_bytes(dir / "lenet.pte", *pte_bytes);
  auto record = demo::lenet_etrecord(program);
  REQUIRE(record.ok());
  test::write_bytes(dir / "lenet.etrecord", *record);
  const auto run = test::run_tool("et-run", test::shell_quote(dir / "lenet.pte") + " -q --iterations 2 --etdump " +
                                                test::shell_quote(dir / "run.etdp"));
  REQUIRE(run.exit_code == 0);

  const std::string args =
      "--etrecord " + test::shell_quote(dir / "lenet.etrecord") + " " + test::shell_quote(dir / "run.etdp");
  const auto r = test::run_tool("et-inspect", "--format jsonl " + args);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto rows = jsonl(r.out);
  REQUIRE(rows.size() == 2 + 14 + 1);
  double classifier_total = 0.0;
  size_t kernels = 0;
  for (const json& row : rows) {
    const std::string name = row["name"];
    INFO(name);
    if (name.rfind("native_call_", 0) == 0) {
      ++kernels;
      // native_call_<op>.out runs the edge node aten.<op>.default.
      const std::string op = "aten." + name.substr(12, name.size() - 12 - 4) + ".default";
      const auto& ops = row["op_types"];
      CHECK(std::find(ops.begin(), ops.end(), op) != ops.end());
      REQUIRE(!row["stack_traces"].empty());
      CHECK(row["stack_traces"][0]["stack_trace"].get<std::string>().find("examples/lenet.py") != std::string::npos);
      CHECK(row["debug_handles"].is_number());
    } else {
      CHECK(row["op_types"].empty());  // framework events are never linked
    }
    bool in_classifier = false;
    for (const json& node : row["module_hierarchy"]) {
      for (const json& m : node["nn_module_stack"]) {
        in_classifier = in_classifier || m["key"].get<std::string>().find("classifier") != std::string::npos;
      }
    }
    if (in_classifier) classifier_total += row["perf_data"]["avg"].get<double>();
  }
  CHECK(kernels == 14);
  CHECK(classifier_total > 0.0);
  // Python's print(float): the shortest repr, which reads back exactly.
  const auto total = test::run_tool("et-inspect", "--find-total-for-module classifier " + args);
  CHECK(total.exit_code == 0);
  CHECK(total.err.empty());
  CHECK(std::stod(total.out) == classifier_total);

  // Grouped by the ETRecord's op types (each Linear's permute_copy and addmm
  // share one debug handle, so both kernels carry both ops), largest first.
  const auto grouped =
      jsonl(test::run_tool("et-inspect", "--group-by op-type --format jsonl --block Execute " + args).out);
  std::map<std::string, int> counts;
  for (size_t i = 0; i < grouped.size(); ++i) {
    counts[grouped[i]["op_type"]] = grouped[i]["count"];
    if (i > 0) CHECK(grouped[i]["total"].get<double>() <= grouped[i - 1]["total"].get<double>());
  }
  CHECK(counts == std::map<std::string, int>{{"aten.convolution.default", 2},
                                             {"aten.max_pool2d_with_indices.default", 2},
                                             {"aten.permute_copy.default + aten.addmm.default", 6},
                                             {"aten.relu.default", 4}});
  CHECK(grouped.back()["cumulative"].get<double>() == Approx(100.0));

  // --source: each kernel row names its module and the line of examples/lenet.py
  // that calls it (found here by reading the model file itself).
  std::ifstream model_file(std::string(ETKIT_SCHEMAS_DIR) + "/../examples/lenet.py");
  REQUIRE(model_file);
  std::map<std::string, std::string> call_lines;  // "self.conv1(" -> "examples/lenet.py:N"
  std::string text;
  for (int n = 1; std::getline(model_file, text); ++n) {
    for (const char* call : {"self.conv1(", "self.conv2(", "self.pool1(", "self.pool2("}) {
      if (text.find(call) != std::string::npos) call_lines[call] = "examples/lenet.py:" + std::to_string(n);
    }
  }
  REQUIRE(call_lines.size() == 4);
  const auto tsv = test::run_tool("et-inspect", "--source --format tsv --block Execute " + args);
  REQUIRE(tsv.exit_code == 0);
  std::istringstream lines(tsv.out);
  std::string header;
  std::getline(lines, header);
  CHECK(header.substr(header.size() - 14) == "\tmodule\tsource");
  std::vector<std::pair<std::string, std::string>> kernel_sources;  // (module, source) per kernel row
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, '\t');) cells.push_back(cell);
    if (line.back() == '\t') cells.push_back("");
    REQUIRE(cells.size() == 15);
    if (cells[2].rfind("native_call_", 0) != 0) continue;
    CHECK(!cells[13].empty());
    CHECK(cells[14].rfind("examples/lenet.py:", 0) == 0);
    kernel_sources.emplace_back(cells[13], cells[14]);
  }
  REQUIRE(kernel_sources.size() == 14);
  CHECK(kernel_sources[0] == std::pair<std::string, std::string>{"features.conv1", call_lines["self.conv1("]});
  CHECK(kernel_sources[2] == std::pair<std::string, std::string>{"features.pool1", call_lines["self.pool1("]});
  CHECK(kernel_sources[3] == std::pair<std::string, std::string>{"features.conv2", call_lines["self.conv2("]});
  CHECK(kernel_sources[5] == std::pair<std::string, std::string>{"features.pool2", call_lines["self.pool2("]});

  // --columns picks and orders columns; a stat may be named without its unit.
  const auto picked =
      test::run_tool("et-inspect", "--source --columns source,event_name,avg --format csv --block Execute " + args);
  REQUIRE(picked.exit_code == 0);
  std::istringstream picked_lines(picked.out);
  std::string picked_header, first_row;
  std::getline(picked_lines, picked_header);
  std::getline(picked_lines, first_row);
  CHECK(picked_header == ",source,event_name,avg (ms)");
  CHECK(first_row.rfind("2," + call_lines["self.conv1("] + ",native_call_convolution.out,", 0) == 0);
  const auto unknown = test::run_tool("et-inspect", "--columns event_name,nope " + args);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no column 'nope'") != std::string::npos);

  // An ETRecord of something else: warnings, the unlinked table, exit 0.
  etdump::EtDumpWriter other;
  other.begin_block("Execute");
  other.add_profile_event("native_call_add.out", 0, 99, 0, 10);
  test::write_bytes(dir / "other.etdp", other.finish());
  const auto mismatch = test::run_tool("et-inspect", "--etrecord " + test::shell_quote(dir / "lenet.etrecord") + " " +
                                                         test::shell_quote(dir / "other.etdp"));
  CHECK(mismatch.exit_code == 0);
  CHECK(mismatch.err == "et-inspect: warning: " + (dir / "lenet.etrecord").string() +
                            ": 1 events have instruction ids the ETRecord's debug_handle_map for 'forward' does not "
                            "know (first: 99); they stay unlinked (does the ETRecord belong to this ETDump?)\n");
  CHECK(mismatch.out == test::run_tool("et-inspect", test::shell_quote(dir / "other.etdp")).out);

  // Not an ETRecord: one error naming it.
  test::write_bytes(dir / "junk.etrecord", std::vector<uint8_t>(64, 1));
  check_one_line_error(test::run_tool("et-inspect", "--etrecord " + test::shell_quote(dir / "junk.etrecord") + " " +
                                                        test::shell_quote(dir / "run.etdp")),
                       (dir / "junk.etrecord").string());
}
