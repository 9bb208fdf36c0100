// et-fleet as a user runs it, on ETDumps whose kernel times were chosen
// (examples/fleet_lab.h writes exactly the durations asked for), so every
// number in the long table, the wide table and the gate's verdict is derived
// by hand in the comments below.
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "examples/fleet_lab.h"
#include "tests/cli/test_report_browser_check.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

std::string q(const std::filesystem::path& p) { return test::shell_quote(p); }

std::vector<std::vector<demo::KernelTime>> conv_add(const std::vector<std::pair<double, double>>& times) {
  std::vector<std::vector<demo::KernelTime>> out;
  for (auto [conv, add] : times) out.push_back({{"convolution.out", conv}, {"add.out", add}});
  return out;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The device lab of the compare tests, times in us (--time-unit us):
//   pi/a.etdp      conv 100 110 120   add 20 20 20
//   pi/b.etdp      conv 130 140 150   add 22 24 26
//   pixel/c.etdp   conv  50  60  70   add 10 10 40
//   mixed.etdp     conv 100 and mul.out 10: another program (its own manifest)
// Method::execute of one execution: 1 us before, each kernel plus 1 us
// (OPERATOR_CALL's overhead), 1 us after: conv + add + 4.
struct Lab {
  std::filesystem::path dir, manifest, mixed_manifest, a, b, c, mixed;
};

const Lab& lab() {
  static const Lab lab = [] {
    Lab l;
    l.dir = test::scratch_dir();
    std::filesystem::create_directories(l.dir / "pi");
    std::filesystem::create_directories(l.dir / "pixel");
    l.a = l.dir / "pi" / "a.etdp";
    l.b = l.dir / "pi" / "b.etdp";
    l.c = l.dir / "pixel" / "c.etdp";
    l.mixed = l.dir / "mixed.etdp";
    test::write_bytes(l.a, demo::profiled_etdump(conv_add({{100, 20}, {110, 20}, {120, 20}})));
    test::write_bytes(l.b, demo::profiled_etdump(conv_add({{130, 22}, {140, 24}, {150, 26}})));
    test::write_bytes(l.c, demo::profiled_etdump(conv_add({{50, 10}, {60, 10}, {70, 40}})));
    test::write_bytes(l.mixed, demo::profiled_etdump({{{"convolution.out", 100}, {"mul.out", 10}}}));
    l.manifest = l.dir / "lab.tsv";
    // Relative paths are relative to the manifest; the free-form column
    // "build" is a label like device.
    write_text(l.manifest, "path\tdevice\tbuild\npi/a.etdp\tpi\t7\npi/b.etdp\tpi\t7\npixel/c.etdp\tpixel\t7\n");
    l.mixed_manifest = l.dir / "mixed.tsv";
    write_text(l.mixed_manifest, "path\tdevice\npi/a.etdp\tpi\nmixed.etdp\tpixel\n");
    return l;
  }();
  return lab;
}

std::vector<json> jsonl(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

}  // namespace

TEST_CASE("et-fleet collect: JSON Lines, one row per run, event and sample", "[cli][et-fleet]") {
  const Lab& l = lab();
  auto r = test::run_tool("et-fleet", "collect --manifest " + q(l.manifest) + " --time-unit us -j 2");
  REQUIRE(r.exit_code == 0);
  const auto rows = jsonl(r.out);
  // Per file: Default block (Method::init, Program::load_method: 1 sample
  // each), Execute block (conv, add, Method::execute: 3 samples each;
  // OPERATOR_CALL left out) = 2 + 9 = 11 rows; 3 files = 33.
  REQUIRE(rows.size() == 33);
  // Input order, whatever finished first with -j 2: run ids 1, 2, 3.
  CHECK(rows.front()["run_id"] == 1);
  CHECK(rows[11]["run_id"] == 2);
  CHECK(rows.back()["run_id"] == 3);
  for (const json& row : rows) {
    CHECK(row["format"] == "etkit.fleet-events/1");
    CHECK(row["unit"] == "us");
  }
  // b.etdp, second execution: conv 140 us, add 24 us, Method::execute 140 + 24 + 4.
  std::map<std::string, json> b1;
  for (const json& row : rows)
    if (row["run_id"] == 2 && row["block"] == "Execute" && row["sample"] == 1) b1[row["event_name"]] = row;
  REQUIRE(b1.size() == 3);
  CHECK(b1["native_call_convolution.out"]["duration"] == 140.0);
  CHECK(b1["native_call_convolution.out"]["op_type"] == "convolution.out");
  CHECK(b1["native_call_convolution.out"]["instruction_id"] == 0);
  CHECK(b1["native_call_convolution.out"]["chain_index"] == 0);
  CHECK(b1["native_call_convolution.out"]["counted"] == true);
  CHECK(b1["native_call_add.out"]["duration"] == 24.0);
  CHECK(b1["native_call_add.out"]["instruction_id"] == 1);
  CHECK(b1["Method::execute"]["duration"] == 168.0);
  CHECK(b1["Method::execute"]["counted"] == false);
  CHECK(b1["Method::execute"]["labels"] == json{{"device", "pi"}, {"build", "7"}});
  CHECK(b1["Method::execute"]["file"] == (l.dir / "pi" / "b.etdp").string());
  CHECK(b1["Method::execute"]["module"].is_null());
  // One program: a and c have the same events, so the same signature.
  CHECK(rows.front()["program"] == rows.back()["program"]);
}

TEST_CASE("et-fleet collect: CSV with the labels as columns", "[cli][et-fleet]") {
  const Lab& l = lab();
  auto r = test::run_tool("et-fleet", "collect --manifest " + q(l.manifest) + " --format csv --time-unit us");
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::string header, line;
  std::getline(in, header);
  CHECK(header ==
        "format,unit,run_id,file,device,build,program,block_index,block,sample,event_index,event_name,instruction_id,"
        "chain_index,delegate_debug_identifier,debug_handles,op_type,module,counted,duration");
  size_t lines = 0;
  bool found = false;
  while (std::getline(in, line)) {
    ++lines;
    CHECK(line.rfind("etkit.fleet-events/1,us,", 0) == 0);
    // c.etdp (run 3), third execution: add 40 us.
    if (line.find(",3," + (l.dir / "pixel" / "c.etdp").string() + ",pixel,7,") != std::string::npos &&
        line.find(",Execute,2,") != std::string::npos && line.find("native_call_add.out") != std::string::npos) {
      CHECK(line.substr(line.size() - 17) == ",add.out,,true,40");
      found = true;
    }
  }
  CHECK(lines == 33);
  CHECK(found);
}

TEST_CASE("et-fleet collect: SQLite database and the documented queries with the sqlite3 CLI", "[cli][et-fleet]") {
  const Lab& l = lab();
  const auto db = l.dir / "lab.db";
  auto r = test::run_tool("et-fleet", "collect --manifest " + q(l.manifest) + " --format sqlite --time-unit us -o " + q(db));
  REQUIRE(r.exit_code == 0);
  REQUIRE(std::filesystem::exists(db));
  // No temporary file is left beside it.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(l.dir))
    files += e.path().filename().string().rfind("lab.db", 0) == 0;
  CHECK(files == 1);
  // The permissions of any new file (mkstemp's 0600 would hide it from the group).
  write_text(l.dir / "plain.txt", "");
  CHECK(std::filesystem::status(db).permissions() == std::filesystem::status(l.dir / "plain.txt").permissions());

  // The queries of docs/tools/et-fleet.md, verbatim (the doc must hold them).
  const std::string doc = read_text(std::filesystem::path(ETKIT_SCRIPTS_DIR) / ".." / "docs" / "tools" / "et-fleet.md");
  auto sql = [&](const std::string& query) {
    INFO(query);
    CHECK(doc.find(query) != std::string::npos);
    auto out = test::run_shell("sqlite3 " + q(db) + " " + q(query));
    REQUIRE(out.exit_code == 0);
    return out.out;
  };
  // Average op time per device over every sample:
  //   pi conv (100+110+120+130+140+150)/6 = 125, pi add (20*3+22+24+26)/6 = 22,
  //   pixel conv 60, pixel add (10+10+40)/3 = 20.
  CHECK(sql("SELECT r.device, e.op_type, COUNT(*) AS samples, AVG(e.duration) AS avg_time FROM events e "
            "JOIN runs r USING (run_id) WHERE e.counted GROUP BY r.device, e.op_type ORDER BY r.device, e.op_type;") ==
        "pi|add.out|6|22.0\npi|convolution.out|6|125.0\npixel|add.out|3|20.0\npixel|convolution.out|3|60.0\n");
  // The slowest execution of each file: Method::execute = conv + add + 4
  //   a: 120+20+4 = 144, b: 150+26+4 = 180, c: 70+40+4 = 114 (of 64, 74, 114).
  CHECK(sql("SELECT r.file, MAX(e.duration) FROM events e JOIN runs r USING (run_id) "
            "WHERE e.event_name = 'Method::execute' GROUP BY r.run_id ORDER BY r.run_id;") ==
        l.a.string() + "|144.0\n" + l.b.string() + "|180.0\n" + l.c.string() + "|114.0\n");
  CHECK(sql("SELECT value FROM meta WHERE key = 'unit';") == "us\n");
  CHECK(sql("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' ORDER BY name;") ==
        "runs_label_0\nruns_label_1\nruns_program\n");
}

TEST_CASE("et-fleet collect: a bad file is skipped with a warning, or refused with --strict", "[cli][et-fleet]") {
  const Lab& l = lab();
  const auto dir = test::scratch_dir();
  std::filesystem::copy_file(l.a, dir / "a.etdp");
  write_text(dir / "broken.etdp", "not an etdump at all");
  std::filesystem::create_directories(dir / "sub");
  std::filesystem::copy_file(l.c, dir / "sub" / "c.etdp");
  // Directories are searched recursively, sorted: a, broken, sub/c.
  auto r = test::run_tool("et-fleet", "collect " + q(dir) + " --format csv");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("et-fleet: warning: " + (dir / "broken.etdp").string()) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1 + 22);
  // Run ids are input positions: c is run 3 though broken (2) was skipped.
  CHECK(r.out.find(",3," + (dir / "sub" / "c.etdp").string() + ",") != std::string::npos);

  const auto out = dir / "out.csv";
  r = test::run_tool("et-fleet", "collect " + q(dir) + " --strict --format csv -o " + q(out));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("et-fleet: error: " + (dir / "broken.etdp").string()) == 0);
  CHECK_FALSE(std::filesystem::exists(out));
  for (const auto& e : std::filesystem::directory_iterator(dir)) CHECK(e.path().filename().string().find("out.csv") == std::string::npos);

  r = test::run_tool("et-fleet", "collect " + q(dir) + " --quiet --format csv");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());

  // Only bad files: exit 2 and no table (not a header alone), whatever the format.
  const auto only_bad = dir / "broken.etdp";
  r = test::run_tool("et-fleet", "collect " + q(only_bad) + " --format csv -o " + q(out));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("et-fleet: warning: " + only_bad.string()) == 0);
  CHECK(r.err.find("et-fleet: error: no input could be read\n") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  r = test::run_tool("et-fleet", "collect " + q(only_bad) + " -q --format sqlite -o " + q(dir / "out.db"));
  CHECK(r.exit_code == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "out.db"));
}

TEST_CASE("et-fleet collect: usage errors", "[cli][et-fleet]") {
  const Lab& l = lab();
  auto r = test::run_tool("et-fleet", "collect --manifest " + q(l.manifest) + " --format sqlite");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("needs -o FILE") != std::string::npos);
  const auto bad = l.dir / "bad.tsv";
  write_text(bad, "path\tdevice\npi/a.etdp\n");
  r = test::run_tool("et-fleet", "collect --manifest " + q(bad));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-fleet: error: " + bad.string() + ": line 2: 1 fields, the header has 2\n");
  write_text(bad, "path\tduration\npi/a.etdp\t1\n");
  r = test::run_tool("et-fleet", "collect --manifest " + q(bad));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("'duration' is a column of the long table") != std::string::npos);
  r = test::run_tool("et-fleet", "collect");
  CHECK(r.exit_code == 2);
}

TEST_CASE("et-fleet compare: p50 by device, ratio to the baseline, share", "[cli][et-fleet]") {
  const Lab& l = lab();
  // Pooled samples per device (one per execution):
  //   pi conv {100..150 by 10}: p50 = (120+130)/2 = 125; pi add {20,20,20,22,24,26}: (20+22)/2 = 21
  //   pixel conv {50,60,70}: 60; pixel add {10,10,40}: 10
  // Baseline pi (first as sorted). Ratios: conv 60/125 = 0.48, add 10/21.
  // Shares of the column's p50 sum: pi 125/146 and 21/146, pixel 60/70 and 10/70.
  auto r = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by device --time-unit us --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(doc["format"] == "etkit.fleet/1");
  CHECK(doc["command"] == "compare");
  CHECK(doc["columns"] == json{"op_type", "p50:pi", "ratio:pi", "share:pi", "p50:pixel", "ratio:pixel", "share:pixel"});
  CHECK(doc["units"]["p50:pi"] == "us");
  CHECK(doc["units"]["share:pixel"] == "%");
  REQUIRE(doc["rows"].size() == 2);
  const json& conv = doc["rows"][0];  // largest baseline p50 first
  const json& add = doc["rows"][1];
  CHECK(conv["op_type"] == "convolution.out");
  CHECK(conv["p50:pi"] == 125.0);
  CHECK(conv["ratio:pi"] == 1.0);
  CHECK(conv["share:pi"].get<double>() == Approx(100.0 * 125 / 146));
  CHECK(conv["p50:pixel"] == 60.0);
  CHECK(conv["ratio:pixel"] == 0.48);
  CHECK(conv["share:pixel"].get<double>() == Approx(100.0 * 60 / 70));
  CHECK(add["op_type"] == "add.out");
  CHECK(add["p50:pi"] == 21.0);
  CHECK(add["p50:pixel"] == 10.0);
  CHECK(add["ratio:pixel"].get<double>() == Approx(10.0 / 21));
  CHECK(add["share:pi"].get<double>() == Approx(100.0 * 21 / 146));
  CHECK(doc["summary"]["baseline"] == "pi");
  CHECK(doc["summary"]["runs"] == 3);

  // --baseline pixel: ratios to pixel (conv 125/60, add 21/10); --sort op_type; --top 1.
  r = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) +
                                     " --by device --baseline pixel --sort op_type --top 1 --time-unit us --format csv");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        "op_type,p50:pi,ratio:pi,share:pi,p50:pixel,ratio:pixel,share:pixel\n"
        "add.out,21,2.1,14.383561643835616,10,1,14.285714285714286\n");
  // text is the brief's name for the table.
  auto text = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by device --format text");
  auto table = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by device");
  CHECK(text.exit_code == 0);
  CHECK(text.out == table.out);
  CHECK(text.out.rfind("op_type", 0) == 0);
  // --filter on the op type; the share stays the share of the whole column.
  r = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by device --filter '^conv' --time-unit us --format markdown");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("convolution.out") != std::string::npos);
  CHECK(r.out.find("add.out") == std::string::npos);
  CHECK(r.out.find("85.6164") != std::string::npos);  // 100 * 125/146
}

TEST_CASE("et-fleet compare --html: the wide table with heat colours and sparklines, in Chromium", "[cli][et-fleet][browser]") {
  const Lab& l = lab();
  const auto dir = test::scratch_dir();
  const auto html = dir / "fleet.html";
  auto r = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by device --time-unit us --html " +
                                          q(html) + " --format csv -o " + q(dir / "wide.csv"));
  REQUIRE(r.exit_code == 0);
  const std::string page = read_text(html);
  // Values from the compare test: pixel's conv 60 us is x0.48 of pi's 125,
  // faster than the baseline, so white; pi's own cells are the baseline.
  CHECK(page.find("<td class=\"num\" data-v=\"60\" title=\"pixel: p50 60 us, x0.48 of pi, 85.7143% of the column\" "
                  "style=\"background:#ffffff\">60 <span class=\"muted\">x0.48</span></td>") != std::string::npos);
  CHECK(page.find("<td class=\"num\" data-v=\"125\" title=\"pi: p50 125 us, x1 of pi, 85.6164% of the column\"") !=
        std::string::npos);
  CHECK(page.find("id=\"event-table\"") == std::string::npos);  // no per-event table for many runs
  // Two columns, so each sparkline has two points: conv 125 -> 60 falls from
  // the top (y 2) to the bottom (y 22) of the 24-pixel box.
  CHECK(page.find("<polyline points=\"2.0,2.0 118.0,22.0\"") != std::string::npos);

  const auto seen = test::open_in_browser(html, dir / "browser");
  if (!seen) return;  // skipped: no Chromium
  CHECK(seen->status == "ok");
  CHECK(seen->status_text ==
        "rendered: rows=0 bars=0 slices=0 nodes=0 edges=0 links=0 intermediates=0 chart_shown=absent "
        "timeline_shown=absent graph_shown=absent wide_rows=2 sparklines=2");
}

TEST_CASE("et-fleet compare: different programs are refused unless --allow-mixed", "[cli][et-fleet]") {
  const Lab& l = lab();
  auto r = test::run_tool("et-fleet", "compare --manifest " + q(l.mixed_manifest) + " --by device");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("et-fleet: error: " + l.mixed.string() + ": another program than " + l.a.string()) == 0);
  r = test::run_tool("et-fleet", "compare --manifest " + q(l.mixed_manifest) + " --by device --allow-mixed --format json --time-unit us");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  // pi has no mul.out, pixel no add.out: those cells are null.
  std::map<std::string, json> rows;
  for (const json& row : doc["rows"]) rows[row["op_type"]] = row;
  CHECK(rows["mul.out"]["p50:pi"].is_null());
  CHECK(rows["mul.out"]["p50:pixel"] == 10.0);
  CHECK(rows["add.out"]["p50:pixel"].is_null());
  CHECK(rows["convolution.out"]["ratio:pixel"].get<double>() == Approx(100.0 / 110));  // pi conv p50 110

  r = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by color");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-fleet: error: --by: no label 'color' (device, build)\n");
  r = test::run_tool("et-fleet", "compare --manifest " + q(l.manifest) + " --by device --baseline mac");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "et-fleet: error: --baseline: no run has device 'mac' (pi, pixel)\n");
}

namespace {

// A CI history, one ETDump per date, 5 executions each, times in us:
//   window dates d = 0..3 (2026-01-01..04): conv 100 + 5e + d, add 20 + 5e + d (e = 0..4)
//   newest 2026-01-05:                      conv 150 + e,      add 20.5 + 5e
// conv: window pooled {100,101,102,103,105,...,123} (20 distinct values),
//   p50 = (111 + 112)/2 = 111.5; newest {150..154}, p50 152; ratio 152/111.5.
//   Every newest sample beats every window sample and nothing ties, so the
//   exact one-sided Mann-Whitney p is 1/C(25,5) = 1/53130; Holm over the two
//   op types: 1/53130 < 0.05/2. The bootstrap ratio's low end is above
//   150/123 > 1 whatever is drawn. A regression.
// add: window p50 31.5 (same values as conv - 80), newest {20.5..40.5}, p50 30.5:
//   ratio 30.5/31.5 < 1: ok.
std::filesystem::path history(bool with_newest) {
  const auto dir = test::scratch_dir();
  std::string manifest = "path\tdate\tdevice\n";
  const int days = with_newest ? 5 : 4;
  for (int d = 0; d < days; ++d) {
    std::vector<std::pair<double, double>> times;
    for (int e = 0; e < 5; ++e) {
      if (d < 4) times.emplace_back(100 + 5 * e + d, 20 + 5 * e + d);
      else times.emplace_back(150 + e, 20.5 + 5 * e);
    }
    const std::string name = "day" + std::to_string(d) + ".etdp";
    test::write_bytes(dir / name, demo::profiled_etdump(conv_add(times)));
    manifest += name + "\t2026-01-0" + std::to_string(d + 1) + "\tpi\n";
  }
  write_text(dir / "history.tsv", manifest);
  return dir / "history.tsv";
}

}  // namespace

TEST_CASE("et-fleet gate: the newest run is a significant regression", "[cli][et-fleet]") {
  const auto manifest = history(true);
  auto r = test::run_tool("et-fleet", "gate --manifest " + q(manifest) + " --order date --time-unit us --format json");
  CHECK(r.exit_code == 1);
  CHECK(r.err == "et-fleet: gate: 1 op types regressed at date=2026-01-05: convolution.out x1.36\n");
  const json doc = json::parse(r.out);
  CHECK(doc["format"] == "etkit.fleet/1");
  CHECK(doc["command"] == "gate");
  REQUIRE(doc["rows"].size() == 2);
  const json& conv = doc["rows"][0];
  CHECK(conv["op_type"] == "convolution.out");
  CHECK(conv["window_p50"] == 111.5);
  CHECK(conv["newest_p50"] == 152.0);
  CHECK(conv["ratio"].get<double>() == Approx(152 / 111.5));
  CHECK(conv["p_value"].get<double>() == Approx(1.0 / 53130));
  CHECK(conv["ratio_low"].get<double>() > 150.0 / 123);
  CHECK(conv["verdict"] == "regression");
  // The history scan (2 op types x 4 later dates, one Holm family): conv's
  // earlier dates are at most 113/111 slower than the dates before them, so
  // the change is at the newest; add never changes by more than 5%.
  CHECK(conv["changed_at"] == "2026-01-05");
  const json& add = doc["rows"][1];
  CHECK(add["window_p50"] == 31.5);
  CHECK(add["newest_p50"] == 30.5);
  CHECK(add["verdict"] == "ok");
  CHECK(add["changed_at"].is_null());
  CHECK(doc["summary"]["newest"] == "2026-01-05");
  CHECK(doc["summary"]["window_first"] == "2026-01-01");
  CHECK(doc["summary"]["window_runs"] == 4);
  CHECK(doc["summary"]["verdict"] == "fail");

  // --min-ratio above 152/111.5 = 1.363: not a regression any more.
  r = test::run_tool("et-fleet", "gate --manifest " + q(manifest) + " --order date --min-ratio 1.4 --format csv");
  CHECK(r.exit_code == 0);
  // --window 1: only 2026-01-04 (conv 103..123 by 5, p50 113) is the reference;
  // 1/C(10,5) = 1/252 is still below 0.05/2.
  r = test::run_tool("et-fleet", "gate --manifest " + q(manifest) + " --order date --window 1 --time-unit us --format json");
  CHECK(r.exit_code == 1);
  const json one = json::parse(r.out);
  CHECK(one["rows"][0]["window_p50"] == 113.0);
  CHECK(one["rows"][0]["p_value"].get<double>() == Approx(1.0 / 252));
  CHECK(one["summary"]["window_first"] == "2026-01-04");
}

TEST_CASE("et-fleet gate: a history without a regression passes", "[cli][et-fleet]") {
  // Newest 2026-01-04 (d = 3) against d = 0..2: conv {103..123 by 5} against
  // 15 values of 100..122, p50 113 and 111 (the 8th): ratio 1.018, below
  // --min-ratio 1.05. add likewise 33/31 = 1.065, above it, but its 5
  // samples interleave the window's (U = 45 of 75: p far from significant).
  const auto manifest = history(false);
  auto r = test::run_tool("et-fleet", "gate --manifest " + q(manifest) + " --order date --time-unit us --format json");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const json doc = json::parse(r.out);
  std::map<std::string, json> rows;
  for (const json& row : doc["rows"]) rows[row["op_type"]] = row;
  CHECK(rows["convolution.out"]["ratio"].get<double>() == Approx(113.0 / 111));
  CHECK(rows["add.out"]["ratio"].get<double>() == Approx(33.0 / 31));
  CHECK(rows["add.out"]["p_value"].get<double>() > 0.05);
  CHECK(rows["add.out"]["verdict"] == "ok");
  CHECK(doc["summary"]["verdict"] == "pass");
  // --where keeps the inputs of one label value; a single date cannot be gated.
  r = test::run_tool("et-fleet", "gate --manifest " + q(manifest) + " --order date --where date=2026-01-01");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("at least two values of date") != std::string::npos);
}

TEST_CASE("et-fleet gate: changed_at names where an op type's history stepped up", "[cli][et-fleet]") {
  // Six dates d = 0..5 (2026-02-01..06), 5 executions each, times in us:
  //   conv 100 + 5e + d for d < 3, then 150 + 5e + d; add 20 + 5e + d throughout.
  // --window 2. Family: 2 op types x 5 later dates = 10 tests, alpha/10 = 0.005.
  //   conv at d = 3 against d = 1, 2: every sample larger, no ties: p = 1/C(15,5)
  //   = 1/3003 < 0.005; p50 163 against (111 + 112)/2: x1.46. Before it, conv
  //   rises at most 111/110 and 112/110.5. add's p50 never rises 5% (at most
  //   32/30.5 = 1.049).
  // Newest d = 5 against d = 3, 4: conv 165 / 163.5 and add 35 / 33.5, both
  // below 1.05: the gate passes though conv changed two dates earlier.
  const auto dir = test::scratch_dir();
  std::string manifest = "path\tdate\n";
  for (int d = 0; d < 6; ++d) {
    std::vector<std::pair<double, double>> times;
    for (int e = 0; e < 5; ++e) times.emplace_back((d < 3 ? 100 : 150) + 5 * e + d, 20 + 5 * e + d);
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on "d" + to_string(d).
    std::string name = "d";
    name += std::to_string(d);
    name += ".etdp";
    test::write_bytes(dir / name, demo::profiled_etdump(conv_add(times)));
    manifest += name + "\t2026-02-0" + std::to_string(d + 1) + "\n";
  }
  write_text(dir / "h.tsv", manifest);
  auto r = test::run_tool("et-fleet", "gate --manifest " + q(dir / "h.tsv") + " --order date --window 2 --time-unit us --format json");
  CHECK(r.exit_code == 0);
  const json doc = json::parse(r.out);
  std::map<std::string, json> rows;
  for (const json& row : doc["rows"]) rows[row["op_type"]] = row;
  CHECK(rows["convolution.out"]["changed_at"] == "2026-02-04");
  CHECK(rows["convolution.out"]["ratio"].get<double>() == Approx(165 / 163.5));
  CHECK(rows["convolution.out"]["verdict"] == "ok");
  CHECK(rows["add.out"]["changed_at"].is_null());
  CHECK(rows["add.out"]["ratio"].get<double>() == Approx(35 / 33.5));
  CHECK(doc["summary"]["window_first"] == "2026-02-04");
}
