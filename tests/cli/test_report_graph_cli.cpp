// et-graph as a user runs it: DOT on stdout, time shares from an ETDump,
// Graphviz rendering, and the errors for a wrong method or a foreign ETDump.
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

// x[2] -> mul(x, c) -> y -> relu -> z.
struct GraphFiles {
  std::filesystem::path pte, etdump, foreign_etdump;
};

const GraphFiles& graph_files() {
  static const GraphFiles files = [] {
    GraphFiles f;
    const auto dir = test::scratch_dir();
    f.pte = dir / "model.pte";
    test::write_bytes(f.pte, *pte::write_program(test::mul_relu_program()));

    // Instruction 0 takes 300 ns, instruction 1 takes 100 ns.
    etdump::EtDumpWriter w;
    w.begin_block("Default");
    w.add_profile_event("Method::init", -1, 0, 0, 10);
    w.begin_block("Execute");
    w.add_profile_event("native_call_mul.out", 0, 0, 110, 390);
    w.add_profile_event("OPERATOR_CALL", 0, 0, 100, 400);
    w.add_profile_event("native_call_relu.out", 0, 1, 405, 495);
    w.add_profile_event("OPERATOR_CALL", 0, 1, 400, 500);
    w.add_profile_event("Method::execute", -1, 0, 90, 510);
    f.etdump = dir / "run.etdp";
    test::write_bytes(f.etdump, w.finish());

    w.begin_block("Execute");
    w.add_profile_event("OPERATOR_CALL", 0, 7, 100, 400);
    f.foreign_etdump = dir / "foreign.etdp";
    test::write_bytes(f.foreign_etdump, w.finish());
    return f;
  }();
  return files;
}

}  // namespace

TEST_CASE("et-graph writes the dataflow graph of a method as DOT", "[report][graph][cli]") {
  const auto r = test::run_tool("et-graph", test::shell_quote(graph_files().pte));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\"in_0\" -> \"i0\" [label=\"v0 FLOAT[2]\"];") != std::string::npos);
  CHECK(r.out.find("\"const_1\" -> \"i0\" [label=\"v1 FLOAT[2]\"];") != std::string::npos);
  CHECK(r.out.find("\"i0\" -> \"i1\" [label=\"v2 FLOAT[2]\"];") != std::string::npos);
  CHECK(r.out.find("\"i1\" -> \"out_0\" [label=\"v3 FLOAT[2]\"];") != std::string::npos);
  CHECK(r.out.find("%") == std::string::npos);  // no shares without an ETDump
}

TEST_CASE("et-graph --etdump labels instructions with their time share", "[report][graph][cli]") {
  const auto r = test::run_tool(
      "et-graph", test::shell_quote(graph_files().pte) + " --etdump " + test::shell_quote(graph_files().etdump));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  // OPERATOR_CALL spans: 300 and 100 ns -> 75% and 25%.
  CHECK(r.out.find("label=\"#0 aten::mul.out\\n75.0%\"") != std::string::npos);
  CHECK(r.out.find("label=\"#1 aten::relu.out\\n25.0%\"") != std::string::npos);
}

TEST_CASE("et-graph --etdump: of several Execute blocks, the one that fits the method, with a warning",
          "[report][graph][cli]") {
  // Block 0: three runs of another method (relu at #0 only); block 1: the
  // run of this one, as in graph_files().etdump.
  etdump::EtDumpWriter w;
  for (uint64_t run = 0; run < 3; ++run) {
    w.begin_block("Execute");
    w.add_profile_event("native_call_relu.out", 0, 0, 1000 * run + 10, 1000 * run + 90);
    w.add_profile_event("OPERATOR_CALL", 0, 0, 1000 * run, 1000 * run + 100);
  }
  w.begin_block("Execute");
  w.add_profile_event("native_call_mul.out", 0, 0, 5110, 5390);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 5100, 5400);
  w.add_profile_event("native_call_relu.out", 0, 1, 5405, 5495);
  w.add_profile_event("OPERATOR_CALL", 0, 1, 5400, 5500);
  const auto dump = test::scratch_dir() / "two_methods.etdp";
  test::write_bytes(dump, w.finish());

  const auto r =
      test::run_tool("et-graph", test::shell_quote(graph_files().pte) + " --etdump " + test::shell_quote(dump));
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "et-graph: warning: " + dump.string() +
                     ": the ETDump has 2 'Execute' blocks with different events (runs of other methods, or runs that "
                     "took other paths): the times are from block 1 (1 run), the one that fits method 'forward' "
                     "best\n");
  CHECK(r.out.find("label=\"#0 aten::mul.out\\n75.0%\"") != std::string::npos);
  CHECK(r.out.find("label=\"#1 aten::relu.out\\n25.0%\"") != std::string::npos);
}

TEST_CASE("et-graph --etdump warns about events that do not fit the method", "[report][graph][cli]") {
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_add.out", 0, 0, 110, 390);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 100, 400);
  const auto dump = test::scratch_dir() / "add.etdp";
  test::write_bytes(dump, w.finish());
  const auto r =
      test::run_tool("et-graph", test::shell_quote(graph_files().pte) + " --etdump " + test::shell_quote(dump));
  CHECK(r.exit_code == 0);
  CHECK(r.err == "et-graph: warning: " + dump.string() +
                     ": block 0: 1 of 2 instruction events do not fit method 'forward' (an ETDump of another method "
                     "or program?), e.g. 'native_call_add.out' at #0, which is aten::mul.out\n");
}

TEST_CASE("et-graph rejects an unknown method and an ETDump of another program", "[report][graph][cli]") {
  auto r = test::run_tool("et-graph", test::shell_quote(graph_files().pte) + " --method nope");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-graph: error: " + graph_files().pte.string() + ": no method 'nope' (methods: forward)\n");
  CHECK(r.out.empty());

  r = test::run_tool("et-graph", test::shell_quote(graph_files().pte) + " --etdump " +
                                     test::shell_quote(graph_files().foreign_etdump));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-graph: error: " + graph_files().foreign_etdump.string() +
                     ": has events for instruction #7, which method 'forward' does not have (an ETDump of another "
                     "program?)\n");
}

TEST_CASE("et-graph --format svg renders with Graphviz", "[report][graph][cli]") {
  if (test::run_shell("command -v dot").exit_code != 0) {
    WARN("skipped: graphviz 'dot' is not installed");
    return;
  }
  const auto out = test::scratch_dir() / "graph.svg";
  const auto r =
      test::run_tool("et-graph", test::shell_quote(graph_files().pte) + " --format svg -o " + test::shell_quote(out));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto bytes = test::read_bytes(out);
  const std::string svg(bytes.begin(), bytes.end());
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("#1 aten::relu.out") != std::string::npos);
}
