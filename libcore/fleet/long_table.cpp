#include "libcore/fleet/long_table.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "libcore/support/json_writer.h"

namespace etkit::fleet {
namespace {

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char tmp[64];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  return std::string(tmp, r.ptr);
}

void csv_field(std::string& out, std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

const char* const kFixedBefore[] = {"format", "unit", "run_id", "file"};
const char* const kFixedAfter[] = {"program", "block_index", "block", "sample", "event_index", "event_name",
                                   "instruction_id", "chain_index", "delegate_debug_identifier", "debug_handles",
                                   "op_type", "module", "counted", "duration"};

}  // namespace

TextTableWriter::TextTableWriter(Kind kind, std::FILE* out, const InputSet& inputs, inspect::TimeScale unit)
    : kind_(kind), out_(out), inputs_(inputs), unit_(inspect::time_scale_name(unit)) {
  if (kind == Kind::kJsonl) json_ = std::make_unique<JsonWriter>(out, false);
}

TextTableWriter::~TextTableWriter() = default;

Status TextTableWriter::flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()) {
    const bool pipe = errno == EPIPE;
    buffer_.clear();
    return Error{pipe ? ErrorKind::kBrokenPipe : ErrorKind::kIo, {}, {}, "cannot write the table"};
  }
  buffer_.clear();
  return {};
}

Status TextTableWriter::begin() {
  if (kind_ != Kind::kCsv) return {};
  bool first = true;
  auto column = [&](std::string_view name) {
    if (!first) buffer_ += ',';
    first = false;
    csv_field(buffer_, name);
  };
  for (const char* c : kFixedBefore) column(c);
  for (const auto& label : inputs_.label_names) column(label);
  for (const char* c : kFixedAfter) column(c);
  buffer_ += '\n';
  return flush();
}

Status TextTableWriter::write(const FleetRun& run) {
  const std::string run_id = std::to_string(run.input_index + 1);
  for (const FleetEvent& event : run.events) {
    const std::string& block = run.block_names[event.block_index];
    for (size_t s = 0; s < event.samples.size(); ++s) {
      if (kind_ == Kind::kCsv) {
        std::string& o = buffer_;
        o += kEventsFormat;
        o += ',' + unit_ + ',' + run_id + ',';
        csv_field(o, run.file);
        for (const auto& label : run.labels) {
          o += ',';
          csv_field(o, label);
        }
        o += ',' + run.program + ',' + std::to_string(event.block_index) + ',';
        csv_field(o, block);
        o += ',' + std::to_string(s) + ',' + std::to_string(event.event_index) + ',';
        csv_field(o, event.name);
        o += ',' + std::to_string(event.instruction_id) + ',' + std::to_string(event.chain_index) + ',';
        csv_field(o, event.delegate_debug_identifier);
        o += ',';
        csv_field(o, event.debug_handles);
        o += ',';
        csv_field(o, event.op_type);
        o += ',';
        csv_field(o, event.module);
        o += event.counted ? ",true," : ",false,";
        o += number_text(event.samples[s]);
        o += '\n';
      } else {
        JsonWriter& w = *json_;
        w.begin_object();
        w.key("format"), w.string(kEventsFormat);
        w.key("unit"), w.string(unit_);
        w.key("run_id"), w.number(run.input_index + 1);
        w.key("file"), w.string(run.file);
        w.key("labels"), w.begin_object();
        for (size_t l = 0; l < inputs_.label_names.size(); ++l) {
          w.key(inputs_.label_names[l]), w.string(run.labels[l]);
        }
        w.end_object();
        w.key("program"), w.string(run.program);
        w.key("block_index"), w.number(event.block_index);
        w.key("block"), w.string(block);
        w.key("sample"), w.number(s);
        w.key("event_index"), w.number(event.event_index);
        w.key("event_name"), w.string(event.name);
        w.key("instruction_id"), w.number(event.instruction_id);
        w.key("chain_index"), w.number(event.chain_index);
        w.key("delegate_debug_identifier");
        if (event.delegate_debug_identifier.empty()) w.null();
        else w.string(event.delegate_debug_identifier);
        w.key("debug_handles");
        if (event.debug_handles.empty()) w.null();
        else w.string(event.debug_handles);
        w.key("op_type"), w.string(event.op_type);
        w.key("module");
        if (event.module.empty()) w.null();
        else w.string(event.module);
        w.key("counted"), w.boolean(event.counted);
        w.key("duration"), w.number(event.samples[s]);
        w.end_object();
        w.newline();
      }
    }
    if (buffer_.size() > (1u << 20)) ETKIT_TRY(flush());
  }
  if (json_) {
    json_->flush();
    if (json_->failed()) {
      return Error{json_->broken_pipe() ? ErrorKind::kBrokenPipe : ErrorKind::kIo, {}, {}, "cannot write the table"};
    }
  }
  return flush();
}

// --- SQLite ------------------------------------------------------------------

struct SqliteTableWriter::Impl {
  std::string path, temp_path;
  sqlite3* db = nullptr;
  sqlite3_stmt* insert_run = nullptr;
  sqlite3_stmt* insert_event = nullptr;
  size_t label_count = 0;
  bool committed = false;

  Error error(const std::string& what) const {
    return Error{ErrorKind::kIo, path, {}, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory")};
  }
  Status exec(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      std::string text = message ? message : "sqlite error";
      sqlite3_free(message);
      return Error{ErrorKind::kIo, path, {}, "sqlite: " + text};
    }
    return {};
  }
  void close() {
    sqlite3_finalize(insert_run);
    sqlite3_finalize(insert_event);
    insert_run = insert_event = nullptr;
    if (db) sqlite3_close(db);
    db = nullptr;
  }
  ~Impl() {
    close();
    if (!committed && !temp_path.empty()) ::unlink(temp_path.c_str());
  }
};

namespace {

std::string quote_identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string quote_literal(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + '\'';
}

void bind_text(sqlite3_stmt* st, int index, const std::string& text, bool null_if_empty = false) {
  if (null_if_empty && text.empty()) sqlite3_bind_null(st, index);
  else sqlite3_bind_text(st, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

}  // namespace

Result<std::unique_ptr<SqliteTableWriter>> SqliteTableWriter::create(const std::string& path, const InputSet& inputs,
                                                                     inspect::TimeScale source,
                                                                     inspect::TimeScale unit) {
  std::unique_ptr<SqliteTableWriter> writer(new SqliteTableWriter());
  writer->impl_ = std::make_unique<Impl>();
  Impl& d = *writer->impl_;
  d.path = path;
  d.label_count = inputs.label_names.size();
  if (path == "-") return Error{ErrorKind::kUsage, {}, {}, "--format sqlite needs -o FILE (a database is not a stream)"};
  std::string pattern = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) return io_error(path, std::string("cannot create a temporary file beside it: ") + std::strerror(errno));
  // mkstemp creates 0600; the database gets the permissions any new file would.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  d.temp_path = pattern;
  if (sqlite3_open_v2(d.temp_path.c_str(), &d.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    return d.error("cannot open the database");
  }
  // A fresh temporary file that only appears on success needs no journal.
  ETKIT_TRY(d.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;"));
  ETKIT_TRY(d.exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"));
  ETKIT_TRY(d.exec("INSERT INTO meta VALUES ('format', " + quote_literal(kDatabaseFormat) + "), ('unit', " +
                   quote_literal(inspect::time_scale_name(unit)) + "), ('source_time_scale', " +
                   quote_literal(inspect::time_scale_name(source)) + ");"));
  std::string runs = "CREATE TABLE runs(run_id INTEGER PRIMARY KEY, file TEXT NOT NULL, program TEXT NOT NULL";
  std::string insert = "INSERT INTO runs VALUES (?, ?, ?";
  for (const auto& label : inputs.label_names) {
    runs += ", " + quote_identifier(label) + " TEXT";
    insert += ", ?";
  }
  ETKIT_TRY(d.exec(runs + ");"));
  ETKIT_TRY(d.exec(
      "CREATE TABLE events(run_id INTEGER NOT NULL REFERENCES runs(run_id), block_index INTEGER NOT NULL, "
      "block TEXT NOT NULL, sample INTEGER NOT NULL, event_index INTEGER NOT NULL, event_name TEXT NOT NULL, "
      "instruction_id INTEGER NOT NULL, chain_index INTEGER NOT NULL, delegate_debug_identifier TEXT, "
      "debug_handles TEXT, op_type TEXT NOT NULL, module TEXT, counted INTEGER NOT NULL, duration REAL NOT NULL);"));
  if (sqlite3_prepare_v2(d.db, (insert + ");").c_str(), -1, &d.insert_run, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(d.db, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?);", -1, &d.insert_event,
                         nullptr) != SQLITE_OK) {
    return d.error("cannot prepare the inserts");
  }
  // Indexes are built in commit(), after the rows: cheaper than maintaining them.
  return writer;
}

SqliteTableWriter::~SqliteTableWriter() = default;

Status SqliteTableWriter::write(const FleetRun& run) {
  Impl& d = *impl_;
  const auto run_id = static_cast<sqlite3_int64>(run.input_index + 1);
  sqlite3_stmt* r = d.insert_run;
  sqlite3_bind_int64(r, 1, run_id);
  bind_text(r, 2, run.file);
  bind_text(r, 3, run.program);
  for (size_t l = 0; l < d.label_count; ++l) bind_text(r, static_cast<int>(4 + l), run.labels[l]);
  if (sqlite3_step(r) != SQLITE_DONE) return d.error("cannot insert run " + run.file);
  sqlite3_reset(r);
  sqlite3_stmt* e = d.insert_event;
  for (const FleetEvent& event : run.events) {
    for (size_t s = 0; s < event.samples.size(); ++s) {
      sqlite3_bind_int64(e, 1, run_id);
      sqlite3_bind_int64(e, 2, event.block_index);
      bind_text(e, 3, run.block_names[event.block_index]);
      sqlite3_bind_int64(e, 4, static_cast<sqlite3_int64>(s));
      sqlite3_bind_int64(e, 5, event.event_index);
      bind_text(e, 6, event.name);
      sqlite3_bind_int64(e, 7, event.instruction_id);
      sqlite3_bind_int64(e, 8, event.chain_index);
      bind_text(e, 9, event.delegate_debug_identifier, true);
      bind_text(e, 10, event.debug_handles, true);
      bind_text(e, 11, event.op_type);
      bind_text(e, 12, event.module, true);
      sqlite3_bind_int(e, 13, event.counted ? 1 : 0);
      sqlite3_bind_double(e, 14, event.samples[s]);
      if (sqlite3_step(e) != SQLITE_DONE) return d.error("cannot insert an event of " + run.file);
      sqlite3_reset(e);
    }
  }
  return {};
}

Status SqliteTableWriter::commit() {
  Impl& d = *impl_;
  ETKIT_TRY(d.exec("CREATE INDEX events_run ON events(run_id);"));
  ETKIT_TRY(d.exec("CREATE INDEX events_op_type ON events(op_type);"));
  ETKIT_TRY(d.exec("CREATE INDEX runs_program ON runs(program);"));
  // runs' columns after run_id, file, program are the labels, in order.
  sqlite3_stmt* info = nullptr;
  std::vector<std::string> labels;
  if (sqlite3_prepare_v2(d.db, "SELECT name FROM pragma_table_info('runs') WHERE cid >= 3 ORDER BY cid;", -1, &info,
                         nullptr) != SQLITE_OK) {
    return d.error("cannot list the label columns");
  }
  while (sqlite3_step(info) == SQLITE_ROW) labels.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(info, 0)));
  sqlite3_finalize(info);
  for (size_t l = 0; l < labels.size(); ++l) {
    ETKIT_TRY(d.exec("CREATE INDEX runs_label_" + std::to_string(l) + " ON runs(" + quote_identifier(labels[l]) + ");"));
  }
  ETKIT_TRY(d.exec("COMMIT;"));
  d.close();
  if (std::rename(d.temp_path.c_str(), d.path.c_str()) != 0) {
    return io_error(d.path, std::string("cannot rename the temporary database into place: ") + std::strerror(errno));
  }
  d.committed = true;
  return {};
}

}  // namespace etkit::fleet
