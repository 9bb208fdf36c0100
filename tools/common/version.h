// What `--version` prints: "<tool> <project version>", plus the commit
// (`git describe --always --dirty`) when built from a git checkout.
#pragma once

#include <string>

namespace etkit::tools {

std::string version_line(const std::string& tool);

}  // namespace etkit::tools
