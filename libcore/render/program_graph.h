// The dataflow graph of one .pte method, from the program alone: one node per
// instruction, per method input and output and per constant tensor read;
// values flow along edges from the instruction that last wrote them to each
// instruction that reads them. Delegate calls are grouped in one cluster per
// backend delegate. The graph is a plain model: program_graph_dot.h turns it
// into DOT, html_report lays it out as SVG.
//
// A program carries no operator schemas, so which arguments a call writes is
// inferred from how ExecuTorch's emitter lays them out:
// * kernel call: the return slot comes last. A single out argument is
//   repeated there ("..., out, out"); several are listed in a TensorList
//   there ("..., out, indices, [out, indices]"), and every argument the list
//   names is an output. Without either (prim ops) the last argument is the
//   output.
// Dataflow follows value indices only. Tensors sharing arena bytes are not
// connected, except an elided view (pte_spec.md §4.3): a planned tensor no
// instruction writes and no input names, read from the bytes of a tensor
// at least as large that an instruction wrote at its offset.
// * delegate call: arguments that already hold a value (a method input, a
//   constant, or the output of an earlier instruction) are inputs; the rest
//   are outputs.
// * move: reads move_from, writes move_to. jump_false reads its condition and
//   has a control edge to its destination. free reads the freed value.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"

namespace etkit::render {

// Where an instruction sits: its chain, and its position within the chain
// (the ETDump's chain_index and instruction_id).
struct InstructionRef {
  int32_t chain = 0;
  int32_t instruction = 0;
  auto operator<=>(const InstructionRef&) const = default;
};

enum class NodeKind { kInput, kOutput, kConstant, kKernel, kDelegate, kMove, kJumpFalse, kFree };

struct GraphNode {
  // Unique, stable IDs: "in_<i>", "out_<i>", "const_<value index>", and
  // "i<instruction>" (chain 0) or "c<chain>_i<instruction>" for instructions.
  std::string id;
  NodeKind kind = NodeKind::kKernel;
  // Operator ("aten::convolution.out"), backend id, "move", "input 0", ...
  std::string label;
  // The value a non-instruction node stands for, e.g. "FLOAT[1,1,32,32]".
  std::string detail;
  std::optional<InstructionRef> instruction;
  std::optional<size_t> cluster;  // index into ProgramGraph::clusters
};

struct GraphEdge {
  size_t from = 0;  // node indices
  size_t to = 0;
  int32_t value = -1;  // the value carried; -1 for a control edge
  std::string label;   // "v5 FLOAT[1,6,28,28]"; empty for control edges
  bool control = false;
};

struct GraphCluster {
  std::string id;     // "delegate_<index>"
  std::string label;  // "<backend id> (delegate <index>)"
};

struct ProgramGraph {
  std::string method;
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::vector<GraphCluster> clusters;
  // Node index of an instruction, or nullopt.
  std::optional<size_t> find(const InstructionRef& ref) const;
};

// The method to draw when none is named: "forward" (the one the Python
// Inspector links), else the program's first; null for a program without
// methods.
const pte::ExecutionPlan* default_method(const pte::Program& program);

// Fails on an index (value, operator, delegate) outside the plan.
Result<ProgramGraph> build_program_graph(const pte::ExecutionPlan& plan);

// "FLOAT[1,6,28,28]", "int 3", "double 0.5", "int list [2]", ...
std::string describe_value(const pte::ExecutionPlan& plan, int32_t value);

}  // namespace etkit::render
