// et-inspect: the Python Inspector's per-event table (print_data_tabular) for
// an ETDump, plus sorting, filtering, an op-type summary and other formats.
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "libcore/inspect/event_blocks.h"
#include "libcore/inspect/link.h"
#include "libcore/inspect/py_format.h"
#include "libcore/inspect/report.h"
#include "libcore/render/chrome_trace.h"
#include "libcore/render/inspect_report.h"
#include "libcore/render/inspect_trace.h"
#include "libcore/support/file.h"
#include "runner/program_file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;

namespace {

constexpr const char* kTool = "et-inspect";

struct Options {
  std::string input;
  std::string output = "-";
  std::string format = "table";
  std::string source_time_scale = "ns";
  std::string target_time_scale = "ms";
  std::string sort;
  std::optional<size_t> top;
  std::string filter;
  std::string block;
  std::string group_by;
  size_t warmup = 0;
  std::string debug_buffer;
  std::string etrecord;
  std::string method = "forward";
  bool strict = false;
  bool source_columns = false;
  std::vector<std::string> columns;
  size_t max_values = 4;
  std::string find_total_for_module;
  std::string html;
  std::string program;
  bool pretty = false;
};

// The self-contained HTML report; the graph needs the program.
Status write_html(const Options& o, const inspect::Inspection& inspection, const std::string& etdump_path,
                  const std::shared_ptr<const InputFile>& debug_buffer) {
  render::ReportSources sources;
  sources.title = "et-inspect report: " + etdump_path;
  sources.files = {{"ETDump", etdump_path}};
  if (debug_buffer) {
    sources.files.push_back({"debug buffer", debug_buffer->path()});
    sources.debug_buffer = debug_buffer->bytes();
  }
  std::optional<rt::ProgramFile> program;
  if (!o.program.empty()) {
    ETKIT_ASSIGN_OR_RETURN(program, rt::open_program_file(o.program));
    sources.plan = render::default_method(program->program);
    if (!sources.plan) return bad_input("the program has no methods").at_file(program->file->path());
    sources.files.push_back({"program", program->file->path() + " (method " + sources.plan->name + ")"});
  }
  // The report notes them too; the terminal should not hide them.
  for (const auto& warning : render::main_block(inspection, sources.plan).warnings) {
    tools::print_warning(kTool, etdump_path + ": " + warning);
  }
  const std::string html = render::render_html_report(render::report_from_inspection(inspection, sources));
  return write_text_file(o.html, html);
}

// Problems with logged tensors belong to the debug buffer file.
Error in_file(Error error, const std::shared_ptr<const InputFile>& input,
              const std::shared_ptr<const InputFile>& debug_buffer) {
  const bool in_buffer = debug_buffer && error.message.rfind("debug buffer", 0) == 0;
  return std::move(error).at_file(in_buffer ? debug_buffer->path() : input->path());
}

Status check_has_events(const inspect::Inspection& inspection, const std::string& path) {
  size_t events = 0;
  for (const inspect::EventBlock& block : inspection.blocks) {
    if (block.events.empty()) {
      tools::print_warning(kTool, path + ": block '" + block.name +
                                      "' has no events and is left out (the Python Inspector fails on it)");
    }
    events += block.events.size();
  }
  if (events == 0) {
    return Error{ErrorKind::kBadInput, path, {}, "no events to inspect (every block is empty or has no events vector)"};
  }
  return {};
}

// The table's selections would be silently ignored by the trace, which
// holds every event of every block.
Status check_trace_options(const Options& o) {
  if (o.format != "chrome-trace") return {};
  const std::pair<const char*, bool> given[] = {{"--sort", !o.sort.empty()},         {"--top", o.top.has_value()},
                                                {"--filter", !o.filter.empty()},     {"--block", !o.block.empty()},
                                                {"--group-by", !o.group_by.empty()}, {"--columns", !o.columns.empty()},
                                                {"--source", o.source_columns}};
  for (const auto& [name, set] : given) {
    if (set) return Error{ErrorKind::kUsage, {}, {}, std::string(name) + " does not apply to --format chrome-trace"};
  }
  return {};
}

// et-run's default name for the debug buffer beside ETDUMP, used when it
// exists and none is given (as et-compare does).
std::string debug_buffer_path(const Options& o) {
  if (!o.debug_buffer.empty() || o.input == "-") return o.debug_buffer;
  std::error_code ec;
  const std::string beside = o.input + ".debug.bin";
  return std::filesystem::is_regular_file(beside, ec) ? beside : std::string();
}

Result<int> run(const Options& o) {
  if (o.input.empty()) return Error{ErrorKind::kUsage, {}, {}, "an ETDump is required: FILE or --etdump"};
  ETKIT_TRY(check_trace_options(o));
  inspect::BuildOptions build;
  build.source_time_scale = *inspect::parse_time_scale(o.source_time_scale);
  build.target_time_scale = *inspect::parse_time_scale(o.target_time_scale);
  ETKIT_TRY(inspect::time_scale_factor(build.source_time_scale, build.target_time_scale));
  // As the Python Inspector, the ETRecord is read before the ETDump.
  std::optional<inspect::RecordLinks> links;
  if (!o.etrecord.empty()) {
    ETKIT_ASSIGN_OR_RETURN(links, inspect::load_record_links(o.etrecord, o.method));
  }
  // One pass front to back over the dump: let the kernel read ahead.
  ETKIT_ASSIGN_OR_RETURN(auto input, InputFile::open(o.input, InputFile::Access::kSequential));
  std::shared_ptr<const InputFile> debug_buffer;
  if (const std::string buffer_path = debug_buffer_path(o); !buffer_path.empty()) {
    ETKIT_ASSIGN_OR_RETURN(debug_buffer, InputFile::open(buffer_path));
    build.debug_buffer = debug_buffer->bytes();
  }
  auto built = inspect::build_event_blocks(input->bytes(), build);
  if (!built) return in_file(std::move(built).error(), input, debug_buffer);
  inspect::Inspection inspection = std::move(built).value();
  // The model holds copies: unmapping the dump keeps peak memory at the
  // larger of reading and rendering, not their sum.
  const std::string path = input->path();
  input.reset();
  inspect::exclude_warmup(inspection, o.warmup);
  for (const std::string& warning : inspection.warnings) tools::print_warning(kTool, path + ": " + warning);
  // --strict: the table is still written; the exit code says it is partial.
  int exit_code = tools::kExitOk;
  if (links) {
    const size_t before = inspection.warnings.size();
    const inspect::LinkSummary linked = inspect::link_events(inspection, *links);
    for (size_t i = before; i < inspection.warnings.size(); ++i) {
      tools::print_warning(kTool, o.etrecord + ": " + inspection.warnings[i]);
    }
    if (o.strict && linked.linked < linked.linkable) {
      std::fprintf(stderr, "%s: strict: %zu of %zu events did not link to %s\n", kTool, linked.linkable - linked.linked,
                   linked.linkable, o.etrecord.c_str());
      exit_code = tools::kExitCheckFailed;
    }
  }

  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  if (!o.find_total_for_module.empty()) {
    if (!links) {
      tools::print_warning(kTool, "no ETRecord: events carry no module hierarchy, so every module totals 0.0");
    }
    const std::string total =
        inspect::py_repr_float(inspect::find_total_for_module(inspection, o.find_total_for_module)) + "\n";
    ETKIT_TRY(out->write_text(total));
    ETKIT_TRY(out->commit());
    return exit_code;
  }

  ETKIT_TRY(check_has_events(inspection, path));
  if (!o.html.empty()) ETKIT_TRY(write_html(o, inspection, path, debug_buffer));
  if (o.format == "chrome-trace") {
    ETKIT_ASSIGN_OR_RETURN(auto trace, render::trace_from_inspection(inspection));
    ETKIT_ASSIGN_OR_RETURN(const auto warnings, render::write_chrome_trace(trace, out->stream(), o.pretty));
    for (const std::string& warning : warnings) tools::print_warning(kTool, path + ": " + warning);
    ETKIT_TRY(out->commit());
    return exit_code;
  }
  inspect::ReportOptions report;
  report.format = *inspect::parse_output_format(o.format);
  report.view = o.group_by.empty() ? inspect::View::kEvents : inspect::View::kOpTypes;
  if (!o.filter.empty()) report.filter = o.filter;
  if (!o.block.empty()) report.block = o.block;
  if (!o.sort.empty()) report.sort = o.sort;
  report.top = o.top;
  if (debug_buffer) report.debug_buffer = debug_buffer->bytes();
  report.max_values = o.max_values;
  report.source_columns = o.source_columns;
  report.columns = o.columns;
  report.pretty = o.pretty;
  ETKIT_TRY(inspect::write_report(inspection, report, out->stream()));
  ETKIT_TRY(out->commit());
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Prints the Python Inspector's table (print_data_tabular) for an ETDump: one row per\n"
      "operator, delegate event and framework event, with p10/p50/p90/avg/min/max over the\n"
      "folded runs. Options sort, filter and summarise it, or write CSV, TSV, JSON, Markdown.",
      kTool};
  const std::vector<std::string> scales = {"ns", "us", "ms", "s", "cycles"};
  // Not ->required(): CLI11 would mark both spellings REQUIRED.
  app.add_option("FILE,--etdump", o.input, "ETDump (.etdp), required as FILE or --etdump; - reads standard input");
  app.add_option("-o,--output", o.output, "output file (written atomically); - is standard output")
      ->capture_default_str();
  auto* format =
      app.add_option("--format", o.format,
                     "table (print_data_tabular), csv, tsv (save_data_to_tsv), json, jsonl, markdown, chrome-trace "
                     "(Perfetto / chrome://tracing JSON)")
          ->check(CLI::IsMember({"table", "csv", "tsv", "json", "jsonl", "markdown", "chrome-trace"}))
          ->capture_default_str();
  app.add_flag("--pretty", o.pretty, "with --format json or chrome-trace: indent (default: compact)");
  app.add_option("--source-time-scale", o.source_time_scale, "unit of the ETDump's timestamps")
      ->check(CLI::IsMember(scales))
      ->capture_default_str();
  app.add_option("--target-time-scale", o.target_time_scale, "unit of the printed durations")
      ->check(CLI::IsMember(scales))
      ->capture_default_str();
  auto* sort = app.add_option("--sort", o.sort,
                              "sort each block's rows: p10 p50 p90 avg min max (largest first), name, instruction_id, "
                              "start_time, index");
  auto* top = app.add_option("--top", o.top, "at most N rows per block (sorted by avg unless --sort is given)")
                  ->check(tools::kCount);
  auto* filter = app.add_option(
      "--filter", o.filter,
      "keep events whose name matches this POSIX extended regular expression (searched anywhere in the name)");
  auto* block = app.add_option("--block", o.block, "keep the blocks with this name (e.g. Execute)");
  auto* group_by =
      app.add_option("--group-by", o.group_by, "op-type: count, total, average, share and cumulative share per op type")
          ->check(CLI::IsMember({"op-type"}));
  app.add_option("--warmup", o.warmup, "drop the first N samples (runs) of every event (alias --exclude-warmup)")
      ->check(tools::kCount);
  auto* etrecord = app.add_option(
      "--etrecord", o.etrecord,
      "the program's ETRecord: fills op_types, delegate_backend_name, stack traces and module hierarchy");
  app.add_option("--method", o.method, "with --etrecord: the method whose maps and graph link the events")
      ->capture_default_str()
      ->needs(etrecord);
  app.add_flag("--strict", o.strict, "with --etrecord: exit 1 unless every event (framework events aside) links")
      ->needs(etrecord);
  auto* columns = tools::one_per_occurrence(
      app.add_option("--columns", o.columns,
                     "only these columns, in this order, e.g. event_name,avg,module,source (stat names without unit "
                     "work); comma-separated or repeated")
          ->delimiter(','));
  auto* source =
      app.add_flag("--source", o.source_columns,
                   "add columns module (innermost nn.Module path) and source (file:line) from the --etrecord");
  app.add_option("--debug-buffer", o.debug_buffer,
                 "the run's debug buffer: summarise each event's logged values (default: ETDUMP.debug.bin if present)");
  app.add_option("--max-values", o.max_values, "with a debug buffer: tensor elements shown per value")
      ->check(tools::kCount)
      ->capture_default_str();
  auto* total =
      app.add_option("--find-total-for-module", o.find_total_for_module,
                     "print the module's total average time (Inspector.find_total_for_module) instead of the table");
  auto* html =
      app.add_option("--html", o.html, "also write a self-contained HTML report (table, charts, timeline, graph)");
  auto* program =
      app.add_option("--program", o.program, "with --html: the profiled program (.pte/.bpte), to draw its graph");
  // Options the chosen output would silently ignore are usage errors.
  for (CLI::Option* ignored : {html, format, sort, top, filter, block, group_by, columns, source}) {
    total->excludes(ignored);
  }
  program->needs(html);
  tools::add_quiet_flag(app);
  tools::AliasedArgs args(argc, argv,
                          {tools::kEtdumpPath, tools::kEtrecordPath, tools::kDebugBufferPath, tools::kSourceTimeScale,
                           tools::kTargetTimeScale, {"--exclude-warmup", "--warmup"}},
                          {"--columns"});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> { return run(o); });
}
