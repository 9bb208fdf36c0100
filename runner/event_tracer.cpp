#include "runner/event_tracer.h"

#include <algorithm>
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

EventTracer::EventTracer(DebugLevel level, size_t records_in_memory)
    : level_(level), records_capacity_(records_in_memory < 1 ? 1 : records_in_memory), start_ticks_(ticks()),
      start_ns_(monotonic_ns()) {
  records_.reserve(records_capacity_);
}

void EventTracer::spill() {
  if (!spill_) spill_ = SpillFile::create();
  // Records hold the event names as string_views: they are read back by this
  // process while the names are still alive (see profile()).
  if (spill_ && spill_->append(records_.data(), records_.size() * sizeof(Record))) {
    spilled_records_ += records_.size();
    records_.clear();
    return;
  }
  // No room for a temporary file: keep the records in memory, as a tracer
  // without a spill file would, and try again when twice as many are held.
  records_capacity_ *= 2;
  records_.reserve(records_capacity_);
}

void EventTracer::set_time_base(uint64_t start_ticks, uint64_t start_ns, double ns_per_tick) {
  fixed_time_base_ = TimeBase{start_ticks, start_ns, ns_per_tick};
}

void EventTracer::create_block(std::string_view name) {
  // Room for another block's worth of logged tensors, allocated before the
  // block's timestamps start (see DebugBufferWriter::reserve_ahead).
  const size_t used = buffer_.bytes().size();
  buffer_.reserve_ahead(used - bytes_before_block_);
  bytes_before_block_ = used;
  // One copy per run of equal names: a run of a million executions names a
  // million "Execute" blocks.
  if (block_names_.empty() || block_names_.back() != name) block_names_.emplace_back(name);
  push(Record{Record::kBlock, 0, 0, uint32_t(block_names_.size() - 1), {}, 0, 0});
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
  push(Record{Record::kDebug, chain, instruction, uint32_t(debug_events_.size() - 1), {}, 0, 0});
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
  push(Record{Record::kDelegateProfile, chain, instruction, uint32_t(delegate_events_.size() - 1), {},
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
  push(Record{Record::kDebug, chain, instruction, uint32_t(debug_events_.size() - 1), {}, 0, 0});
}

Status EventTracer::finish(const std::function<Status(ByteSpan)>& sink) {
  // Ticks -> nanoseconds: the ratio of both clocks over the tracer's life,
  // at least a millisecond of it for a precise ratio.
  TimeBase base{0, 0, 1.0};
  bool identity = true;
#ifdef ETKIT_HAVE_TSC
  uint64_t end_ns = monotonic_ns();
  if (!fixed_time_base_ && end_ns - start_ns_ < 1'000'000) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(1'000'000 - (end_ns - start_ns_)));
    end_ns = monotonic_ns();
  }
  const uint64_t end_ticks = ticks();
  base = TimeBase{start_ticks_, start_ns_, 1.0};
  if (end_ticks > start_ticks_) base.ns_per_tick = double(end_ns - start_ns_) / double(end_ticks - start_ticks_);
  identity = false;
#endif
  if (fixed_time_base_) {
    base = *fixed_time_base_;
    identity = false;
  }
  auto to_ns = [&](uint64_t t) {
    if (identity) return t;
    const double delta = (double(t) - double(base.start_ticks)) * base.ns_per_tick;
    return base.start_ns + static_cast<uint64_t>(delta < 0 ? 0 : delta);
  };
  const uint64_t events = spilled_records_ + records_.size();
  etdump::EtDumpWriter writer(size_t(events * kBytesPerEvent) + (size_t(1) << 16));
  auto add = [&](const Record& r) {
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
  };
  Status read_back;
  if (spilled_records_ > 0) {
    std::vector<Record> chunk(std::min<uint64_t>(spilled_records_, kRecordsInMemory));
    for (uint64_t done = 0; done < spilled_records_ && read_back;) {
      const size_t n = size_t(std::min<uint64_t>(chunk.size(), spilled_records_ - done));
      if (!spill_->read(done * sizeof(Record), chunk.data(), n * sizeof(Record))) {
        read_back = Error{ErrorKind::kIo, "", "", "cannot read back the event tracer's temporary file"};
        break;
      }
      for (size_t i = 0; i < n; ++i) add(chunk[i]);
      done += n;
    }
  }
  if (read_back) {
    for (const Record& r : records_) add(r);
  }
  records_.clear();
  spill_.reset();
  spilled_records_ = 0;
  block_names_.clear();
  debug_events_.clear();
  delegate_events_.clear();
  fixed_time_base_.reset();
  start_ticks_ = ticks();
  start_ns_ = monotonic_ns();
  if (!read_back) return read_back;
  return writer.finish(sink);
}

std::vector<uint8_t> EventTracer::finish() {
  std::vector<uint8_t> out;
  (void)finish([&](ByteSpan bytes) -> Status {
    out.assign(bytes.begin(), bytes.end());
    return {};
  });
  return out;
}

}  // namespace etkit::rt
