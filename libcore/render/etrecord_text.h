// Human-readable views of an ETRecord: the summary, a node table, and a graph
// printout in the style of torch's ExportedProgram printing, plus the small
// formatting helpers they (and the DOT view) share.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "libcore/formats/etrecord/etrecord.h"

namespace etkit::render {

// What the file holds: inferred version, entries with sizes, graphs with node
// counts, maps and their sizes, side-cars and whether they are readable.
std::string summary_text(const etrecord::EtRecord& record, std::string_view file_name);

// One row per node of the program's graph: name, op, outputs (dtype[shape]),
// debug handle, module path, source location (the last frame of the trace).
std::string nodes_table(const etrecord::Program& program);

// The graph as `%name : type = op(arg=value, ...)` lines, one per node, with
// placeholders first and nested graphs / lowered modules after it.
std::string graph_text(const etrecord::Program& program);

// "f32[1, 6, 28, 28]"; symbolic sizes print as their expression.
std::string tensor_type(const etrecord::TensorMeta& meta);
// The types of a node's outputs, comma-separated ("SymInt" for symbols).
std::string output_types(const etrecord::Graph& graph, const etrecord::Node& node);
// An argument as Python would print it: %ref, 1, [1, 1], True, None, torch.float32.
std::string argument_text(const etrecord::Argument& arg);
// The innermost nn_module_stack path ("" when the node has none).
std::string node_module(const etrecord::Node& node);
// "file:line" of the last stack frame, or "".
std::string node_source(const etrecord::Node& node);

}  // namespace etkit::render
