// et-graph: the instruction graph of a .pte method (values as edges,
// delegate calls as clusters) as Graphviz DOT, or rendered by Graphviz;
// with --etdump, instructions are coloured and labelled by time share.
#include "libcore/inspect/event_blocks.h"
#include "libcore/render/graphviz.h"
#include "libcore/render/inspect_report.h"
#include "libcore/render/program_graph_dot.h"
#include "libcore/support/file.h"
#include "runner/program_file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;

namespace {

struct Options {
  std::string model;
  std::string method;
  std::string etdump;
  std::string format = "dot";
  std::string output = "-";
};

Result<int> run(const Options& o) {
  ETKIT_ASSIGN_OR_RETURN(auto pf, rt::open_program_file(o.model));
  const auto& plans = pf.program.execution_plan;
  const pte::ExecutionPlan* plan =
      o.method.empty() ? render::default_method(pf.program) : pf.program.find_method(o.method);
  if (!plan) {
    std::string names;
    for (const auto& p : plans) names += (names.empty() ? "" : ", ") + p.name;
    return Error{
        ErrorKind::kUsage,
        pf.file->path(),
        {},
        o.method.empty() ? "the program has no methods" : "no method '" + o.method + "' (methods: " + names + ")"};
  }
  auto graph = render::build_program_graph(*plan);
  if (!graph) return std::move(graph).error().at_file(pf.file->path());

  render::GraphDotOptions options;
  if (!o.etdump.empty()) {
    ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(o.etdump, InputFile::Access::kSequential));
    auto inspection = inspect::build_event_blocks(file->bytes());
    if (!inspection) return std::move(inspection).error().at_file(file->path());
    auto shares = render::instruction_time_shares(*inspection, plan);
    for (const auto& [ref, share] : shares.share) {
      if (!graph->find(ref)) {
        return bad_input("has events for instruction " + render::instruction_label(ref) + ", which method '" +
                         plan->name + "' does not have (an ETDump of another program?)")
            .at_file(file->path());
      }
    }
    for (const auto& warning : shares.warnings) tools::print_warning("et-graph", file->path() + ": " + warning);
    options.time_share = std::move(shares.share);
  }

  const std::string dot = render::program_graph_to_dot(*graph, options);
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  if (o.format == "dot") {
    ETKIT_TRY(out->write_text(dot));
  } else {
    ETKIT_ASSIGN_OR_RETURN(auto rendered, render::render_dot(dot, o.format));
    ETKIT_TRY(out->write(ByteSpan(rendered)));
  }
  ETKIT_TRY(out->commit());
  return tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Draws the instructions of one method of an ExecuTorch program (.pte, or the program\n"
      "inside a .bpte) as a dataflow graph: one node per instruction, method input/output\n"
      "and constant, values as edges, delegate calls grouped per backend. With --etdump,\n"
      "instructions are labelled with their share of the execution time and coloured\n"
      "from white to red.",
      "et-graph"};
  app.add_option("MODEL", o.model, "program (.pte or .bpte)")->required();
  app.add_option("--method", o.method, "method name (default: forward, else the program's first method)");
  app.add_option("--etdump", o.etdump, "ETDump of runs of this method: colour nodes by time share");
  app.add_option("--format", o.format, "dot (text), or a Graphviz output format (svg, png, pdf) rendered by 'dot'")
      ->capture_default_str();
  app.add_option("-o,--output", o.output, "output file (written atomically); - is standard output")
      ->capture_default_str();
  tools::add_quiet_flag(app);
  tools::AliasedArgs args(argc, argv, {tools::kEtdumpPath});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> { return run(o); });
}
