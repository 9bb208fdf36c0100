// JSON and JSON Lines forms of et-inspect's views (docs/tools/et-inspect.md
// describes the keys): stable key order, a "format": "etkit.inspect/1" key,
// unrounded numbers (shortest round-trip), NaN as null.
#pragma once

#include <cstdio>
#include <optional>
#include <span>

#include "libcore/inspect/event_table.h"

namespace etkit::inspect {

struct JsonOptions {
  bool lines = false;   // JSON Lines: one object per event or row, no envelope
  bool pretty = false;  // indent (ignored for JSON Lines)
  std::optional<ByteSpan> debug_buffer;  // adds a "summary" to logged tensors
  size_t max_values = 4;
};

// The events of `rows`, grouped by block (every field of the Inspector's
// Event, perf_data with its raw samples). Errors: kIo, or kBrokenPipe when
// the reader went away.
Status write_events_json(const Inspection& inspection, std::span<const TableRow> rows, std::FILE* out,
                         const JsonOptions& options);

// Any frame (the op-type view) as rows of {column: value}.
Status write_frame_json(const Inspection& inspection, const Frame& frame, std::FILE* out, const JsonOptions& options);

}  // namespace etkit::inspect
