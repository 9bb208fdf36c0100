#include "libcore/render/heat_color.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace etkit::render {

namespace {

struct Stop {
  double at;
  std::array<double, 3> rgb;
};

// White, amber, red: readable black text on every colour of the scale.
constexpr std::array<Stop, 3> kStops{{{0.0, {255, 255, 255}}, {0.5, {255, 204, 77}}, {1.0, {229, 57, 53}}}};

}  // namespace

std::string heat_color(double fraction) {
  if (!(fraction > 0)) fraction = 0;
  if (fraction > 1) fraction = 1;
  size_t s = 1;
  while (s + 1 < kStops.size() && fraction > kStops[s].at) ++s;
  const Stop& lo = kStops[s - 1];
  const Stop& hi = kStops[s];
  const double t = (fraction - lo.at) / (hi.at - lo.at);
  char out[8];
  int channel[3];
  for (size_t c = 0; c < 3; ++c) {
    channel[c] = static_cast<int>(std::lround(lo.rgb[c] + (hi.rgb[c] - lo.rgb[c]) * t));
  }
  std::snprintf(out, sizeof out, "#%02x%02x%02x", channel[0], channel[1], channel[2]);
  return out;
}

std::string format_percent(double fraction) {
  if (fraction > 0 && fraction < 0.0005) return "<0.1%";
  char out[32];
  std::snprintf(out, sizeof out, "%.1f%%", fraction * 100);
  return out;
}

}  // namespace etkit::render
