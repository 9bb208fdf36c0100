#include "tests/support/test_support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

namespace etkit::test {

std::filesystem::path fixtures_dir() {
  std::filesystem::path dir(ETKIT_FIXTURES_DIR);
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  return std::filesystem::weakly_canonical(dir);
}

std::filesystem::path fixture(const std::string& relative) { return fixtures_dir() / relative; }

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

namespace {
struct ScratchRoot {
  std::filesystem::path path;
  ScratchRoot() {
    path = std::filesystem::temp_directory_path() / ("etkit-tests-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~ScratchRoot() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};
}  // namespace

std::filesystem::path scratch_dir() {
  static ScratchRoot root;
  static std::atomic<int> counter{0};
  auto dir = root.path / std::to_string(counter++);
  std::filesystem::create_directories(dir);
  return dir;
}

static std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CommandResult run_shell(const std::string& command) {
  const auto dir = scratch_dir();
  const auto out = dir / "stdout", err = dir / "stderr";
  const std::string full = command + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string shell_quote(const std::filesystem::path& path) {
  std::string quoted = "'";
  for (char c : path.string()) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  quoted += '\'';
  return quoted;
}

CommandResult run_tool(const std::string& tool, const std::string& args, const std::string& stdin_path) {
  std::string command = std::string(ETKIT_TOOLS_DIR) + "/" + tool + " " + args;
  if (!stdin_path.empty()) command += " <" + stdin_path;
  return run_shell(command);
}

size_t count_outside_rounding(const std::vector<float>& got, const std::vector<double>& ref,
                              const std::vector<double>& magnitude, double rel, double abs) {
  REQUIRE(got.size() == ref.size());
  REQUIRE(magnitude.size() == ref.size());
  size_t outside = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    // Written so that a NaN (a read outside the input, say) counts.
    if (!(std::fabs(double(got[i]) - ref[i]) <= rel * magnitude[i] + abs)) ++outside;
  }
  return outside;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace etkit::test
