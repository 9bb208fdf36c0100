// The ExecuTorch program (.pte) as plain structs: what program_reader decodes
// and program_writer encodes. Field names follow schema/program.fbs so code,
// JSON and docs read the same. Byte blobs are spans: into the file for a
// program that was read (kept alive by `storage`), into caller memory for a
// program that is about to be written.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "libcore/support/bytes.h"

namespace etkit::pte {

struct AllocationDetails {
  uint32_t memory_id = 0;  // 1-based arena index
  uint64_t memory_offset = 0;  // (memory_offset_high << 32) | memory_offset_low
};

enum class ShapeDynamism : int8_t { kStatic = 0, kDynamicBound = 1, kDynamicUnbound = 2 };
enum class TensorDataLocation : int8_t { kSegment = 0, kExternal = 1 };

struct ExtraTensorInfo {
  uint64_t mutable_data_segments_idx = 0;
  std::optional<std::string> fully_qualified_name;
  TensorDataLocation location = TensorDataLocation::kSegment;
  int8_t device_type = 0;
  int8_t device_index = 0;
};

struct Tensor {
  int8_t scalar_type = 0;
  int32_t storage_offset = 0;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  bool requires_grad = false;
  uint32_t data_buffer_idx = 0;
  std::optional<AllocationDetails> allocation_info;
  int8_t layout = 0;
  ShapeDynamism shape_dynamism = ShapeDynamism::kStatic;
  std::optional<ExtraTensorInfo> extra_tensor_info;
};

struct Null {};
struct Int { int64_t value = 0; };
struct Bool { bool value = false; };
struct Double { double value = 0; };
struct String { std::string value; };
struct IntList { std::vector<int64_t> items; };  // value indices of Int values
struct DoubleList { std::vector<double> items; };
struct BoolList { std::vector<bool> items; };
struct TensorList { std::vector<int32_t> items; };
struct OptionalTensorList { std::vector<int32_t> items; };

// Alternative order matches the KernelTypes union tags minus one (Null = 1).
using EValue = std::variant<Null, Int, Bool, Double, Tensor, String, IntList, DoubleList,
                            BoolList, TensorList, OptionalTensorList>;

struct Operator {
  std::string name;
  std::string overload;
  // "name.overload", or "name" when the overload is empty (registry key).
  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
};

struct KernelCall { int32_t op_index = 0; std::vector<int32_t> args; };
struct DelegateCall { int32_t delegate_index = 0; std::vector<int32_t> args; };
struct MoveCall { int32_t move_from = 0; int32_t move_to = 0; };
struct JumpFalseCall { int32_t cond_value_index = 0; int32_t destination_instruction = 0; };
struct FreeCall { int32_t value_index = 0; };

// Alternative order matches the InstructionArguments union tags minus one.
using Instruction = std::variant<KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall>;

struct Frame {
  std::string filename;
  int32_t lineno = 0;
  std::string name;
  std::string context;
};

struct Chain {
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Instruction> instructions;
  std::vector<std::vector<Frame>> stacktrace;
};

enum class DataLocation : int8_t { kInline = 0, kSegment = 1 };

struct CompileSpec {
  std::string key;
  std::vector<uint8_t> value;
};

struct BackendDelegate {
  std::string id;
  DataLocation location = DataLocation::kInline;
  uint32_t index = 0;  // into backend_delegate_data (INLINE) or segments (SEGMENT)
  std::vector<CompileSpec> compile_specs;
};

struct NonConstBufferDevice {
  int32_t buffer_idx = 0;
  int8_t device_type = 0;
  int8_t device_index = 0;
};

struct ExecutionPlan {
  std::string name;
  std::optional<std::string> encoded_inp_str;
  std::optional<std::string> encoded_out_str;
  std::vector<EValue> values;
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<Chain> chains;
  std::vector<Operator> operators;
  std::vector<BackendDelegate> delegates;
  std::vector<int64_t> non_const_buffer_sizes;  // entry 0 is a placeholder
  std::vector<NonConstBufferDevice> non_const_buffer_device;
};

struct DataSegment {
  uint64_t offset = 0;  // relative to the extended header's segment_base_offset
  uint64_t size = 0;
};

struct SubsegmentOffsets {
  uint32_t segment_index = 0;
  std::vector<uint64_t> offsets;  // entry 0 is a placeholder
};

struct NamedData {
  std::string key;
  uint32_t segment_index = 0;
};

// The optional "eh00" header between the identifier and the FlatBuffer body.
struct ExtendedHeader {
  uint32_t length = 32;  // 24 in old files (no segment_data_size)
  uint64_t program_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

struct Program {
  uint32_t version = 0;
  std::vector<ExecutionPlan> execution_plan;
  std::vector<ByteSpan> constant_buffer;  // legacy inline constants
  std::vector<ByteSpan> backend_delegate_data;
  std::vector<DataSegment> segments;
  std::optional<SubsegmentOffsets> constant_segment;
  std::vector<SubsegmentOffsets> mutable_data_segments;
  std::vector<NamedData> named_data;

  // File layout (not part of the FlatBuffer).
  std::optional<ExtendedHeader> extended_header;
  // Bytes of each entry of `segments`, resolved against the file. Empty spans
  // when the file has no extended header (segments listed without data are a
  // known writer quirk, pte_spec.md §1.3).
  std::vector<ByteSpan> segment_data;

  // Keeps the spans above alive.
  std::shared_ptr<const void> storage;

  const ExecutionPlan* find_method(std::string_view name) const;
};

}  // namespace etkit::pte
