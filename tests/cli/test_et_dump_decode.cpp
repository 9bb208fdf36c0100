// et-dump-decode as a user runs it: stdout, stderr and exit code apart.
#include <cstring>

#include <nlohmann/json.hpp>

#include "examples/demo_models.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

struct DemoFiles {
  std::filesystem::path dir, pte, bpte, etdp, debug;
};

const DemoFiles& demo_files() {
  static const DemoFiles files = [] {
    DemoFiles f;
    f.dir = test::scratch_dir();
    f.pte = f.dir / "mlp.pte";
    f.bpte = f.dir / "mlp.bpte";
    f.etdp = f.dir / "demo.etdp";
    f.debug = f.dir / "demo_debug.bin";
    auto program = pte::write_program(demo::mlp());
    test::write_bytes(f.pte, *program);
    test::write_bytes(f.bpte, demo::bundled_mlp(*program, 2));
    std::vector<uint8_t> buffer;
    demo::SyntheticRun run;
    run.executions = 3;
    run.log_program_output = true;
    test::write_bytes(f.etdp, demo::synthetic_etdump(run, &buffer));
    test::write_bytes(f.debug, buffer);
    return f;
  }();
  return files;
}

// Shell-quotes a path (built with += to dodge GCC 12's -Wrestrict false positive).
// One line "et-dump-decode: error: <file>: ..." and nothing on stdout.
void check_one_line_error(const test::CommandResult& r, const std::string& file) {
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("et-dump-decode: error: " + file + ": ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("decodes each kind to compact JSON on stdout", "[cli]") {
  const auto& f = demo_files();
  for (const auto& path : {f.pte, f.bpte, f.etdp}) {
    auto r = test::run_tool("et-dump-decode", test::shell_quote(path));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);  // compact: one line
    CHECK_NOTHROW(json::parse(r.out));
  }
  auto pretty = test::run_tool("et-dump-decode", "--pretty " + test::shell_quote(f.etdp));
  CHECK(pretty.out.rfind("{\n  \"version\": 0,\n  \"run_data\": [\n", 0) == 0);
}

TEST_CASE("reads standard input for -", "[cli]") {
  const auto& f = demo_files();
  auto from_file = test::run_tool("et-dump-decode", test::shell_quote(f.pte));
  auto from_stdin = test::run_tool("et-dump-decode", "-", f.pte.string());
  CHECK(from_stdin.exit_code == 0);
  CHECK(from_stdin.out == from_file.out);
}

TEST_CASE("jsonl mode prints one event per line with its block", "[cli]") {
  const auto& f = demo_files();
  auto r = test::run_tool("et-dump-decode", "--jsonl --debug-buffer " + test::shell_quote(f.debug) +
                                                " --max-values 1 " + test::shell_quote(f.etdp));
  REQUIRE(r.exit_code == 0);
  // Default: 2 events; 3 Execute blocks of 14 x 2 kernel events + Method::execute + 1 output.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2 + 3 * 30);
  const auto last = json::parse(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1));
  CHECK(last["run_index"] == 3);
  CHECK(last["run_name"] == "Execute");
  CHECK(last["event_index"] == 29);
  CHECK(last["debug_event"]["debug_entry"]["tensor"]["values"].size() == 1);
  CHECK(last["debug_event"]["debug_entry"]["tensor"]["values_omitted"] == 9);
}

TEST_CASE("encode writes the binary back and the JSON round trip is lossless", "[cli]") {
  const auto& f = demo_files();
  const auto dir = test::scratch_dir();
  for (const auto& path : {f.pte, f.bpte, f.etdp}) {
    auto first = test::run_tool("et-dump-decode", test::shell_quote(path) + " -o " + test::shell_quote(dir / "a.json"));
    REQUIRE(first.exit_code == 0);
    auto enc = test::run_tool(
        "et-dump-decode", "--encode " + test::shell_quote(dir / "a.json") + " -o " + test::shell_quote(dir / "b.bin"));
    INFO(enc.err);
    REQUIRE(enc.exit_code == 0);
    auto again = test::run_tool("et-dump-decode", test::shell_quote(dir / "b.bin"));
    CHECK(again.out == test::run_tool("et-dump-decode", test::shell_quote(path)).out);
  }
}

TEST_CASE("bad input: one line naming the file, exit 2, no partial output", "[cli][errors]") {
  const auto& f = demo_files();
  const auto dir = test::scratch_dir();

  test::write_bytes(dir / "unknown.bin", std::vector<uint8_t>(64, 'x'));
  auto r = test::run_tool("et-dump-decode", test::shell_quote(dir / "unknown.bin"));
  check_one_line_error(r, (dir / "unknown.bin").string());
  CHECK(r.err.find("unknown file identifier 'xxxx'") != std::string::npos);

  auto bytes = test::read_bytes(f.etdp);
  bytes.resize(bytes.size() / 2);
  test::write_bytes(dir / "truncated.etdp", bytes);
  r = test::run_tool("et-dump-decode", test::shell_quote(dir / "truncated.etdp"));
  check_one_line_error(r, (dir / "truncated.etdp").string());
  CHECK(r.err.find("truncated") != std::string::npos);

  auto buffer = test::read_bytes(f.debug);
  buffer.resize(buffer.size() - 1);
  test::write_bytes(dir / "short.bin", buffer);
  r = test::run_tool("et-dump-decode",
                     "--debug-buffer " + test::shell_quote(dir / "short.bin") + " " + test::shell_quote(f.etdp));
  check_one_line_error(r, (dir / "short.bin").string());
  CHECK(r.err.find("debug buffer too short") != std::string::npos);

  r = test::run_tool("et-dump-decode", test::shell_quote(dir / "missing.pte"));
  check_one_line_error(r, (dir / "missing.pte").string());

  std::ofstream(dir / "bad.json") << "{\"run_data\": [}";
  r = test::run_tool("et-dump-decode",
                     "--encode " + test::shell_quote(dir / "bad.json") + " -o " + test::shell_quote(dir / "out.etdp"));
  check_one_line_error(r, (dir / "bad.json").string());
  CHECK_FALSE(std::filesystem::exists(dir / "out.etdp"));
  // No temp file is left behind either.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    CHECK(entry.path().filename().string().find("etkit-tmp") == std::string::npos);
  }

  r = test::run_tool("et-dump-decode", "--debug-buffer " + test::shell_quote(f.debug) + " " + test::shell_quote(f.pte));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--debug-buffer applies to ETDumps only") != std::string::npos);
}

TEST_CASE("usage errors exit 2 and --help documents the exit codes", "[cli][errors]") {
  auto r = test::run_tool("et-dump-decode", "--no-such-flag x");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  r = test::run_tool("et-dump-decode", "");
  CHECK(r.exit_code == 2);
  auto help = test::run_tool("et-dump-decode", "--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("Exit codes:") != std::string::npos);
  CHECK(help.out.find("2  bad input or usage") != std::string::npos);
}

TEST_CASE("every ETDump and bundled program fixture round-trips losslessly", "[cli][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto dir = test::scratch_dir();
  for (const auto* name : {"etdump/lenet_tutorial.etdp", "etdump/mobilenet_v2_xnnpack.etdp", "bpte/add_mul_int.bpte",
                           "bpte/lenet_tutorial.bpte"}) {
    INFO(name);
    const auto path = test::fixture(name);
    auto first = test::run_tool("et-dump-decode", test::shell_quote(path) + " -o " + test::shell_quote(dir / "a.json"));
    REQUIRE(first.exit_code == 0);
    REQUIRE(test::run_tool("et-dump-decode",
                           "--encode " + test::shell_quote(dir / "a.json") + " -o " + test::shell_quote(dir / "b.bin"))
                .exit_code == 0);
    REQUIRE(
        test::run_tool("et-dump-decode", test::shell_quote(dir / "b.bin") + " -o " + test::shell_quote(dir / "c.json"))
            .exit_code == 0);
    CHECK(test::read_bytes(dir / "a.json") == test::read_bytes(dir / "c.json"));
  }
}

TEST_CASE("program fixtures round-trip except the derived header sizes", "[cli][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto dir = test::scratch_dir();
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::fixture("pte"))) {
    const auto path = entry.path();
    if (path.filename() == "add_mul_old_identifier_et02.pte") continue;
    INFO(path.string());
    auto first = test::run_tool("et-dump-decode", test::shell_quote(path) + " -o " + test::shell_quote(dir / "a.json"));
    REQUIRE(first.exit_code == 0);
    REQUIRE(test::run_tool("et-dump-decode",
                           "--encode " + test::shell_quote(dir / "a.json") + " -o " + test::shell_quote(dir / "b.pte"))
                .exit_code == 0);
    auto again = test::run_tool("et-dump-decode", test::shell_quote(dir / "b.pte"));
    REQUIRE(again.exit_code == 0);
    std::ifstream in(dir / "a.json");
    json a = json::parse(in), b = json::parse(again.out);
    // FlatBuffers may pack the tables a few bytes differently from ExecuTorch's
    // serializer, which moves the segment base; everything else is identical.
    for (auto* doc : {&a, &b}) {
      if (doc->contains("extended_header")) {
        (*doc)["extended_header"].erase("program_size");
        (*doc)["extended_header"].erase("segment_base_offset");
      }
    }
    CHECK(a == b);
    ++checked;
  }
  CHECK(checked == 26);  // 27 programs in fixtures/pte minus the ET02 one
}

TEST_CASE("the ET02 program is refused with the identifier found and supported", "[cli][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto path = test::fixture("pte/add_mul_old_identifier_et02.pte");
  auto r = test::run_tool("et-dump-decode", test::shell_quote(path));
  check_one_line_error(r, path.string());
  CHECK(r.err.find("program identifier 'ET02' is not supported (supported: ET12)") != std::string::npos);
}

TEST_CASE("special output files are written in place and a closed pipe ends quietly", "[cli]") {
  const auto& f = demo_files();
  // -o /dev/null must not replace the device with a regular file.
  auto r = test::run_tool("et-dump-decode", test::shell_quote(f.etdp) + " -o /dev/null");
  CHECK(r.exit_code == 0);
  CHECK_FALSE(std::filesystem::is_regular_file("/dev/null"));
  // A FIFO gets the same JSON as a regular file does.
  REQUIRE(test::run_tool("et-dump-decode",
                         test::shell_quote(f.etdp) + " -o " + test::shell_quote(f.dir / "decoded-for-fifo.json"))
              .exit_code == 0);
  const auto dir = test::scratch_dir();
  const auto fifo = dir / "fifo";
  REQUIRE(test::run_shell("mkfifo " + test::shell_quote(fifo)).exit_code == 0);
  auto through = test::run_shell("cat " + test::shell_quote(fifo) + " > " + test::shell_quote(dir / "got.json") +
                                 " & " + std::string(ETKIT_TOOLS_DIR) + "/et-dump-decode " + test::shell_quote(f.etdp) +
                                 " -o " + test::shell_quote(fifo) + "; wait");
  CHECK(through.exit_code == 0);
  CHECK(test::read_bytes(dir / "got.json") == test::read_bytes(f.dir / "decoded-for-fifo.json"));
  CHECK(std::filesystem::is_fifo(fifo));
  // `| head -c 10` closes the pipe early: no error message, exit 0.
  auto head = test::run_shell(std::string(ETKIT_TOOLS_DIR) + "/et-dump-decode " + test::shell_quote(f.etdp) +
                              " --jsonl | head -c 10");
  CHECK(head.err.empty());
  CHECK(head.out.size() == 10);
}

TEST_CASE("et-dump-decode prints a .ptd (FlatTensor FT01) as JSON with its header and segment bytes",
          "[cli][fixtures][ptd]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto r = test::run_tool("et-dump-decode", test::shell_quote(test::fixture("ptd/external_data_model.ptd")));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  // pte_spec.md §3.4 (observed): header length 40, flatbuffer_offset 48,
  // flatbuffer_size 256, segment_base_offset 304, segment_data_size 32; keys
  // a (segment 0: offset 0, 16 bytes, 4 x 3.0f) and b (segment 1: offset 16,
  // 16 bytes, 4 x 2.0f), both FLOAT[2,2], dim_order [0,1].
  CHECK(doc["flat_tensor_header"] == json::parse(R"({"length": 40, "flatbuffer_offset": 48, "flatbuffer_size": 256,
                                                      "segment_base_offset": 304, "segment_data_size": 32})"));
  CHECK(doc["segments"] == json::parse(R"([{"offset": 0, "size": 16}, {"offset": 16, "size": 16}])"));
  REQUIRE(doc["named_data"].size() == 2);
  CHECK(doc["named_data"][0]["key"] == "a");
  CHECK(doc["named_data"][0]["segment_index"] == 0);
  CHECK(doc["named_data"][0]["tensor_layout"] ==
        json::parse(R"({"scalar_type": "FLOAT", "sizes": [2, 2], "dim_order": [0, 1]})"));
  CHECK(doc["named_data"][1]["key"] == "b");
  CHECK(doc["named_data"][1]["segment_index"] == 1);
  // 3.0f = 0x40400000 and 2.0f = 0x40000000, little-endian, 4 of each, in base64.
  CHECK(doc["segment_data"] == json::parse(R"(["AABAQAAAQEAAAEBAAABAQA==", "AAAAQAAAAEAAAABAAAAAQA=="])"));
}

TEST_CASE("et-run names a .ptd given in place of the program", "[cli][fixtures][ptd][errors]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto ptd = test::fixture("ptd/external_data_model.ptd");
  const auto r = test::run_tool("et-run", test::shell_quote(ptd));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-run: error: " + ptd.string() + ": is a .ptd data file, not a program (pass it with --data)\n");
}

TEST_CASE("an older FlatTensor layout is named, not reported as truncated", "[cli][fixtures][ptd][errors]") {
  ETKIT_REQUIRE_FIXTURES();
  // ExecuTorch 0.6's root table: version, tensor_alignment, tensors, segments
  // (this file has no named_data) under the same FT01 identifier.
  const auto old = test::fixture("wild/ptd/et_extension_module_test_resources_linear.ptd");
  auto r = test::run_tool("et-dump-decode", test::shell_quote(old));
  check_one_line_error(r, old.string());
  CHECK(r.err.find("FlatTensor layout of ExecuTorch 0.6") != std::string::npos);
  CHECK(r.err.find("truncated") == std::string::npos);
  auto run = test::run_tool("et-run", test::shell_quote(test::fixture("pte/external_data_model.pte")) + " --data " +
                                          test::shell_quote(old));
  CHECK(run.exit_code == 2);
  CHECK(run.err.rfind("et-run: error: " + old.string() + ": FlatTensor layout of ExecuTorch 0.6", 0) == 0);

  // The layout before it put the FH01 header in front of the FlatBuffer.
  const auto dir = test::scratch_dir();
  std::vector<uint8_t> early(96, 0);
  std::memcpy(early.data(), "FH01", 4);
  test::write_bytes(dir / "early.ptd", early);
  r = test::run_tool("et-dump-decode", test::shell_quote(dir / "early.ptd"));
  check_one_line_error(r, (dir / "early.ptd").string());
  CHECK(r.err.find("FH01 header in front of the FlatBuffer") != std::string::npos);
}
