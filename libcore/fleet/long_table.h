// The long table of `et-fleet collect`: one row per (run, event, sample), as
// JSON Lines, CSV (docs/json.md, etkit.fleet-events/1) or a SQLite database
// with a runs table (labels as columns, indexed) and an events table.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "libcore/fleet/collect.h"

namespace etkit {
class JsonWriter;
}

namespace etkit::fleet {

inline constexpr std::string_view kEventsFormat = "etkit.fleet-events/1";
inline constexpr std::string_view kDatabaseFormat = "etkit.fleet-db/1";

// Writes runs to a stream in one of the text forms; the CSV header goes out
// with the first call to begin().
class TextTableWriter {
 public:
  enum class Kind { kJsonl, kCsv };
  TextTableWriter(Kind kind, std::FILE* out, const InputSet& inputs, inspect::TimeScale unit);
  ~TextTableWriter();
  Status begin();
  Status write(const FleetRun& run);

 private:
  Kind kind_;
  std::FILE* out_;
  const InputSet& inputs_;
  std::string unit_;
  std::string buffer_;                // CSV
  std::unique_ptr<JsonWriter> json_;  // JSON Lines
  Status flush();
};

// A SQLite database built in a temporary file beside `path` and renamed onto
// it by commit(); destroyed without commit, nothing is left behind.
class SqliteTableWriter {
 public:
  static Result<std::unique_ptr<SqliteTableWriter>> create(const std::string& path, const InputSet& inputs,
                                                           inspect::TimeScale source, inspect::TimeScale unit);
  ~SqliteTableWriter();
  SqliteTableWriter(const SqliteTableWriter&) = delete;
  SqliteTableWriter& operator=(const SqliteTableWriter&) = delete;
  Status write(const FleetRun& run);
  Status commit();

 private:
  SqliteTableWriter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace etkit::fleet
