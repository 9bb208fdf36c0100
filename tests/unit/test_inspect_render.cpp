// The Python side of the Inspector's output: numpy's statistics, Python's
// number and string forms, tabulate's grid and pandas' TSV. Expected values
// are worked out by hand from the rules in inspector_spec.md §4 and §7, or
// were printed by numpy 1.24.2 / tabulate 0.8.9 for the literal inputs.
#include <cmath>
#include <limits>
#include <vector>

#include "libcore/inspect/delimited.h"
#include "libcore/inspect/perf_stats.h"
#include "libcore/inspect/py_format.h"
#include "libcore/inspect/tabulate.h"
#include "libcore/inspect/time_scale.h"
#include "tests/support/test_support.h"

using namespace etkit::inspect;

namespace {
const double kNan = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("percentiles use numpy's linear method and its two-branch lerp", "[inspect][stats]") {
  const std::vector<double> four = {4, 1, 3, 2};
  // v = 3 * 0.1 = 0.3: 1 + 1 * 0.3
  CHECK(percentile(four, 10) == 1.3);
  // v = 1.5, gamma = 0.5 takes the upper branch: 3 - 1 * 0.5
  CHECK(percentile(four, 50) == 2.5);
  CHECK(percentile(four, 90) == 3.7);
  CHECK(percentile(std::vector<double>{7.25}, 10) == 7.25);
  // numpy.percentile([0.03, 0.54], 90) == 0.48900000000000005, where
  // a + d * gamma would give 0.489.
  CHECK(percentile(std::vector<double>{0.03, 0.54}, 90) == 0.48900000000000005);
  CHECK(percentile(std::vector<double>{0.03, 0.54}, 90) != 0.489);
}

TEST_CASE("statistics of no samples are NaN, not undefined behaviour", "[inspect][stats]") {
  const std::vector<double> none;
  CHECK(std::isnan(percentile(none, 0)));
  CHECK(std::isnan(percentile(none, 50)));
  CHECK(std::isnan(percentile(none, 100)));
  CHECK(std::isnan(mean(none)));  // numpy.mean([]) is nan
  const PerfStats s = compute_stats(none);
  for (double v : {s.p10, s.p50, s.p90, s.avg, s.min, s.max}) CHECK(std::isnan(v));
}

TEST_CASE("the mean is numpy's pairwise sum, chunked at 8192 elements", "[inspect][stats]") {
  // numpy.mean of these nine values is 1.0223333333333333; a left-to-right
  // sum gives 1.022333333333333.
  const std::vector<double> nine = {0.7, 3.3, 0.2, 0.7, 3.3, 0.1, 0.001, 0.2, 0.7};
  CHECK(mean(nine) == 1.0223333333333333);
  // 9000 values 0.1 * (i % 3) + 0.01: numpy 1.24 gives 0.11000000000000001
  // (one pairwise sum per 8192-element chunk); one pairwise sum over all
  // would give 0.11.
  std::vector<double> many;
  for (int i = 0; i < 9000; ++i) many.push_back(0.1 * double(i % 3) + 0.01);
  CHECK(mean(many) == 0.11000000000000001);

  const PerfStats s = compute_stats(std::vector<double>{0.5, -1.0, 2.0});
  CHECK(s.min == -1.0);
  CHECK(s.max == 2.0);
  CHECK(s.p50 == 0.5);
  CHECK(s.avg == 0.5);
}

TEST_CASE("time scales: factors, names, cycles only with cycles", "[inspect][stats]") {
  CHECK(*time_scale_factor(TimeScale::kNs, TimeScale::kMs) == 1e6);
  CHECK(*time_scale_factor(TimeScale::kMs, TimeScale::kNs) == 1e3 / 1e9);
  CHECK(*time_scale_factor(TimeScale::kUs, TimeScale::kS) == 1e6);
  CHECK(*time_scale_factor(TimeScale::kS, TimeScale::kMs) == 0.001);
  CHECK(*time_scale_factor(TimeScale::kCycles, TimeScale::kCycles) == 1.0);
  CHECK_FALSE(time_scale_factor(TimeScale::kCycles, TimeScale::kMs).ok());
  CHECK_FALSE(time_scale_factor(TimeScale::kNs, TimeScale::kCycles).ok());
  CHECK(parse_time_scale("us") == TimeScale::kUs);
  CHECK_FALSE(parse_time_scale("ps").has_value());
  CHECK(time_scale_name(TimeScale::kCycles) == "cycles");
}

TEST_CASE("repr(float): shortest round trip in Python's layout", "[inspect][format]") {
  CHECK(py_repr_float(0.1) == "0.1");
  CHECK(py_repr_float(1.0) == "1.0");
  CHECK(py_repr_float(14.009576) == "14.009576");
  CHECK(py_repr_float(0.272000000000002) == "0.272000000000002");
  CHECK(py_repr_float(0.0016506666666666668) == "0.0016506666666666668");
  CHECK(py_repr_float(0.0001) == "0.0001");
  CHECK(py_repr_float(0.00001) == "1e-05");
  CHECK(py_repr_float(1.5e-07) == "1.5e-07");
  CHECK(py_repr_float(1e15) == "1000000000000000.0");
  CHECK(py_repr_float(1e16) == "1e+16");
  CHECK(py_repr_float(123456789012345680.0) == "1.2345678901234568e+17");
  CHECK(py_repr_float(-0.0) == "-0.0");
  CHECK(py_repr_float(0.0) == "0.0");
  CHECK(py_repr_float(-2.5e-300) == "-2.5e-300");
  CHECK(py_repr_float(kNan) == "nan");
  CHECK(py_repr_float(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("format(x, 'g'): six significant digits", "[inspect][format]") {
  CHECK(py_format_g(0.00005) == "5e-05");
  CHECK(py_format_g(1.234567) == "1.23457");
  CHECK(py_format_g(14.009576) == "14.0096");
  CHECK(py_format_g(100000.0) == "100000");
  CHECK(py_format_g(1234567.0) == "1.23457e+06");
  CHECK(py_format_g(0.0001) == "0.0001");
  CHECK(py_format_g(2.0) == "2");
  CHECK(py_format_g(-0.0) == "-0");
  CHECK(py_format_g(kNan) == "nan");
  CHECK(py_format_g(std::numeric_limits<double>::infinity()) == "inf");
}

TEST_CASE("repr(str), str(list) and Python's int()/float() acceptance", "[inspect][format]") {
  CHECK(py_repr_str("aten.add.Tensor") == "'aten.add.Tensor'");
  CHECK(py_repr_str("it's") == "\"it's\"");
  CHECK(py_repr_str("a'b\"c") == "'a\\'b\"c'");
  CHECK(py_repr_str("tab\there\\") == "'tab\\there\\\\'");
  CHECK(py_repr_str(std::string("\x01", 1)) == "'\\x01'");
  const std::vector<std::string> ops = {"aten.convolution.default", "x"};
  CHECK(py_str_list(ops) == "['aten.convolution.default', 'x']");
  CHECK(py_str_list(std::vector<std::string>{}) == "[]");
  const std::vector<uint64_t> ticks = {787303, 12};
  CHECK(py_str_list(ticks) == "[787303, 12]");

  CHECK(py_parses_as_int("12"));
  CHECK(py_parses_as_int(" -7\n"));
  CHECK(py_parses_as_int("1_000"));
  CHECK(py_parses_as_int("007"));
  CHECK_FALSE(py_parses_as_int("1__0"));
  CHECK_FALSE(py_parses_as_int("_1"));
  CHECK_FALSE(py_parses_as_int("1.0"));
  CHECK_FALSE(py_parses_as_int(""));
  CHECK(py_parses_as_float("1e5"));
  CHECK(py_parses_as_float(".5"));
  CHECK(py_parses_as_float("5."));
  CHECK(py_parses_as_float("-Infinity"));
  CHECK(py_parses_as_float("NaN"));
  CHECK_FALSE(py_parses_as_float("."));
  CHECK_FALSE(py_parses_as_float("e5"));
  CHECK_FALSE(py_parses_as_float("1e"));
  CHECK_FALSE(py_parses_as_float("Transpose (ND, X32) #1"));
  CHECK(py_float_value("1_0.5") == 10.5);
  CHECK(py_len("ünï") == 3);
}

TEST_CASE("tabulate fancy_grid: widths, decimal alignment, index column", "[inspect][tabulate]") {
  Frame f;
  f.columns = {"name", "t (ms)"};
  f.index = {0, 1};
  f.rows = {{Cell::str("a"), Cell::real(1.5)}, {Cell::str("bb"), Cell::real(22.25)}};
  // Widths: index max(0 + 2, 1) = 2; name max(4 + 2, 2) = 6; t (ms)
  // max(6 + 2, 5) = 8. "1.5" gets one space to align with "22.25".
  const std::string expected =
      "╒════╤════════╤══════════╕\n"
      "│    │ name   │   t (ms) │\n"
      "╞════╪════════╪══════════╡\n"
      "│  0 │ a      │     1.5  │\n"
      "├────┼────────┼──────────┤\n"
      "│  1 │ bb     │    22.25 │\n"
      "╘════╧════════╧══════════╛";
  CHECK(tabulate(f, TableFormat::kFancyGrid) == expected);

  const std::string markdown =
      "|    | name   |   t (ms) |\n"
      "|---:|:-------|---------:|\n"
      "|  0 | a      |     1.5  |\n"
      "|  1 | bb     |    22.25 |";
  CHECK(tabulate(f, TableFormat::kPipe) == markdown);
}

TEST_CASE("tabulate: nan and None in float columns, numeric strings, bools, all-None columns", "[inspect][tabulate]") {
  Frame f;
  f.columns = {"v", "s", "b", "n"};
  f.index = {0, 1, 2};
  f.rows = {{Cell::real(0.5), Cell::str("1"), Cell::boolean(true), Cell::none()},
            {Cell::real(kNan), Cell::str("22"), Cell::boolean(false), Cell::none()},
            {Cell::none(), Cell::str("x"), Cell::boolean(true), Cell::none()}};
  // v: "0.5" has 1 decimal, "nan" and "" count -1 and get 2 spaces; width
  // max(3, 5) = 5. s is text ("x"), so left-aligned. n holds only None: a
  // bool column (tabulate starts its type reduction at bool), left-aligned.
  const std::string expected =
      "╒════╤═══════╤═════╤═══════╤═════╕\n"
      "│    │     v │ s   │ b     │ n   │\n"
      "╞════╪═══════╪═════╪═══════╪═════╡\n"
      "│  0 │   0.5 │ 1   │ True  │     │\n"
      "├────┼───────┼─────┼───────┼─────┤\n"
      "│  1 │ nan   │ 22  │ False │     │\n"
      "├────┼───────┼─────┼───────┼─────┤\n"
      "│  2 │       │ x   │ True  │     │\n"
      "╘════╧═══════╧═════╧═══════╧═════╛";
  CHECK(tabulate(f, TableFormat::kFancyGrid) == expected);

  // A column of numeric strings is numeric: right-aligned like the index.
  Frame g;
  g.columns = {"event_block_name"};
  g.index = {0, 1};
  g.rows = {{Cell::str("1")}, {Cell::str("12")}};
  CHECK(tabulate(g, TableFormat::kFancyGrid) ==
        "╒════╤════════════════════╕\n"
        "│    │   event_block_name │\n"
        "╞════╪════════════════════╡\n"
        "│  0 │                  1 │\n"
        "├────┼────────────────────┤\n"
        "│  1 │                 12 │\n"
        "╘════╧════════════════════╛");
}

TEST_CASE("tabulate: an empty frame has no index column and text alignment", "[inspect][tabulate]") {
  Frame f;
  f.columns = {"x", "yy"};
  CHECK(tabulate(f, TableFormat::kFancyGrid) ==
        "╒═════╤══════╕\n"
        "│ x   │ yy   │\n"
        "╞═════╪══════╡\n"
        "╘═════╧══════╛");
  CHECK(tabulate(f, TableFormat::kPipe) ==
        "| x   | yy   |\n"
        "|-----|------|");
}

TEST_CASE("tabulate: multiline cells are padded line by line", "[inspect][tabulate]") {
  Frame f;
  f.columns = {"name", "v"};
  f.index = {5, 9};
  f.rows = {{Cell::str("two\nlines"), Cell::real(1.5)}, {Cell::str("one"), Cell::real(22.25)}};
  CHECK(tabulate(f, TableFormat::kFancyGrid) ==
        "╒════╤════════╤═══════╕\n"
        "│    │ name   │     v │\n"
        "╞════╪════════╪═══════╡\n"
        "│  5 │ two    │  1.5  │\n"
        "│    │ lines  │       │\n"
        "├────┼────────┼───────┤\n"
        "│  9 │ one    │ 22.25 │\n"
        "╘════╧════════╧═══════╛");
}

TEST_CASE("TSV and CSV: pandas to_csv fields and QUOTE_MINIMAL", "[inspect][tsv]") {
  Frame f;
  f.columns = {"name", "avg (ms)", "flag", "start_time", "backend"};
  f.index = {0, 3};
  f.rows = {{Cell::str("a\tb"), Cell::real(0.272000000000002), Cell::boolean(true), Cell::object("[1, 2]"), Cell::none()},
            {Cell::str("say \"hi\", ok"), Cell::real(kNan), Cell::boolean(false), Cell::none(), Cell::str("XNN")}};
  CHECK(to_delimited(f, '\t') ==
        "\tname\tavg (ms)\tflag\tstart_time\tbackend\n"
        "0\t\"a\tb\"\t0.272000000000002\tTrue\t[1, 2]\t\n"
        "3\t\"say \"\"hi\"\", ok\"\t\tFalse\t\tXNN\n");
  CHECK(to_delimited(f, ',') ==
        ",name,avg (ms),flag,start_time,backend\n"
        "0,a\tb,0.272000000000002,True,\"[1, 2]\",\n"
        "3,\"say \"\"hi\"\", ok\",,False,,XNN\n");
}
