// The Inspector's time units (inspector_spec.md §5): ETDump records raw ticks
// without a unit; the Inspector assumes a source unit (ns by default) and
// converts durations to a target unit (ms by default).
#pragma once

#include <optional>
#include <string_view>

#include "libcore/support/result.h"

namespace etkit::inspect {

enum class TimeScale { kNs, kUs, kMs, kS, kCycles };

// "ns", "us", "ms", "s", "cycles" (the Python TimeScale values).
std::optional<TimeScale> parse_time_scale(std::string_view name);
std::string_view time_scale_name(TimeScale scale);

// TIME_SCALE_DICT[source] / TIME_SCALE_DICT[target] (_inspector_utils.py);
// durations are divided by it. Cycles convert only to cycles (factor 1):
// converting between cycles and a time unit is a usage error.
Result<double> time_scale_factor(TimeScale source, TimeScale target);

}  // namespace etkit::inspect
