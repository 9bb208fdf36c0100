#include "runner/event_tracer.h"

#include <chrono>
#include <thread>

#include "libcore/formats/etdump/etdump_writer.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ETKIT_HAVE_TSC 1
#endif

namespace etkit::rt {
namespace {

uint64_t monotonic_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

}  // namespace

uint64_t EventTracer::ticks() {
#ifdef ETKIT_HAVE_TSC
  return __rdtsc();
#else
  return monotonic_ns();
#endif
}

EventTracer::EventTracer(DebugLevel level) : level_(level), start_ticks_(ticks()), start_ns_(monotonic_ns()) {
  records_.reserve(1 << 14);
}

void EventTracer::create_block(std::string_view name) {
  // Room for another block's worth of logged tensors, allocated before the
  // block's timestamps start (see DebugBufferWriter::reserve_ahead).
  const size_t used = buffer_.bytes().size();
  buffer_.reserve_ahead(used - bytes_before_block_);
  bytes_before_block_ = used;
  block_names_.emplace_back(name);
  records_.push_back(Record{Record::kBlock, 0, 0, uint32_t(block_names_.size() - 1), {}, 0, 0});
}

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
  debug_events_.push_back(std::move(event));
  records_.push_back(Record{Record::kDebug, chain, instruction, uint32_t(debug_events_.size() - 1), {}, 0, 0});
}

void EventTracer::profile_delegate(int32_t chain, int32_t instruction, const DelegateDebugId& id, ByteSpan metadata,
                                   uint64_t start_ticks, uint64_t end_ticks) {
  etdump::ProfileEvent event;
  event.chain_index = chain;
  event.instruction_id = instruction;
  if (id.is_text()) {
    event.delegate_debug_id_str = id.text;
  } else {
    event.delegate_debug_id_int = id.integer;
  }
  event.delegate_debug_metadata.emplace(metadata.begin(), metadata.end());
  delegate_events_.push_back(std::move(event));
  records_.push_back(Record{Record::kDelegateProfile, chain, instruction, uint32_t(delegate_events_.size() - 1), {},
                            start_ticks, end_ticks});
}

void EventTracer::log_delegate_output(int32_t chain, int32_t instruction, const DelegateDebugId& id, const Tensor& tensor) {
  etdump::DebugEvent event;
  event.chain_index = static_cast<uint64_t>(static_cast<int64_t>(chain));
  event.instruction_id = instruction;
  if (id.is_text()) {
    event.delegate_debug_id_str = id.text;
  } else {
    event.delegate_debug_id_int = id.integer;
  }
  event.debug_entry.val = etdump::ValueType::kTensor;
  event.debug_entry.tensor = record_tensor(tensor);
  debug_events_.push_back(std::move(event));
  records_.push_back(Record{Record::kDebug, chain, instruction, uint32_t(debug_events_.size() - 1), {}, 0, 0});
}

std::vector<uint8_t> EventTracer::finish() {
  // Ticks -> nanoseconds: the ratio of both clocks over the tracer's life,
  // at least a millisecond of it for a precise ratio.
  double ns_per_tick = 1.0;
#ifdef ETKIT_HAVE_TSC
  uint64_t end_ns = monotonic_ns();
  if (end_ns - start_ns_ < 1'000'000) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(1'000'000 - (end_ns - start_ns_)));
    end_ns = monotonic_ns();
  }
  const uint64_t end_ticks = ticks();
  if (end_ticks > start_ticks_) ns_per_tick = double(end_ns - start_ns_) / double(end_ticks - start_ticks_);
#endif
  auto to_ns = [&](uint64_t t) {
#ifdef ETKIT_HAVE_TSC
    const double delta = (double(t) - double(start_ticks_)) * ns_per_tick;
    return start_ns_ + static_cast<uint64_t>(delta < 0 ? 0 : delta);
#else
    return t;
#endif
  };
  etdump::EtDumpWriter writer;
  for (const Record& r : records_) {
    switch (r.kind) {
      case Record::kBlock: writer.begin_block(block_names_[r.index]); break;
      case Record::kProfile: writer.add_profile_event(r.name, r.chain, r.instruction, to_ns(r.start), to_ns(r.end)); break;
      case Record::kDebug: writer.add_debug_event(debug_events_[r.index]); break;
      case Record::kDelegateProfile: {
        etdump::ProfileEvent& event = delegate_events_[r.index];
        event.start_time = to_ns(r.start);
        event.end_time = to_ns(r.end);
        writer.add_profile_event(event);
        break;
      }
    }
  }
  records_.clear();
  block_names_.clear();
  debug_events_.clear();
  delegate_events_.clear();
  start_ticks_ = ticks();
  start_ns_ = monotonic_ns();
  return writer.finish();
}

}  // namespace etkit::rt
