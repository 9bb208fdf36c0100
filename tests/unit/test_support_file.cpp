// OutputFile's text writes: the bytes of the text, exactly, under the final
// name only after commit.
#include <filesystem>
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

TEST_CASE("write_files writes a directory of outputs all or none", "[support][file][hostile]") {
  const auto dir = test::scratch_dir();
  const std::vector<NamedBytes> good = {{"output-0.npy", {1, 2, 3}}, {"output-1.json", {'{', '}'}}};
  SECTION("a new directory appears only with every file in it") {
    const auto target = dir / "outs";
    REQUIRE(write_files(target.string(), good).ok());
    CHECK(test::read_bytes(target / "output-0.npy") == std::vector<uint8_t>{1, 2, 3});
    CHECK(test::read_bytes(target / "output-1.json") == std::vector<uint8_t>{'{', '}'});
    // A failure on the second file leaves no directory and no temporary one.
    const auto failed_target = dir / "failed";
    const std::vector<NamedBytes> bad = {{"output-0.npy", {1}}, {"../escape", {2}}};
    REQUIRE_FALSE(write_files(failed_target.string(), bad).ok());
    CHECK_FALSE(std::filesystem::exists(failed_target));
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
    CHECK(entries == 1);  // only "outs"
    CHECK_FALSE(std::filesystem::exists(dir / "escape"));
  }
  SECTION("into an existing directory, nothing is renamed into place unless all were written") {
    const auto target = dir / "existing";
    std::filesystem::create_directory(target);
    const std::vector<NamedBytes> bad = {{"output-0.npy", {1}}, {"", {2}}};
    REQUIRE_FALSE(write_files(target.string(), bad).ok());
    CHECK(std::filesystem::is_empty(target));
  }
  SECTION("'-' and a file in the way are refused") {
    CHECK(write_files("-", good).error().kind == ErrorKind::kUsage);
    const auto file = dir / "plain";
    REQUIRE(write_text_file(file.string(), "x").ok());
    CHECK(write_files(file.string(), good).error().message == "exists and is not a directory");
  }
}

TEST_CASE("a commit whose rename fails names the file and leaves no temporary behind", "[support][file][hostile]") {
  const auto dir = test::scratch_dir();
  const auto path = dir / "out.json";
  auto out = OutputFile::create(path.string());
  REQUIRE(out.ok());
  REQUIRE((*out)->write_text("{}").ok());
  // Something else puts a non-empty directory at the name before the commit:
  // rename(2) cannot replace it (EISDIR).
  std::filesystem::create_directories(path / "held");
  const Status committed = (*out)->commit();
  REQUIRE_FALSE(committed.ok());
  CHECK(committed.error().kind == ErrorKind::kIo);
  CHECK(committed.error().file == path.string());
  CHECK(committed.error().message.rfind("cannot rename into place: ", 0) == 0);
  CHECK(std::filesystem::is_directory(path / "held"));  // untouched
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  CHECK(entries == 1);  // only the directory: the temporary file is gone
}
