// The boundary between libcore and the terminal: runs a tool body, turns a
// CLI11 parse error or an Error into one line on stderr
//   <tool>: error: <file>: <field>: <message>
// and the exit code from exit_codes.h. Nothing else in etkit prints
// diagnostics.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "libcore/support/result.h"
#include "tools/common/exit_codes.h"

namespace etkit::tools {

// Parses argv with `app`, then runs `body`. `body` returns an exit code or an
// Error. Every tool gets `--version` (version.h) and the hidden
// `--generate-completion bash|zsh` (completion.h) here.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<Result<int>()>& body);

void print_error(const std::string& tool, const Error& error);
void print_warning(const std::string& tool, const std::string& message);

}  // namespace etkit::tools
