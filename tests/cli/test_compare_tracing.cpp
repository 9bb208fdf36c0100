// scripts/compare_tracing.sh, with et-run standing in for the other runner
// too (untraced and traced), so the script keeps working without an
// official ExecuTorch build at hand. Timings are not judged beyond being
// numbers (a loaded CI machine makes single runs several times slower);
// the event count is the program's, derived by hand.
#include <catch2/catch.hpp>

#include <sstream>

#include "libcore/formats/program/program_writer.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string script() { return test::shell_quote(std::filesystem::path(ETKIT_SCRIPTS_DIR) / "compare_tracing.sh"); }
std::string et_run() { return test::shell_quote(std::filesystem::path(ETKIT_TOOLS_DIR) / "et-run"); }
std::string et_run_as_other() {
  return " --other " + et_run() + " --other-traced " + et_run() +
         " --other-args '{} --iterations {n} -q' --other-etdump-args '--etdump {etdump}'";
}

}  // namespace

TEST_CASE("compare_tracing.sh: et-run against itself, the events of its dump and a ratio", "[cli][compare_tracing]") {
  const auto dir = test::scratch_dir();
  const auto a = dir / "a.pte";
  test::write_bytes(a, *pte::write_program(test::mul_relu_program()));
  const auto r = test::run_shell(script() + " --et-run " + et_run() + et_run_as_other() + " --rounds 2 --executions 3 " +
                                 test::shell_quote(a));
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  REQUIRE(std::getline(lines, line));
  // Per execution: mul and relu with their OPERATOR_CALLs, and
  // Method::execute (5); loading: Method::init and Program::load_method.
  CHECK(line.find("a.pte: 3 executions, 17 events, 2 rounds") == 0);
  REQUIRE(std::getline(lines, line));
  CHECK(line.find("wall ns/event") != std::string::npos);
  for (const char* runner : {"other", "et-run"}) {
    REQUIRE(std::getline(lines, line));
    std::istringstream row(line);
    std::string name, cpu, rss_unit;
    double wall = 0, rss = 0;
    REQUIRE(row >> name >> wall >> cpu >> rss >> rss_unit);
    CHECK(name == runner);
    CHECK(rss > 0);
    CHECK(rss_unit == "MiB");
  }
  REQUIRE(std::getline(lines, line));
  CHECK(line.find("et-run/other: wall ") == 0);
  CHECK_FALSE(std::getline(lines, line));
}

TEST_CASE("compare_tracing.sh: a failing runner exits 1, bad usage 2", "[cli][compare_tracing]") {
  const auto dir = test::scratch_dir();
  const auto a = dir / "a.pte";
  test::write_bytes(a, *pte::write_program(test::mul_relu_program()));
  const auto base = script() + " --et-run " + et_run();
  const auto failed =
      test::run_shell(base + " --other false --other-traced " + et_run() + " --rounds 1 --executions 1 " + test::shell_quote(a));
  CHECK(failed.exit_code == 1);
  CHECK(failed.err.find("failed: false --model_path=") != std::string::npos);
  CHECK(test::run_shell(base + " --other " + et_run() + " " + test::shell_quote(a)).exit_code == 2);  // no --other-traced
  CHECK(test::run_shell(base + et_run_as_other()).exit_code == 2);                                    // no program
  CHECK(test::run_shell(base + et_run_as_other() + " " + test::shell_quote(a) + " " + test::shell_quote(a)).exit_code == 2);
  CHECK(test::run_shell(base + et_run_as_other() + " --executions x " + test::shell_quote(a)).exit_code == 2);
  CHECK(test::run_shell(base + et_run_as_other() + " " + test::shell_quote(dir / "none.pte")).exit_code == 2);
  CHECK(test::run_shell(base + et_run_as_other() + " --other-traced /nonexistent/runner " + test::shell_quote(a)).exit_code == 2);
}
