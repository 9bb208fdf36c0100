// The value of a JSON number token, converted by std::from_chars (correctly
// rounded) rather than by the JSON parser: RapidJSON 1.1.0's own conversion
// misreads a zero with a large negative exponent (0e-44 comes out as
// 4.5e-277), and Python's json reads 1e999 as inf where RapidJSON refuses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

namespace etkit {

struct JsonNumber {
  // An integer when the token has no fraction or exponent and fits 64 bits
  // (int64 first, uint64 for larger non-negative ones), else a double.
  std::variant<int64_t, uint64_t, double> value;
  // Beyond double's range: value is +-infinity. (Below it, +-0 and false.)
  bool overflow = false;
};

// `token` must follow JSON's number grammar (the parser has checked it);
// nullopt otherwise.
std::optional<JsonNumber> json_number(std::string_view token);

}  // namespace etkit
