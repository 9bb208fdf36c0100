// et-fleet's subcommands as library calls: the tool parses options, calls
// one of these and turns the result into output and an exit code.
#pragma once

#include <string>
#include <vector>

#include "libcore/fleet/collect.h"
#include "libcore/fleet/run_ops.h"

namespace etkit::fleet {

enum class TableFormat { kJsonl, kCsv, kSqlite };
Result<TableFormat> parse_table_format(std::string_view name);  // "jsonl", "csv", "sqlite"

// Streams the long table of every readable input to `output` ("-" is
// standard output, except for sqlite), atomically: on an error nothing
// appears, nor when every input was skipped (then the error is "no input
// could be read"). Returns the number of runs written.
Result<size_t> write_long_table(const InputSet& inputs, const CollectOptions& options, TableFormat format,
                                const std::string& output, const WarningSink& warn);

// Every readable input reduced to its per-op times, in input order.
Result<std::vector<RunOps>> collect_run_ops(const InputSet& inputs, const CollectOptions& options,
                                            const WarningSink& warn);

}  // namespace etkit::fleet
