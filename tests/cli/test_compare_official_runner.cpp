// scripts/build_official_runner.sh needs an ExecuTorch checkout to build
// anything; without one, what it must still do right is refuse, before it
// creates OUTDIR or configures a build: these run on every machine, so the
// script's argument handling cannot rot unseen.
#include <catch2/catch.hpp>

#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string script() {
  return test::shell_quote(std::filesystem::path(ETKIT_SCRIPTS_DIR) / "build_official_runner.sh");
}

}  // namespace

TEST_CASE("build_official_runner.sh: usage errors exit 2 before building anything", "[cli][compare_official]") {
  const auto none = test::run_shell(script());
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("EXECUTORCH_DIR and OUTDIR are required") != std::string::npos);
  CHECK(none.err.find("usage: build_official_runner.sh EXECUTORCH_DIR OUTDIR") != std::string::npos);

  // A directory without ExecuTorch's sources is named, with the file it
  // lacks, and OUTDIR is not created.
  const auto dir = test::scratch_dir();
  const auto out = dir / "out";
  const auto not_checkout = test::run_shell(script() + " " + test::shell_quote(dir) + " " + test::shell_quote(out));
  CHECK(not_checkout.exit_code == 2);
  CHECK(not_checkout.err.find(
            "is not an ExecuTorch checkout (no examples/portable/executor_runner/executor_runner.cpp)") !=
        std::string::npos);
  CHECK(std::filesystem::is_empty(dir));

  // One path only, three, an unknown option, --help.
  const auto one = test::run_shell(script() + " " + test::shell_quote(dir));
  CHECK(one.exit_code == 2);
  CHECK(one.err.find("EXECUTORCH_DIR and OUTDIR are required") != std::string::npos);
  CHECK(test::run_shell(script() + " " + test::shell_quote(dir) + " " + test::shell_quote(out) + " " +
                        test::shell_quote(out))
            .exit_code == 2);
  const auto unknown = test::run_shell(script() + " " + test::shell_quote(dir) + " " + test::shell_quote(out) +
                                       " --fast");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown option --fast") != std::string::npos);
  CHECK(test::run_shell(script() + " --help").exit_code == 2);
  CHECK(std::filesystem::is_empty(dir));
}

TEST_CASE("build_official_runner.sh: --etdump needs a built flatcc tree", "[cli][compare_official]") {
  const auto dir = test::scratch_dir();
  const auto out = dir / "out";
  const auto missing = test::run_shell(script() + " " + test::shell_quote(dir) + " " + test::shell_quote(out) +
                                       " --etdump");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("usage: build_official_runner.sh") != std::string::npos);
  // Checked after the checkout, so a checkout-shaped directory gets that far;
  // the flatcc tree is named with the file it lacks, and nothing is created.
  const auto checkout = dir / "executorch";
  for (const char* f : {"examples/portable/executor_runner/executor_runner.cpp", "schema/program.fbs",
                        "runtime/executor/method.cpp", "kernels/portable/cpu/op_add.cpp",
                        "kernels/prim_ops/register_prim_ops.cpp", "extension/runner_util/inputs.cpp"}) {
    std::filesystem::create_directories((checkout / f).parent_path());
    test::write_bytes(checkout / f, {});
  }
  const auto flatcc = dir / "flatcc";
  std::filesystem::create_directories(flatcc / "bin");
  const auto not_flatcc = test::run_shell(script() + " " + test::shell_quote(checkout) + " " + test::shell_quote(out) +
                                          " --etdump " + test::shell_quote(flatcc));
  CHECK(not_flatcc.exit_code == 2);
  CHECK(not_flatcc.err.find("is not a built flatcc tree (no bin/flatcc)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}
