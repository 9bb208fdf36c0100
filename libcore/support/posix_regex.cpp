#include "libcore/support/posix_regex.h"

#include <algorithm>
#include <limits>

namespace etkit {

void PosixRegex::Free::operator()(regex_t* re) const {
  regfree(re);
  delete re;
}

Result<PosixRegex> PosixRegex::compile(const std::string& pattern) {
  auto re = std::make_unique<regex_t>();
  if (const int code = regcomp(re.get(), pattern.c_str(), REG_EXTENDED | REG_NOSUB); code != 0) {
    char reason[256];
    regerror(code, re.get(), reason, sizeof reason);
    return Error{ErrorKind::kUsage, {}, {}, "invalid regular expression '" + pattern + "': " + reason};
  }
  PosixRegex out;
  out.regex_.reset(re.release());
  return out;
}

bool PosixRegex::search(std::string_view text) const {
  // REG_STARTEND bounds the match by the view instead of a terminating NUL.
  // regoff_t is an int: longer texts (not in a < 2 GiB FlatBuffer) are cut.
  const size_t size = std::min<size_t>(text.size(), std::numeric_limits<regoff_t>::max());
  regmatch_t range{0, static_cast<regoff_t>(size)};
  return regexec(regex_.get(), text.empty() ? "" : text.data(), 1, &range, REG_STARTEND) == 0;
}

}  // namespace etkit
