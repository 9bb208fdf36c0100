// Writes an XNNPACK delegate payload as ExecuTorch's serializer does: an
// "XH00" header, the XN00 FlatBuffer, then the constants, each 16-byte
// aligned in the constant-data region (constant_data[0] is the reserved
// empty entry). Constants with a named_key are referenced by key only.
// Used by tests and the demo to build delegated programs.
#pragma once

#include <vector>

#include "libcore/formats/xnnpack/xnn_graph.h"

namespace etkit::xnn {

std::vector<uint8_t> write_xnn_payload(const Graph& graph);

}  // namespace etkit::xnn
