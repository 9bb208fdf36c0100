// Input-file attacks outside the runtime proper (issue 16): messages that
// quote file bytes stay one line, writers bound what a document can make
// them write, and et-run's limits and atomic outputs hold end to end.
#include <filesystem>

#include "libcore/formats/npy/npy.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/support/file.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::vector<uint8_t> npy_with_header(const std::string& dict) {
  std::string header = dict;
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  const std::string file = std::string("\x93NUMPY\x01\x00", 8) + char(header.size() & 0xff) + char(header.size() >> 8) + header;
  return std::vector<uint8_t>(file.begin(), file.end());
}

}  // namespace

TEST_CASE(".npy messages quote header bytes escaped, on one line", "[npy][errors][hostile]") {
  auto dtype = npy::read_npy(ByteSpan(npy_with_header("{'descr': '<f\n4\x01', 'fortran_order': False, 'shape': (1,), }")));
  REQUIRE_FALSE(dtype.ok());
  CHECK(dtype.error().message == ".npy dtype '<f\\x0a4\\x01' is not supported");
  auto shape = npy::read_npy(ByteSpan(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,\nx), }")));
  REQUIRE_FALSE(shape.ok());
  CHECK(shape.error().message == "malformed shape (2,\\x0ax) in the .npy header");
  // A product that wraps 64 bits (2^36 * 2^28 = 2^64, so 0 elements in 0
  // bytes of data) is too large, not empty.
  auto wraps = npy::read_npy(ByteSpan(npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (68719476736, 268435456), }")));
  REQUIRE_FALSE(wraps.ok());
  CHECK(wraps.error().message == "shape (68719476736, 268435456) is too large");
}

TEST_CASE("a program's segments may be separated by alignment padding only", "[pte][writer][hostile]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  m.add_constant_tensor({2}, std::vector<float>{1, 2});
  pte::Program program = b.build();
  REQUIRE(program.segment_data.size() == 1);
  program.segments = {pte::DataSegment{uint64_t(1) << 39, program.segment_data[0].size()}};
  auto far = pte::write_program(program);
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().field == "segments[0]");
  CHECK(far.error().message ==
        "offset 549755813888 leaves a gap of 549755813888 bytes after the previous segment (at most 65536 of alignment padding)");
  program.segments = {pte::DataSegment{65536, program.segment_data[0].size()}};
  CHECK(pte::write_program(program).ok());
}

TEST_CASE("et-run: limits are options, errors quoting file text stay one line, --output-dir is atomic", "[cli][et-run][hostile]") {
  const auto dir = test::scratch_dir();
  // An endless loop: instruction 0 jumps to itself.
  {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    m.jump_false(m.add_bool(false), 0);
    auto bytes = pte::write_program(b.build());
    REQUIRE(bytes.ok());
    REQUIRE(write_file((dir / "loop.pte").string(), *bytes).ok());
  }
  auto r = test::run_tool("et-run", test::shell_quote(dir / "loop.pte") + " --max-instructions 100 --etdump " +
                                        test::shell_quote(dir / "loop.etdp"));
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("more than 100 instructions executed (endless loop?)") != std::string::npos);
  r = test::run_tool("et-run", test::shell_quote(dir / "loop.pte") + " --max-instructions 1000000000 --timeout 0.05");
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("execution exceeded its time limit") != std::string::npos);

  // An operator whose name holds a newline and an escape byte.
  {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    m.kernel_call("evil::op\nline2\x1b[31m", "", {m.add_int(1)});
    auto bytes = pte::write_program(b.build());
    REQUIRE(bytes.ok());
    REQUIRE(write_file((dir / "evil.pte").string(), *bytes).ok());
  }
  r = test::run_tool("et-run", test::shell_quote(dir / "evil.pte"));
  CHECK(r.exit_code == 2);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("evil::op\\x0aline2\\x1b[31m") != std::string::npos);

  // A run that fails leaves no output directory behind.
  r = test::run_tool("et-run", test::shell_quote(dir / "loop.pte") + " --max-instructions 10 --output-dir " +
                                   test::shell_quote(dir / "outs"));
  CHECK(r.exit_code == 3);
  CHECK_FALSE(std::filesystem::exists(dir / "outs"));
  // A 16 GiB arena is over the default limit, under a raised one.
  {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    m.add_planned_tensor(ScalarType::kFloat, {4});
    pte::Program program = b.build();
    program.execution_plan[0].non_const_buffer_sizes = {0, int64_t(16) << 30};
    auto bytes = pte::write_program(program);
    REQUIRE(bytes.ok());
    REQUIRE(write_file((dir / "big.pte").string(), *bytes).ok());
  }
  r = test::run_tool("et-run", test::shell_quote(dir / "big.pte"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("beyond its limit of 4294967296") != std::string::npos);
  r = test::run_tool("et-run", test::shell_quote(dir / "big.pte") + " --max-memory 17GiB --quiet");
  CHECK(r.exit_code == 0);
}

TEST_CASE("fuzz regressions: the runner targets replay their reproducers and mutate every base program", "[fuzz][hostile]") {
  const std::filesystem::path root(ETKIT_FUZZ_DIR);
  for (const char* target : {"runner", "runner-mutate"}) {
    const auto dir = root / "regressions" / target;
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".bin") continue;
      INFO(entry.path().string());
      const auto bytes = test::read_bytes(entry.path());
      CHECK((std::string(target) == "runner" ? fuzz::runner : fuzz::runner_mutate)(bytes.data(), bytes.size()) == 0);
    }
  }
  // Each base program unmodified, then with a few fixed edits of each kind.
  for (uint8_t base = 0; base < 4; ++base) {
    CHECK(fuzz::runner_mutate(&base, 1) == 0);
    for (uint8_t kind = 0; kind < 16; ++kind) {
      const uint8_t edit[] = {base, kind, 1, 2, 3, 7, 0};
      CHECK(fuzz::runner_mutate(edit, sizeof edit) == 0);
    }
  }
}
