#include "libcore/support/py_float.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace etkit {

std::string py_repr_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string out = std::signbit(value) ? "-" : "";
  // Shortest round-trip digits (as Python's dtoa mode 0), then Python's layout.
  char tmp[64];
  auto r = std::to_chars(tmp, tmp + sizeof tmp, std::fabs(value), std::chars_format::scientific);
  const std::string_view sci(tmp, size_t(r.ptr - tmp));
  const size_t e = sci.find('e');
  std::string digits(1, sci[0]);
  if (e > 1) digits += sci.substr(2, e - 2);
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int decpt = exponent + 1;  // value = 0.DIGITS x 10^decpt
  const int ndigits = int(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(size_t(-decpt), '0');
      out += digits;
    } else if (decpt >= ndigits) {
      out += digits;
      out.append(size_t(decpt - ndigits), '0');
      out += ".0";
    } else {
      out.append(digits, 0, size_t(decpt));
      out += '.';
      out.append(digits, size_t(decpt));
    }
    return out;
  }
  out += digits[0];
  if (ndigits > 1) {
    out += '.';
    out.append(digits, 1);
  }
  const int shown = decpt - 1;
  out += shown < 0 ? "e-" : "e+";
  const std::string mag = std::to_string(std::abs(shown));
  if (mag.size() < 2) out += '0';
  out += mag;
  return out;
}

}  // namespace etkit
