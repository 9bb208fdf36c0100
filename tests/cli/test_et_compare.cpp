// et-compare as a user runs it, on ETDumps written by the et-run binary:
// reports, formats and the exit codes of every numeric subcommand.
#include <nlohmann/json.hpp>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/bundled/bundled_writer.h"
#include "libcore/formats/npy/npy.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

std::string q(const std::filesystem::path& p) { return test::shell_quote(p); }

template <typename T>
void write_npy(const std::filesystem::path& path, ScalarType dtype, std::vector<int64_t> shape, const std::vector<T>& v) {
  auto bytes = npy::write_npy(dtype, shape, ByteSpan(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(T)));
  REQUIRE(bytes.ok());
  test::write_bytes(path, *bytes);
}

struct Files {
  std::filesystem::path dir, pte, good_bpte, bad_bpte, run, bundled_run, no_outputs;
};

// z = x * [2, 3] + x on FLOAT[2]; with x = ones, z = [3, 4]. Bundled with
// x = [1, 2] the output is [3, 8]; good.bpte expects that, bad.bpte [3, 9].
const Files& files() {
  static const Files f = [] {
    Files out;
    out.dir = test::scratch_dir();
    pte::ProgramBuilder b;
    test::add_mul_add_forward(b);
    static const std::vector<uint8_t> program = *pte::write_program(b.build());
    out.pte = out.dir / "model.pte";
    test::write_bytes(out.pte, program);
    static const std::vector<float> input = {1, 2}, good = {3, 8}, bad = {3, 9};
    out.good_bpte = out.dir / "good.bpte";
    out.bad_bpte = out.dir / "bad.bpte";
    test::write_bytes(out.good_bpte, test::one_case_bundle(program, input, good));
    test::write_bytes(out.bad_bpte, test::one_case_bundle(program, input, bad));

    out.run = out.dir / "run.etdp";
    auto r = test::run_tool("et-run", q(out.pte) + " -q --etdump " + q(out.run) + " --debug-level outputs");
    REQUIRE(r.exit_code == 0);
    out.bundled_run = out.dir / "bundled.etdp";
    r = test::run_tool("et-run", q(out.good_bpte) + " -q --etdump " + q(out.bundled_run) + " --debug-level outputs");
    REQUIRE(r.exit_code == 0);
    out.no_outputs = out.dir / "plain.etdp";
    r = test::run_tool("et-run", q(out.pte) + " -q --etdump " + q(out.no_outputs));
    REQUIRE(r.exit_code == 0);

    write_npy<float>(out.dir / "z.npy", ScalarType::kFloat, {2}, {3, 4});
    write_npy<float>(out.dir / "z_off.npy", ScalarType::kFloat, {2}, {3, 4.5f});
    write_npy<float>(out.dir / "z_row.npy", ScalarType::kFloat, {1, 2}, {3, 4});
    return out;
  }();
  return f;
}

}  // namespace

TEST_CASE("et-compare outputs: .npy references within and outside tolerance", "[cli][et-compare]") {
  const auto& f = files();
  // The debug buffer is found under et-run's default name RUN.etdp.debug.bin.
  auto ok = test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "z.npy"));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.err.empty());
  CHECK(ok.out.find("verdict: within tolerance") != std::string::npos);

  // Reference [3, 4.5] against [3, 4]: mse = 0.5^2 / 2 = 0.125, max 0.5.
  auto off = test::run_tool("et-compare", "outputs --format csv --metric mse,max_abs --etdump " + q(f.run) +
                                              " --debug-buffer " + q(f.dir / "run.etdp.debug.bin") + " --reference " +
                                              q(f.dir / "z_off.npy"));
  CHECK(off.exit_code == 1);
  CHECK(off.out ==
        "value,reference,candidate,mse,max_abs,allclose,verdict,note\n"
        "output 0,FLOAT[2],FLOAT[2],0.125,0.5,no,FAIL,1 of 2 elements not close\n");
  // A tolerance that admits 0.5 (atol 0.5 + rtol 0) passes; so does a threshold the pair does not cross.
  CHECK(test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "z_off.npy") +
                                         " --atol 0.5 --rtol 0")
            .exit_code == 0);
  // SNR = 10 log10(14.625 / 0.125) = 20.68 dB.
  CHECK(test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "z_off.npy") +
                                         " --threshold 'snr<20'")
            .exit_code == 0);
  CHECK(test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "z_off.npy") +
                                         " --threshold 'snr<21'")
            .exit_code == 1);

  // A shape mismatch is reported as such and fails.
  auto shape = test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "z_row.npy"));
  CHECK(shape.exit_code == 1);
  CHECK(shape.out.find("shape mismatch") != std::string::npos);
}

TEST_CASE("et-compare outputs: a bundled test case's expected outputs", "[cli][et-compare]") {
  const auto& f = files();
  auto good = test::run_tool("et-compare", "outputs --etdump " + q(f.bundled_run) + " --bundled " + q(f.good_bpte));
  INFO(good.err);
  CHECK(good.exit_code == 0);
  auto bad = test::run_tool("et-compare", "outputs --format json --etdump " + q(f.bundled_run) + " --bundled " +
                                              q(f.bad_bpte) + " --testset 0 --method forward");
  CHECK(bad.exit_code == 1);
  const json doc = json::parse(bad.out);
  CHECK(doc["format"] == "etkit.compare/2");
  CHECK(doc["command"] == "outputs");
  REQUIRE(doc["rows"].size() == 1);
  // Expected [3, 9], got [3, 8]: mse 0.5, l1 0.5, max 1.
  CHECK(doc["rows"][0]["mse"] == 0.5);
  CHECK(doc["rows"][0]["l1"] == 0.5);
  CHECK(doc["rows"][0]["max_abs"] == 1.0);
  CHECK(doc["rows"][0]["verdict"] == "FAIL");
  CHECK(doc["summary"]["verdict"] == "outside tolerance");
  CHECK(doc["summary"]["failed"] == 1);

  auto range = test::run_tool("et-compare", "outputs --etdump " + q(f.bundled_run) + " --bundled " + q(f.good_bpte) + " --testset 5");
  CHECK(range.exit_code == 2);
  CHECK(range.err == "et-compare: error: " + f.good_bpte.string() + ": --testset 5 out of range (1 test cases)\n");
  auto method = test::run_tool("et-compare", "outputs --etdump " + q(f.bundled_run) + " --bundled " + q(f.good_bpte) + " --method other");
  CHECK(method.exit_code == 2);
  CHECK(method.err == "et-compare: error: " + f.good_bpte.string() + ": no test suite for method 'other'\n");
}

TEST_CASE("et-compare outputs: bad input exits 2 with one line naming the file", "[cli][et-compare]") {
  const auto& f = files();
  auto none = test::run_tool("et-compare", "outputs --etdump " + q(f.no_outputs) + " --reference " + q(f.dir / "z.npy"));
  CHECK(none.exit_code == 2);
  CHECK(none.err == "et-compare: error: " + f.no_outputs.string() +
                        ": no program outputs logged (record them with et-run --debug-level outputs)\n");
  auto count = test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "z.npy") + " " +
                                                q(f.dir / "z.npy"));
  CHECK(count.exit_code == 2);
  CHECK(count.err == "et-compare: error: " + f.run.string() +
                         ": 2 reference file(s) given, the run logged 1 program output(s)\n");
  auto not_etdump = test::run_tool("et-compare", "outputs --etdump " + q(f.pte) + " --reference " + q(f.dir / "z.npy"));
  CHECK(not_etdump.exit_code == 2);
  CHECK(not_etdump.err == "et-compare: error: " + f.pte.string() + ": not an ETDump (identifier 'eh00' at byte 8 and 'ET12' at byte 4, "
                          "expected 'ED00' at byte 8 after a size prefix or at byte 4)\n");
  auto missing = test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference " + q(f.dir / "nope.npy"));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.rfind("et-compare: error: " + (f.dir / "nope.npy").string() + ": cannot open", 0) == 0);
  // A debug buffer too short for the logged output names the buffer.
  test::write_bytes(f.dir / "short.bin", std::vector<uint8_t>(4, 0));
  auto short_buffer = test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --debug-buffer " +
                                                       q(f.dir / "short.bin") + " --reference " + q(f.dir / "z.npy"));
  CHECK(short_buffer.exit_code == 2);
  CHECK(short_buffer.err.rfind("et-compare: error: " + (f.dir / "short.bin").string() + ": run_data[1]", 0) == 0);
  CHECK(short_buffer.err.find("debug buffer too short") != std::string::npos);
  auto neither = test::run_tool("et-compare", "outputs --etdump " + q(f.run));
  CHECK(neither.exit_code == 2);
  CHECK(neither.err == "et-compare: error: outputs needs --reference FILE.npy... or --bundled FILE.bpte\n");
  auto both = test::run_tool("et-compare", "outputs --etdump " + q(f.run) + " --reference a.npy --bundled b.bpte");
  CHECK(both.exit_code == 2);
}

TEST_CASE("et-compare tensors: int tensors, thresholds, formats, bad expressions", "[cli][et-compare]") {
  const auto& f = files();
  const auto dir = test::scratch_dir();
  write_npy<int32_t>(dir / "a.npy", ScalarType::kInt, {3}, {1, 2, 3});
  write_npy<int32_t>(dir / "b.npy", ScalarType::kInt, {3}, {1, 2, 4});
  write_npy<int32_t>(dir / "c.npy", ScalarType::kInt, {1, 3}, {1, 2, 3});
  const std::string ab = q(dir / "a.npy") + " " + q(dir / "b.npy");
  CHECK(test::run_tool("et-compare", "tensors " + q(dir / "a.npy") + " " + q(dir / "a.npy")).exit_code == 0);
  CHECK(test::run_tool("et-compare", "tensors " + ab).exit_code == 1);
  // max |e| = 1: not above 1, but at least 1.
  CHECK(test::run_tool("et-compare", "tensors " + ab + " --threshold 'max_abs>1'").exit_code == 0);
  CHECK(test::run_tool("et-compare", "tensors " + ab + " --threshold 'max_abs>=1'").exit_code == 1);
  CHECK(test::run_tool("et-compare", "tensors " + ab + " --threshold 'mse>1,snr<5'").exit_code == 0);
  auto shape = test::run_tool("et-compare", "tensors " + q(dir / "a.npy") + " " + q(dir / "c.npy"));
  CHECK(shape.exit_code == 1);

  auto md = test::run_tool("et-compare", "tensors " + ab + " --format markdown --metric l1");
  CHECK(md.exit_code == 1);
  // l1 = 1/3 shown with 6 significant digits.
  CHECK(md.out ==
        "| value | reference | candidate | l1 | allclose | verdict | note |\n"
        "|---|---|---|---|---|---|---|\n"
        "| b.npy | INT[3] | INT[3] | 0.333333 | no | FAIL | 1 of 3 elements not close |\n"
        "\n"
        "- criterion: allclose (rtol 0.001, atol 1e-05)\n"
        "- pairs: 1\n"
        "- failed: 1\n"
        "- verdict: outside tolerance\n");

  // -o writes the report to a file.
  auto to_file = test::run_tool("et-compare", "tensors " + ab + " --format json -o " + q(dir / "report.json"));
  CHECK(to_file.exit_code == 1);
  CHECK(to_file.out.empty());
  const json doc = json::parse(test::read_bytes(dir / "report.json"));
  CHECK(doc["rows"][0]["snr"].get<double>() == Approx(11.4612803568));  // 10 log10(14)

  auto bad_expr = test::run_tool("et-compare", "tensors " + ab + " --threshold 'snr<<3'");
  CHECK(bad_expr.exit_code == 2);
  CHECK(bad_expr.err == "et-compare: error: threshold 'snr<<3': '<3' is not a number\n");
  auto bad_metric = test::run_tool("et-compare", "tensors " + ab + " --metric psnr");
  CHECK(bad_metric.exit_code == 2);
  CHECK(bad_metric.err == "et-compare: error: unknown metric 'psnr' (mse, l1, max_abs, snr, cosine)\n");
  auto bad_format = test::run_tool("et-compare", "tensors " + ab + " --format xml");
  CHECK(bad_format.exit_code == 2);
  auto not_npy = test::run_tool("et-compare", "tensors " + q(f.pte) + " " + q(dir / "a.npy"));
  CHECK(not_npy.exit_code == 2);
  CHECK(not_npy.err.rfind("et-compare: error: " + f.pte.string() + ": ", 0) == 0);
  CHECK(test::run_tool("et-compare", "").exit_code == 2);
}

TEST_CASE("et-compare intermediates --etrecord: the divergence with its module path and source line", "[cli][et-compare]") {
  const auto dir = test::scratch_dir();
  const pte::Program program = demo::lenet();
  auto pte_bytes = pte::write_program(program);
  REQUIRE(pte_bytes.ok());
  test::write_bytes(dir / "lenet.pte", *pte_bytes);
  auto record = demo::lenet_etrecord(program);
  REQUIRE(record.ok());
  test::write_bytes(dir / "lenet.etrecord", *record);
  // Ones against random inputs: the first convolution already differs.
  REQUIRE(test::run_tool("et-run", q(dir / "lenet.pte") + " -q --etdump " + q(dir / "a.etdp") +
                                       " --debug-level intermediates")
              .exit_code == 0);
  REQUIRE(test::run_tool("et-run", q(dir / "lenet.pte") + " -q --random-inputs 1 --etdump " + q(dir / "b.etdp") +
                                       " --debug-level intermediates")
              .exit_code == 0);
  const std::string args = "intermediates --etdump " + q(dir / "a.etdp") + " --against " + q(dir / "b.etdp");
  auto r = test::run_tool("et-compare", args + " --etrecord " + q(dir / "lenet.etrecord") + " --format json");
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.empty());
  const json doc = json::parse(r.out);
  CHECK(doc["columns"].back() == "location");
  REQUIRE(doc["rows"].size() >= 14);
  // Instruction 0 is Features.conv1, called at examples/lenet.py line 29.
  CHECK(doc["rows"][0]["op"] == "native_call_convolution.out");
  const std::string location = doc["rows"][0]["location"];
  CHECK(location.rfind("features.conv1 at ", 0) == 0);
  CHECK(location.find("lenet.py:29") != std::string::npos);
  CHECK(doc["summary"]["first_divergence_instruction"] == 0);
  CHECK(doc["summary"]["first_divergence"] ==
        "instruction 0 (chain 0) native_call_convolution.out out 0, " + location + ": " +
            doc["rows"][0]["note"].get<std::string>());
  CHECK_FALSE(doc["summary"].contains("etrecord_warnings"));

  // Without --etrecord there is no location column; a bad ETRecord is bad input.
  auto plain = test::run_tool("et-compare", args + " --format json");
  CHECK(json::parse(plain.out)["columns"].back() == "note");
  test::write_bytes(dir / "junk.etrecord", std::vector<uint8_t>(64, 1));
  auto junk = test::run_tool("et-compare", args + " --etrecord " + q(dir / "junk.etrecord"));
  CHECK(junk.exit_code == 2);
  CHECK(junk.err.rfind("et-compare: error: " + (dir / "junk.etrecord").string() + ": ", 0) == 0);
}
