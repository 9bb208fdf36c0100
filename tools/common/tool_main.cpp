#include "tools/common/tool_main.h"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <string_view>

#include "tools/common/completion.h"
#include "tools/common/version.h"

#include "tools/common/cli_conventions.h"

namespace etkit::tools {
namespace {

// Messages quote names and text from untrusted files: control characters
// are escaped so the diagnostic stays one line (UTF-8 passes through).
std::string one_line(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void print_error(const std::string& tool, const Error& error) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", tool.c_str(), one_line(error.describe()).c_str());
}

void print_warning(const std::string& tool, const std::string& message) {
  if (quiet_mode()) return;
  std::fprintf(stderr, "%s: warning: %s\n", tool.c_str(), message.c_str());
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<Result<int>()>& body) {
  // A closed pipe (e.g. `| head`) ends the tool quietly instead of killing it.
  std::signal(SIGPIPE, SIG_IGN);
  app.footer(kExitCodeHelp);
  app.set_version_flag("--version", version_line(app.get_name()));
  // Hidden, and handled before parsing so that required arguments and
  // subcommands do not stand in the way: the build runs it for the
  // installed completions.
  if (argc >= 2 && std::string_view(argv[1]) == "--generate-completion") {
    Result<std::string> script =
        argc == 3 ? completion_script(app, argv[2])
                  : Result<std::string>(Error{ErrorKind::kUsage, {}, {}, "usage: --generate-completion bash|zsh"});
    if (!script) {
      print_error(app.get_name(), script.error());
      return exit_code_for(script.error());
    }
    std::fwrite(script->data(), 1, script->size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, as for every other error (docs/exit-codes.md).
    std::string message = e.what();
    for (char& c : message) c = c == '\n' ? ' ' : c;
    std::fprintf(stderr, "%s: error: %s\n", app.get_name().c_str(), message.c_str());
    return kExitBadInput;
  }
  Result<int> result = body();
  // A reader that stopped early (`| head`) is not an error: end quietly.
  if (!result && result.error().kind == ErrorKind::kBrokenPipe) return kExitOk;
  if (!result) {
    print_error(app.get_name(), result.error());
    return exit_code_for(result.error());
  }
  return *result;
}

}  // namespace etkit::tools
