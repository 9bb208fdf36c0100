#include "libcore/inspect/py_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace etkit::inspect {

namespace {

bool is_py_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_py_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_py_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits with single underscores between them; advances `i`. Returns the
// number of digits consumed (0 when none).
size_t digit_run(std::string_view s, size_t& i) {
  size_t digits = 0;
  while (i < s.size()) {
    if (is_digit(s[i])) {
      ++digits;
      ++i;
    } else if (s[i] == '_' && digits > 0 && i + 1 < s.size() && is_digit(s[i + 1])) {
      ++i;
    } else {
      break;
    }
  }
  return digits;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

}  // namespace

std::string py_format_g(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char tmp[64];
  std::snprintf(tmp, sizeof tmp, "%g", value);
  return tmp;
}

std::string py_repr_str(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\\' || c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char tmp[8];
      std::snprintf(tmp, sizeof tmp, "\\x%02x", c);
      out += tmp;
    } else {
      out += char(c);  // printable ASCII, or UTF-8 kept as Python keeps printable text
    }
  }
  out += quote;
  return out;
}

std::string py_str_list(std::span<const uint64_t> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

std::string py_str_list(std::span<const std::string> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += py_repr_str(values[i]);
  }
  return out + "]";
}

bool py_parses_as_int(std::string_view text) {
  const std::string_view s = strip(text);
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  return digit_run(s, i) > 0 && i == s.size();
}

bool py_parses_as_float(std::string_view text) {
  std::string_view s = strip(text);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (iequals(s, "inf") || iequals(s, "infinity") || iequals(s, "nan")) return true;
  size_t i = 0;
  size_t digits = digit_run(s, i);
  if (i < s.size() && s[i] == '.') {
    ++i;
    digits += digit_run(s, i);
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digit_run(s, i) == 0) return false;
  }
  return i == s.size();
}

double py_float_value(std::string_view text) {
  std::string clean;
  for (char c : strip(text)) {
    if (c != '_') clean += c;
  }
  return std::strtod(clean.c_str(), nullptr);
}

size_t py_len(std::string_view text) {
  size_t n = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xc0) != 0x80) ++n;
  }
  return n;
}

}  // namespace etkit::inspect
