// et-run as a user runs it: exit codes, inputs, outputs, ETDump on a pipe.
#include <nlohmann/json.hpp>

#include "libcore/formats/bundled/bundled_writer.h"
#include "libcore/formats/npy/npy.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/formats/xnnpack/xnn_builder.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

// z = x * [2, 3] + x on FLOAT[2]; a second method with a size mismatch.
std::vector<uint8_t> program_bytes() {
  pte::ProgramBuilder b;
  test::add_mul_add_forward(b);
  auto& bad = b.add_method("broken");
  const int32_t a = bad.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t d = bad.add_planned_tensor(ScalarType::kFloat, {3});
  const int32_t o = bad.add_planned_tensor(ScalarType::kFloat, {2});
  bad.kernel_call("aten::add", "out", {a, d, bad.add_int(1), o, o});
  bad.set_inputs({a});
  bad.set_outputs({o});
  auto& scalar = b.add_method("scaled");
  const int32_t v = scalar.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t k = scalar.add_double(0.5);
  const int32_t w = scalar.add_planned_tensor(ScalarType::kFloat, {2});
  scalar.kernel_call("aten::mul", "Scalar_out", {v, k, w, w});
  scalar.set_inputs({v, k});
  scalar.set_outputs({w});
  return *pte::write_program(b.build());
}

struct Files {
  std::filesystem::path dir, pte, good_bpte, bad_bpte;
};

const Files& files() {
  static const Files f = [] {
    Files out;
    out.dir = test::scratch_dir();
    out.pte = out.dir / "model.pte";
    const auto program = program_bytes();
    test::write_bytes(out.pte, program);
    // With x = [1, 2]: z = [1*2+1, 2*3+2] = [3, 8].
    static const std::vector<float> x = {1, 2}, good = {3, 8}, bad = {3, 9};
    out.good_bpte = out.dir / "good.bpte";
    out.bad_bpte = out.dir / "bad.bpte";
    test::write_bytes(out.good_bpte, test::one_case_bundle(program, x, good));
    test::write_bytes(out.bad_bpte, test::one_case_bundle(program, x, bad));
    return out;
  }();
  return f;
}

}  // namespace

TEST_CASE("et-run: default inputs are ones and outputs are printed and saved as .npy", "[cli][et-run]") {
  const auto& f = files();
  const auto out_dir = test::scratch_dir() / "outputs";
  auto r = test::run_tool("et-run",
                          test::shell_quote(f.pte) + " --print-outputs -q --output-dir " + test::shell_quote(out_dir));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // x = [1, 1]: z = [1*2+1, 1*3+1] = [3, 4]
  CHECK(r.out == "output 0: FLOAT[2] [3, 4]\n");
  CHECK(r.err.empty());
  const auto npy_bytes = test::read_bytes(out_dir / "output-0.npy");
  // NumPy v1.0: 10 bytes of magic/version/length plus the dict and '\n',
  // padded to a multiple of 64: 10 + 59 + 1 = 70 -> 128; then two floats.
  REQUIRE(npy_bytes.size() == 128 + 8);
  CHECK(std::string(npy_bytes.begin() + 1, npy_bytes.begin() + 6) == "NUMPY");
  const std::string header(npy_bytes.begin() + 10, npy_bytes.begin() + 128);
  CHECK(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 0) == 0);
  float values[2];
  std::memcpy(values, npy_bytes.data() + 128, 8);
  CHECK(values[0] == 3.0f);
  CHECK(values[1] == 4.0f);
}

TEST_CASE("et-run: inputs from .npy, raw .bin and literals", "[cli][et-run]") {
  const auto& f = files();
  const auto dir = test::scratch_dir();
  const std::vector<float> x = {0.5f, -1.0f};
  auto npy_bytes = npy::write_npy(ScalarType::kFloat, std::vector<int64_t>{2},
                                  ByteSpan(reinterpret_cast<const uint8_t*>(x.data()), 8));
  test::write_bytes(dir / "x.npy", *npy_bytes);
  test::write_bytes(dir / "x.bin", std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(x.data()),
                                                        reinterpret_cast<const uint8_t*>(x.data()) + 8));
  // [0.5*2+0.5, -1*3-1] = [1.5, -4]
  for (const auto* name : {"x.npy", "x.bin"}) {
    auto r = test::run_tool("et-run",
                            test::shell_quote(f.pte) + " -q --print-outputs --input " + test::shell_quote(dir / name));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out == "output 0: FLOAT[2] [1.5, -4]\n");
  }
  // The Double input must be the value the program was exported with.
  auto ok = test::run_tool("et-run", test::shell_quote(f.pte) + " -q --method scaled --print-outputs --input " +
                                         test::shell_quote(dir / "x.npy") + " --input 0.5");
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == "output 0: FLOAT[2] [0.25, -0.5]\n");
  auto other = test::run_tool("et-run", test::shell_quote(f.pte) + " -q --method scaled --input " +
                                            test::shell_quote(dir / "x.npy") + " --input 0.7");
  CHECK(other.exit_code == 2);
  CHECK(other.err.find("input[1]: the program was exported for a different value of this scalar input") !=
        std::string::npos);
  test::write_bytes(dir / "short.bin", std::vector<uint8_t>(4, 0));
  auto short_input =
      test::run_tool("et-run", test::shell_quote(f.pte) + " --input " + test::shell_quote(dir / "short.bin"));
  CHECK(short_input.exit_code == 2);
  CHECK(short_input.err.find("holds 4 bytes; input 0 (FLOAT[2]) needs 8") != std::string::npos);
  auto count = test::run_tool("et-run", test::shell_quote(f.pte) + " --input " + test::shell_quote(dir / "x.bin") +
                                            " --input " + test::shell_quote(dir / "x.bin"));
  CHECK(count.exit_code == 2);
  CHECK(count.err == "et-run: error: 2 --input given, method 'forward' has 1 inputs\n");
}

TEST_CASE("et-run: bundled verification exits 0 on a match and 1 on a mismatch", "[cli][et-run]") {
  const auto& f = files();
  auto good = test::run_tool("et-run", test::shell_quote(f.good_bpte) + " --verify");
  INFO(good.err);
  CHECK(good.exit_code == 0);
  CHECK(good.err.find("et-run: verify: test case 0 passed (rtol 0.001, atol 1e-05)") != std::string::npos);
  auto bad = test::run_tool("et-run", test::shell_quote(f.bad_bpte) + " --verify");
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("et-run: verify: output 0: MISMATCH: element 1: got 8.000000, expected 9.000000") !=
        std::string::npos);
  // A wide enough tolerance accepts it: |9 - 8| <= 1 + 0.
  CHECK(test::run_tool("et-run", test::shell_quote(f.bad_bpte) + " --verify --atol 1 --rtol 0").exit_code == 0);
  auto not_bundled = test::run_tool("et-run", test::shell_quote(f.pte) + " --verify");
  CHECK(not_bundled.exit_code == 2);
}

TEST_CASE("et-run: a kernel failure exits 3 and bad files exit 2", "[cli][et-run]") {
  const auto& f = files();
  auto r = test::run_tool("et-run", test::shell_quote(f.pte) + " --method broken");
  CHECK(r.exit_code == 3);
  CHECK(r.err ==
        "et-run: error: " + f.pte.string() +
            ": method 'broken'.chains[0].instructions[0]: aten::add.out: shapes [2] and [3] cannot be broadcast\n");
  auto missing = test::run_tool("et-run", test::shell_quote(f.dir / "nope.pte"));
  CHECK(missing.exit_code == 2);
  auto usage = test::run_tool("et-run", test::shell_quote(f.pte) + " --debug-level intermediates");
  CHECK(usage.exit_code == 2);
  CHECK(usage.err == "et-run: error: --debug-level needs --etdump\n");
}

TEST_CASE("et-run: an ETDump on standard output pipes into et-dump-decode", "[cli][et-run]") {
  const auto& f = files();
  const auto dir = test::scratch_dir();
  const std::string cmd = std::string(ETKIT_TOOLS_DIR) + "/et-run " + test::shell_quote(f.pte) +
                          " -q --iterations 3 --warmup 2 --etdump - | " + ETKIT_TOOLS_DIR + "/et-dump-decode -";
  auto r = test::run_shell(cmd);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  // Default + 3 recorded executions (warmup is not recorded).
  REQUIRE(doc["run_data"].size() == 4);
  CHECK(doc["run_data"][0]["name"] == "Default");
  CHECK(doc["run_data"][0]["events"][0]["profile_event"]["name"] == "Method::init");
  CHECK(doc["run_data"][0]["events"][1]["profile_event"]["name"] == "Program::load_method");
  const auto& exec = doc["run_data"][3]["events"];
  // mul (native_call + OPERATOR_CALL), add (same), Method::execute.
  REQUIRE(exec.size() == 5);
  CHECK(exec[0]["profile_event"]["name"] == "native_call_mul.out");
  CHECK(exec[1]["profile_event"]["name"] == "OPERATOR_CALL");
  CHECK(exec[2]["profile_event"]["name"] == "native_call_add.out");
  CHECK(exec[2]["profile_event"]["instruction_id"] == 1);
  CHECK(exec[4]["profile_event"]["name"] == "Method::execute");
  CHECK(exec[4]["profile_event"]["chain_index"] == -1);
  // OPERATOR_CALL encloses its kernel's event.
  CHECK(exec[1]["profile_event"]["start_time"] <= exec[0]["profile_event"]["start_time"]);
  CHECK(exec[1]["profile_event"]["end_time"] >= exec[0]["profile_event"]["end_time"]);
}

TEST_CASE("et-run: intermediate outputs land in the debug buffer", "[cli][et-run]") {
  const auto& f = files();
  const auto dir = test::scratch_dir();
  auto r = test::run_tool("et-run", test::shell_quote(f.pte) + " -q --etdump " + test::shell_quote(dir / "run.etdp") +
                                        " --debug-level intermediates");
  REQUIRE(r.exit_code == 0);
  auto decoded = test::run_tool("et-dump-decode", test::shell_quote(dir / "run.etdp") + " --debug-buffer " +
                                                      test::shell_quote(dir / "run.etdp.debug.bin"));
  REQUIRE(decoded.exit_code == 0);
  const json events = json::parse(decoded.out)["run_data"][1]["events"];
  // y = x*c = [2, 3] (x = ones), logged at offset 0; z = [3, 4] at 64; output z at 128.
  CHECK(events[0]["debug_event"]["debug_entry"]["tensor"]["offset"] == 0);
  CHECK(events[0]["debug_event"]["debug_entry"]["tensor"]["values"] == json::array({2.0, 3.0}));
  CHECK(events[3]["debug_event"]["debug_entry"]["tensor"]["values"] == json::array({3.0, 4.0}));
  const json& last = events.back()["debug_event"];
  CHECK(last["chain_index"] == 18446744073709551615ull);
  CHECK(last["debug_entry"]["output"]["bool_val"] == true);
  CHECK(last["debug_entry"]["tensor"]["offset"] == 128);
}

TEST_CASE("et-run on the fixtures: runs, verifies, or names what is missing", "[cli][et-run][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  auto bundled = test::run_tool(
      "et-run", test::shell_quote(test::fixture("bpte/add_mul_int.bpte")) + " --verify -q --print-outputs");
  CHECK(bundled.exit_code == 0);
  CHECK(bundled.out == "output 0: INT[2, 2] [2, 2, 2, 2]\n");  // (3*0 + 2) + 0 per bundled_spec.md §5
  auto linear = test::run_tool(
      "et-run", test::shell_quote(test::fixture("pte/module_linear_inline_constants.pte")) + " -q --print-outputs");
  CHECK(linear.out == "output 0: FLOAT[2, 2] [5, 5, 5, 5]\n");  // ones * 3 + 2 from the inline constants
  auto external = test::run_tool("et-run", test::shell_quote(test::fixture("pte/external_data_model.pte")) +
                                               " -q --print-outputs --data " +
                                               test::shell_quote(test::fixture("ptd/external_data_model.ptd")));
  CHECK(external.out == "output 0: FLOAT[2, 2] [5, 5, 5, 5]\n");  // keys a = 4x3.0, b = 4x2.0
  auto no_data = test::run_tool("et-run", test::shell_quote(test::fixture("pte/external_data_model.pte")));
  CHECK(no_data.exit_code == 2);
  CHECK(no_data.err.find("lives in external data: pass its .ptd file") != std::string::npos);
  // The cadence:: reference kernels (quantize, quantized conv, dequantize) run the Cadence program.
  auto cadence = test::run_tool("et-run", test::shell_quote(test::fixture("pte/conv2d_cadence_quantized.pte")) + " -q");
  CHECK(cadence.exit_code == 0);
  CHECK(cadence.err.empty());
  // XNNPACK runs on the host: the graph multiplies the input (ones) by the program's rank-0
  // constant (value 0, data_buffer_idx 1), which holds 2.
  auto xnnpack = test::run_tool("et-run", test::shell_quote(test::fixture("pte/dynamic_xnnpack.pte")) + " -q --print-outputs");
  CHECK(xnnpack.exit_code == 0);
  CHECK(xnnpack.out == "output 0: FLOAT[8] [2, 2, 2, 2, 2, 2, 2, 2]\n");
  auto qnn = test::run_tool("et-run", test::shell_quote(test::fixture("pte/stories260k_qnn_multi_method.pte")) +
                                          " --method kv_forward");
  CHECK(qnn.exit_code == 2);
  CHECK(qnn.err.find("backend 'QnnBackend' is not registered") != std::string::npos);
}

TEST_CASE("et-run --list-backends names the delegates it runs on the host", "[cli][et-run]") {
  auto r = test::run_tool("et-run", "--list-backends");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "XnnpackBackend\n");
}

TEST_CASE("et-run --list-kernels prints the registry and MODEL is otherwise required", "[cli][et-run]") {
  auto r = test::run_tool("et-run", "--list-kernels");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("aten::convolution.out\n") != std::string::npos);
  CHECK(r.out.find("executorch_prim::et_view.default\n") != std::string::npos);
  auto none = test::run_tool("et-run", "");
  CHECK(none.exit_code == 2);
  CHECK(none.err == "et-run: error: MODEL is required\n");
}

TEST_CASE("et-run: an XNNPACK payload whose shapes do not fit is bad input (exit 2) naming the node", "[cli][et-run][xnnpack]") {
  // A fully connected node whose filter expects 4 input channels, fed [1, 3].
  xnn::GraphBuilder g;
  const uint32_t x = g.input({1, 3});
  const uint32_t w = g.constant<float>({2, 4}, std::vector<float>(8, 1.0f));
  const uint32_t y = g.output({1, 2});
  g.node(xnn::NodeType::kFullyConnected, {x, w, xnn::kInvalidId}, {y});
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t in = m.add_planned_tensor(ScalarType::kFloat, {1, 3});
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, {1, 2});
  m.delegate_call(m.add_delegate("XnnpackBackend", g.payload()), {in, out});
  m.set_inputs({in});
  m.set_outputs({out});
  const auto path = test::scratch_dir() / "bad_fc.pte";
  test::write_bytes(path, *pte::write_program(b.build()));
  auto r = test::run_tool("et-run", test::shell_quote(path));
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("instructions[0].xnodes[0] (FullyConnected): input's last dimension 3 does not match the filter's 4 input channels") !=
        std::string::npos);
}

TEST_CASE("et-run: a wrong-shape or wrong-dtype .npy input names the .npy and both shapes", "[cli][et-run][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  // lenet_tutorial.pte's input v10 is FLOAT[1,1,32,32] (static).
  const auto pte = test::fixture("pte/lenet_tutorial.pte");
  const auto dir = test::scratch_dir();
  const std::vector<float> rgb(1 * 3 * 32 * 32, 0.5f);
  auto bytes = npy::write_npy(ScalarType::kFloat, std::vector<int64_t>{1, 3, 32, 32},
                              ByteSpan(reinterpret_cast<const uint8_t*>(rgb.data()), rgb.size() * sizeof(float)));
  REQUIRE(bytes.ok());
  test::write_bytes(dir / "rgb.npy", *bytes);
  auto r = test::run_tool("et-run", test::shell_quote(pte) + " --input " + test::shell_quote(dir / "rgb.npy"));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "et-run: error: " + (dir / "rgb.npy").string() +
                     ": shape [1,3,32,32] given, [1,1,32,32] expected for input 0\n");

  const std::vector<int32_t> ints(1 * 1 * 32 * 32, 1);
  bytes = npy::write_npy(ScalarType::kInt, std::vector<int64_t>{1, 1, 32, 32},
                         ByteSpan(reinterpret_cast<const uint8_t*>(ints.data()), ints.size() * sizeof(int32_t)));
  REQUIRE(bytes.ok());
  test::write_bytes(dir / "ints.npy", *bytes);
  r = test::run_tool("et-run", test::shell_quote(pte) + " --input " + test::shell_quote(dir / "ints.npy"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-run: error: " + (dir / "ints.npy").string() + ": holds INT; input 0 expects FLOAT\n");
}

TEST_CASE("et-run: a run that fails partway still writes the debug buffer its ETDump points into", "[cli][et-run]") {
  // forward(x: float[2]): y = x * [2, 3] runs and is logged, then y + d
  // with d: float[3] cannot broadcast, so the kernel fails (exit 3).
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t c = m.add_constant_tensor({2}, std::vector<float>{2.0f, 3.0f});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t d = m.add_planned_tensor(ScalarType::kFloat, {3});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::mul", "out", {x, c, y, y});
  m.kernel_call("aten::add", "out", {y, d, m.add_int(1), z, z});
  m.set_inputs({x});
  m.set_outputs({z});
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "fails.pte", *pte::write_program(b.build()));
  const auto dump = dir / "run.etdp", buffer = dir / "run.etdp.debug.bin";
  auto r = test::run_tool("et-run", test::shell_quote(dir / "fails.pte") + " -q --etdump " + test::shell_quote(dump) +
                                        " --debug-level intermediates");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("instructions[1]: aten::add.out: shapes [2] and [3] cannot be broadcast") != std::string::npos);
  REQUIRE(std::filesystem::exists(dump));
  REQUIRE(std::filesystem::exists(buffer));
  // Only the two files: no temporary file left beside them.
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) entries += e.path().filename() != "fails.pte";
  CHECK(entries == 2);
  // Logged: y = ones * [2, 3] = [2, 3] at offset 0, then the failing add's
  // output z (logged even on failure, in the kernel's scope) at the next
  // 64-byte boundary: 64 + 8 bytes.
  CHECK(std::filesystem::file_size(buffer) == 72);
  // et-dump-decode resolves every logged tensor in the buffer (a range past
  // its end is an error, exit 2).
  auto decoded = test::run_tool("et-dump-decode",
                                test::shell_quote(dump) + " --debug-buffer " + test::shell_quote(buffer));
  INFO(decoded.err);
  REQUIRE(decoded.exit_code == 0);
  const json doc = json::parse(decoded.out);
  REQUIRE(doc["run_data"].size() == 2);  // Default, then the failed execution
  std::vector<json> logged;
  for (const json& e : doc["run_data"][1]["events"]) {
    if (e.contains("debug_event")) logged.push_back(e["debug_event"]);
  }
  REQUIRE(logged.size() == 2);
  CHECK(logged[0]["instruction_id"] == 0);
  CHECK(logged[0]["debug_entry"]["tensor"]["offset"] == 0);
  CHECK(logged[0]["debug_entry"]["tensor"]["values"] == json::array({2.0, 3.0}));
  CHECK(logged[1]["instruction_id"] == 1);
  CHECK(logged[1]["debug_entry"]["tensor"]["offset"] == 64);
  CHECK(logged[1]["debug_entry"]["tensor"]["values"].size() == 2);
}
