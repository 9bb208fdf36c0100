#include "libcore/inspect/time_scale.h"

#include <string>

namespace etkit::inspect {

namespace {

struct ScaleInfo {
  TimeScale scale;
  std::string_view name;
  double per_second;  // TIME_SCALE_DICT: units per second (cycles: 1)
};

constexpr ScaleInfo kScales[] = {{TimeScale::kNs, "ns", 1e9},
                                 {TimeScale::kUs, "us", 1e6},
                                 {TimeScale::kMs, "ms", 1e3},
                                 {TimeScale::kS, "s", 1},
                                 {TimeScale::kCycles, "cycles", 1}};

const ScaleInfo& info(TimeScale scale) {
  for (const ScaleInfo& s : kScales) {
    if (s.scale == scale) return s;
  }
  return kScales[0];
}

}  // namespace

std::optional<TimeScale> parse_time_scale(std::string_view name) {
  for (const ScaleInfo& s : kScales) {
    if (s.name == name) return s.scale;
  }
  return std::nullopt;
}

std::string_view time_scale_name(TimeScale scale) { return info(scale).name; }

Result<double> time_scale_factor(TimeScale source, TimeScale target) {
  if ((source == TimeScale::kCycles) != (target == TimeScale::kCycles)) {
    return Error{ErrorKind::kUsage, {}, {},
                 "cannot convert between cycles and a time unit (source " + std::string(time_scale_name(source)) +
                     ", target " + std::string(time_scale_name(target)) + "): use cycles for both"};
  }
  return info(source).per_second / info(target).per_second;
}

}  // namespace etkit::inspect
