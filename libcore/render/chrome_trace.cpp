#include "libcore/render/chrome_trace.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "libcore/support/json_writer.h"

namespace etkit::render {

Result<TraceTimeScale> trace_time_scale(std::string_view unit) {
  if (unit == "ns") return TraceTimeScale{"ns", -3};
  if (unit == "us") return TraceTimeScale{"us", 0};
  if (unit == "ms") return TraceTimeScale{"ms", 3};
  if (unit == "s") return TraceTimeScale{"s", 6};
  if (unit == "cycles") return TraceTimeScale{"cycles", 0};
  return Error{ErrorKind::kUsage, {}, {}, "unknown time scale '" + std::string(unit) + "' (ns, us, ms, s, cycles)"};
}

std::string ticks_to_us(uint64_t ticks, const TraceTimeScale& scale) {
  std::string digits = std::to_string(ticks);
  if (scale.us_exponent >= 0) {
    if (ticks != 0) digits.append(static_cast<size_t>(scale.us_exponent), '0');
    return digits;
  }
  const auto fraction = static_cast<size_t>(-scale.us_exponent);
  if (digits.size() <= fraction) digits.insert(0, fraction + 1 - digits.size(), '0');
  digits.insert(digits.size() - fraction, 1, '.');
  while (digits.back() == '0') digits.pop_back();
  if (digits.back() == '.') digits.pop_back();
  return digits;
}

namespace {

// A track's slices split into lanes in which they nest strictly, each lane
// listing slice indices in start order (parents before children), and the
// slices that found no room in kMaxTraceLanes lanes.
struct Lanes {
  std::vector<std::vector<size_t>> nested;
  std::vector<size_t> overflow;
};

Lanes nest_into_lanes(const std::vector<TraceSlice>& slices) {
  std::vector<size_t> order(slices.size());
  std::iota(order.begin(), order.end(), 0);
  auto end_of = [&](size_t i) {  // saturating: a malformed slice must not wrap around
    const uint64_t room = std::numeric_limits<uint64_t>::max() - slices[i].start;
    return slices[i].start + std::min(slices[i].duration, room);
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (slices[a].start != slices[b].start) return slices[a].start < slices[b].start;
    if (end_of(a) != end_of(b)) return end_of(a) > end_of(b);
    return slices[a].level < slices[b].level;
  });
  Lanes lanes;
  std::vector<std::vector<uint64_t>> open_ends;  // per lane: ends of the enclosing slices
  for (size_t i : order) {
    size_t lane = 0;
    for (; lane < lanes.nested.size(); ++lane) {
      auto& ends = open_ends[lane];
      while (!ends.empty() && ends.back() <= slices[i].start) ends.pop_back();
      if (ends.empty() || ends.back() >= end_of(i)) break;
    }
    if (lane == kMaxTraceLanes) {
      lanes.overflow.push_back(i);
      continue;
    }
    if (lane == lanes.nested.size()) {
      lanes.nested.emplace_back();
      open_ends.emplace_back();
    }
    lanes.nested[lane].push_back(i);
    open_ends[lane].push_back(end_of(i));
  }
  if (lanes.nested.empty()) lanes.nested.emplace_back();  // an empty track still gets its name
  return lanes;
}

void write_arg(JsonWriter& w, const TraceArgValue& value) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          w.string(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          w.boolean(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          w.begin_array();
          for (int64_t x : v) w.number(x);
          w.end_array();
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          w.begin_array();
          for (const auto& x : v) w.string(x);
          w.end_array();
        } else {
          w.number(v);
        }
      },
      value);
}

// An "M" event: `what` is process_name/thread_name (string value) or
// process_sort_index/thread_sort_index (number).
void metadata(JsonWriter& w, std::string_view what, size_t pid, size_t tid, const TraceArgValue& value) {
  w.begin_object();
  w.key("ph");
  w.string("M");
  w.key("name");
  w.string(what);
  w.key("pid");
  w.number(pid);
  w.key("tid");
  w.number(tid);
  w.key("args");
  w.begin_object();
  w.key(std::holds_alternative<std::string>(value) ? "name" : "sort_index");
  write_arg(w, value);
  w.end_object();
  w.end_object();
}

void slice(JsonWriter& w, const TraceSlice& s, size_t pid, size_t tid, const TraceTimeScale& scale) {
  w.begin_object();
  w.key("ph");
  w.string("X");
  w.key("name");
  w.string(s.name);
  w.key("cat");
  w.string(s.category);
  w.key("pid");
  w.number(pid);
  w.key("tid");
  w.number(tid);
  w.key("ts");
  w.raw(ticks_to_us(s.start, scale));
  w.key("dur");
  w.raw(ticks_to_us(s.duration, scale));
  if (!s.args.empty()) {
    w.key("args");
    w.begin_object();
    for (const auto& arg : s.args) {
      w.key(arg.key);
      write_arg(w, arg.value);
    }
    w.end_object();
  }
  w.end_object();
}

}  // namespace

Result<std::vector<std::string>> write_chrome_trace(const TraceInput& input, std::FILE* out, bool pretty) {
  std::vector<std::string> warnings;
  JsonWriter w(out, pretty);
  w.begin_object();
  w.key("traceEvents");
  w.begin_array();
  for (size_t p = 0; p < input.processes.size(); ++p) {
    const auto& process = input.processes[p];
    const size_t pid = p + 1;
    metadata(w, "process_name", pid, 0, process.name);
    metadata(w, "process_sort_index", pid, 0, static_cast<int64_t>(p));
    size_t tid = 0;
    for (const auto& track : process.tracks) {
      const Lanes lanes = nest_into_lanes(track.slices);
      auto lane = [&](const std::string& name, const std::vector<size_t>& slices) {
        ++tid;
        metadata(w, "thread_name", pid, tid, name);
        metadata(w, "thread_sort_index", pid, tid, static_cast<int64_t>(tid));
        for (size_t i : slices) slice(w, track.slices[i], pid, tid, input.scale);
      };
      for (size_t l = 0; l < lanes.nested.size(); ++l) {
        lane(l == 0 ? track.name : track.name + " (overlap " + std::to_string(l) + ")", lanes.nested[l]);
      }
      if (!lanes.overflow.empty()) {
        const std::string name = track.name + " (overflow)";
        lane(name, lanes.overflow);
        warnings.push_back("process '" + process.name + "', track '" + track.name + "': " +
                           std::to_string(lanes.overflow.size()) + " slices overlap more than " +
                           std::to_string(kMaxTraceLanes) + " lanes deep and share the lane '" + name +
                           "', where they may not nest");
      }
    }
  }
  w.end_array();
  w.key("displayTimeUnit");
  w.string("ns");
  w.key("otherData");
  w.begin_object();
  w.key("generator");
  w.string("etkit");
  w.key("source_time_scale");
  w.string(input.scale.unit);
  if (input.scale.unit == "cycles") {
    w.key("note");
    w.string("timestamps are cycles, shown as microseconds");
  }
  w.end_object();
  w.end_object();
  w.flush();
  if (w.broken_pipe()) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
  if (w.failed()) return io_error("<output>", "cannot write the trace");
  return warnings;
}

}  // namespace etkit::render
