// What every tool gets from tools/common: --version, and the man pages and
// shell completions generated at build time from the tools' own options.
#include <fstream>
#include <sstream>

#include "tests/support/test_support.h"

using namespace etkit;

namespace {

const char* const kTools[] = {"et-run", "et-dump-decode", "et-record-inspect", "et-inspect", "et-compare", "et-graph", "et-fleet"};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every tool's --version prints its name and the CMake project version", "[cli][version]") {
  for (const char* tool : kTools) {
    INFO(tool);
    // Even where a file or a subcommand is required (et-run, et-compare).
    const auto r = test::run_tool(tool, "--version");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    const std::string expected = std::string(tool) + " " + ETKIT_PROJECT_VERSION;
    // "<tool> <version>", then " (git <describe>)" in a git checkout.
    CHECK(r.out.rfind(expected, 0) == 0);
    const std::string rest = r.out.substr(std::min(expected.size(), r.out.size()));
    CHECK((rest == "\n" || (rest.rfind(" (git ", 0) == 0 && rest.size() > 8 && rest.substr(rest.size() - 2) == ")\n")));
  }
}

TEST_CASE("the completion generator is hidden from --help and rejects shells it does not know", "[cli][completion]") {
  CHECK(test::run_tool("et-inspect", "--help").out.find("generate-completion") == std::string::npos);
  const auto fish = test::run_tool("et-inspect", "--generate-completion fish");
  CHECK(fish.exit_code == 2);
  CHECK(fish.out.empty());
  CHECK(fish.err == "et-inspect: error: --generate-completion: unknown shell 'fish' (supported: bash, zsh)\n");
  CHECK(test::run_tool("et-inspect", "--generate-completion").exit_code == 2);
}

TEST_CASE("the generated bash completion registers itself and completes options and their choices",
          "[cli][completion]") {
  const std::filesystem::path file = std::filesystem::path(ETKIT_COMPLETIONS_DIR) / "bash" / "et-inspect";
  const std::string script = read_text(file);
  CHECK(script.find("--etrecord") != std::string::npos);
  const std::string q = test::shell_quote(file);

  const auto reg = test::run_shell("bash -c 'source \"$0\"; complete -p et-inspect' " + q);
  CHECK(reg.exit_code == 0);
  CHECK(reg.out == "complete -o default -F _etkit_et_inspect et-inspect\n");

  // As bash calls it: the words so far and the index of the one being completed.
  auto complete = [&](const std::string& words) {
    return test::run_shell("bash -c 'source \"$0\"; COMP_WORDS=(" + words +
                           "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _etkit_et_inspect; "
                           "printf \"%s\\n\" \"${COMPREPLY[@]}\"' " + q);
  };
  CHECK(complete("et-inspect --etr").out == "--etrecord\n");
  // --format's IsMember check: table csv tsv json jsonl markdown chrome-trace.
  CHECK(complete("et-inspect --format js").out == "json\njsonl\n");
  // A file name after --etrecord: left to bash (-o default).
  CHECK(complete("et-inspect --etrecord \"\"").out == "\n");
}

TEST_CASE("the generated bash completion of et-compare follows its subcommands", "[cli][completion]") {
  const std::filesystem::path file = std::filesystem::path(ETKIT_COMPLETIONS_DIR) / "bash" / "et-compare";
  auto complete = [&](const std::string& words) {
    return test::run_shell("bash -c 'source \"$0\"; COMP_WORDS=(" + words +
                           "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _etkit_et_compare; "
                           "printf \"%s\\n\" \"${COMPREPLY[@]}\"' " + test::shell_quote(file));
  };
  CHECK(complete("et-compare pe").out == "perf\n");
  // --fail-if-slower belongs to perf only.
  CHECK(complete("et-compare perf --fail").out == "--fail-if-slower\n");
  CHECK(complete("et-compare outputs --fail").out == "\n");
}

TEST_CASE("the generated zsh completions are valid zsh with a #compdef line", "[cli][completion]") {
  for (const char* tool : kTools) {
    INFO(tool);
    const std::filesystem::path file = std::filesystem::path(ETKIT_COMPLETIONS_DIR) / "zsh" / (std::string("_") + tool);
    const std::string script = read_text(file);
    CHECK(script.rfind("#compdef " + std::string(tool) + "\n", 0) == 0);
    if (test::run_shell("command -v zsh").exit_code != 0) {
      WARN("skipped the zsh syntax check: zsh is not installed (scripts/setup.sh installs it)");
      continue;
    }
    const auto check = test::run_shell("zsh -n " + test::shell_quote(file));
    CHECK(check.exit_code == 0);
    CHECK(check.err.empty());
  }
  const std::string inspect = read_text(std::filesystem::path(ETKIT_COMPLETIONS_DIR) / "zsh" / "_et-inspect");
  CHECK(inspect.find("'--etrecord=[") != std::string::npos);
  CHECK(inspect.find(":value:(table csv tsv json jsonl markdown chrome-trace)'") != std::string::npos);
}

TEST_CASE("the man page of et-run names its options", "[cli][man]") {
#ifndef ETKIT_MAN_DIR
  WARN("skipped: help2man was not found at configure time, so no man pages were built");
#else
  const std::string page = read_text(std::filesystem::path(ETKIT_MAN_DIR) / "et-run.1");
  CHECK(page.find(".TH ET-RUN \"1\"") != std::string::npos);
  CHECK(has_line(page, "et-run \\- run ExecuTorch programs and bundled programs on the host"));
  // roff escapes each '-' of an option name as "\-".
  for (const char* option : {"\\-\\-method", "\\-\\-etdump", "\\-\\-verify", "\\-\\-version"}) {
    INFO(option);
    CHECK(page.find(option) != std::string::npos);
  }
#endif
}
