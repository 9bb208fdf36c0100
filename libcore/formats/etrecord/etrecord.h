// The ETRecord model: what an ETRecord ZIP holds, read into plain structs
// (etrecord_spec.md). Programs are ExecuTorch's serialized ExportedPrograms
// (§4) with both union encodings folded into one form; the runtime-link maps
// (§5) keep their string keys; side-cars (§6) are described, their tensors
// listed when a restricted unpickler can read them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "libcore/formats/etrecord/torch_save.h"

namespace etkit::etrecord {

// ---------------------------------------------------------------- programs

// A SymInt (§4.2): concrete, or a symbol expression such as "s0".
struct SymInt {
  std::optional<int64_t> value;
  std::string expr;
  std::optional<int64_t> hint;  // as_expr.hint when it is an int
};

struct TensorMeta {
  int64_t dtype = 0;  // serde ScalarType code (serde_types.h)
  std::vector<SymInt> sizes;
  std::vector<SymInt> strides;
  SymInt storage_offset;
  bool requires_grad = false;
  std::string device = "cpu";  // "type" or "type:index"
  int64_t layout = 0;          // serde Layout code, 7 = strided
};

struct Graph;

// An argument that names another value: a tensor, SymInt/SymBool node
// output, or custom object.
struct ArgRef {
  std::string name;
  bool operator==(const ArgRef&) const = default;
};
// One element of an Argument: None (monostate), a reference, or a literal.
using ArgItem = std::variant<std::monostate, ArgRef, int64_t, double, bool, std::string>;

// An Argument union (§4.6) as a variant name plus its items. Scalar variants
// have one item; list variants (as_ints, as_tensors, ...) any number.
// Enum-coded variants keep the code (as_scalar_type 7); as_device is its
// "type[:index]" text; variants this reader does not know keep their JSON
// text as one string item.
struct Argument {
  std::string variant;  // the union key as written: "as_tensor", "as_ints", ...
  bool is_list = false;
  std::vector<ArgItem> items;
  std::shared_ptr<const Graph> graph;  // as_graph: the nested subgraph
  std::string graph_name;              // as_graph: its attribute name
};

struct NamedArgument {
  std::string name;  // schema argument name: "self", "weight", ...
  Argument arg;
};

// One nn_module_stack entry (§4.5), outermost module first.
struct ModuleStackEntry {
  std::string key;   // e.g. "L__self___fc1"
  std::string path;  // e.g. "fc1"; empty for the root module
  std::string type;  // fully qualified class name
};

struct SourceFn {
  std::string name;    // FX name, e.g. "linear"
  std::string target;  // qualified callable, e.g. "torch.nn.modules.linear.Linear"
};

// A from_node provenance record (§4.5, v1.0+).
struct NodeSource {
  std::string name;
  std::string target;
  int64_t graph_id = 0;
  std::string pass_name;
  std::string action;
  std::vector<NodeSource> from_node;
};

// A frame of a Python stack trace.
struct SourceLocation {
  std::string file;
  int64_t line = 0;
  std::string function;
  std::string code;  // the source line the trace quotes, stripped
};

struct NodeMetadata {
  std::vector<std::pair<std::string, std::string>> entries;  // every key, in file order, as written
  std::optional<std::string> stack_trace;
  std::optional<std::vector<ModuleStackEntry>> nn_module_stack;
  std::vector<SourceFn> source_fn_stack;
  std::optional<std::pair<std::string, std::string>> torch_fn;  // ("linear_1", "builtin_function_or_method.linear")
  std::optional<int64_t> debug_handle;
  std::optional<std::vector<NodeSource>> from_node;
  std::vector<std::string> problems;  // keys whose text did not parse (kept in `entries`)
};

// What a node's target is (§4.4).
enum class OpKind : uint8_t {
  kEdge,           // executorch.exir.dialects.edge.ops.<ns>.<op>.<overload>
  kBackend,        // executorch.exir.dialects.backend.ops....
  kAten,           // torch.ops.<ns>.<op>.<overload> (ATen programs)
  kDelegateCall,   // ...executorch_call_delegate
  kHigherOrder,    // torch.ops.higher_order.<name>: cond, map, ...
  kMemoryAlloc,    // memory.alloc (ExecuTorch dialect)
  kSymbolic,       // _operator.*, torch.sym_*: SymInt arithmetic
  kKnownFunction,  // executorch.exir.memory.view
  kOther,
};
std::string_view op_kind_name(OpKind kind);

struct ExportedProgram;

// The LoweredBackendModule a delegate call embeds in its first input (§4.7).
struct LoweredModule {
  std::string backend_id;
  uint64_t processed_bytes = 0;  // size of the backend blob (decoded base64)
  std::vector<std::string> compile_spec_keys;
  std::shared_ptr<const ExportedProgram> original_module;
  bool has_named_data_store = false;
};

struct Node {
  std::string name;    // FX name; pre-v1.0 files: derived (§4.3)
  bool name_derived = false;
  std::string target;  // as written
  std::string op;      // the Inspector's op label (§4.4), e.g. "aten.mul.Tensor"
  OpKind kind = OpKind::kOther;
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  NodeMetadata metadata;
  std::shared_ptr<const LoweredModule> lowered;  // delegate calls

  // The names of the values this node produces, in order: tensor names of
  // as_tensor/as_tensors outputs, SymInt/SymBool names.
  std::vector<std::string> output_names() const;
};

struct Graph {
  std::vector<Argument> inputs;  // placeholders, in order
  std::vector<Argument> outputs;
  std::vector<Node> nodes;       // call_function nodes only (§4.2)
  std::map<std::string, TensorMeta> tensor_values;
  std::map<std::string, SymInt> sym_int_values;
  std::map<std::string, std::string> sym_bool_values;  // expression or "True"/"False"
  bool is_single_tensor_return = false;

  const TensorMeta* tensor(std::string_view name) const;
};

// signature.input_specs / output_specs entries (§4.8).
struct InputSpec {
  std::string kind;    // "user_input", "parameter", "buffer", "tensor_constant", "custom_obj", "token", "constant_input"
  std::string arg;     // the graph input it describes
  std::string target;  // parameter_name / buffer_name / tensor_constant_name / custom_obj_name
  bool persistent = true;  // buffers
};
struct OutputSpec {
  std::string kind;  // "user_output", "loss_output", "buffer_mutation", ...
  std::string arg;
  std::string target;
};

struct RangeConstraint {
  std::string symbol;
  double min_val = 0;  // +-Infinity for unbounded ranges
  double max_val = 0;
};

// How unions were written (§4.9).
enum class UnionForm : uint8_t { kUnknown, kWide, kNarrow };

struct ExportedProgram {
  Graph graph;
  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;
  std::vector<std::string> module_call_fqns;  // module_call_graph entries
  std::vector<std::pair<std::string, int64_t>> opset_version;
  std::vector<RangeConstraint> range_constraints;
  std::string schema_version;  // "1" (v0.1) or "major.minor", e.g. "5.3"
  std::string dialect;         // v0.2-v0.3: "EDGE"; later ""
  std::vector<std::string> verifiers;  // v0.4+: ["EDGE"], ["ATEN"]
  UnionForm union_form = UnionForm::kUnknown;
};

// ---------------------------------------------------------------- the file

// The role of each ZIP entry, classified as the reference parser does (§1.2).
enum class EntryKind : uint8_t {
  kMarker,            // ETRECORD_V0
  kEdgeProgram,       // edge_dialect_exported_program[/<method>]
  kAtenProgram,       // exported_program
  kExtraProgram,      // <name>/<method> (graph_map)
  kStateDict,         // <program>_state_dict
  kConstants,         // <program>_constants
  kExampleInputs,     // <program>_example_inputs
  kDebugHandleMap,
  kDelegateMap,
  kNumOutsMap,        // instruction_id_to_num_outs_map
  kExportGraphId,
  kReferenceOutputs,
  kRepresentativeInputs,
  kProgramBuffer,     // pre-release .pte bytes
};
std::string_view entry_kind_name(EntryKind kind);

struct Entry {
  std::string name;
  uint64_t size = 0;
  EntryKind kind = EntryKind::kExtraProgram;
  std::string program;  // side-cars: the program entry they belong to
};

struct Program {
  std::string entry;   // the ZIP entry, e.g. "edge_dialect_exported_program/forward"
  EntryKind kind = EntryKind::kEdgeProgram;  // kEdgeProgram, kAtenProgram or kExtraProgram
  std::string method;  // "forward" for the single pre-v1.2 edge program and exported_program
  ExportedProgram program;
};

// A debug_handle_map value: an int for a kernel, a list for a delegate call.
struct Handles {
  bool is_list = false;
  std::vector<int64_t> values;
};

struct DelegateInfo {
  std::optional<std::string> name;  // backend id
  std::vector<std::pair<std::string, Handles>> delegate_map;  // delegate debug id -> handles, in file order
};

// method -> instruction id (decimal string, as in the JSON) -> value.
using DebugHandleMap = std::map<std::string, std::map<std::string, Handles>>;
using DelegateMap = std::map<std::string, std::map<std::string, DelegateInfo>>;
using NumOutsMap = std::map<std::string, std::map<std::string, int64_t>>;

// The entries of one method's map in numeric instruction-id order, as the
// emitter inserted them (shorter decimal strings first, then lexicographic).
template <typename T>
std::vector<const std::pair<const std::string, T>*> numeric_order(const std::map<std::string, T>& map) {
  std::vector<const std::pair<const std::string, T>*> out;
  out.reserve(map.size());
  for (const auto& kv : map) out.push_back(&kv);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return a->first.size() != b->first.size() ? a->first.size() < b->first.size() : a->first < b->first;
  });
  return out;
}

// A pickled payload: what it is and whether it can be read without Python.
struct SideCar {
  enum class Status : uint8_t {
    kReadable,     // tensors/values listed in `content`
    kEmpty,        // 0 bytes (e.g. no example inputs)
    kNeedsPython,  // well-formed, but built by callables only Python can run
    kMalformed,    // the payload is broken
  };
  std::string entry;
  EntryKind kind = EntryKind::kStateDict;
  uint64_t size = 0;
  bool torch_save_zip = false;  // torch.save ZIP (vs a plain pickle)
  Status status = Status::kEmpty;
  std::string note;  // why it is not readable
  TorchSave content;
};
std::string_view side_car_status_name(SideCar::Status status);

// The ExecuTorch release the file was written by, inferred from its entries
// and JSON shape (§2); there is no version field.
struct VersionGuess {
  std::string label;  // "v0.1", "v0.2-v0.3", "v0.4-v0.6", "v0.7", "v1.0-v1.1", "v1.2", "v1.3+", "pre-release (2023)", "unknown"
  std::vector<std::string> evidence;
};

struct EtRecord {
  std::vector<Entry> entries;    // ZIP order
  std::vector<Program> programs; // entry order
  std::optional<DebugHandleMap> debug_handle_map;
  std::optional<DelegateMap> delegate_map;
  std::optional<NumOutsMap> num_outs_map;
  std::optional<int64_t> export_graph_id;
  std::vector<SideCar> side_cars;
  VersionGuess version;
  std::vector<std::string> warnings;  // tolerated oddities (duplicate entries, unparsed metadata, ...)

  // Only the marker: the writer failed after starting (§1, §8.1).
  bool empty() const { return entries.size() == 1 && entries[0].kind == EntryKind::kMarker; }
  const Program* find_program(std::string_view entry) const;
  // The edge program of `method` (edge_dialect_exported_program/<method>;
  // the single pre-v1.2 entry counts as "forward"), or nullptr.
  const Program* edge_program(std::string_view method = "forward") const;
  size_t edge_program_count() const;
};

}  // namespace etkit::etrecord
