// The node function table, filled by each family of node functions.
#pragma once

#include <array>

#include "runner/backends/xnnpack/xnn_runtime.h"

namespace etkit::rt::xnnpack {

using NodeTable = std::array<NodeFn, size_t(xnn::NodeType::kLast) + 1>;

void add_elementwise_nodes(NodeTable& table);  // xnn_ops_elementwise.cpp
void add_linear_nodes(NodeTable& table);       // xnn_ops_linear.cpp: fully connected, convolutions, bmm
void add_layout_nodes(NodeTable& table);       // xnn_ops_layout.cpp: data movement, pooling, resize, attention

// Quantizes `in` (float) into the qdint8 `out` row by row (xnn_ops_linear.cpp).
Status quantize_dynamic(const Slot& in, Slot& out);

}  // namespace etkit::rt::xnnpack
