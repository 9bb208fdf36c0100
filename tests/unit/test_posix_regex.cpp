// PosixRegex: POSIX extended syntax, searched anywhere, bounded by the view
// (not by a NUL), and a usage error naming a pattern that does not compile.
#include <string>

#include "libcore/support/posix_regex.h"
#include "tests/support/test_support.h"

using namespace etkit;

TEST_CASE("PosixRegex searches with POSIX extended syntax", "[support][regex]") {
  auto re = PosixRegex::compile("conv|^re(lu)+$");
  REQUIRE(re.ok());
  CHECK(re->search("native_call_convolution.out"));
  CHECK(re->search("relulu"));
  CHECK_FALSE(re->search("native_call_relu.out"));  // anchored alternative
  CHECK_FALSE(re->search(""));
  // The view's length counts, not a NUL inside it or the bytes after it.
  const std::string with_nul("ab\0conv", 7);
  CHECK(re->search(with_nul));
  CHECK_FALSE(re->search(std::string_view(with_nul).substr(0, 5)));
  // A 1 MB text after the match and before it.
  CHECK(re->search("conv" + std::string(1 << 20, 'x')));
  CHECK(re->search(std::string(1 << 20, 'x') + "conv"));
}

TEST_CASE("PosixRegex rejects a pattern that does not compile", "[support][regex]") {
  const auto re = PosixRegex::compile("(");
  REQUIRE_FALSE(re.ok());
  CHECK(re.error().kind == ErrorKind::kUsage);
  CHECK(re.error().message.rfind("invalid regular expression '(': ", 0) == 0);
  CHECK(re.error().message.size() > std::string("invalid regular expression '(': ").size());
}
