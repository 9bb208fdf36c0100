// et-record-inspect as a user runs it: outputs, exit codes, one-line errors.
#include <nlohmann/json.hpp>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

std::string q(const std::filesystem::path& p) { return test::shell_quote(p); }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::filesystem::path mul_2023() { return test::fixture("etrecord/mul_2023.etrecord"); }

const std::filesystem::path& demo_file() {
  static const std::filesystem::path path = [] {
    auto bytes = demo::lenet_etrecord(demo::lenet());
    REQUIRE(bytes.ok());
    const auto p = test::scratch_dir() / "lenet.etrecord";
    test::write_bytes(p, *bytes);
    return p;
  }();
  return path;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(text.substr(start, nl - start));
  return out;
}

// Cells of a table row (columns are separated by two or more spaces).
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  size_t i = row.find_first_not_of(' ');
  while (i != std::string::npos && i < row.size()) {
    size_t end = row.find("  ", i);
    if (end == std::string::npos) end = row.size();
    out.push_back(row.substr(i, end - i));
    i = row.find_first_not_of(' ', end);
    if (i == std::string::npos) break;
  }
  return out;
}

}  // namespace

TEST_CASE("et-record-inspect: summary of the 2023 fixture", "[cli][et-record-inspect]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = test::run_tool("et-record-inspect", q(mul_2023()));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto out = lines(r.out);
  REQUIRE_FALSE(out.empty());
  CHECK(out[0].find(": ETRecord from ExecuTorch v0.1 (inferred from: ") != std::string::npos);
  // The entry table of etrecord_spec.md §8: 6559 + 864 + 6652 + 864 + 2 + 2 = 14943 bytes.
  CHECK(r.out.find("entries (7, 14943 bytes of data)") != std::string::npos);
  bool seen_edge = false;
  for (const std::string& line : out) {
    const auto c = cells(line);
    if (c.size() == 3 && c[0] == "edge_dialect_exported_program") {
      seen_edge = true;
      CHECK(c[1] == "6652");
      CHECK(c[2] == "edge program");
    }
    if (!c.empty() && c[0] == "debug_handle_map" && c.size() == 2) CHECK(c[1] == "present, empty ({})");
    if (!c.empty() && c[0] == "instruction_id_to_num_outs_map") CHECK(c[1] == "absent");
    if (!c.empty() && c[0] == "edge_dialect_exported_program_state_dict" && c.size() == 2) {
      CHECK(c[1] == "readable: torch.save dict, empty");
    }
  }
  CHECK(seen_edge);
  CHECK(r.out.find("1 node (1 edge)  schema 1, wide unions") != std::string::npos);
}

TEST_CASE("et-record-inspect: the marker-only fixture has no content", "[cli][et-record-inspect]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto path = test::fixture("etrecord/marker_only.etrecord");
  auto r = test::run_tool("et-record-inspect", q(path));
  REQUIRE(r.exit_code == 0);
  CHECK(lines(r.out)[0] == path.string() + ": ETRecord without content (the writer failed): only the ETRECORD_V0 marker");
  auto nodes = test::run_tool("et-record-inspect", q(path) + " --nodes");
  CHECK(nodes.exit_code == 2);
  CHECK(nodes.out.empty());
  CHECK(nodes.err == "et-record-inspect: error: " + path.string() +
                         ": no edge program for method 'forward' (the etrecord has no content)\n");
}

TEST_CASE("et-record-inspect: node table and printout of the 2023 fixture", "[cli][et-record-inspect]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = test::run_tool("et-record-inspect", q(mul_2023()) + " --nodes");
  REQUIRE(r.exit_code == 0);
  const auto out = lines(r.out);
  REQUIRE(out.size() == 2);
  CHECK(cells(out[0]) == std::vector<std::string>{"#", "name", "op", "output", "debug_handle", "module", "source"});
  const auto row = cells(out[1]);
  REQUIRE(row.size() == 7);
  CHECK(row[1] == "aten_mul_tensor");
  CHECK(row[2] == "aten.mul.Tensor");
  CHECK(row[3] == "f32[3, 2]");
  CHECK(row[4] == "2");
  CHECK(row[5] == "-");
  CHECK(row[6].rfind("/data/", 0) == 0);
  CHECK(ends_with(row[6], "/examples/models/toy_model/model.py:18"));

  auto aten = test::run_tool("et-record-inspect", q(mul_2023()) + " --print --graph aten_dialect_output/forward");
  REQUIRE(aten.exit_code == 0);
  const auto text = lines(aten.out);
  REQUIRE(text.size() == 5);
  CHECK(text[0] == "graph aten_dialect_output/forward (method forward):");
  CHECK(text[1] == "    %arg0_1 : f32[3, 2] = placeholder  # user_input");
  CHECK(text[3].rfind("    %mul : f32[3, 2] = mul.Tensor(self=%arg0_1, other=%arg1_1)  # /", 0) == 0);
  CHECK(text[4] == "    return (%mul,)");
}

TEST_CASE("et-record-inspect: the model as JSON", "[cli][et-record-inspect]") {
  ETKIT_REQUIRE_FIXTURES();
  auto r = test::run_tool("et-record-inspect", q(mul_2023()) + " --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(doc["format"] == "etkit.etrecord/1");
  CHECK(doc["version"]["label"] == "v0.1");
  CHECK(doc["empty"] == false);
  REQUIRE(doc["entries"].size() == 7);
  CHECK(doc["entries"][3]["name"] == "edge_dialect_exported_program");
  CHECK(doc["entries"][3]["size"] == 6652);
  REQUIRE(doc["programs"].size() == 2);
  const json& node = doc["programs"][1]["program"]["graph"]["nodes"][0];
  CHECK(node["name"] == "aten_mul_tensor");
  CHECK(node["op"] == "aten.mul.Tensor");
  CHECK(node["debug_handle"] == 2);
  CHECK(node["source"]["line"] == 18);
  CHECK(node["source"]["code"] == "return input * other");
  CHECK(node["inputs"][0]["arg"]["value"]["ref"] == "arg0_1");
  CHECK(doc["programs"][1]["program"]["union_form"] == "wide");
  CHECK(doc["debug_handle_map"] == json::array());
  CHECK(doc["instruction_id_to_num_outs_map"].is_null());
  CHECK(doc["side_cars"][0]["status"] == "readable");

  // One graph only, with --graph.
  auto one = test::run_tool("et-record-inspect", q(mul_2023()) + " --format json --graph aten_dialect_output/forward");
  REQUIRE(one.exit_code == 0);
  CHECK(json::parse(one.out)["entry"] == "aten_dialect_output/forward");
}

TEST_CASE("et-record-inspect: the demo record, table and DOT", "[cli][et-record-inspect]") {
  auto nodes = test::run_tool("et-record-inspect", q(demo_file()) + " --nodes");
  INFO(nodes.err);
  REQUIRE(nodes.exit_code == 0);
  const auto out = lines(nodes.out);
  REQUIRE(out.size() == 16);  // header + 14 kernels + the elided flatten
  CHECK(cells(out[1]) == std::vector<std::string>{"0", "aten_convolution_default", "aten.convolution.default",
                                                   "f32[1, 6, 28, 28]", "1", "features.conv1", "examples/lenet.py:29"});
  CHECK(cells(out[7]) == std::vector<std::string>{"6", "aten_view_copy_default", "aten.view_copy.default", "f32[1, 400]",
                                                   "7", "<root>", "examples/lenet.py:63"});

  const auto dot_path = test::scratch_dir() / "lenet.dot";
  auto dot = test::run_tool("et-record-inspect", q(demo_file()) + " --format dot -o " + q(dot_path));
  REQUIRE(dot.exit_code == 0);
  CHECK(dot.out.empty());
  const auto bytes = test::read_bytes(dot_path);
  const std::string text(bytes.begin(), bytes.end());
  CHECK(text.rfind("digraph \"edge_dialect_exported_program/forward\" {", 0) == 0);
  CHECK(text.find("subgraph \"cluster_features.conv1\" {") != std::string::npos);
  CHECK(text.find("\"in:x\" -> \"n:aten_convolution_default\";") != std::string::npos);
  CHECK(text.find("\"n:aten_addmm_default_2\" -> \"output\";") != std::string::npos);
  // The cluster of conv1 lies inside the cluster of features.
  CHECK(text.find("subgraph \"cluster_features\" {") < text.find("subgraph \"cluster_features.conv1\" {"));
  if (test::run_shell("command -v dot").exit_code != 0) {
    WARN("skipped: Graphviz dot is not installed");
    return;
  }
  auto svg = test::run_shell("dot -Tsvg " + q(dot_path) + " -o /dev/null");
  INFO(svg.err);
  CHECK(svg.exit_code == 0);
  CHECK(svg.err.empty());
}

TEST_CASE("et-record-inspect: DOT nodes labelled with time shares from an ETDump", "[cli][et-record-inspect]") {
  // Instruction 0 (the first convolution, debug handle 1) takes 300 ns and
  // instruction 1 (its relu, handle 2) 100 ns: shares 75% and 25%.
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_convolution.out", 0, 0, 1010, 1290);
  w.add_profile_event("OPERATOR_CALL", 0, 0, 1000, 1300);
  w.add_profile_event("native_call_relu.out", 0, 1, 1310, 1390);
  w.add_profile_event("OPERATOR_CALL", 0, 1, 1300, 1400);
  const auto dump = test::scratch_dir() / "shares.etdp";
  test::write_bytes(dump, w.finish());

  auto dot = test::run_tool("et-record-inspect", q(demo_file()) + " --format dot --etdump " + q(dump));
  INFO(dot.err);
  REQUIRE(dot.exit_code == 0);
  std::string conv, relu, pool;
  for (const std::string& line : lines(dot.out)) {
    if (line.find("\"n:aten_convolution_default\" [") != std::string::npos) conv = line;
    if (line.find("\"n:aten_relu_default\" [") != std::string::npos) relu = line;
    if (line.find("\"n:aten_max_pool2d_with_indices_default\" [") != std::string::npos) pool = line;
  }
  CHECK(conv.find("lenet.py:29\\n75.0%\"") != std::string::npos);
  CHECK(conv.find("fillcolor") != std::string::npos);
  CHECK(relu.find("lenet.py:30\\n25.0%\"") != std::string::npos);
  REQUIRE(!pool.empty());
  CHECK(pool.find('%') == std::string::npos);  // no events: no share, default colour

  auto table = test::run_tool("et-record-inspect", q(demo_file()) + " --etdump " + q(dump));
  CHECK(table.exit_code == 2);
  CHECK(table.err.find("--etdump applies to --format dot") != std::string::npos);
}

TEST_CASE("et-record-inspect: standard input and --method", "[cli][et-record-inspect]") {
  auto r = test::run_tool("et-record-inspect", "- --nodes --method forward", demo_file().string());
  REQUIRE(r.exit_code == 0);
  CHECK(lines(r.out).size() == 16);
  auto other = test::run_tool("et-record-inspect", q(demo_file()) + " --nodes --method decode");
  CHECK(other.exit_code == 2);
  CHECK(other.err == "et-record-inspect: error: " + demo_file().string() + ": no edge program for method 'decode'\n");
}

TEST_CASE("et-record-inspect: bad input and usage exit 2 with one line", "[cli][et-record-inspect]") {
  const auto dir = test::scratch_dir();
  const auto missing = dir / "missing.etrecord";
  auto r = test::run_tool("et-record-inspect", q(missing));
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("et-record-inspect: error: " + missing.string() + ": ", 0) == 0);
  CHECK(lines(r.err).size() == 1);

  const auto text = dir / "text.etrecord";
  test::write_bytes(text, std::vector<uint8_t>(100, 'x'));
  auto not_zip = test::run_tool("et-record-inspect", q(text));
  CHECK(not_zip.exit_code == 2);
  CHECK(not_zip.err.rfind("et-record-inspect: error: " + text.string() + ": not a readable zip archive: ", 0) == 0);

  const auto plain = dir / "plain.zip";
  const std::string payload = "{}";
  test::write_bytes(plain, *etrecord::write_zip({{"debug_handle_map", ByteSpan(reinterpret_cast<const uint8_t*>(payload.data()), 2)}}));
  auto no_marker = test::run_tool("et-record-inspect", q(plain));
  CHECK(no_marker.exit_code == 2);
  CHECK(no_marker.err == "et-record-inspect: error: " + plain.string() + ": not an ETRecord: no ETRECORD_V0 entry among 1 zip entries\n");

  const auto bytes = test::read_bytes(demo_file());
  const auto truncated = dir / "truncated.etrecord";
  test::write_bytes(truncated, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2)));
  auto cut = test::run_tool("et-record-inspect", q(truncated));
  CHECK(cut.exit_code == 2);
  CHECK(lines(cut.err).size() == 1);

  auto graph = test::run_tool("et-record-inspect", q(demo_file()) + " --nodes --graph nope");
  CHECK(graph.exit_code == 2);
  CHECK(graph.err == "et-record-inspect: error: " + demo_file().string() +
                         ": no graph 'nope' (graphs: edge_dialect_exported_program/forward)\n");
  CHECK(test::run_tool("et-record-inspect", q(demo_file()) + " --format xml").exit_code == 2);
  CHECK(test::run_tool("et-record-inspect", q(demo_file()) + " --nodes --print").exit_code == 2);
  auto dot_nodes = test::run_tool("et-record-inspect", q(demo_file()) + " --format dot --nodes");
  CHECK(dot_nodes.exit_code == 2);
  CHECK(dot_nodes.err == "et-record-inspect: error: --nodes and --print apply to --format table and json\n");
  // A failed run leaves no output file behind.
  const auto out = dir / "out.txt";
  CHECK(test::run_tool("et-record-inspect", q(truncated) + " -o " + q(out)).exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(out));
}
