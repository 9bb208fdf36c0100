#include "tools/common/tool_main.h"

#include <csignal>
#include <cstdio>
#include <iostream>

#include "tools/common/cli_conventions.h"

namespace etkit::tools {

void print_error(const std::string& tool, const Error& error) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", tool.c_str(), error.describe().c_str());
}

void print_warning(const std::string& tool, const std::string& message) {
  if (quiet_mode()) return;
  std::fprintf(stderr, "%s: warning: %s\n", tool.c_str(), message.c_str());
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<Result<int>()>& body) {
  // A closed pipe (e.g. `| head`) ends the tool quietly instead of killing it.
  std::signal(SIGPIPE, SIG_IGN);
  app.footer(kExitCodeHelp);
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
