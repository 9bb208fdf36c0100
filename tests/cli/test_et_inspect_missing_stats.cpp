// et-inspect's stat cells for events without timings, as the Python Inspector
// prints them with pandas 1.5 (Debian 12): blank when a block holds timed and
// untimed events, "nan" when the untimed events sit in blocks of their own
// beside a timed one. Checked against pandas 1.5.3 + tabulate 0.8.9; the
// expected tables below are worked out from tabulate's rules
// (inspector_spec.md §7.4).
#include <string>
#include <vector>

#include "libcore/formats/etdump/etdump_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

std::string repeat(const std::string& piece, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += piece;
  return out;
}

// Column widths (without the one space of padding on each side): index 2,
// event_block_name 18 (header 16 + 2), event_name 17 ("native_call_x.out"),
// six stats 10 (header 8 + 2), op_types 10, is_delegated_op 17,
// delegate_backend_name 23, start_time 12.
const std::vector<size_t> kWidths = {2, 18, 17, 10, 10, 10, 10, 10, 10, 10, 17, 23, 12};

std::string rule(const std::string& left, const std::string& fill, const std::string& mid, const std::string& right) {
  std::string out = left;
  for (size_t c = 0; c < kWidths.size(); ++c) out += (c ? mid : "") + repeat(fill, kWidths[c] + 2);
  return out + right;
}

// Cells already aligned within their column (numbers right, text left).
std::string row(const std::vector<std::string>& cells) {
  std::string out = "│";
  for (const std::string& cell : cells) out += " " + cell + " │";
  return out;
}

std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::string out = rule("╒", "═", "╤", "╕") + "\n";
  out += row({"  ", "event_block_name  ", "event_name       ", "  p10 (ms)", "  p50 (ms)", "  p90 (ms)", "  avg (ms)",
              "  min (ms)", "  max (ms)", "op_types  ", "is_delegated_op  ", "delegate_backend_name  ",
              "start_time  "}) +
         "\n";
  out += rule("╞", "═", "╪", "╡") + "\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    if (r) out += rule("├", "─", "┼", "┤") + "\n";
    out += row(rows[r]) + "\n";
  }
  return out + rule("╘", "═", "╧", "╛") + "\n";
}

// A timed kernel (10 ns = 1e-05 ms, started at tick 0) and a scalar program
// output (an untimed, unnamed event), in one block or in two.
std::filesystem::path write_dump(bool same_block) {
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  w.add_profile_event("native_call_x.out", 0, 0, 0, 10);
  if (!same_block) w.begin_block("Execute");
  etdump::DebugEvent output;
  output.chain_index = UINT64_MAX;
  output.instruction_id = 0;
  output.debug_entry.val = etdump::ValueType::kInt;
  output.debug_entry.int_value = 1;  // the runtime flags only tensor outputs (inspector_spec.md §12)
  w.add_debug_event(output);
  const auto path = test::scratch_dir() / (same_block ? "mixed.etdp" : "apart.etdp");
  test::write_bytes(path, w.finish());
  return path;
}

// "1e-05" has 3 characters after its 'e', so every cell of a stat column is
// padded on the right to 3 places after the point: "nan" (none) and "" get 4
// spaces.
const std::vector<std::string> kTimed = {" 0",         "Execute           ", "native_call_x.out", "     1e-05",
                                         "     1e-05", "     1e-05",         "     1e-05",        "     1e-05",
                                         "     1e-05", "[]        ",         "False            ",
                                         "                       ", "[0]         "};

std::vector<std::string> untimed(const std::string& stat) {
  return {" 1",  "Execute           ", "                 ", stat, stat, stat, stat, stat, stat, "[]        ",
          "False            ", "                       ", "            "};
}

}  // namespace

TEST_CASE("et-inspect: untimed events in a block with timed ones have blank stat cells (pandas 1.5)",
          "[cli][inspect][tabulate]") {
  const auto r = test::run_tool("et-inspect", test::shell_quote(write_dump(true)));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == table({kTimed, untimed("          ")}));
}

TEST_CASE("et-inspect: untimed events in blocks of their own beside timed ones print nan (pandas 1.5)",
          "[cli][inspect][tabulate]") {
  const auto r = test::run_tool("et-inspect", test::shell_quote(write_dump(false)));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == table({kTimed, untimed("   nan    ")}));
}
