// Python's text forms of values, as the Inspector's table and TSV show them
// (inspector_spec.md §7.4, §7.5), and the number tests tabulate applies to
// strings when it picks a column's type.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "libcore/support/py_float.h"

namespace etkit::inspect {

// repr(float) / str(float), from libcore/support.
using etkit::py_repr_float;

// format(value, "g"): 6 significant digits, trailing zeros dropped,
// exponent form below 1e-4 and from 1e6 ("5e-05", "1.23457e+06").
std::string py_format_g(double value);

// repr(str): single quotes unless the text has ' and no ", with backslash
// escapes for the quote, backslash and control characters.
std::string py_repr_str(std::string_view text);

// str(list) of ints and of strings: "[1, 2]", "['a', 'b']".
std::string py_str_list(std::span<const uint64_t> values);
std::string py_str_list(std::span<const std::string> values);

// Whether Python's int(text) / float(text) would accept the string
// (surrounding whitespace, sign, digits with single underscores, and for
// float a fraction, an exponent, "inf"/"infinity"/"nan" in any case).
bool py_parses_as_int(std::string_view text);
bool py_parses_as_float(std::string_view text);
// float(text) for a string py_parses_as_float accepted.
double py_float_value(std::string_view text);

// Python's len() of a UTF-8 string: code points, not bytes.
size_t py_len(std::string_view text);

}  // namespace etkit::inspect
