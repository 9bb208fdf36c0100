// scripts/compare_runner.sh, run with et-run as the "other" runner too, so
// the script keeps working without an official ExecuTorch build at hand.
// Its timings are not judged beyond being numbers (a loaded CI machine can
// make one run of a runner several times slower than the next); the ratio
// must be the one of the two medians printed.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "libcore/formats/program/program_writer.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string script() { return test::shell_quote(std::filesystem::path(ETKIT_SCRIPTS_DIR) / "compare_runner.sh"); }
std::string et_run() { return test::shell_quote(std::filesystem::path(ETKIT_TOOLS_DIR) / "et-run"); }

}  // namespace

TEST_CASE("compare_runner.sh: et-run against itself, one line per program with the ratio of its medians", "[cli][compare_runner]") {
  const auto dir = test::scratch_dir();
  const auto a = dir / "a.pte";
  const auto b = dir / "b.pte";
  test::write_bytes(a, *pte::write_program(test::mul_relu_program()));
  test::write_bytes(b, *pte::write_program(test::mul_relu_program()));
  const auto r = test::run_shell(script() + " --et-run " + et_run() + " --other " + et_run() +
                                 " --other-args '{} --iterations {n}' --rounds 3 --executions 2 " +
                                 test::shell_quote(a) + " " + test::shell_quote(b));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string header;
  std::getline(lines, header);
  CHECK(header.find("other/et-run") != std::string::npos);
  for (const char* name : {"a.pte", "b.pte"}) {
    std::string program;
    double et_ms = 0, other_ms = 0, ratio = 0;
    REQUIRE(lines >> program >> et_ms >> other_ms >> ratio);
    CHECK(program == name);
    CHECK(et_ms > 0);
    CHECK(other_ms > 0);
    // Printed with 3 and 2 decimals: the quotient of the printed medians
    // within their rounding.
    CHECK(std::abs(ratio - other_ms / et_ms) <= 0.005 + 0.0005 * (1 + ratio) / et_ms + 1e-9);
  }
  std::string rest;
  CHECK_FALSE(lines >> rest);
}

TEST_CASE("compare_runner.sh: a failing runner exits 1, bad usage 2", "[cli][compare_runner]") {
  const auto dir = test::scratch_dir();
  const auto a = dir / "a.pte";
  test::write_bytes(a, *pte::write_program(test::mul_relu_program()));
  const auto failed = test::run_shell(script() + " --et-run " + et_run() + " --other false --rounds 1 " + test::shell_quote(a));
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("failed: false --model_path=") != std::string::npos);
  CHECK(test::run_shell(script() + " --et-run " + et_run() + " " + test::shell_quote(a)).exit_code == 2);  // no --other
  CHECK(test::run_shell(script() + " --et-run " + et_run() + " --other " + et_run()).exit_code == 2);  // no program
  CHECK(test::run_shell(script() + " --et-run " + et_run() + " --other " + et_run() + " --rounds 0 " + test::shell_quote(a))
            .exit_code == 2);
  CHECK(test::run_shell(script() + " --et-run " + et_run() + " --other " + et_run() + " " + test::shell_quote(dir / "none.pte"))
            .exit_code == 2);
}

TEST_CASE("compare_runner.sh: --et-run-args reach et-run, {} standing for the program", "[cli][compare_runner]") {
  const auto dir = test::scratch_dir();
  const auto a = dir / "a.pte";
  test::write_bytes(a, *pte::write_program(test::mul_relu_program()));
  const auto base = script() + " --et-run " + et_run() + " --other " + et_run() +
                    " --other-args '{} --iterations {n}' --rounds 1 ";
  // A method the program does not have makes et-run, and so the script, fail.
  const auto missing = test::run_shell(base + "--et-run-args '--method nope' " + test::shell_quote(a));
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find("--method nope") != std::string::npos);
  // {} is the program: its outputs written beside it under a name made of it.
  const auto ok = test::run_shell(base + "--et-run-args '--output-dir {}.out' " + test::shell_quote(a));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "a.pte.out" / "output-0.npy"));
}
