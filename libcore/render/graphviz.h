// Renders DOT text with Graphviz's `dot` program when it is installed (it is
// an optional runtime dependency: nothing else in etkit needs it).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "libcore/support/result.h"

namespace etkit::render {

// `format` is a Graphviz output format such as "svg" or "png". Fails with
// kUnsupported when `dot` is not on PATH, kBadInput when it rejects the text.
Result<std::vector<uint8_t>> render_dot(std::string_view dot, std::string_view format);

}  // namespace etkit::render
