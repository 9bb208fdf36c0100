// python-tabulate's handling of Unicode whitespace (str.strip()) and of ANSI
// colour codes and terminal hyperlinks (its _invisible_codes regexes), with
// the expected tables worked out from tabulate 0.8.9's rules by hand.
#include "libcore/inspect/frame.h"
#include "libcore/inspect/tabulate.h"
#include "libcore/inspect/tabulate_text.h"
#include "tests/support/test_support.h"

using namespace etkit::inspect;

TEST_CASE("py_strip removes what Python's str.isspace() calls whitespace, at both ends only", "[inspect][tabulate]") {
  CHECK(py_strip(" \t\n\v\f\rx y\r\n") == "x y");
  // U+00A0 no-break space, U+3000 ideographic space, U+2003 em space,
  // U+0085 next line, U+001F unit separator, U+2028 line separator.
  CHECK(py_strip("\u00a0\u3000conv\u2003\u0085") == "conv");
  CHECK(py_strip("\x1f\u2028a\u00a0b\u202f") == "a\u00a0b");
  // Not whitespace for Python: U+200B zero-width space, U+FEFF BOM.
  CHECK(py_strip("\u200bx\ufeff") == "\u200bx\ufeff");
  CHECK(py_strip("\u00a0") == "");
  CHECK(py_rstrip("  a  ") == "  a");
}

TEST_CASE("strip_invisible removes colour codes and keeps hyperlink text", "[inspect][tabulate]") {
  CHECK(strip_invisible("\x1b[31mred\x1b[0m") == "red");
  CHECK(strip_invisible("\x1b[1;31;42mx\x1b[m") == "x\x1b[m");   // ESC[m has no digits: not a code
  CHECK(strip_invisible("\x1b[;5;1mx") == "x");                  // the \d*;\d*;\d*m alternative
  CHECK(strip_invisible("\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\") == "link");
  CHECK(strip_invisible("\x1b]8;id=1;https://e.org\x1b\\t\x1b]8;;\x1b\\") == "\x1b]8;id=1;https://e.org\x1b\\t");
  CHECK(strip_invisible("no codes") == "no codes");
  CHECK(has_invisible_codes("a\x1b[0mb"));
  CHECK_FALSE(has_invisible_codes("a\x1b[b"));
}

TEST_CASE("tabulate strips non-ASCII whitespace from text cells before measuring them", "[inspect][tabulate]") {
  Frame f;
  f.columns = {"name"};
  f.index = {0, 1};
  // "\u2003conv\u2003\u2003\u2003" is 8 code points; stripped, 4: the column is
  // max(len("name") + 2, 4) = 6 wide.
  f.rows = {{Cell::str("\u2003conv\u2003\u2003\u2003")}, {Cell::str("relu\u00a0")}};
  CHECK(tabulate(f, TableFormat::kFancyGrid) ==
        "╒════╤════════╕\n"
        "│    │ name   │\n"
        "╞════╪════════╡\n"
        "│  0 │ conv   │\n"
        "├────┼────────┤\n"
        "│  1 │ relu   │\n"
        "╘════╧════════╛");
}

TEST_CASE("tabulate does not count colour codes or hyperlinks in column widths", "[inspect][tabulate]") {
  const std::string red_conv = "\x1b[31mconv\x1b[0m";
  const std::string link_relu = "\x1b]8;;https://example.com\x1b\\relu\x1b]8;;\x1b\\";
  const std::string green_number = "\x1b[32m1.5\x1b[0m";
  Frame f;
  f.columns = {"name", "t (ms)"};
  f.index = {0, 1};
  f.rows = {{Cell::str(red_conv), Cell::str(green_number)}, {Cell::str(link_relu), Cell::real(22.25)}};
  // name: visible widths 4 and 4, header 4 + 2: 6 wide, left-aligned.
  // t (ms): the coloured "1.5" is a number (its type is read without the
  // codes), so the column is float and decimal-aligned: "1.5" has 1 place,
  // "22.25" 2, so "1.5" gets 1 space after it (visible 4) and both are
  // right-aligned to max(6 + 2, 4, 5) = 8.
  CHECK(tabulate(f, TableFormat::kFancyGrid) ==
        "╒════╤════════╤══════════╕\n"
        "│    │ name   │   t (ms) │\n"
        "╞════╪════════╪══════════╡\n"
        "│  0 │ " + red_conv + "   │     " + green_number + "  │\n"
        "├────┼────────┼──────────┤\n"
        "│  1 │ " + link_relu + "   │    22.25 │\n"
        "╘════╧════════╧══════════╛");
}
