// A compiled POSIX extended regular expression (regcomp/regexec) that frees
// itself. Used instead of std::regex, whose libstdc++ matcher recurses once
// per input character and overflows the stack on long inputs; glibc's
// matcher does not.
#pragma once

#include <regex.h>

#include <memory>
#include <string>
#include <string_view>

#include "libcore/support/result.h"

namespace etkit {

class PosixRegex {
 public:
  // A usage error naming the pattern and regerror's reason when it does not compile.
  static Result<PosixRegex> compile(const std::string& pattern);

  // Whether the expression matches somewhere in `text` (embedded NULs included).
  bool search(std::string_view text) const;

 private:
  struct Free {
    void operator()(regex_t* re) const;
  };
  // On the heap: POSIX does not promise that a regex_t may be copied bytewise.
  std::unique_ptr<regex_t, Free> regex_;
};

}  // namespace etkit
