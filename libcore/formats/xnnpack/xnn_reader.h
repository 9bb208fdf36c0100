// Reads an XNNPACK delegate payload (the bytes a program stores for an
// XnnpackBackend delegate): the optional "XH00" header, the XN00/XN01
// FlatBuffer, and the constant-data region. Verifies before it trusts:
// the FlatBuffers verifier, then every id, dimension, constant range and
// quantization parameter, and the dataflow (each operand written by an
// earlier node, an external input or a constant; no node writes a
// constant, an input or a value another node wrote).
#pragma once

#include "libcore/formats/xnnpack/xnn_graph.h"
#include "libcore/support/result.h"

namespace etkit::xnn {

// Spans in the result point into `payload`, which must outlive it.
Result<Graph> read_xnn_payload(ByteSpan payload);

// The payload's layout, from its first bytes alone (for messages and the
// JSON view): whether it starts with an XH00 header.
bool has_xnn_header(ByteSpan payload);

}  // namespace etkit::xnn
