// The one exit-code table shared by every etkit tool (shown in each --help).
#pragma once

#include "libcore/support/result.h"

namespace etkit::tools {

enum ExitCode : int {
  kExitOk = 0,            // success
  kExitCheckFailed = 1,   // a check failed: bundled mismatch, threshold, perf gate
  kExitBadInput = 2,      // bad input or usage: unreadable, malformed or unsupported file, bad flag
  kExitRuntimeError = 3,  // runtime failure inside a kernel
};

inline constexpr const char* kExitCodeHelp =
    "Exit codes:\n"
    "  0  success\n"
    "  1  a check failed (bundled output mismatch, threshold, performance gate)\n"
    "  2  bad input or usage (unreadable, malformed or unsupported file, bad flag)\n"
    "  3  runtime failure inside a kernel\n";

inline int exit_code_for(const Error& error) {
  return error.kind == ErrorKind::kRuntime ? kExitRuntimeError : kExitBadInput;
}

}  // namespace etkit::tools
