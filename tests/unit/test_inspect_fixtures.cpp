// The Inspector on real ETDumps: every fixture builds; LeNet's table rows
// follow from its profile events (read with the plain reader); MobileNet's
// rows reproduce the Python Inspector's CSV committed beside it.
#include <fstream>
#include <sstream>

#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/inspect/event_table.h"
#include "libcore/inspect/py_format.h"
#include "libcore/inspect/tabulate.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::inspect;

namespace {

Inspection inspect_fixture(const std::string& name, std::vector<uint8_t>& bytes) {
  bytes = test::read_bytes(test::fixture("etdump/" + name));
  auto r = build_event_blocks(ByteSpan(bytes));
  INFO((r ? std::string() : r.error().describe()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

// RFC 4180 fields: commas inside double quotes, "" for a quote.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

}  // namespace

TEST_CASE("every fixture ETDump gives event blocks", "[inspect][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::fixture("etdump"))) {
    if (entry.path().extension() != ".etdp") continue;
    ++count;
    INFO(entry.path());
    const auto bytes = test::read_bytes(entry.path());
    auto r = build_event_blocks(ByteSpan(bytes));
    REQUIRE(r.ok());
    CHECK(!r->blocks.empty());
    CHECK(r->warnings.empty());
  }
  REQUIRE(count > 0);  // an empty fixture directory must not pass
}

TEST_CASE("lenet_tutorial.etdp: rows follow the profile events, OPERATOR_CALL hidden", "[inspect][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  std::vector<uint8_t> bytes;
  const Inspection in = inspect_fixture("lenet_tutorial.etdp", bytes);
  auto dump = etdump::read_etdump(ByteSpan(bytes));
  REQUIRE(dump.ok());

  // Expected rows straight from the decoded events: each named profile
  // event except OPERATOR_CALL, duration (end - start) / 1e6, one run each.
  struct Expected {
    std::string block, name;
    double ms;
    uint64_t start;
  };
  std::vector<Expected> expected;
  for (const auto& run : dump->run_data) {
    // Within a run the kernels come before Method::execute (its key, chain
    // -1, is first seen after them in Execute).
    for (const auto& e : *run.events) {
      const auto& p = *e.profile_event;
      if (*p.name == "OPERATOR_CALL") continue;
      expected.push_back({run.name, *p.name, double(p.end_time - p.start_time) / 1e6, p.start_time});
    }
  }
  const auto rows = printed_rows(in);
  REQUIRE(rows.size() == 17);  // 2 Default + 14 kernels + Method::execute
  REQUIRE(expected.size() == 17);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Event& e = in.blocks[rows[i].block].events[rows[i].event];
    INFO(i);
    CHECK(rows[i].index == int64_t(i));
    CHECK(in.blocks[rows[i].block].name == expected[i].block);
    CHECK(e.name == expected[i].name);
    REQUIRE(rows[i].stats.has_value());
    CHECK(rows[i].stats->avg == expected[i].ms);
    CHECK(rows[i].stats->p10 == expected[i].ms);
    CHECK(e.start_time == std::vector<uint64_t>{expected[i].start});
  }
  CHECK(in.blocks[1].events.size() == 29);  // with the 14 OPERATOR_CALLs

  // The first lines of print_data_tabular, worked out from the column rules:
  // widths index 2, event_block_name 18, event_name 39 (the longest,
  // native_call_max_pool2d_with_indices.out), stats 10 (header + 2),
  // op_types 10, is_delegated_op 17, delegate_backend_name 23, start_time 12.
  const std::string table = tabulate(event_frame(in, rows), TableFormat::kFancyGrid);
  const std::string header =
      "│    │ event_block_name   │ event_name                              │   p10 (ms) │   p50 (ms) │   p90 (ms) │"
      "   avg (ms) │   min (ms) │   max (ms) │ op_types   │ is_delegated_op   │ delegate_backend_name   │ start_time   │";
  const std::string row0 =
      "│  0 │ Default            │ Method::init                            │   0.022484 │   0.022484 │   0.022484 │"
      "   0.022484 │   0.022484 │   0.022484 │ []         │ False             │                         │ [399054]     │";
  // 1.03172 has five decimals, one fewer than the column's six: one space.
  const std::string row5 =
      "│  5 │ Execute            │ native_call_convolution.out             │   1.03172  │   1.03172  │   1.03172  │"
      "   1.03172  │   1.03172  │   1.03172  │ []         │ False             │                         │ [1033343]    │";
  std::vector<std::string> lines;
  std::istringstream stream(table);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  REQUIRE(lines.size() == 3 + 17 * 2);
  CHECK(lines[1] == header);
  CHECK(lines[3] == row0);
  CHECK(lines[13] == row5);
}

TEST_CASE("mobilenet_v2_xnnpack.etdp reproduces the Python Inspector's CSV", "[inspect][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  std::vector<uint8_t> bytes;
  const Inspection in = inspect_fixture("mobilenet_v2_xnnpack.etdp", bytes);

  std::ifstream csv(test::fixture("etdump/mobilenet_v2_xnnpack.inspector.csv"));
  std::string line;
  REQUIRE(std::getline(csv, line));
  const std::vector<std::string> header = csv_fields(line);
  REQUIRE(header == std::vector<std::string>{"is_delegated_op", "event_block_name", "event_name", "p10 (ms)",
                                             "p50 (ms)", "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)", "op_types",
                                             "delegate_debug_identifier", "delegate_backend_name", "start_time"});
  // The CSV is an unfiltered to_dataframe() export: every event, in order.
  std::vector<std::pair<const EventBlock*, const Event*>> events;
  for (const EventBlock& b : in.blocks) {
    for (const Event& e : b.events) events.emplace_back(&b, &e);
  }
  size_t row = 0;
  while (std::getline(csv, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto f = csv_fields(line);
    INFO("csv row " << row << ": " << line);
    REQUIRE(f.size() == header.size());
    REQUIRE(row < events.size());
    const auto& [block, event] = events[row];
    CHECK(f[0] == (event->is_delegated_op ? "True" : "False"));
    CHECK(f[1] == block->name);
    CHECK(f[2] == event->name);
    REQUIRE(event->has_perf_data());
    const PerfStats s = event->stats();
    CHECK(f[3] == py_repr_float(s.p10));
    CHECK(f[4] == py_repr_float(s.p50));
    CHECK(f[5] == py_repr_float(s.p90));
    CHECK(f[6] == py_repr_float(s.avg));
    CHECK(f[7] == py_repr_float(s.min));
    CHECK(f[8] == py_repr_float(s.max));
    CHECK(f[10] == event->delegate_debug_identifier.str());
    CHECK(f[12] == py_str_list(event->start_time));
    ++row;
  }
  CHECK(row == 73);
  CHECK(events.size() == 73);
  REQUIRE(in.blocks.size() == 2);
  CHECK(in.blocks[0].events.size() == 2);
  CHECK(in.blocks[1].events.size() == 71);
}
