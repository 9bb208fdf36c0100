// et-record-inspect: what an ETRecord holds (summary), one graph's nodes as a
// table or as text, the whole model as JSON, or a graph as Graphviz DOT.
#include <map>
#include <string>

#include "libcore/formats/etrecord/etrecord_json.h"
#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/inspect/etrecord_links.h"
#include "libcore/inspect/link.h"
#include "libcore/render/etrecord_dot.h"
#include "libcore/render/etrecord_text.h"
#include "libcore/support/file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;
using namespace etkit::etrecord;
using namespace etkit::render;

namespace {

struct Options {
  std::string input;
  std::string output = "-";
  std::string format = "table";
  std::string graph;
  std::string method = "forward";
  bool nodes = false;
  bool print = false;
  bool pretty = false;
  std::string etdump;
};

// --etdump with --format dot: the run's time share per debug handle, linked
// through this ETRecord's maps as et-inspect links it.
Result<std::map<int64_t, double>> handle_shares(const EtRecord& record, const Options& o) {
  if (o.etdump.empty()) return std::map<int64_t, double>{};
  ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(o.etdump, InputFile::Access::kSequential));
  auto inspection = inspect::build_event_blocks(file->bytes());
  if (!inspection) return std::move(inspection).error().at_file(file->path());
  auto links = inspect::links_from_etrecord(record, o.method);
  if (!links) return std::move(links).error().at_file(o.input);
  inspect::link_events(*inspection, *links);
  return debug_handle_time_shares(*inspection);
}

// --graph NAME: an entry name, or "edge" / "aten"; default: the edge program
// of --method (or the only edge program).
Result<const Program*> select_graph(const EtRecord& record, const Options& o) {
  if (o.graph.empty() || o.graph == "edge") {
    if (const Program* p = record.edge_program(o.method)) return p;
    if (o.graph.empty() && o.method == "forward" && record.edge_program_count() == 1) {
      for (const Program& p : record.programs) {
        if (p.kind == EntryKind::kEdgeProgram) return &p;
      }
    }
    return Error{ErrorKind::kUsage, {}, {}, "no edge program for method '" + o.method + "'" +
                                                (record.empty() ? " (the etrecord has no content)" : "")};
  }
  if (o.graph == "aten") {
    if (const Program* p = record.find_program("exported_program")) return p;
    return Error{ErrorKind::kUsage, {}, {}, "no exported_program (ATen) entry"};
  }
  if (const Program* p = record.find_program(o.graph)) return p;
  std::string names;
  for (const Program& p : record.programs) names += (names.empty() ? "" : ", ") + p.entry;
  return Error{ErrorKind::kUsage, {}, {}, "no graph '" + o.graph + "' (graphs: " + (names.empty() ? "none" : names) + ")"};
}

Result<int> run(const Options& o) {
  auto record = read_etrecord_file(o.input);
  if (!record) return std::move(record).error();
  const std::string& file = o.input;
  const bool whole_record = o.graph.empty() && !o.nodes && !o.print;

  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  std::string text;
  if (o.format == "json") {
    if (whole_record) {
      ETKIT_TRY(write_etrecord_json(*record, file, out->stream(), o.pretty));
    } else {
      auto program = select_graph(*record, o);
      if (!program) return std::move(program).error().at_file(file);
      ETKIT_TRY(write_program_json(**program, out->stream(), o.pretty));
    }
  } else if (o.format == "dot") {
    auto program = select_graph(*record, o);
    if (!program) return std::move(program).error().at_file(file);
    ETKIT_ASSIGN_OR_RETURN(const auto shares, handle_shares(*record, o));
    text = graph_dot(**program, shares);
  } else if (whole_record) {
    text = summary_text(*record, file);
  } else {
    auto program = select_graph(*record, o);
    if (!program) return std::move(program).error().at_file(file);
    text = o.print ? graph_text(**program) : nodes_table(**program);
  }
  ETKIT_TRY(out->write_text(text));
  ETKIT_TRY(out->commit());
  return tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Shows what an ExecuTorch ETRecord holds: by default a summary (version inferred from the\n"
      "entries, entries with sizes, graphs with node counts, the runtime-link maps, side-cars and\n"
      "whether they are readable without Python). --nodes lists a graph's nodes (op, output\n"
      "dtype/shape, debug handle, module path, source line); --print prints the graph as text;\n"
      "--format json writes the whole model (or one graph with --graph/--nodes/--print);\n"
      "--format dot writes a graph for Graphviz, clustered by module.",
      "et-record-inspect"};
  // Not ->required(): CLI11 would mark both spellings REQUIRED.
  app.add_option("ETRECORD,--etrecord", o.input,
                 "the ETRecord (a ZIP), required as ETRECORD or --etrecord; - reads standard input");
  app.add_option("--graph", o.graph,
                 "graph to show: an entry name (e.g. aten_dialect_output/forward), 'edge' or 'aten'; "
                 "default: the edge program of --method");
  app.add_option("--method", o.method, "method whose edge program to show")->capture_default_str();
  auto* nodes = app.add_flag("--nodes", o.nodes, "table of the graph's nodes");
  auto* print = app.add_flag("--print", o.print, "the graph as text, one line per node");
  nodes->excludes(print);
  app.add_option("--format", o.format, "table (default), json or dot")
      ->check(CLI::IsMember({"table", "json", "dot"}))
      ->capture_default_str();
  app.add_flag("--pretty", o.pretty, "with --format json: indent");
  app.add_option("--etdump", o.etdump,
                 "with --format dot: label and colour nodes by their share of the execution time in this ETDump");
  app.add_option("-o,--output", o.output, "output file (written atomically); - is standard output")
      ->capture_default_str();
  tools::add_quiet_flag(app);
  tools::AliasedArgs args(argc, argv, {tools::kEtdumpPath, tools::kEtrecordPath});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> {
    if (o.input.empty()) return Error{ErrorKind::kUsage, {}, {}, "an ETRecord is required: ETRECORD or --etrecord"};
    if (!o.etdump.empty() && o.format != "dot") {
      return Error{ErrorKind::kUsage, {}, {}, "--etdump applies to --format dot"};
    }
    if (o.format == "dot" && (o.nodes || o.print)) {
      return Error{ErrorKind::kUsage, {}, {}, "--nodes and --print apply to --format table and json"};
    }
    return run(o);
  });
}
