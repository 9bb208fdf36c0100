// The XNNPACK delegate interpreted on the host: a verified XNNGraph
// (libcore/formats/xnnpack) compiled into slots (one per value) and a node
// list, executed node by node with XNNPACK's semantics (NHWC layouts, OHWI
// filters, output min/max clamps, per-tensor/per-channel quantization).
//
// Shapes are propagated from the external inputs on every call, as
// xnn_reshape_runtime does, so dynamic shapes within the program's bounds
// work; internal buffers grow as needed and are kept across calls.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "libcore/formats/xnnpack/xnn_graph.h"
#include "runner/backend.h"
#include "runner/event_tracer.h"

namespace etkit::rt::xnnpack {

// How the per-node profiling events are identified (docs/tools/et-run.md).
enum class DebugIds {
  kOperatorNames,  // delegate_debug_id_str = XNNPACK's operator name + " #n", as the official profiler
  kDebugHandles,   // delegate_debug_id_int = the node's debug handle (links through an ETRecord)
};

struct Options {
  DebugIds debug_ids = DebugIds::kOperatorNames;
  // Bound on the bytes of the delegate's internal values together (shapes
  // come from the payload, which may be hostile); exceeding it fails the call.
  uint64_t memory_limit = uint64_t(4) << 30;
};

// One value during a run: its current shape and bytes, and its quantization.
struct Slot {
  const xnn::Value* def = nullptr;
  xnn::Datatype dtype = xnn::Datatype::kFp32;
  std::vector<size_t> dims;
  uint8_t* data = nullptr;
  std::vector<float> own;  // storage of internal values (float-aligned), grown as needed
  Tensor* external = nullptr;  // the delegate argument behind an external value, this call
  float scale = 1.0f;
  int32_t zero_point = 0;
  std::vector<float> channel_scales;  // per channel, or per block (row-major [out, blocks]); qdint8: per row
  std::vector<int32_t> row_zero_points;  // qdint8: per row
  size_t numel() const;
};

class Runtime;

// What a node function sees.
struct NodeCall {
  const xnn::Node& node;
  std::span<Slot* const> in;  // nullptr for an absent optional operand
  std::span<Slot* const> out;
  Runtime& runtime;
};
using NodeFn = Status (*)(NodeCall& call);

class Runtime {
 public:
  // `graph` spans must outlive the runtime (they point into the program).
  static Result<std::unique_ptr<Runtime>> compile(xnn::Graph graph, const NamedDataMap* named_data, Options options);

  Status run(std::span<EValue* const> args, const DelegateCallContext& context);

  // Gives `slot` this shape: resizes the delegate's output tensor, or grows
  // the slot's own storage. Fails if the shape exceeds an output's bounds.
  Status reshape(Slot& slot, std::span<const size_t> dims);
  // Fails when `bytes` of scratch would exceed the memory limit.
  Status check_scratch(uint64_t bytes) const;
  // Scratch memory for node functions (reused, not zeroed).
  std::vector<float>& scratch(size_t which);
  // A constant filter repacked by a node function (int16 panels, floats),
  // kept for the runtime's life by the constant value, the packing's layout
  // and its size in bytes: `fresh` when the caller must fill it. Counted
  // against the memory limit.
  struct Packed {
    void* data;
    bool fresh;
  };
  Result<Packed> packed(const xnn::Value* constant, uint32_t layout, size_t bytes);

 private:
  Runtime() = default;
  Status bind_externals(std::span<EValue* const> args);
  Status finish_outputs();

  xnn::Graph graph_;
  Options options_;
  std::vector<Slot> slots_;
  struct CompiledNode {
    NodeFn fn;
    std::vector<Slot*> in, out;
  };
  std::vector<CompiledNode> nodes_;
  std::vector<std::vector<float>> scratch_;
  std::map<std::tuple<const xnn::Value*, uint32_t, size_t>, std::vector<float>> packed_;  // float-aligned bytes
  uint64_t packed_bytes_ = 0;
  uint64_t internal_bytes_ = 0;  // capacity of every slot's own storage
  std::vector<DelegateDebugId> event_ids_;             // per node, for the chosen DebugIds
  std::vector<std::vector<uint8_t>> node_metadata_;  // delegate_debug_metadata per node
};

// The ExecuTorch dtype of an external value of this datatype (int32 and
// qint32 also fill int64 tensors, widened after the call).
ScalarType scalar_type_of(xnn::Datatype d);

// Node functions by type (xnn_ops_*.cpp); nullptr for a type not supported.
NodeFn node_function(xnn::NodeType type);
// The operator name XNNPACK's profiler gives the node (without " #n").
std::string xnnpack_operator_name(const xnn::Graph& graph, const xnn::Node& node);

}  // namespace etkit::rt::xnnpack
