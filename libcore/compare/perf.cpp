#include "libcore/compare/perf.h"

#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

#include "libcore/support/file.h"

namespace etkit::compare {
namespace {

Error usage(std::string message) { return Error{ErrorKind::kUsage, {}, {}, std::move(message)}; }

using BlockKey = std::pair<std::string, size_t>;

// Events of each block, blocks in first-seen order.
std::vector<std::pair<BlockKey, std::vector<const PerfEvent*>>> by_block(const PerfProfile& profile) {
  std::vector<std::pair<BlockKey, std::vector<const PerfEvent*>>> blocks;
  std::map<BlockKey, size_t> index;
  for (const PerfEvent& e : profile.events) {
    const BlockKey key{e.block, e.block_occurrence};
    auto [it, inserted] = index.emplace(key, blocks.size());
    if (inserted) blocks.emplace_back(key, std::vector<const PerfEvent*>{});
    blocks[it->second].second.push_back(&e);
  }
  return blocks;
}

// (name, instruction id, ordinal); instruction -1 and ordinal 0 when the
// name alone identifies the event.
using EventKey = std::tuple<std::string, int64_t, size_t>;

std::vector<EventKey> event_keys(const std::vector<const PerfEvent*>& events, const std::map<std::string, size_t>& count_a,
                                 const std::map<std::string, size_t>& count_b) {
  auto count = [](const std::map<std::string, size_t>& m, const std::string& name) {
    auto it = m.find(name);
    return it == m.end() ? size_t(0) : it->second;
  };
  std::map<std::pair<std::string, int32_t>, size_t> ordinals;
  std::vector<EventKey> keys;
  for (const PerfEvent* e : events) {
    if (count(count_a, e->name) <= 1 && count(count_b, e->name) <= 1) {
      keys.emplace_back(e->name, -1, 0);
    } else {
      keys.emplace_back(e->name, e->instruction_id, ordinals[{e->name, e->instruction_id}]++);
    }
  }
  return keys;
}

std::map<std::string, size_t> name_counts(const std::vector<const PerfEvent*>& events) {
  std::map<std::string, size_t> counts;
  for (const PerfEvent* e : events) ++counts[e->name];
  return counts;
}

PerfRow one_sided_row(const PerfEvent& e, bool baseline, Statistic statistic) {
  PerfRow row;
  row.block = e.block;
  row.name = e.name;
  row.instruction_id = e.instruction_id;
  row.is_total = e.name == kTotalEventName;
  row.change = baseline ? Change::kOnlyInBaseline : Change::kOnlyInCandidate;
  (baseline ? row.n_baseline : row.n_candidate) = e.samples.size();
  (baseline ? row.baseline : row.candidate) = statistic_of(e.samples, statistic);
  return row;
}

PerfRow paired_row(const PerfEvent& a, const PerfEvent& b, const PerfOptions& options, uint64_t seed) {
  PerfRow row;
  row.block = a.block;
  row.name = a.name;
  row.instruction_id = a.instruction_id;
  row.is_total = a.name == kTotalEventName;
  row.n_baseline = a.samples.size();
  row.n_candidate = b.samples.size();
  row.baseline = statistic_of(a.samples, options.statistic);
  row.candidate = statistic_of(b.samples, options.statistic);
  row.test = mann_whitney_u(a.samples, b.samples);
  row.interval = bootstrap_ratio(a.samples, b.samples, options.statistic, options.confidence, seed, options.resamples);
  const double alpha = 1.0 - options.confidence;
  if (row.test.p_greater < alpha && row.interval.low > 1.0) row.change = Change::kSlower;
  else if (row.test.p_less < alpha && row.interval.high < 1.0) row.change = Change::kFaster;
  return row;
}

bool paired(const PerfRow& r) { return r.change != Change::kOnlyInBaseline && r.change != Change::kOnlyInCandidate; }

// The smallest one-sided p-value the exact test can reach: 1 / C(n_b + n_c, n_b).
double smallest_p(size_t nb, size_t nc) {
  double combinations = 1;
  for (size_t i = 1; i <= std::min(nb, nc); ++i) combinations = combinations * double(nb + nc - std::min(nb, nc) + i) / double(i);
  return 1.0 / combinations;
}

std::string_view change_name(Change c) {
  switch (c) {
    case Change::kSame: return "same";
    case Change::kSlower: return "slower";
    case Change::kFaster: return "faster";
    case Change::kOnlyInBaseline: return "only in baseline";
    case Change::kOnlyInCandidate: return "only in candidate";
  }
  return "";
}

std::string percent(double fraction) { return format_number(fraction * 100.0) + "%"; }

}  // namespace

PerfProfile perf_profile(const inspect::Inspection& inspection) {
  PerfProfile out;
  std::map<std::string, size_t> seen;
  for (const auto& block : inspection.blocks) {
    const size_t occurrence = seen[block.name]++;
    for (const auto& event : block.events) {
      if (!event.has_perf_data()) continue;
      out.events.push_back(PerfEvent{block.name, occurrence, event.name, event.instruction_id, event.raw});
    }
  }
  return out;
}

Result<PerfComparison> compare_perf(const PerfProfile& baseline, const PerfProfile& candidate, const PerfOptions& options) {
  if (!(options.confidence > 0 && options.confidence < 1)) {
    return usage("confidence must lie strictly between 0 and 1, got " + format_number(options.confidence));
  }
  const auto blocks_a = by_block(baseline), blocks_b = by_block(candidate);
  std::map<BlockKey, size_t> index_b;
  for (size_t i = 0; i < blocks_b.size(); ++i) index_b.emplace(blocks_b[i].first, i);
  std::vector<bool> block_used(blocks_b.size(), false);

  PerfComparison out;
  auto next_seed = [&]() { return options.seed * 0x9E3779B97F4A7C15ull + out.rows.size(); };
  for (const auto& [key, events_a] : blocks_a) {
    auto it = index_b.find(key);
    if (it == index_b.end()) {
      for (const PerfEvent* e : events_a) out.rows.push_back(one_sided_row(*e, true, options.statistic));
      continue;
    }
    block_used[it->second] = true;
    const auto& events_b = blocks_b[it->second].second;
    const auto counts_a = name_counts(events_a), counts_b = name_counts(events_b);
    const auto keys_a = event_keys(events_a, counts_a, counts_b), keys_b = event_keys(events_b, counts_a, counts_b);
    std::map<EventKey, size_t> lookup_b;
    for (size_t i = 0; i < keys_b.size(); ++i) lookup_b.emplace(keys_b[i], i);
    std::vector<bool> used(events_b.size(), false);
    for (size_t i = 0; i < events_a.size(); ++i) {
      auto found = lookup_b.find(keys_a[i]);
      if (found == lookup_b.end()) {
        out.rows.push_back(one_sided_row(*events_a[i], true, options.statistic));
        continue;
      }
      used[found->second] = true;
      out.rows.push_back(paired_row(*events_a[i], *events_b[found->second], options, next_seed()));
    }
    for (size_t i = 0; i < events_b.size(); ++i) {
      if (!used[i]) out.rows.push_back(one_sided_row(*events_b[i], false, options.statistic));
    }
  }
  for (size_t i = 0; i < blocks_b.size(); ++i) {
    if (block_used[i]) continue;
    for (const PerfEvent* e : blocks_b[i].second) out.rows.push_back(one_sided_row(*e, false, options.statistic));
  }

  if (options.fail_if_slower) {
    std::vector<size_t> gated;
    std::vector<double> p_values;
    for (size_t i = 0; i < out.rows.size(); ++i) {
      PerfRow& r = out.rows[i];
      if (!paired(r) || (options.gate == Gate::kTotal && !r.is_total)) continue;
      r.gated = true;
      gated.push_back(i);
      p_values.push_back(r.test.p_greater);
    }
    if (options.gate == Gate::kTotal && gated.empty()) {
      return usage("the profiles do not both have " + std::string(kTotalEventName) +
                   " events: the total cannot be gated (try --gate events)");
    }
    const std::vector<bool> significant = holm_reject(p_values, 1.0 - options.confidence);
    for (size_t k = 0; k < gated.size(); ++k) {
      PerfRow& r = out.rows[gated[k]];
      r.regression = significant[k] && r.interval.low > 1.0 + *options.fail_if_slower;
      out.gate_failed = out.gate_failed || r.regression;
    }
  }
  return out;
}

Report perf_report(const PerfComparison& comparison, const PerfOptions& options, const std::string& unit) {
  Report report;
  report.command = "perf";
  const std::string stat(statistic_name(options.statistic));
  report.columns = {"block", "event", "instruction", "n_baseline", "n_candidate", "baseline_" + stat, "candidate_" + stat,
                    "delta", "ratio", "ratio_low", "ratio_high", "p_slower", "p_faster", "change", "gate", "note"};
  report.units = {{"baseline_" + stat, unit}, {"candidate_" + stat, unit}, {"delta", unit}};
  const double alpha = 1.0 - options.confidence;
  size_t slower = 0, faster = 0;
  const PerfRow* total = nullptr;
  for (const PerfRow& r : comparison.rows) {
    std::vector<Cell> row{r.block, r.name, int64_t(r.instruction_id), int64_t(r.n_baseline), int64_t(r.n_candidate)};
    std::string note;
    if (paired(r)) {
      row.insert(row.end(), {r.baseline, r.candidate, r.candidate - r.baseline, r.interval.ratio, r.interval.low,
                             r.interval.high, r.test.p_greater, r.test.p_less});
      if (smallest_p(r.n_baseline, r.n_candidate) >= alpha) {
        note = "too few samples for " + percent(options.confidence) + " confidence";
      }
      if (!total && r.is_total) total = &r;
    } else {
      row.push_back(r.n_baseline ? Cell(r.baseline) : Cell());
      row.push_back(r.n_candidate ? Cell(r.candidate) : Cell());
      row.insert(row.end(), 6, Cell());
    }
    row.emplace_back(std::string(change_name(r.change)));
    row.emplace_back(std::string(r.regression ? "REGRESSION" : r.gated ? "ok" : ""));
    row.emplace_back(note);
    report.rows.push_back(std::move(row));
    slower += r.change == Change::kSlower ? 1 : 0;
    faster += r.change == Change::kFaster ? 1 : 0;
  }
  // Machine-readable: numbers as numbers, one idea per key.
  report.summary.emplace_back("statistic", stat);
  report.summary.emplace_back("unit", unit);
  report.summary.emplace_back("confidence", options.confidence);
  report.summary.emplace_back("resamples", int64_t(options.resamples));
  report.summary.emplace_back("seed", int64_t(options.seed));
  report.summary.emplace_back("total_event", std::string(kTotalEventName));
  if (total) {
    report.summary.emplace_back("total_baseline", total->baseline);
    report.summary.emplace_back("total_candidate", total->candidate);
    report.summary.emplace_back("total_ratio", total->interval.ratio);
    report.summary.emplace_back("total_ratio_low", total->interval.low);
    report.summary.emplace_back("total_ratio_high", total->interval.high);
    report.summary.emplace_back("total_p_slower", total->test.p_greater);
    report.summary.emplace_back("total_change", std::string(change_name(total->change)));
  } else {
    report.summary.emplace_back("total_change", Cell());  // not in both profiles
  }
  report.summary.emplace_back("slower", int64_t(slower));
  report.summary.emplace_back("faster", int64_t(faster));
  if (options.fail_if_slower) {
    report.summary.emplace_back("gate", std::string(options.gate == Gate::kTotal ? "total" : "events"));
    report.summary.emplace_back("fail_if_slower", *options.fail_if_slower);
    report.summary.emplace_back("verdict", std::string(comparison.gate_failed ? "slower" : "not slower"));
  } else {
    report.summary.emplace_back("gate", std::string("none"));
  }
  return report;
}

Result<double> parse_percent(std::string_view text) {
  std::string_view number = text;
  if (!number.empty() && number.back() == '%') number.remove_suffix(1);
  double value = 0;
  const auto r = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || r.ec != std::errc() || r.ptr != number.data() + number.size() || !std::isfinite(value) || value < 0) {
    return usage("'" + std::string(text) + "' is not a percentage (e.g. 5% or 2.5)");
  }
  return value / 100.0;
}

Result<Outcome> compare_perf_files(const PerfFiles& files, const PerfOptions& options) {
  ETKIT_TRY(inspect::time_scale_factor(files.source, files.unit));
  PerfProfile profiles[2];
  const std::string* paths[2] = {&files.baseline, &files.candidate};
  for (int i = 0; i < 2; ++i) {
    ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(*paths[i], InputFile::Access::kSequential));
    inspect::BuildOptions build;
    build.source_time_scale = files.source;
    build.target_time_scale = files.unit;
    auto inspection = inspect::build_event_blocks(file->bytes(), build);
    if (!inspection) return std::move(inspection).error().at_file(file->path());
    inspect::exclude_warmup(*inspection, files.warmup);
    profiles[i] = perf_profile(*inspection);
    if (profiles[i].events.empty()) return bad_input("no timed events (after dropping warm-up samples)").at_file(file->path());
  }
  ETKIT_ASSIGN_OR_RETURN(PerfComparison comparison, compare_perf(profiles[0], profiles[1], options));
  Outcome out;
  out.failed = comparison.gate_failed;
  out.report = perf_report(comparison, options, std::string(inspect::time_scale_name(files.unit)));
  return out;
}

}  // namespace etkit::compare
