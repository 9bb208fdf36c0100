#include "tools/common/version.h"

// Generated at every build (cmake/WriteVersionHeader.cmake); only this file
// includes it, so a new commit recompiles one file and relinks the tools.
#include "etkit_version.h"

namespace etkit::tools {

std::string version_line(const std::string& tool) {
  std::string line = tool + " " + ETKIT_VERSION;
  const std::string describe = ETKIT_GIT_DESCRIBE;
  if (!describe.empty()) line += " (git " + describe + ")";
  return line;
}

}  // namespace etkit::tools
