// Python's repr(float), shared by the Inspector's tables and the Python-style
// JSON of ETRecord entries (json.dumps writes floats with repr).
#pragma once

#include <string>

namespace etkit {

// The shortest string that reads back to the same double; fixed notation for
// decimal exponents -4 <= e < 16 ("1.0", "0.0001"), otherwise "1e-05",
// "1.5e+16"; "nan", "inf", "-inf" (json.dumps spells those differently, so
// JSON writers handle them first).
std::string py_repr_float(double value);

}  // namespace etkit
