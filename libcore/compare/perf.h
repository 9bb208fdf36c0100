// Compares the timings of two profiles event by event and decides, with
// the raw per-run samples, which differences are statistically meaningful
// (a one-sided Mann-Whitney U test and a bootstrap interval of the ratio
// of a statistic must agree) and whether a slowdown gate fails.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/report.h"
#include "libcore/compare/stats.h"
#include "libcore/inspect/event_blocks.h"

namespace etkit::compare {

// One Inspector event with its samples (one per folded run).
struct PerfEvent {
  std::string block;
  size_t block_occurrence = 0;  // the k-th block of this name (names can repeat)
  std::string name;
  int32_t instruction_id = 0;
  std::vector<double> samples;  // durations in the profile's unit
};

struct PerfProfile {
  std::vector<PerfEvent> events;  // block order, then event order
};

// The events that have perf data, from the Inspector's event blocks.
PerfProfile perf_profile(const inspect::Inspection& inspection);

// The framework event timing one whole execution (runtime_events.md §2.2).
inline constexpr std::string_view kTotalEventName = "Method::execute";

// Which slowdowns fail the gate: only the totals (Method::execute), or any
// event (then with a Holm-Bonferroni correction over all compared events).
enum class Gate { kTotal, kEvents };

struct PerfOptions {
  Statistic statistic = Statistic::kP50;
  double confidence = 0.95;  // of the test (alpha = 1 - confidence) and of the interval
  uint64_t seed = 1;
  size_t resamples = 2000;
  std::optional<double> fail_if_slower;  // a fraction: 0.05 fails on more than 5% slower
  Gate gate = Gate::kTotal;
};

enum class Change { kSame, kSlower, kFaster, kOnlyInBaseline, kOnlyInCandidate };

struct PerfRow {
  std::string block;
  std::string name;
  int32_t instruction_id = 0;
  bool is_total = false;
  size_t n_baseline = 0, n_candidate = 0;
  double baseline = 0, candidate = 0;  // the statistic of each side
  RatioInterval interval;
  MannWhitney test;
  Change change = Change::kSame;
  bool gated = false;      // subject to the gate
  bool regression = false; // slower than the gate allows, with confidence
};

struct PerfComparison {
  std::vector<PerfRow> rows;  // baseline order, then what only the candidate has
  bool gate_failed = false;
};

// Pairs blocks by (name, occurrence) and events by name, or by (name,
// instruction id, occurrence) where a name repeats within a block on either
// side. A difference counts when the one-sided test's p-value is below
// 1 - confidence and the ratio interval excludes 1 (for the gate: lies
// beyond 1 + fail_if_slower). Fails with a usage error when the gate is on
// the totals and either profile has no Method::execute.
Result<PerfComparison> compare_perf(const PerfProfile& baseline, const PerfProfile& candidate, const PerfOptions& options);

// `unit` labels the durations ("ms").
Report perf_report(const PerfComparison& comparison, const PerfOptions& options, const std::string& unit);

// "5%" or "5" -> 0.05; negative or non-numeric values are usage errors.
Result<double> parse_percent(std::string_view text);

struct PerfFiles {
  std::string baseline, candidate;
  // ETDumps do not record the unit of their ticks: the source scale says it
  // (ns by default, as the Inspector assumes), the target scale is the unit
  // shown. Cycles convert only to cycles.
  inspect::TimeScale source = inspect::TimeScale::kNs;
  inspect::TimeScale unit = inspect::TimeScale::kMs;
  size_t warmup = 0;  // samples dropped from the front of every event
};

// Reads both ETDumps with the Inspector's event-block builder and compares them.
Result<Outcome> compare_perf_files(const PerfFiles& files, const PerfOptions& options);

}  // namespace etkit::compare
