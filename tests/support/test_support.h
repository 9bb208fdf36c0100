// Shared test helpers: where the read-only fixtures are, running the built
// tools, and scratch files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

namespace etkit::test {

// ../shared/fixtures beside the checkout; empty when absent (a fresh clone).
std::filesystem::path fixtures_dir();
std::filesystem::path fixture(const std::string& relative);
std::vector<uint8_t> read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes);

// A fresh directory under the build's temp area, removed at exit.
std::filesystem::path scratch_dir();

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// `path` as one shell word: 'single-quoted', with its own ' as '\''.
std::string shell_quote(const std::filesystem::path& path);
// Runs `tool` (a binary in the build's tools dir) with a shell-quoted
// argument string; stdin from `stdin_path` when non-empty.
CommandResult run_tool(const std::string& tool, const std::string& args, const std::string& stdin_path = "");
// Runs a shell command line as is.
CommandResult run_shell(const std::string& command);

// How many of `got` differ from a double-precision reference by more than
// float rounding explains: `rel` times the summed magnitudes of the terms
// behind each value (the scale of rounding in a dot product, whatever the
// summation order), plus `abs`. Sizes must match (checked). A NaN in got
// or ref counts as outside.
size_t count_outside_rounding(const std::vector<float>& got, const std::vector<double>& ref,
                              const std::vector<double>& magnitude, double rel = 1e-5, double abs = 1e-7);

// `n` floats uniform in [-1, 1), the same for the same seed.
std::vector<float> random_floats(size_t n, uint32_t seed);

}  // namespace etkit::test

// Catch2 v2 has no SKIP: tests needing ../shared/fixtures warn and return.
#define ETKIT_REQUIRE_FIXTURES()                                                          \
  do {                                                                                   \
    if (etkit::test::fixtures_dir().empty()) {                                           \
      WARN("skipped: ../shared/fixtures is absent (tests on real ExecuTorch files need it)"); \
      return;                                                                            \
    }                                                                                    \
  } while (0)
