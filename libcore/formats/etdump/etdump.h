// The ETDump (.etdp) as plain structs, field names as in schemas/etdump.fbs.
// Absent strings, vectors and tables stay distinguishable from empty ones
// (std::optional), because the Python Inspector treats them differently
// (inspector_spec.md §2): an absent `events` vector skips the block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace etkit::etdump {

inline constexpr std::string_view kIdentifier = "ED00";

enum class ValueType : int8_t { kNull = 0, kInt = 1, kBool = 2, kFloat = 3, kDouble = 4, kTensor = 5, kTensorList = 6, kString = 7 };

struct Tensor {
  int8_t scalar_type = 0;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;  // byte offset in the debug buffer; -1 when it has no bytes
};

struct Value {
  ValueType val = ValueType::kNull;
  std::optional<Tensor> tensor;
  std::optional<std::vector<Tensor>> tensor_list;
  std::optional<int64_t> int_value;
  std::optional<float> float_value;
  std::optional<double> double_value;
  std::optional<bool> bool_value;
  std::optional<bool> output;  // set on program outputs
};

struct ProfileEvent {
  std::optional<std::string> name;
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::optional<std::string> delegate_debug_id_str;
  std::optional<std::vector<uint8_t>> delegate_debug_metadata;
  uint64_t start_time = 0;
  uint64_t end_time = 0;
};

struct AllocationEvent {
  int32_t allocator_id = 0;  // 1-based index into RunData::allocators
  uint64_t allocation_size = 0;
};

struct DebugEvent {
  uint64_t chain_index = 0;
  int32_t instruction_id = -1;
  Value debug_entry;  // required (the Python decoder rejects its absence)
  int32_t delegate_debug_id_int = -1;
  std::optional<std::string> delegate_debug_id_str;
  std::optional<std::string> name;
};

// Exactly one member should be set; files with none or several are kept as is.
struct Event {
  std::optional<ProfileEvent> profile_event;
  std::optional<AllocationEvent> allocation_event;
  std::optional<DebugEvent> debug_event;
};

struct RunData {
  std::string name;  // required
  int32_t bundled_input_index = -1;
  std::optional<std::vector<std::string>> allocators;
  std::optional<std::vector<Event>> events;
};

struct EtDump {
  uint32_t version = 0;
  std::vector<RunData> run_data;
};

// numel * element size of a logged tensor; nullopt for an unknown dtype,
// a negative size or a product beyond 2^62.
std::optional<uint64_t> tensor_nbytes(const Tensor& tensor);

}  // namespace etkit::etdump
