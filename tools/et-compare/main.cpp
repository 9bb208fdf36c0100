// et-compare: numerical comparison of program outputs, intermediate outputs
// and tensors, and statistical comparison of two profiles.
#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/commands.h"
#include "libcore/compare/perf.h"
#include "libcore/compare/report.h"
#include "libcore/compare/threshold.h"
#include "libcore/support/file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;
using namespace etkit::compare;

namespace {

struct NumericFlags {
  double rtol = 1e-3, atol = 1e-5;
  std::vector<std::string> thresholds;
  std::vector<std::string> metrics;
};

struct Options {
  std::string format = "table";
  std::string output = "-";
  bool pretty = false;
  NumericFlags numeric;
  // outputs
  RunFiles run;
  std::vector<std::string> references;
  std::string bundle;
  std::optional<std::string> method;
  size_t testset = 0;
  // intermediates
  RunFiles against;
  std::string etrecord;
  std::string etrecord_method = "forward";
  // tensors
  std::string tensor_a, tensor_b;
  // perf
  PerfFiles perf;
  std::string fail_if_slower;
  std::string statistic = "p50";
  std::string gate = "total";
  std::string source_time_scale = "ns";
  std::string target_time_scale = "ms";
  PerfOptions perf_options;
};

Result<PerfOptions> perf_options(const Options& o) {
  PerfOptions out = o.perf_options;
  if (!o.fail_if_slower.empty()) {
    ETKIT_ASSIGN_OR_RETURN(double fraction, parse_percent(o.fail_if_slower));
    out.fail_if_slower = fraction;
  }
  out.statistic = o.statistic == "avg" ? Statistic::kAvg : o.statistic == "min" ? Statistic::kMin : Statistic::kP50;
  out.gate = o.gate == "events" ? Gate::kEvents : Gate::kTotal;
  return out;
}

Result<NumericOptions> numeric_options(const NumericFlags& flags) {
  NumericOptions out;
  out.criteria.tolerance = Tolerance{flags.rtol, flags.atol};
  for (const auto& text : flags.thresholds) {
    ETKIT_ASSIGN_OR_RETURN(auto parsed, parse_thresholds(text));
    out.criteria.thresholds.insert(out.criteria.thresholds.end(), parsed.begin(), parsed.end());
  }
  if (!flags.metrics.empty()) {
    out.report.metrics.clear();
    for (const auto& name : flags.metrics) {
      auto m = parse_metric(name);
      if (!m) return Error{ErrorKind::kUsage, {}, {}, "unknown metric '" + name + "' (mse, l1, max_abs, snr, cosine)"};
      out.report.metrics.push_back(*m);
    }
  }
  return out;
}

Result<int> emit(const Outcome& outcome, const Options& o) {
  ETKIT_ASSIGN_OR_RETURN(Format format, parse_format(o.format));
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  ETKIT_TRY(render(outcome.report, format, out->stream(), o.pretty));
  ETKIT_TRY(out->commit());
  return outcome.failed ? tools::kExitCheckFailed : tools::kExitOk;
}

void add_numeric_flags(CLI::App* cmd, NumericFlags& f) {
  cmd->add_option("--rtol", f.rtol, "relative tolerance of the allclose verdict")
      ->check(tools::kNonNegativeReal)
      ->capture_default_str();
  cmd->add_option("--atol", f.atol, "absolute tolerance of the allclose verdict")
      ->check(tools::kNonNegativeReal)
      ->capture_default_str();
  tools::one_per_occurrence(cmd->add_option("--threshold", f.thresholds,
                                            "fail when a metric crosses this bound instead of on allclose, e.g. "
                                            "'snr<40' or 'mse>1e-3'; comma-separated or repeated: any one crossing fails"));
  tools::one_per_occurrence(
      cmd->add_option("--metric", f.metrics, "metrics to show: mse, l1, max_abs, snr, cosine (default: all); "
                                             "comma-separated or repeated")
          ->delimiter(','));
}

void add_output_flags(CLI::App* cmd, Options& o) {
  cmd->add_option("--format", o.format, "table, csv, json or markdown")
      ->check(CLI::IsMember({"table", "csv", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o.output, "write the report here (atomically); - is standard output")->capture_default_str();
  cmd->add_flag("--pretty", o.pretty, "with --format json: indent (default: compact)");
  tools::add_quiet_flag(*cmd);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Compares what two runs computed: program outputs against references, intermediate outputs of two\n"
               "runs instruction by instruction, two .npy tensors, or the timings of two profiles.",
               "et-compare"};
  app.require_subcommand(1);
  tools::add_quiet_flag(app);  // before the subcommand too

  auto* outputs = app.add_subcommand("outputs", "program outputs of a run against .npy references or a bundled test case");
  outputs->add_option("--etdump", o.run.etdump, "ETDump of the run (et-run --debug-level outputs)")->required();
  outputs->add_option("--debug-buffer", o.run.debug_buffer, "its debug buffer (default: ETDUMP.debug.bin if present)");
  auto* refs = outputs->add_option("--reference", o.references, "one .npy per program output, in order");
  auto* bundle = outputs->add_option("--bundled", o.bundle, "a .bpte whose test case holds the expected outputs");
  outputs->add_option("--testset", o.testset, "which test case of --bundled")
      ->check(tools::kCount)
      ->capture_default_str()
      ->needs(bundle);
  outputs->add_option("--method", o.method, "which method's test suite of --bundled (default: the only one, or forward)")
      ->needs(bundle);
  refs->excludes(bundle);
  add_numeric_flags(outputs, o.numeric);
  add_output_flags(outputs, o);

  auto* inter = app.add_subcommand("intermediates", "intermediate outputs of two runs of one program, by instruction");
  inter->add_option("--etdump", o.run.etdump, "ETDump of the reference run (et-run --debug-level intermediates)")->required();
  inter->add_option("--debug-buffer", o.run.debug_buffer, "its debug buffer (default: ETDUMP.debug.bin if present)");
  inter->add_option("--against", o.against.etdump, "ETDump of the candidate run")->required();
  inter->add_option("--against-debug-buffer", o.against.debug_buffer, "its debug buffer (default: AGAINST.debug.bin if present)");
  auto* inter_etrecord = inter->add_option(
      "--etrecord", o.etrecord, "ETRecord of the reference program: adds each instruction's module path and source line");
  inter->add_option("--method", o.etrecord_method, "with --etrecord: the method whose maps link the instructions")
      ->capture_default_str()
      ->needs(inter_etrecord);
  add_numeric_flags(inter, o.numeric);
  add_output_flags(inter, o);

  auto* tensors = app.add_subcommand("tensors", "two .npy tensors (the first is the reference)");
  tensors->add_option("REFERENCE", o.tensor_a, "reference .npy")->required();
  tensors->add_option("CANDIDATE", o.tensor_b, "candidate .npy")->required();
  add_numeric_flags(tensors, o.numeric);
  add_output_flags(tensors, o);

  auto* perf = app.add_subcommand("perf", "timings of two profiles, event by event, with a statistical slowdown gate");
  perf->add_option("--baseline", o.perf.baseline, "ETDump of the baseline runs")->required();
  perf->add_option("--candidate", o.perf.candidate, "ETDump of the candidate runs")->required();
  perf->add_option("--fail-if-slower", o.fail_if_slower,
                   "exit 1 when slower by more than this percentage (e.g. 5%) with the given confidence");
  perf->add_option("--gate", o.gate, "what the gate watches: total (Method::execute) or events (every event, Holm-corrected)")
      ->check(CLI::IsMember({"total", "events"}))
      ->capture_default_str();
  perf->add_option("--metric", o.statistic, "statistic shown and bootstrapped: p50, avg or min")
      ->check(CLI::IsMember({"p50", "avg", "min"}))
      ->capture_default_str();
  perf->add_option("--confidence", o.perf_options.confidence, "confidence of the test and of the ratio interval")
      ->capture_default_str();
  perf->add_option("--seed", o.perf_options.seed, "bootstrap seed (results are reproducible)")
      ->check(tools::kCount)
      ->capture_default_str();
  perf->add_option("--resamples", o.perf_options.resamples, "bootstrap resamples")
      ->check(tools::kCount)
      ->capture_default_str();
  perf->add_option("--warmup", o.perf.warmup, "drop this many samples (runs) from the front of every event")
      ->check(tools::kCount)
      ->capture_default_str();
  const std::vector<std::string> scales = {"ns", "us", "ms", "s", "cycles"};
  perf->add_option("--source-time-scale", o.source_time_scale,
                   "unit of the ETDumps' timestamps (ETDump does not record it): ns, us, ms, s or cycles")
      ->check(CLI::IsMember(scales))
      ->capture_default_str();
  perf->add_option("--target-time-scale", o.target_time_scale,
                   "unit of the durations shown (alias --time-unit); cycles only with cycles")
      ->check(CLI::IsMember(scales))
      ->capture_default_str();
  add_output_flags(perf, o);

  tools::AliasedArgs args(argc, argv,
                          {tools::kEtdumpPath, tools::kEtrecordPath, tools::kDebugBufferPath, tools::kSourceTimeScale,
                           tools::kTargetTimeScale, {"--time-unit", "--target-time-scale"}});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> {
    if (perf->parsed()) {
      ETKIT_ASSIGN_OR_RETURN(PerfOptions options, perf_options(o));
      o.perf.source = *inspect::parse_time_scale(o.source_time_scale);
      o.perf.unit = *inspect::parse_time_scale(o.target_time_scale);
      ETKIT_ASSIGN_OR_RETURN(auto outcome, compare_perf_files(o.perf, options));
      return emit(outcome, o);
    }
    ETKIT_ASSIGN_OR_RETURN(NumericOptions numeric, numeric_options(o.numeric));
    if (outputs->parsed()) {
      if (o.references.empty() && o.bundle.empty()) {
        return Error{ErrorKind::kUsage, {}, {}, "outputs needs --reference FILE.npy... or --bundled FILE.bpte"};
      }
      ETKIT_ASSIGN_OR_RETURN(auto outcome, o.bundle.empty()
                                               ? compare_outputs_with_npy(o.run, o.references, numeric)
                                               : compare_outputs_with_bundle(o.run, o.bundle, o.method, o.testset, numeric));
      return emit(outcome, o);
    }
    if (inter->parsed()) {
      ETKIT_ASSIGN_OR_RETURN(auto outcome, compare_intermediate_runs(o.run, o.against, numeric, o.etrecord, o.etrecord_method));
      return emit(outcome, o);
    }
    ETKIT_ASSIGN_OR_RETURN(auto outcome, compare_npy_files(o.tensor_a, o.tensor_b, numeric));
    return emit(outcome, o);
  });
}
