// Shell completion scripts generated from a tool's own CLI11 definition (its
// options, their value choices and its subcommands), so they cannot drift
// from the code. `<tool> --generate-completion bash|zsh` prints them; the
// build saves them for installation.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

#include "libcore/support/result.h"

namespace etkit::tools {

// bash: a function registered with `complete -o default -F`, so file names
// are completed wherever no option or choice applies. zsh: an autoloadable
// `#compdef` file for an fpath directory. Any other shell is a usage error.
Result<std::string> completion_script(const CLI::App& app, std::string_view shell);

}  // namespace etkit::tools
