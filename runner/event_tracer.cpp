#include "runner/event_tracer.h"

namespace etkit::rt {

etdump::Tensor EventTracer::record_tensor(const Tensor& t) {
  etdump::Tensor out;
  out.scalar_type = static_cast<int8_t>(t.dtype());
  out.sizes.assign(t.sizes().begin(), t.sizes().end());
  out.strides.assign(t.strides().begin(), t.strides().end());
  out.offset = t.data() == nullptr ? -1
                                   : buffer_.append(ByteSpan(static_cast<const uint8_t*>(t.data()), t.nbytes()));
  return out;
}

void EventTracer::log_value(int32_t chain, int32_t instruction, const EValue& value, bool program_output) {
  etdump::DebugEvent event;
  // DebugEvent.chain_index is unsigned: the unset -1 reads back as 2^64-1.
  event.chain_index = static_cast<uint64_t>(static_cast<int64_t>(chain));
  event.instruction_id = instruction;
  auto& entry = event.debug_entry;
  switch (value.tag) {
    case Tag::kTensor:
      entry.val = etdump::ValueType::kTensor;
      entry.tensor = record_tensor(*value.tensor);
      if (program_output) entry.output = true;
      break;
    case Tag::kTensorList: {
      entry.val = etdump::ValueType::kTensorList;
      std::vector<etdump::Tensor> list;
      for (const Tensor* t : value.tensor_list) list.push_back(record_tensor(*t));
      entry.tensor_list = std::move(list);
      if (program_output) entry.output = true;
      break;
    }
    case Tag::kInt:
      entry.val = etdump::ValueType::kInt;
      entry.int_value = value.i;
      break;
    case Tag::kDouble:
      entry.val = etdump::ValueType::kDouble;
      entry.double_value = value.d;
      break;
    case Tag::kBool:
      entry.val = etdump::ValueType::kBool;
      entry.bool_value = value.b;
      break;
    default:
      return;  // None, String and lists are not loggable
  }
  writer_.add_debug_event(event);
}

}  // namespace etkit::rt
