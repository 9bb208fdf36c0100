// One colour scale for time shares, used by the DOT graphs and the HTML
// report alike: white (no time) through amber to red (the most expensive).
#pragma once

#include <string>

namespace etkit::render {

// "#rrggbb" for `fraction` in [0, 1] (clamped; NaN counts as 0).
std::string heat_color(double fraction);

// "12.3%" for 0.123: one decimal, "<0.1%" for small non-zero shares.
std::string format_percent(double fraction);

}  // namespace etkit::render
