// "Top by time" per op type, as TFLite's benchmark_model prints its
// "Summary by node type": per block, the events of each op type with their
// count, total and average time, share of the block and cumulative share.
// An etkit view; the Python Inspector has none.
#pragma once

#include <span>
#include <string>

#include "libcore/inspect/event_table.h"

namespace etkit::inspect {

// The op type an event is counted under: its ETRecord op_types (distinct,
// joined with " + ") when linked; otherwise the kernel name without the
// runtime's "native_call_" prefix (native_call_convolution.out ->
// convolution.out), and for delegated events the delegate's name without
// its "#<n>" instance number ("Convolution (NHWC, F32) IGEMM #3" ->
// "Convolution (NHWC, F32) IGEMM").
std::string op_type_of(const Event& event);

// Whether an event's time counts in the summary: not OPERATOR_CALL (the
// kernel plus call overhead, shown by its native_call_ event), not a framework
// event (Method::init, Program::load_method, Method::execute: they contain the
// others), not a DELEGATE_CALL whose instruction has delegated events in the
// block (they account for its time), and with perf data.
bool counts_in_summary(const EventBlock& block, const Event& event);

// One row per (block, op type) among `rows` (so --filter, --block and
// --exclude-warmup apply first), largest total first, at most `top` per
// block. Columns: event_block_name, op_type, count, total<u>, avg<u>,
// share (%), cumulative (%). total sums the events' averages (the time one
// run spends in that op type); share is total over the block's counted total.
Frame op_type_frame(const Inspection& inspection, std::span<const TableRow> rows, size_t top = SIZE_MAX);

}  // namespace etkit::inspect
