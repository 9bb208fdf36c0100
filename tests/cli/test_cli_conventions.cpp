// The conventions every tool shares (issue 14): option names and aliases,
// repeatable options beside positionals, one-line parse errors, JSON for
// scripts, --quiet, et-inspect's debug-buffer default, --method and
// --strict, et-run's standard-output rules and --describe.
#include <nlohmann/json.hpp>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/npy/npy.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

std::string q(const std::filesystem::path& p) { return test::shell_quote(p); }

size_t line_count(const std::string& s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

// Three Execute runs of one kernel inside Method::execute, ticks per run
// `scale` x (1000, 2000, 3000) for Method::execute and half that for the
// kernel: p50 of Method::execute = 2000 x scale ticks.
std::vector<uint8_t> perf_dump(uint64_t scale) {
  etdump::EtDumpWriter w;
  uint64_t clock = 10'000;
  for (uint64_t run = 1; run <= 3; ++run) {
    w.begin_block("Execute");
    const uint64_t total = 1000 * run * scale;
    w.add_profile_event("native_call_add.out", 0, 0, clock, clock + total / 2);
    w.add_profile_event("Method::execute", -1, 0, clock, clock + total);
    clock += total + 100;
  }
  return w.finish();
}

// z = x * [2, 3] + x on FLOAT[2].
std::vector<uint8_t> small_program() {
  pte::ProgramBuilder b;
  test::add_mul_add_forward(b);
  return *pte::write_program(b.build());
}

struct Files {
  std::filesystem::path dir, pte, x_npy, run, base, slow;
};

const Files& files() {
  static const Files f = [] {
    Files out;
    out.dir = test::scratch_dir();
    out.pte = out.dir / "model.pte";
    test::write_bytes(out.pte, small_program());
    const std::vector<float> x = {1, 2};
    auto npy = npy::write_npy(ScalarType::kFloat, std::vector<int64_t>{2}, ByteSpan(reinterpret_cast<const uint8_t*>(x.data()), 8));
    REQUIRE(npy.ok());
    out.x_npy = out.dir / "x.npy";
    test::write_bytes(out.x_npy, *npy);
    // et-run's default debug buffer name: run.etdp.debug.bin.
    out.run = out.dir / "run.etdp";
    const auto r = test::run_tool("et-run", q(out.pte) + " -q --iterations 2 --debug-level intermediates --etdump " + q(out.run));
    REQUIRE(r.exit_code == 0);
    out.base = out.dir / "base.etdp";
    out.slow = out.dir / "slow.etdp";
    test::write_bytes(out.base, perf_dump(1));
    test::write_bytes(out.slow, perf_dump(2));
    return out;
  }();
  return f;
}

const json* find_row(const json& doc, const std::string& event) {
  for (const json& row : doc["rows"]) {
    if (row["event"] == event) return &row;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("et-compare perf: the ETDump's time scale is an option, cycles are never read as ns",
          "[cli][conventions][et-compare]") {
  const auto& f = files();
  const std::string pair = "perf --baseline " + q(f.base) + " --candidate " + q(f.slow) + " --format json";
  // Cycles stay cycles: p50 of (1000, 2000, 3000) is 2000, the candidate's 4000.
  auto r = test::run_tool("et-compare", pair + " --source-time-scale cycles --target-time-scale cycles");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  json doc = json::parse(r.out);
  const json* total = find_row(doc, "Method::execute");
  REQUIRE(total);
  CHECK((*total)["baseline_p50"].get<double>() == 2000.0);
  CHECK((*total)["candidate_p50"].get<double>() == 4000.0);
  CHECK((*total)["delta"].get<double>() == 2000.0);
  CHECK(doc["units"]["baseline_p50"] == "cycles");
  CHECK(doc["units"]["delta"] == "cycles");
  CHECK(doc["summary"]["unit"] == "cycles");
  // Without a target, cycles cannot become ms: a usage error, not a relabel.
  r = test::run_tool("et-compare", pair + " --source-time-scale cycles");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("cannot convert between cycles and a time unit") != std::string::npos);
  CHECK(line_count(r.err) == 1);
  // Ticks in us shown in ms: 2000 us = 2 ms.
  r = test::run_tool("et-compare", pair + " --source-time-scale us");
  doc = json::parse(r.out);
  CHECK((*find_row(doc, "Method::execute"))["baseline_p50"].get<double>() == Approx(2.0));
  CHECK(doc["summary"]["unit"] == "ms");
  // The Python spellings and the old --time-unit: ns ticks shown in us, 2000 ns = 2 us.
  r = test::run_tool("et-compare", pair + " --source_time_scale ns --time-unit us");
  doc = json::parse(r.out);
  CHECK((*find_row(doc, "Method::execute"))["baseline_p50"].get<double>() == Approx(2.0));
  CHECK(doc["summary"]["unit"] == "us");
}

TEST_CASE("et-compare perf: the summary is numbers under machine keys", "[cli][conventions][et-compare]") {
  const auto& f = files();
  const auto r = test::run_tool("et-compare", "perf --baseline " + q(f.base) + " --candidate " + q(f.slow) +
                                                  " --format json --fail-if-slower 5% --seed 3 --resamples 100");
  INFO(r.err);
  const json doc = json::parse(r.out);
  CHECK(doc["format"] == "etkit.compare/2");
  const json& s = doc["summary"];
  // Default scales ns -> ms: 2000 ns = 0.002 ms, twice as slow.
  CHECK(s["total_event"] == "Method::execute");
  CHECK(s["total_baseline"].get<double>() == Approx(0.002));
  CHECK(s["total_candidate"].get<double>() == Approx(0.004));
  CHECK(s["total_ratio"].get<double>() == Approx(2.0));
  CHECK(s["total_p_slower"].is_number());
  CHECK(s["resamples"] == 100);
  CHECK(s["seed"] == 3);
  CHECK(s["gate"] == "total");
  CHECK(s["fail_if_slower"].get<double>() == Approx(0.05));
  CHECK_FALSE(s.contains("total"));
  // Compact by default, indented with --pretty.
  CHECK(line_count(r.out) == 1);
  const auto pretty = test::run_tool("et-compare", "perf --baseline " + q(f.base) + " --candidate " + q(f.slow) +
                                                       " --format json --pretty");
  CHECK(pretty.exit_code == 0);
  CHECK(line_count(pretty.out) > 10);
}

TEST_CASE("et-compare: SNR's unit is a field, not part of the key", "[cli][conventions][et-compare]") {
  const auto& f = files();
  auto npy = [&](const std::string& name, std::vector<float> v) {
    auto bytes = npy::write_npy(ScalarType::kFloat, std::vector<int64_t>{2}, ByteSpan(reinterpret_cast<const uint8_t*>(v.data()), 8));
    test::write_bytes(f.dir / name, *bytes);
    return q(f.dir / name);
  };
  // ref [1, 3], cand [1, 2]: signal (1 + 9) / 2 = 5, noise 1 / 2 -> 10 log10(10) = 10 dB.
  const std::string a = npy("a.npy", {1, 3}), b = npy("b.npy", {1, 2});
  // --metric once per occurrence: the positionals after it stay positionals.
  const auto r = test::run_tool("et-compare", "tensors --format json --metric snr --metric mse " + a + " " + b);
  INFO(r.err);
  REQUIRE(r.exit_code == 1);
  const json doc = json::parse(r.out);
  CHECK(doc["columns"] == json::array({"value", "reference", "candidate", "snr", "mse", "allclose", "verdict", "note"}));
  CHECK(doc["rows"][0]["snr"].get<double>() == Approx(10.0));
  CHECK(doc["units"]["snr"] == "dB");
  const auto table = test::run_tool("et-compare", "tensors --metric snr " + a + " " + b);
  CHECK(table.out.find("snr (dB)") != std::string::npos);
  // The old name still selects it.
  CHECK(test::run_tool("et-compare", "tensors --threshold 'snr_db<5' " + a + " " + b).exit_code == 0);
}

TEST_CASE("repeatable options take one value per occurrence and leave positionals alone", "[cli][conventions]") {
  const auto& f = files();
  // x = [1, 2]: z = x * [2, 3] + x = [3, 8].
  auto r = test::run_tool("et-run", "-q --input " + q(f.x_npy) + " " + q(f.pte) + " --print-outputs");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "output 0: FLOAT[2] [3, 8]\n");
  // et-inspect: comma-separated or repeated columns before FILE.
  const auto joined = test::run_tool("et-inspect", "--columns event_name,avg " + q(f.run));
  const auto repeated = test::run_tool("et-inspect", "--columns event_name --columns avg " + q(f.run));
  INFO(joined.err);
  CHECK(joined.exit_code == 0);
  CHECK(joined.out.find("│ event_name") != std::string::npos);
  CHECK(joined.out == repeated.out);
  // Columns as words after one --columns, as the issue typed them: the list
  // ends at the word naming an existing file, which stays the input.
  const auto words = test::run_tool("et-inspect", "--columns event_name avg " + q(f.run));
  INFO(words.err);
  CHECK(words.exit_code == 0);
  CHECK(words.out == joined.out);
  // ... or at the next option.
  const auto before_option = test::run_tool("et-inspect", "--columns event_name avg --etdump " + q(f.run));
  CHECK(before_option.out == joined.out);
  // A word that is neither a column nor a file is a one-line error naming it.
  const auto unknown = test::run_tool("et-inspect", "--columns event_name no_such_column " + q(f.run));
  CHECK(unknown.exit_code == 2);
  CHECK(line_count(unknown.err) == 1);
  CHECK(unknown.err.find("no_such_column") != std::string::npos);
}

TEST_CASE("parse errors are one short line", "[cli][conventions]") {
  const auto& f = files();
  auto top = test::run_tool("et-inspect", "--top=abc " + q(f.run));
  CHECK(top.exit_code == 2);
  CHECK(top.err == "et-inspect: error: --top: 'abc' is not a non-negative integer\n");
  // CLI11 would read -1 as 18446744073709551615.
  auto warmup = test::run_tool("et-run", q(f.pte) + " --warmup=-1");
  CHECK(warmup.exit_code == 2);
  CHECK(warmup.err == "et-run: error: --warmup: '-1' is not a non-negative integer\n");
  auto rtol = test::run_tool("et-compare", "tensors --rtol=-1 " + q(f.x_npy) + " " + q(f.x_npy));
  CHECK(rtol.exit_code == 2);
  CHECK(rtol.err == "et-compare: error: --rtol: '-1' is not a non-negative number\n");
  for (const char* tool : {"et-run", "et-inspect", "et-compare", "et-dump-decode", "et-record-inspect", "et-graph", "et-fleet"}) {
    INFO(tool);
    const auto r = test::run_tool(tool, "--no-such-flag");
    CHECK(r.exit_code == 2);
    CHECK(line_count(r.err) == 1);
  }
}

TEST_CASE("et-inspect --help marks nothing REQUIRED, FILE or --etdump is required", "[cli][conventions][inspect]") {
  const auto help = test::run_tool("et-inspect", "--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("REQUIRED") == std::string::npos);
  CHECK(help.out.find("required as FILE or --etdump") != std::string::npos);
  const auto none = test::run_tool("et-inspect", "--format csv");
  CHECK(none.exit_code == 2);
  CHECK(none.err == "et-inspect: error: an ETDump is required: FILE or --etdump\n");
  const auto record = test::run_tool("et-record-inspect", "--help");
  CHECK(record.out.find("REQUIRED") == std::string::npos);
}

TEST_CASE("inspector_cli's flags are aliases, warm-up has one name", "[cli][conventions]") {
  const auto& f = files();
  const auto canonical = test::run_tool("et-inspect", "--format csv --etdump " + q(f.run) + " --debug-buffer " +
                                                          q(f.run.string() + ".debug.bin") + " --warmup 1");
  INFO(canonical.err);
  REQUIRE(canonical.exit_code == 0);
  const auto python = test::run_tool("et-inspect", "--format csv --etdump_path " + q(f.run) + " --debug_buffer_path=" +
                                                       q(f.run.string() + ".debug.bin") + " --exclude-warmup 1");
  CHECK(python.exit_code == 0);
  CHECK(python.out == canonical.out);
  // --warmup is et-run's and et-compare's name too; the help shows only it.
  const auto help = test::run_tool("et-inspect", "--help");
  CHECK(help.out.find("--warmup") != std::string::npos);
  CHECK(help.out.find("--etdump_path") == std::string::npos);
  const auto outputs = test::run_tool("et-compare", "outputs --etdump_path " + q(f.run) + " --debug_buffer_path " +
                                                        q(f.run.string() + ".debug.bin") + " --reference " + q(f.x_npy));
  CHECK(outputs.exit_code == 1);  // ones in, [3, 4] out: not x
  CHECK(outputs.err.empty());
}

TEST_CASE("et-inspect reads ETDUMP.debug.bin by default, as et-compare does", "[cli][conventions][inspect]") {
  const auto& f = files();
  // et-run with ones: add.out's z = [1 * 2 + 1, 1 * 3 + 1] = [3, 4], logged with the intermediates.
  const auto r = test::run_tool("et-inspect", "--format tsv " + q(f.run));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("debug_data") != std::string::npos);
  CHECK(r.out.find("[3, 4]") != std::string::npos);
  // Standard input has no file beside it.
  const auto piped = test::run_tool("et-inspect", "--format tsv -", f.run.string());
  CHECK(piped.exit_code == 0);
  CHECK(piped.out.find("debug_data") == std::string::npos);
}

TEST_CASE("et-inspect --method and --strict link against the ETRecord", "[cli][conventions][inspect][etrecord]") {
  const auto dir = test::scratch_dir();
  const pte::Program program = demo::lenet();
  test::write_bytes(dir / "lenet.pte", *pte::write_program(program));
  test::write_bytes(dir / "lenet.etrecord", *demo::lenet_etrecord(program));
  REQUIRE(test::run_tool("et-run", q(dir / "lenet.pte") + " -q --etdump " + q(dir / "run.etdp")).exit_code == 0);
  const std::string record = "--etrecord " + q(dir / "lenet.etrecord") + " ";

  // Every kernel of the run links: --strict passes.
  auto linked = test::run_tool("et-inspect", record + "--strict --method forward " + q(dir / "run.etdp"));
  INFO(linked.err);
  CHECK(linked.exit_code == 0);
  CHECK(linked.err.empty());
  // A method the ETRecord does not have: warnings name it, nothing links.
  auto other = test::run_tool("et-inspect", record + "--method decode " + q(dir / "run.etdp"));
  CHECK(other.exit_code == 0);
  CHECK(other.err.find("no method 'decode'") != std::string::npos);
  auto strict = test::run_tool("et-inspect", record + "--method decode --strict --format csv " + q(dir / "run.etdp"));
  CHECK(strict.exit_code == 1);
  CHECK(strict.out == test::run_tool("et-inspect", record + "--method decode --format csv " + q(dir / "run.etdp")).out);
  CHECK(strict.err.find("et-inspect: strict: ") != std::string::npos);
  // A dump of another program: one event, unknown to the ETRecord.
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_add.out", 0, 99, 0, 10);
  test::write_bytes(dir / "other.etdp", w.finish());
  auto mismatch = test::run_tool("et-inspect", record + "--strict " + q(dir / "other.etdp"));
  CHECK(mismatch.exit_code == 1);
  CHECK(mismatch.err.find("et-inspect: strict: 1 of 1 events did not link to ") != std::string::npos);
  // --quiet drops the warnings, not the verdict.
  auto quiet = test::run_tool("et-inspect", record + "--quiet " + q(dir / "other.etdp"));
  CHECK(quiet.exit_code == 0);
  CHECK(quiet.err.empty());
  // --strict without an ETRecord has nothing to check.
  CHECK(test::run_tool("et-inspect", "--strict " + q(dir / "other.etdp")).exit_code == 2);
}

TEST_CASE("every tool accepts --quiet", "[cli][conventions]") {
  const auto& f = files();
  CHECK(test::run_tool("et-run", q(f.pte) + " --quiet").err.empty());
  CHECK(test::run_tool("et-inspect", "--quiet " + q(f.run)).exit_code == 0);
  CHECK(test::run_tool("et-dump-decode", "--quiet " + q(f.run)).exit_code == 0);
  CHECK(test::run_tool("et-graph", "--quiet " + q(f.pte)).exit_code == 0);
  CHECK(test::run_tool("et-compare", "tensors --quiet " + q(f.x_npy) + " " + q(f.x_npy)).exit_code == 0);
  CHECK(test::run_tool("et-compare", "--quiet tensors " + q(f.x_npy) + " " + q(f.x_npy)).exit_code == 0);
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "lenet.etrecord", *demo::lenet_etrecord(demo::lenet()));
  CHECK(test::run_tool("et-record-inspect", "--quiet " + q(dir / "lenet.etrecord")).exit_code == 0);
  // Python's spelling of the ETRecord path.
  CHECK(test::run_tool("et-record-inspect", "--etrecord_path " + q(dir / "lenet.etrecord")).exit_code == 0);
}

TEST_CASE("JSON outputs carry their schema version and unit-free keys", "[cli][conventions]") {
  const auto& f = files();
  const auto grouped = test::run_tool("et-inspect", "--group-by op-type --format json " + q(f.run));
  INFO(grouped.err);
  json doc = json::parse(grouped.out);
  CHECK(doc["format"] == "etkit.inspect/1");
  CHECK(doc["units"] == json({{"total", "ms"}, {"avg", "ms"}, {"share", "%"}, {"cumulative", "%"}}));
  REQUIRE(!doc["rows"].empty());
  for (const json& row : doc["rows"]) {
    for (const auto& [key, value] : row.items()) CHECK(key.find_first_of(" ()%") == std::string::npos);
  }
  const auto lines = test::run_tool("et-inspect", "--format jsonl --target-time-scale us " + q(f.run));
  const json first = json::parse(lines.out.substr(0, lines.out.find('\n')));
  CHECK(first["format"] == "etkit.inspect/1");
  CHECK(first["target_time_scale"] == "us");
  const auto decoded = test::run_tool("et-dump-decode", "--jsonl " + q(f.run));
  CHECK(json::parse(decoded.out.substr(0, decoded.out.find('\n')))["format"] == "etkit.etdump-events/1");
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "lenet.etrecord", *demo::lenet_etrecord(demo::lenet()));
  const auto graph = test::run_tool("et-record-inspect", "--format json --nodes " + q(dir / "lenet.etrecord"));
  CHECK(json::parse(graph.out)["format"] == "etkit.etrecord-graph/1");
  // et-run --output-dir: a non-tensor output as a versioned value.
  // (Tensor outputs are .npy; the JSON form is checked in test_et_run.)
}

TEST_CASE("et-run never mixes text and binary on standard output", "[cli][conventions][et-run]") {
  const auto& f = files();
  const auto mixed = test::run_tool("et-run", q(f.pte) + " --etdump - --print-outputs");
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.out.empty());
  CHECK(mixed.err == "et-run: error: --etdump - and --print-outputs cannot share standard output: send all but one to "
                     "files\n");
  const auto two_binaries = test::run_tool("et-run", q(f.pte) + " --etdump - --debug-level outputs --debug-buffer -");
  CHECK(two_binaries.exit_code == 2);
  CHECK(two_binaries.out.empty());
  // One stream alone is fine.
  CHECK(test::run_tool("et-run", q(f.pte) + " -q --etdump -").exit_code == 0);
  // `-` is no directory: nothing is created.
  const auto dir = test::scratch_dir();
  const auto r = test::run_shell("cd " + q(dir) + " && " + test::shell_quote(std::filesystem::path(ETKIT_TOOLS_DIR) / "et-run") +
                                 " " + q(f.pte) + " --output-dir -");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--output-dir -") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "-"));
}

TEST_CASE("et-run --describe lists what a program needs, marked supported or not", "[cli][conventions][et-run]") {
  const auto dir = test::scratch_dir();
  // Supported: two portable kernels; x is dynamic with upper bound [4].
  pte::ProgramBuilder ok;
  {
    auto& m = ok.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {4}, pte::ShapeDynamism::kDynamicBound);
    const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {4}, pte::ShapeDynamism::kDynamicBound);
    const int32_t n = m.add_int(3);
    m.kernel_call("aten::relu", "out", {x, y, y});
    m.kernel_call("aten::relu", "out", {y, y, y});
    m.set_inputs({x, n});
    m.set_outputs({y});
  }
  test::write_bytes(dir / "ok.pte", *pte::write_program(ok.build()));
  auto text = test::run_tool("et-run", "--describe " + q(dir / "ok.pte"));
  INFO(text.err);
  CHECK(text.exit_code == 0);
  CHECK(text.out ==
        "method forward\n"
        "  inputs:\n"
        "    0: FLOAT[4] dynamic, bounded by this shape\n"
        "    1: Int\n"
        "  outputs:\n"
        "    0: FLOAT[4] dynamic, bounded by this shape\n"
        "  delegates: none\n"
        "  operators:\n"
        "    aten::relu.out: 2 calls, supported\n"
        "supported: everything this program needs is in this build\n");

  // Unsupported: an operator no kernel library has and a backend not on the host.
  pte::ProgramBuilder missing;
  {
    auto& m = missing.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2, 3});
    const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2, 3});
    m.kernel_call("my_ns::frobnicate", "out", {x, y, y});
    m.delegate_call(m.add_delegate("NoSuchBackend", {1, 2, 3}), {x, y});
    m.kernel_call("aten::relu", "out", {y, y, y});
    m.set_inputs({x});
    m.set_outputs({y});
  }
  test::write_bytes(dir / "missing.pte", *pte::write_program(missing.build()));
  auto js = test::run_tool("et-run", "--describe --format json " + q(dir / "missing.pte"));
  INFO(js.err);
  CHECK(js.exit_code == 1);
  const json doc = json::parse(js.out);
  CHECK(doc["format"] == "etkit.describe/1");
  CHECK(doc["all_supported"] == false);
  const json& m = doc["methods"][0];
  CHECK(m["name"] == "forward");
  CHECK(m["inputs"] == json::parse(R"([{"type":"Tensor","dtype":"FLOAT","sizes":[2,3],"dynamism":"static"}])"));
  CHECK(m["delegates"] == json::parse(R"([{"backend":"NoSuchBackend","calls":1,"supported":false}])"));
  CHECK(m["operators"] == json::parse(R"([{"name":"my_ns::frobnicate.out","calls":1,"supported":false},
                                          {"name":"aten::relu.out","calls":1,"supported":true}])"));
  const auto missing_text = test::run_tool("et-run", "--describe " + q(dir / "missing.pte"));
  CHECK(missing_text.out.find("    my_ns::frobnicate.out: 1 call, NOT SUPPORTED\n") != std::string::npos);
  CHECK(missing_text.out.find("    NoSuchBackend: 1 call, NOT SUPPORTED\n") != std::string::npos);
  // --format needs --describe; nothing runs.
  CHECK(test::run_tool("et-run", q(dir / "ok.pte") + " --format json").exit_code == 2);
}

TEST_CASE("et-run --describe on a real XNNPACK program", "[cli][conventions][et-run][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto r = test::run_tool("et-run", "--describe --format json " + q(test::fixture("pte/dynamic_xnnpack.pte")));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  const json doc = json::parse(r.out);
  const json& m = doc["methods"][0];
  CHECK(m["delegates"][0]["backend"] == "XnnpackBackend");
  CHECK(m["delegates"][0]["supported"] == true);
  CHECK(m["inputs"][0]["dynamism"] == "dynamic_bound");
}

TEST_CASE("et-run --output-dir writes a non-tensor output as a versioned JSON value", "[cli][conventions][et-run]") {
  const auto dir = test::scratch_dir();
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::relu", "out", {x, y, y});
  m.set_inputs({x});
  m.set_outputs({y, m.add_int(7), m.add_double(0.5)});
  test::write_bytes(dir / "scalars.pte", *pte::write_program(b.build()));
  const auto r = test::run_tool("et-run", q(dir / "scalars.pte") + " -q --output-dir " + q(dir / "out"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "out" / "output-0.npy"));
  const auto text = [&](const char* name) {
    const auto bytes = test::read_bytes(dir / "out" / name);
    return std::string(bytes.begin(), bytes.end());
  };
  CHECK(text("output-1.json") == "{\"format\":\"etkit.value/1\",\"type\":\"int\",\"value\":7}\n");
  CHECK(text("output-2.json") == "{\"format\":\"etkit.value/1\",\"type\":\"double\",\"value\":0.5}\n");
}

TEST_CASE("every JSON output accepts --pretty", "[cli][conventions]") {
  const auto& f = files();
  for (const std::string format : {"json", "chrome-trace"}) {
    INFO(format);
    const auto compact = test::run_tool("et-inspect", "--format " + format + " " + q(f.run));
    const auto pretty = test::run_tool("et-inspect", "--format " + format + " --pretty " + q(f.run));
    CHECK(pretty.exit_code == 0);
    CHECK(line_count(compact.out) <= 1);  // the trace ends without a newline, as before
    CHECK(line_count(pretty.out) > 10);
    CHECK(json::parse(compact.out) == json::parse(pretty.out));
  }
  const auto described = test::run_tool("et-run", "--describe --format json --pretty " + q(f.pte));
  CHECK(described.exit_code == 0);
  CHECK(line_count(described.out) > 10);
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "lenet.etrecord", *demo::lenet_etrecord(demo::lenet()));
  CHECK(line_count(test::run_tool("et-record-inspect", "--format json --pretty " + q(dir / "lenet.etrecord")).out) > 10);
  CHECK(line_count(test::run_tool("et-dump-decode", "--pretty " + q(f.run)).out) > 10);
}

TEST_CASE("et-compare intermediates --method picks the ETRecord's method, as et-inspect's", "[cli][conventions][et-compare]") {
  const auto dir = test::scratch_dir();
  const pte::Program program = demo::lenet();
  test::write_bytes(dir / "lenet.pte", *pte::write_program(program));
  test::write_bytes(dir / "lenet.etrecord", *demo::lenet_etrecord(program));
  REQUIRE(test::run_tool("et-run", q(dir / "lenet.pte") + " -q --debug-level intermediates --etdump " +
                                       q(dir / "run.etdp"))
              .exit_code == 0);
  const std::string args = "intermediates --format json --etdump " + q(dir / "run.etdp") + " --against " +
                           q(dir / "run.etdp") + " --etrecord " + q(dir / "lenet.etrecord");
  // The run against itself: no divergence; forward links (a location column, no warnings).
  auto forward = test::run_tool("et-compare", args);
  INFO(forward.err);
  REQUIRE(forward.exit_code == 0);
  json doc = json::parse(forward.out);
  CHECK(doc["columns"].back() == "location");
  CHECK_FALSE(doc["summary"].contains("etrecord_warnings"));
  // A method the ETRecord lacks: nothing links, and the summary says which.
  auto decode = test::run_tool("et-compare", args + " --method decode");
  REQUIRE(decode.exit_code == 0);
  doc = json::parse(decode.out);
  CHECK(doc["summary"]["etrecord_warnings"].get<std::string>().find("no method 'decode'") != std::string::npos);
  CHECK(test::run_tool("et-compare", "intermediates --etdump " + q(dir / "run.etdp") + " --against " +
                                         q(dir / "run.etdp") + " --method forward")
            .exit_code == 2);  // --method needs --etrecord
}
