#include "libcore/support/json_number.h"

#include <charconv>
#include <limits>

namespace etkit {

std::optional<JsonNumber> json_number(std::string_view token) {
  if (token.empty()) return std::nullopt;
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (token.find_first_of(".eE") == std::string_view::npos) {
    int64_t i = 0;
    if (auto r = std::from_chars(first, last, i); r.ec == std::errc() && r.ptr == last) return JsonNumber{i};
    uint64_t u = 0;
    if (auto r = std::from_chars(first, last, u); r.ec == std::errc() && r.ptr == last) return JsonNumber{u};
  }
  double d = 0;
  const auto r = std::from_chars(first, last, d);
  if (r.ptr != last) return std::nullopt;
  if (r.ec == std::errc()) return JsonNumber{d};
  if (r.ec != std::errc::result_out_of_range) return std::nullopt;
  // from_chars leaves d alone out of range: overflow when the digits are not
  // all zero and the exponent does not shrink them, else underflow.
  const size_t exponent_at = token.find_first_of("eE");
  const std::string_view mantissa = token.substr(0, exponent_at);
  const bool nonzero = mantissa.find_first_of("123456789") != std::string_view::npos;
  const bool shrinks = exponent_at != std::string_view::npos && token.substr(exponent_at + 1, 1) == "-";
  const bool overflow = nonzero && !shrinks;
  d = overflow ? std::numeric_limits<double>::infinity() : 0.0;
  return JsonNumber{token.front() == '-' ? -d : d, overflow};
}

}  // namespace etkit
