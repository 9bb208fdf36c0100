// scripts/compare_official_kernels.sh needs an ExecuTorch checkout to build
// anything; without one, what it must still do right is refuse: these run
// on every machine, so the script's argument handling cannot rot unseen.
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string script() {
  return test::shell_quote(std::filesystem::path(ETKIT_SCRIPTS_DIR) / "compare_official_kernels.sh");
}

}  // namespace

TEST_CASE("compare_official_kernels.sh: usage errors exit 2 before building anything", "[cli][compare_official]") {
  const auto none = test::run_shell(script());
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("EXECUTORCH_DIR is required") != std::string::npos);
  CHECK(none.err.find("usage: compare_official_kernels.sh EXECUTORCH_DIR") != std::string::npos);

  // A directory without ExecuTorch's sources is named, with the file it lacks.
  const auto dir = test::scratch_dir();
  const auto not_checkout = test::run_shell(script() + " " + test::shell_quote(dir));
  CHECK(not_checkout.exit_code == 2);
  CHECK(not_checkout.err.find("is not an ExecuTorch checkout (no kernels/portable/cpu/op_relu.cpp)") !=
        std::string::npos);
  CHECK(std::filesystem::is_empty(dir));

  const auto unknown = test::run_shell(script() + " " + test::shell_quote(dir) + " --fast");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown option --fast") != std::string::npos);
  CHECK(test::run_shell(script() + " " + test::shell_quote(dir) + " " + test::shell_quote(dir)).exit_code == 2);
  CHECK(test::run_shell(script() + " " + test::shell_quote(dir) + " --tolerance").exit_code == 2);
  CHECK(test::run_shell(script() + " --help").exit_code == 2);
}
