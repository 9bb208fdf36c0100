// libcore/fleet: manifests, the parallel collector's order and bounds, the
// program signature, per-run op times, and ETRecord linking through
// et-inspect's event model.
#include <fstream>
#include <map>

#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "examples/fleet_lab.h"
#include "libcore/fleet/collect.h"
#include "libcore/fleet/commands.h"
#include "libcore/fleet/inputs.h"
#include "libcore/fleet/run_ops.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/inspect/event_blocks.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::fleet;

namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inspect::Inspection inspect_bytes(const std::vector<uint8_t>& bytes) {
  auto inspection = inspect::build_event_blocks(ByteSpan(bytes.data(), bytes.size()));
  REQUIRE(inspection.ok());
  return std::move(*inspection);
}

}  // namespace

TEST_CASE("fleet manifest: labels, relative paths, etrecord column, comments", "[fleet]") {
  const auto dir = test::scratch_dir();
  write_text(dir / "m.tsv", "# a device lab\ndevice\tpath\tetrecord\tbuild\n\npixel\truns/a.etdp\tm.etrecord\t12\r\n"
                            "pi\t/abs/b.etdp\t\t13\n");
  auto set = inputs_from_manifest((dir / "m.tsv").string());
  REQUIRE(set.ok());
  CHECK(set->label_names == std::vector<std::string>{"device", "build"});
  REQUIRE(set->inputs.size() == 2);
  CHECK(set->inputs[0].path == (dir / "runs/a.etdp").string());
  CHECK(set->inputs[0].etrecord == (dir / "m.etrecord").string());
  CHECK(set->inputs[0].labels == std::vector<std::string>{"pixel", "12"});  // the \r of CRLF is not part of it
  CHECK(set->inputs[1].path == "/abs/b.etdp");
  CHECK(set->inputs[1].etrecord.empty());

  CHECK(select_inputs(*set, {"device=pi"}).ok());
  REQUIRE(set->inputs.size() == 1);
  CHECK(set->inputs[0].path == "/abs/b.etdp");
  CHECK(select_inputs(*set, {"color=red"}).error().message == "--where: no label 'color'");

  write_text(dir / "n.tsv", "device\tbuild\npixel\t1\n");
  CHECK(inputs_from_manifest((dir / "n.tsv").string()).error().message == "the header has no 'path' column");
  write_text(dir / "d.tsv", "path\tdevice\tdevice\n");
  CHECK(inputs_from_manifest((dir / "d.tsv").string()).error().message == "column 'device' appears twice");
}

TEST_CASE("fleet collect: input order whatever the number of workers", "[fleet]") {
  const auto dir = test::scratch_dir();
  // 12 dumps of different sizes (1..12 executions), so workers finish out of order.
  std::vector<std::string> paths;
  for (int i = 0; i < 12; ++i) {
    std::vector<std::vector<demo::KernelTime>> executions(size_t(12 - i), {{"add.out", 1.0 + i}});
    std::string name = "r";  // piecewise: GCC 12's -Wrestrict false positive on "r" + to_string(i)
    name += std::to_string(i);
    name += ".etdp";
    const auto path = dir / name;
    test::write_bytes(path, demo::profiled_etdump(executions));
    paths.push_back(path.string());
  }
  auto set = inputs_from_paths(paths);
  REQUIRE(set.ok());
  std::vector<size_t> order;
  std::vector<std::string> warnings;
  CollectOptions options;
  options.jobs = 4;
  auto count = collect(
      *set, options,
      [&](const FleetRun& run) -> Status {
        order.push_back(run.input_index);
        return {};
      },
      [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(count.ok());
  CHECK(*count == 12);
  CHECK(order == std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(warnings.empty());

  // The same bytes with 1 and 4 workers.
  options.jobs = 1;
  REQUIRE(write_long_table(*set, options, TableFormat::kCsv, (dir / "one.csv").string(), [](const std::string&) {}).ok());
  options.jobs = 4;
  REQUIRE(write_long_table(*set, options, TableFormat::kCsv, (dir / "four.csv").string(), [](const std::string&) {}).ok());
  CHECK(read_text(dir / "one.csv") == read_text(dir / "four.csv"));

  // A sink error stops the collection and is returned.
  size_t seen = 0;
  auto failed = collect(
      *set, options,
      [&](const FleetRun&) -> Status {
        if (++seen == 3) return Error{ErrorKind::kIo, "out", {}, "disk full"};
        return {};
      },
      [](const std::string&) {});
  CHECK_FALSE(failed.ok());
  CHECK(failed.error().message == "disk full");
  CHECK(seen == 3);
}

TEST_CASE("fleet program signature: same program whatever the executions, another when the ops differ", "[fleet]") {
  const std::vector<demo::KernelTime> conv_add = {{"convolution.out", 10}, {"add.out", 2}};
  const std::vector<demo::KernelTime> add_conv = {{"add.out", 2}, {"convolution.out", 10}};
  const auto one = program_signature(inspect_bytes(demo::profiled_etdump({conv_add})));
  const auto three = program_signature(inspect_bytes(demo::profiled_etdump({conv_add, conv_add, conv_add})));
  const auto slower = program_signature(inspect_bytes(demo::profiled_etdump({{{"convolution.out", 99}, {"add.out", 9}}})));
  const auto swapped = program_signature(inspect_bytes(demo::profiled_etdump({add_conv})));
  CHECK(one.size() == 16);
  CHECK(one == three);
  CHECK(one == slower);
  CHECK(one != swapped);
}

TEST_CASE("fleet run_ops: one time per execution, summed over the instructions of an op type", "[fleet]") {
  // Two executions of relu at instructions 0 and 2 and conv at 1:
  // relu 3 + 4 = 7 and 5 + 6 = 11 us; conv 10 and 20 us.
  const auto bytes = demo::profiled_etdump({{{"relu.out", 3}, {"convolution.out", 10}, {"relu.out", 4}},
                                            {{"relu.out", 5}, {"convolution.out", 20}, {"relu.out", 6}}});
  inspect::BuildOptions build;
  build.target_time_scale = inspect::TimeScale::kUs;
  auto inspection = inspect::build_event_blocks(ByteSpan(bytes.data(), bytes.size()), build);
  REQUIRE(inspection.ok());
  const RunOps ops = run_ops(fleet_run({"x.etdp", {}, {}}, 0, *inspection));
  // Method::execute and the Default block's framework events are not counted.
  REQUIRE(ops.samples.size() == 2);
  CHECK(ops.samples.at("relu.out") == std::vector<double>{7, 11});
  CHECK(ops.samples.at("convolution.out") == std::vector<double>{10, 20});
}

TEST_CASE("fleet collect with an ETRecord: op types and module paths from the graph", "[fleet]") {
  const auto dir = test::scratch_dir();
  auto etrecord = demo::lenet_etrecord(demo::lenet());
  REQUIRE(etrecord.ok());
  test::write_bytes(dir / "lenet.etrecord", *etrecord);
  demo::LabOptions lab;
  lab.devices = {"pi"};
  lab.builds = 1;
  lab.executions = 2;
  REQUIRE(demo::write_fleet_lab(dir.string(), lab).ok());
  auto set = inputs_from_manifest((dir / "manifest.tsv").string());
  REQUIRE(set.ok());
  CollectOptions options;
  options.etrecord = (dir / "lenet.etrecord").string();
  std::vector<FleetRun> runs;
  auto count = collect(
      *set, options,
      [&](const FleetRun& run) -> Status {
        runs.push_back(run);
        return {};
      },
      [](const std::string& w) { FAIL(w); });
  REQUIRE(count.ok());
  REQUIRE(runs.size() == 1);
  const FleetEvent* conv1 = nullptr;
  for (const auto& e : runs[0].events)
    if (e.instruction_id == 0 && e.chain_index == 0) conv1 = &e;
  REQUIRE(conv1);
  // lenet.py: the first convolution is self.conv1 inside self.features; the
  // edge dialect calls nn.Conv2d's op aten.convolution.default.
  CHECK(conv1->module == "features.conv1");
  CHECK(conv1->op_type == "aten.convolution.default");
  CHECK_FALSE(conv1->debug_handles.empty());
  CHECK(conv1->samples.size() == 2);

  // An ETRecord that cannot be read: every file using it is skipped with a warning.
  write_text(dir / "bad.etrecord", "not a zip");
  options.etrecord = (dir / "bad.etrecord").string();
  std::vector<std::string> warnings;
  count = collect(*set, options, [](const FleetRun&) -> Status { return {}; },
                  [&](const std::string& w) { warnings.push_back(w); });
  REQUIRE(count.ok());
  CHECK(*count == 0);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].rfind((dir / "bad.etrecord").string(), 0) == 0);
  options.strict = true;
  CHECK_FALSE(collect(*set, options, [](const FleetRun&) -> Status { return {}; }, [](const std::string&) {}).ok());
}
