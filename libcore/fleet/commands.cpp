#include "libcore/fleet/commands.h"

#include <cstdio>

#include "libcore/fleet/long_table.h"
#include "libcore/support/file.h"

namespace etkit::fleet {
namespace {

// Every input was skipped: an empty table would read as "nothing ran".
Error no_runs() { return Error{ErrorKind::kBadInput, {}, {}, "no input could be read"}; }

}  // namespace

Result<TableFormat> parse_table_format(std::string_view name) {
  if (name == "jsonl") return TableFormat::kJsonl;
  if (name == "csv") return TableFormat::kCsv;
  if (name == "sqlite") return TableFormat::kSqlite;
  return Error{ErrorKind::kUsage, {}, {}, "unknown format '" + std::string(name) + "' (jsonl, csv, sqlite)"};
}

Result<size_t> write_long_table(const InputSet& inputs, const CollectOptions& options, TableFormat format,
                                const std::string& output, const WarningSink& warn) {
  if (format == TableFormat::kSqlite) {
    ETKIT_ASSIGN_OR_RETURN(auto db, SqliteTableWriter::create(output, inputs, options.source_time_scale,
                                                              options.target_time_scale));
    ETKIT_ASSIGN_OR_RETURN(size_t runs, collect(inputs, options, [&](const FleetRun& run) { return db->write(run); }, warn));
    if (runs == 0) return no_runs();
    ETKIT_TRY(db->commit());
    return runs;
  }
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(output));
  TextTableWriter writer(format == TableFormat::kCsv ? TextTableWriter::Kind::kCsv : TextTableWriter::Kind::kJsonl,
                         out->stream(), inputs, options.target_time_scale);
  ETKIT_TRY(writer.begin());
  ETKIT_ASSIGN_OR_RETURN(size_t runs, collect(inputs, options, [&](const FleetRun& run) { return writer.write(run); }, warn));
  if (runs == 0) return no_runs();
  ETKIT_TRY(out->commit());
  return runs;
}

Result<std::vector<RunOps>> collect_run_ops(const InputSet& inputs, const CollectOptions& options,
                                            const WarningSink& warn) {
  std::vector<RunOps> runs;
  auto keep = [&](const FleetRun& run) -> Status {
    runs.push_back(run_ops(run));
    return {};
  };
  ETKIT_ASSIGN_OR_RETURN(size_t count, collect(inputs, options, keep, warn));
  (void)count;
  return runs;
}

}  // namespace etkit::fleet
