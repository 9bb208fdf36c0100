// et-fleet: many ETDumps at once (a device lab, a CI history): the long
// table of every event of every run, operators by label value, and a gate on
// the newest run of an ordered history.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/report.h"
#include "libcore/fleet/commands.h"
#include "libcore/fleet/compare.h"
#include "libcore/fleet/gate.h"
#include "libcore/render/html_report.h"
#include "libcore/support/file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;
using namespace etkit::fleet;

namespace {

constexpr const char* kTool = "et-fleet";

struct Options {
  std::vector<std::string> paths;
  std::string manifest;
  std::vector<std::string> where;
  std::string etrecord;
  std::string method = "forward";
  size_t jobs = 0;
  size_t warmup = 0;
  bool strict = false;
  std::string source_time_scale = "ns";
  std::string target_time_scale = "ms";
  std::string format;
  std::string output = "-";
  bool pretty = false;
  bool allow_mixed = false;
  // compare
  std::string by;
  std::string baseline;
  std::string sort = "p50";
  size_t top = SIZE_MAX;
  std::string filter;
  std::string html;
  // gate
  GateOptions gate;
};

void add_input_flags(CLI::App* cmd, Options& o) {
  cmd->add_option("INPUTS", o.paths, "ETDumps, or directories searched recursively for *.etdp");
  cmd->add_option("--manifest", o.manifest,
                  "a TSV with a header row: a 'path' column, an optional 'etrecord' column, labels in the others");
  tools::one_per_occurrence(cmd->add_option(
      "--where", o.where, "only the inputs whose label has this value: LABEL=VALUE (repeated: all must hold)"));
  cmd->add_option("--etrecord", o.etrecord, "ETRecord of the program, for inputs without one in the manifest");
  cmd->add_option("--method", o.method, "the ETRecord method that links the events")->capture_default_str();
  cmd->add_option("-j,--jobs", o.jobs, "files read in parallel (default: the hardware's threads)")->check(tools::kCount);
  cmd->add_option("--warmup", o.warmup, "drop the first N samples (runs) of every event of every file")
      ->check(tools::kCount)
      ->capture_default_str();
  cmd->add_flag("--strict", o.strict, "a file that cannot be read is an error (exit 2, nothing written) instead of skipped");
  const std::vector<std::string> scales = {"ns", "us", "ms", "s", "cycles"};
  cmd->add_option("--source-time-scale", o.source_time_scale, "unit of the ETDumps' timestamps: ns, us, ms, s or cycles")
      ->check(CLI::IsMember(scales))
      ->capture_default_str();
  cmd->add_option("--target-time-scale", o.target_time_scale, "unit of the durations (alias --time-unit)")
      ->check(CLI::IsMember(scales))
      ->capture_default_str();
  cmd->add_option("-o,--output", o.output, "where to write (atomically); - is standard output")->capture_default_str();
  tools::add_quiet_flag(*cmd);
}

void add_report_flags(CLI::App* cmd, Options& o) {
  cmd->add_option("--format", o.format, "table (or text), csv, json or markdown")
      ->check(CLI::IsMember({"table", "text", "csv", "json", "markdown"}))
      ->default_str("table");
  cmd->add_flag("--pretty", o.pretty, "with --format json: indent (default: compact)");
  cmd->add_flag("--allow-mixed", o.allow_mixed, "compare runs of different programs (refused by default)");
}

Result<InputSet> gather(const Options& o) {
  if (!o.manifest.empty()) {
    if (!o.paths.empty()) {
      return Error{ErrorKind::kUsage, {}, {}, "give either --manifest or INPUTS, not both (the manifest labels its files)"};
    }
    return inputs_from_manifest(o.manifest);
  }
  if (o.paths.empty()) return Error{ErrorKind::kUsage, {}, {}, "no input: give ETDumps, directories or --manifest FILE"};
  return inputs_from_paths(o.paths);
}

CollectOptions collect_options(const Options& o) {
  CollectOptions c;
  c.source_time_scale = *inspect::parse_time_scale(o.source_time_scale);
  c.target_time_scale = *inspect::parse_time_scale(o.target_time_scale);
  c.warmup = o.warmup;
  c.jobs = o.jobs;
  c.etrecord = o.etrecord;
  c.method = o.method;
  c.strict = o.strict;
  return c;
}

Result<size_t> label_of(const InputSet& inputs, const std::string& option, const std::string& name) {
  if (auto i = label_index(inputs, name)) return *i;
  std::string known;
  for (const auto& l : inputs.label_names) known += (known.empty() ? "" : ", ") + l;
  return Error{ErrorKind::kUsage, {}, {},
               option + ": no label '" + name + "'" + (known.empty() ? " (labels come from --manifest)" : " (" + known + ")")};
}

void warn(const std::string& line) {
  if (!tools::quiet_mode()) tools::print_warning(kTool, line + " (skipped)");
}

Status emit(const compare::Report& report, const Options& o) {
  ETKIT_ASSIGN_OR_RETURN(compare::Format format, compare::parse_format(o.format.empty() || o.format == "text" ? "table" : o.format));
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  ETKIT_TRY(compare::render(report, format, out->stream(), o.pretty));
  return out->commit();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Many ETDumps at once (a device lab, a CI history): one long table of every event of every run,\n"
               "operators by label value, and a gate on the newest run of an ordered history.",
               kTool};
  app.require_subcommand(1);
  tools::add_quiet_flag(app);

  auto* collect_cmd = app.add_subcommand("collect", "one row per (run, event, sample) as JSON Lines, CSV or SQLite");
  add_input_flags(collect_cmd, o);
  collect_cmd->add_option("--format", o.format, "jsonl, csv or sqlite (sqlite needs -o FILE)")
      ->check(CLI::IsMember({"jsonl", "csv", "sqlite"}))
      ->default_str("jsonl");

  auto* compare_cmd = app.add_subcommand("compare", "op types by the values of a label: p50, ratio to a baseline, share");
  add_input_flags(compare_cmd, o);
  add_report_flags(compare_cmd, o);
  compare_cmd->add_option("--by", o.by, "the label whose values are the columns")->required();
  compare_cmd->add_option("--baseline", o.baseline, "the value the ratios are to (default: the first, as sorted)");
  compare_cmd->add_option("--sort", o.sort, "p50 or share (of the baseline, largest first), ratio (largest), op_type, or a value")
      ->capture_default_str();
  compare_cmd->add_option("--top", o.top, "at most N op types")->check(tools::kCount);
  compare_cmd->add_option("--filter", o.filter, "keep op types matching this POSIX extended regular expression");
  compare_cmd->add_option("--html", o.html,
                          "also write the view as a self-contained HTML page (heat-coloured cells, a sparkline per op type)");

  auto* gate_cmd = app.add_subcommand("gate", "exit 1 when the newest run of an ordered history is a significant regression");
  add_input_flags(gate_cmd, o);
  add_report_flags(gate_cmd, o);
  gate_cmd->add_option("--order", o.gate.order, "the label that orders the runs (date, build, ...)")->required();
  gate_cmd->add_option("--window", o.gate.window, "values before the newest that form the reference")
      ->check(tools::kCount)
      ->capture_default_str();
  gate_cmd->add_option("--min-ratio", o.gate.min_ratio, "a regression is at least this much slower (newest/window p50)")
      ->check(tools::kNonNegativeReal)
      ->capture_default_str();
  gate_cmd->add_option("--confidence", o.gate.confidence, "of the test (family-wise, Holm) and of the ratio interval")
      ->capture_default_str();
  gate_cmd->add_option("--seed", o.gate.seed, "bootstrap seed (results are reproducible)")->check(tools::kCount)->capture_default_str();
  gate_cmd->add_option("--resamples", o.gate.resamples, "bootstrap resamples")->check(tools::kCount)->capture_default_str();

  tools::AliasedArgs args(argc, argv,
                          {tools::kEtrecordPath, tools::kSourceTimeScale, tools::kTargetTimeScale,
                           {"--time-unit", "--target-time-scale"}});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> {
    ETKIT_ASSIGN_OR_RETURN(InputSet inputs, gather(o));
    ETKIT_TRY(select_inputs(inputs, o.where));
    if (inputs.inputs.empty()) return Error{ErrorKind::kBadInput, {}, {}, "no ETDump found in the inputs"};
    const CollectOptions options = collect_options(o);
    if (collect_cmd->parsed()) {
      ETKIT_ASSIGN_OR_RETURN(TableFormat format, parse_table_format(o.format.empty() ? "jsonl" : o.format));
      ETKIT_ASSIGN_OR_RETURN(size_t runs, write_long_table(inputs, options, format, o.output, warn));
      (void)runs;
      return tools::kExitOk;
    }
    if (o.gate.confidence <= 0 || o.gate.confidence >= 1) {
      return Error{ErrorKind::kUsage, {}, {}, "--confidence must be between 0 and 1"};
    }
    const std::string& label_name = compare_cmd->parsed() ? o.by : o.gate.order;
    ETKIT_ASSIGN_OR_RETURN(size_t label, label_of(inputs, compare_cmd->parsed() ? "--by" : "--order", label_name));
    ETKIT_ASSIGN_OR_RETURN(std::vector<RunOps> runs, collect_run_ops(inputs, options, warn));
    if (compare_cmd->parsed()) {
      CompareOptions c;
      c.by = o.by;
      if (!o.baseline.empty()) c.baseline = o.baseline;
      c.sort = o.sort;
      c.top = o.top;
      c.filter = o.filter;
      c.allow_mixed = o.allow_mixed;
      c.unit = o.target_time_scale;
      ETKIT_ASSIGN_OR_RETURN(WideComparison wide, compare_by_label(runs, label, c));
      if (!o.html.empty()) ETKIT_TRY(write_text_file(o.html, render::render_html_report(wide_html(wide, c))));
      ETKIT_TRY(emit(wide_report(wide, c), o));
      return tools::kExitOk;
    }
    GateOptions g = o.gate;
    g.allow_mixed = o.allow_mixed;
    g.unit = o.target_time_scale;
    ETKIT_ASSIGN_OR_RETURN(GateOutcome outcome, gate_newest(runs, label, g));
    ETKIT_TRY(emit(outcome.report, o));
    if (outcome.regressions.empty()) return tools::kExitOk;
    std::string list;
    for (const auto& r : outcome.regressions) list += (list.empty() ? "" : ", ") + r;
    std::fprintf(stderr, "%s: gate: %zu op types regressed at %s=%s: %s\n", kTool, outcome.regressions.size(),
                 g.order.c_str(), outcome.newest.c_str(), list.c_str());
    return tools::kExitCheckFailed;
  });
}
