// Trace Event Format JSON (chrome://tracing, Perfetto; visualization.md §3)
// from a small, Inspector-independent model: processes hold tracks, tracks
// hold timed slices in raw ticks. Each slice becomes a complete ("X") event
// with ts/dur in microseconds, converted exactly from the ticks by a power of
// ten. Perfetto needs the slices of one thread to nest strictly, so a track
// whose slices partially overlap is split into extra lanes ("<track>
// (overlap 1)", ...) rather than written as an invalid trace. Placing a slice
// tries each lane, so the lanes are capped (kMaxTraceLanes) to keep
// pathological tracks from going quadratic: the slices beyond the cap share
// one last lane "<track> (overflow)", with a warning.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "libcore/support/result.h"

namespace etkit::render {

// Microseconds per tick as a power of ten: ns -3, us 0, ms 3, s 6. Cycles have
// no duration; they are shown one cycle per microsecond (unit says so).
struct TraceTimeScale {
  std::string unit = "ns";
  int us_exponent = -3;
};
// The scale for "ns", "us", "ms", "s" or "cycles".
Result<TraceTimeScale> trace_time_scale(std::string_view unit);

// `ticks` in microseconds as an exact JSON number: "17504.192", "3000", "0.5".
std::string ticks_to_us(uint64_t ticks, const TraceTimeScale& scale);

using TraceArgValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<std::string>>;

struct TraceArg {
  std::string key;  // plain identifier (not escaped)
  TraceArgValue value;
};

struct TraceSlice {
  std::string name;
  std::string category;
  uint64_t start = 0;     // raw ticks
  uint64_t duration = 0;  // ticks
  // Depth by construction (e.g. Method::execute 0, OPERATOR_CALL 1, kernel 2):
  // decides which of two slices with the same span is the parent.
  int level = 0;
  std::vector<TraceArg> args;
};

struct TraceTrack {
  std::string name;  // thread name
  std::vector<TraceSlice> slices;
};

struct TraceProcess {
  std::string name;  // process name
  std::vector<TraceTrack> tracks;
};

struct TraceInput {
  std::vector<TraceProcess> processes;
  TraceTimeScale scale;
};

// Nesting lanes per track, before the overflow lane.
inline constexpr size_t kMaxTraceLanes = 64;

// Writes {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}:
// process pid = index + 1, thread tids numbered from 1 within each process,
// names and sort order as "M" metadata events, then each lane's slices by
// start time. Returns warnings (one per track that needed the overflow lane).
Result<std::vector<std::string>> write_chrome_trace(const TraceInput& input, std::FILE* out, bool pretty = false);

}  // namespace etkit::render
