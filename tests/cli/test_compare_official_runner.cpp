// scripts/build_official_runner.sh needs an ExecuTorch checkout to build
// anything; without one, what it must still do right is refuse, in one line,
// before it creates OUTDIR or configures a build, and, when a configure fails,
// show why: these run on every machine, so the script's argument and error
// handling cannot rot unseen.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string script() {
  return test::shell_quote(std::filesystem::path(ETKIT_SCRIPTS_DIR) / "build_official_runner.sh");
}

std::string q(const std::filesystem::path& p) { return test::shell_quote(p); }

// The files the script looks for before it configures anything: six that
// every ExecuTorch has, and two that came with 0.6 (the oldest it builds).
const char* const kAnyVersion[] = {"examples/portable/executor_runner/executor_runner.cpp", "schema/program.fbs",
                                   "runtime/executor/method.cpp", "kernels/portable/cpu/op_add.cpp",
                                   "kernels/prim_ops/register_prim_ops.cpp", "extension/runner_util/inputs.cpp"};
const char* const kSince06[] = {"extension/flat_tensor/serialize/flat_tensor.fbs",
                                "runtime/core/portable_type/c10/c10/macros/Macros.h"};

// A directory shaped like a checkout (empty files), as far as `since_06` goes.
std::filesystem::path fake_checkout(const std::filesystem::path& dir, bool since_06) {
  auto touch = [&](const char* f) {
    std::filesystem::create_directories((dir / f).parent_path());
    test::write_bytes(dir / f, {});
  };
  for (const char* f : kAnyVersion) touch(f);
  if (since_06) {
    for (const char* f : kSince06) touch(f);
  }
  return dir;
}

size_t lines(const std::string& text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("build_official_runner.sh: usage errors exit 2 before building anything", "[cli][compare_official]") {
  const auto none = test::run_shell(script());
  CHECK(none.exit_code == 2);
  CHECK(none.err.find("EXECUTORCH_DIR and OUTDIR are required") != std::string::npos);
  CHECK(none.err.find("usage: build_official_runner.sh EXECUTORCH_DIR OUTDIR") != std::string::npos);

  // A directory without ExecuTorch's sources is named, with the file it
  // lacks, in one line, and OUTDIR is not created.
  const auto dir = test::scratch_dir();
  const auto out = dir / "out";
  const auto not_checkout = test::run_shell(script() + " " + test::shell_quote(dir) + " " + test::shell_quote(out));
  CHECK(not_checkout.exit_code == 2);
  CHECK(not_checkout.err.find(
            "is not an ExecuTorch checkout (no examples/portable/executor_runner/executor_runner.cpp)") !=
        std::string::npos);
  CHECK(lines(not_checkout.err) == 1);
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
  const auto checkout = fake_checkout(dir / "executorch", true);
  const auto flatcc = dir / "flatcc";
  std::filesystem::create_directories(flatcc / "bin");
  const auto not_flatcc = test::run_shell(script() + " " + test::shell_quote(checkout) + " " + test::shell_quote(out) +
                                          " --etdump " + test::shell_quote(flatcc));
  CHECK(not_flatcc.exit_code == 2);
  CHECK(not_flatcc.err.find("is not a built flatcc tree (no bin/flatcc)") != std::string::npos);
  CHECK(lines(not_flatcc.err) == 1);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("build_official_runner.sh: a missing EXECUTORCH_DIR, and one older than 0.6, in one line",
          "[cli][compare_official]") {
  const auto dir = test::scratch_dir();
  const auto out = dir / "out";
  const auto missing = test::run_shell(script() + " " + q(dir / "no-such-checkout") + " " + q(out));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("EXECUTORCH_DIR " + (dir / "no-such-checkout").string() + " is not a directory") !=
        std::string::npos);
  CHECK(lines(missing.err) == 1);

  // A file where the directory should be is no checkout either.
  test::write_bytes(dir / "a-file", {});
  const auto file = test::run_shell(script() + " " + q(dir / "a-file") + " " + q(out));
  CHECK(file.exit_code == 2);
  CHECK(file.err.find("is not a directory") != std::string::npos);

  // ExecuTorch before 0.6 (no FlatTensor schema, no c10 headers in the tree):
  // refused by name rather than left to fail in the compiler.
  const auto old = fake_checkout(dir / "executorch-0.5", false);
  const auto too_old = test::run_shell(script() + " " + q(old) + " " + q(out));
  CHECK(too_old.exit_code == 2);
  CHECK(too_old.err.find("is an ExecuTorch older than 0.6, which is not supported (no "
                         "extension/flat_tensor/serialize/flat_tensor.fbs)") != std::string::npos);
  CHECK(lines(too_old.err) == 1);
  // Half-way (the schema but not c10): the file still missing is named.
  std::filesystem::create_directories(old / "extension/flat_tensor/serialize");
  test::write_bytes(old / "extension/flat_tensor/serialize/flat_tensor.fbs", {});
  const auto no_c10 = test::run_shell(script() + " " + q(old) + " " + q(out));
  CHECK(no_c10.exit_code == 2);
  CHECK(no_c10.err.find("(no runtime/core/portable_type/c10/c10/macros/Macros.h)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

// Regression: the log of a failed configure went to /dev/null (the tail's
// stdout was sent where its stderr had just been sent), so the user saw the
// heading and nothing under it; and a build.log left by an earlier run would
// have been shown for a configure that failed this time.
TEST_CASE("build_official_runner.sh: a failed configure shows its own log's last lines", "[cli][compare_official]") {
  const auto dir = test::scratch_dir();
  // Checkout-shaped for the script, but the runtime's sources CMake compiles
  // are absent: the configure step fails, quickly, naming one.
  const auto checkout = fake_checkout(dir / "executorch", true);
  const auto out = dir / "out";
  std::filesystem::create_directories(out / "build");
  test::write_bytes(out / "build" / "build.log", {'s', 't', 'a', 'l', 'e', '\n'});
  const auto failed = test::run_shell(script() + " " + q(checkout) + " " + q(out));
  CHECK(failed.exit_code == 2);
  CHECK(failed.err.find("building executor_runner from " + checkout.string() + " failed; the last lines of " +
                        (out / "build" / "configure.log").string()) != std::string::npos);
  CHECK(failed.err.find("Cannot find source file") != std::string::npos);
  CHECK(failed.err.find("stale") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out / "executor_runner"));
}
