// Chrome trace from the Inspector's event blocks: one process per block, one
// track per folded run ("run 0", ...) with the runtime's nested events, and
// per run a "run N delegate" track for events a backend logged (their clock
// may differ, and they may not nest). Each sample becomes a slice at its raw
// start tick; its length in ticks is the Inspector's duration times the
// time-scale factor (exact for the runtime's integer ticks, rounded for
// delegate events, which the Inspector scales before subtracting).
#pragma once

#include "libcore/inspect/event_blocks.h"
#include "libcore/render/chrome_trace.h"

namespace etkit::render {

Result<TraceInput> trace_from_inspection(const inspect::Inspection& inspection);

}  // namespace etkit::render
