#include "libcore/render/graphviz.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

extern char** environ;

namespace etkit::render {

namespace {

// A private temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "etkit-dot-XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

Result<std::vector<uint8_t>> render_dot(std::string_view dot, std::string_view format) {
  TempDir dir;
  if (dir.path().empty()) return io_error(std::filesystem::temp_directory_path().string(), std::strerror(errno));
  const auto input = dir.path() / "graph.dot";
  const auto output = dir.path() / "graph.out";
  const auto log = dir.path() / "dot.log";
  {
    std::ofstream out(input, std::ios::binary);
    out.write(dot.data(), static_cast<std::streamsize>(dot.size()));
    if (!out) return io_error(input.string(), "cannot write the DOT text");
  }

  std::string type = "-T" + std::string(format);
  std::string input_arg = input.string(), output_arg = "-o" + output.string();
  char program[] = "dot";
  char* argv[] = {program, type.data(), output_arg.data(), input_arg.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == ENOENT) {
    return unsupported("graphviz 'dot' is not installed (install the graphviz package, or write DOT)");
  }
  if (spawned != 0) return Error{ErrorKind::kIo, "dot", {}, std::string("cannot start: ") + std::strerror(spawned)};
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Error{ErrorKind::kIo, "dot", {}, std::strerror(errno)};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message = read_text(log);
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
    if (const auto nl = message.find('\n'); nl != std::string::npos) message.resize(nl);
    return bad_input("graphviz 'dot -T" + std::string(format) + "' failed" + (message.empty() ? "" : ": " + message));
  }
  const std::string bytes = read_text(output);
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace etkit::render
