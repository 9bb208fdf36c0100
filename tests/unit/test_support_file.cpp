// OutputFile's text writes: the bytes of the text, exactly, under the final
// name only after commit.
#include <string>

#include "libcore/support/file.h"
#include "tests/support/test_support.h"

using namespace etkit;

TEST_CASE("write_text and write_text_file write the text's bytes atomically", "[support][file]") {
  const auto dir = test::scratch_dir();
  const std::string text("graph {\n}\n\0tail", 15);

  const auto path = dir / "out.dot";
  auto out = OutputFile::create(path.string());
  REQUIRE(out.ok());
  REQUIRE((*out)->write_text(text).ok());
  CHECK_FALSE(std::filesystem::exists(path));  // not before commit
  REQUIRE((*out)->commit().ok());
  CHECK(test::read_bytes(path) == std::vector<uint8_t>(text.begin(), text.end()));

  const auto whole = dir / "whole.txt";
  REQUIRE(write_text_file(whole.string(), text).ok());
  CHECK(test::read_bytes(whole) == std::vector<uint8_t>(text.begin(), text.end()));

  const auto missing = dir / "no-such-dir" / "x.txt";
  const auto failed = write_text_file(missing.string(), text);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().kind == ErrorKind::kIo);
  CHECK(failed.error().file == missing.string());
}
