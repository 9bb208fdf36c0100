// Two string operations python-tabulate applies to cells: Python's
// str.strip() (Unicode whitespace, not only ASCII) and the removal of ANSI
// colour codes and terminal hyperlinks, which tabulate does not count in
// column widths (its _invisible_codes and _invisible_codes_link regexes).
#pragma once

#include <string>
#include <string_view>

namespace etkit::inspect {

// str.strip() on UTF-8 text: drops leading and trailing characters for which
// Python's str.isspace() is true (ASCII whitespace, U+001C-U+001F, U+0085,
// U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
std::string py_strip(std::string_view s);
// str.rstrip(), the same characters at the end only.
std::string py_rstrip(std::string_view s);

// Whether tabulate would find an invisible code anywhere in `s`.
bool has_invisible_codes(std::string_view s);

// tabulate's _strip_invisible: hyperlinks ESC]8;PARAMS;URI ESC\ TEXT
// ESC]8;; ESC\ become TEXT, then colour codes (ESC[ digits [;digits]* m,
// ESC[ d*;d*;d* m) and ESC]8;; ... ESC\ sequences are removed.
std::string strip_invisible(std::string_view s);

}  // namespace etkit::inspect
