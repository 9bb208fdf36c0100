#include "runner/event_tracer.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/support/file.h"
#include "runner/packed_events.h"
#include "runner/varint.h"

namespace etkit::rt {
namespace {

uint64_t monotonic_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// A streamed dump's pieces written to the file on a thread of their own,
// one at a time, while the writer builds the next piece (see
// EtDumpWriter::streaming's sink_keeps_bytes): under O_DIRECT a write
// waits for the device (about 2 ms a 4 MiB piece here), time the run would
// otherwise spend doing nothing. A call waits for the piece before; its
// error, if any, is the call's, and the new piece is then not written.
// Without a thread to be had (or with `in_call`), each piece is written in
// the call.
class BackgroundWrites {
 public:
  BackgroundWrites(OutputFile& out, bool in_call) : out_(out), thread_(in_call ? std::thread() : start()) {}
  ~BackgroundWrites() {
    if (!thread_.joinable()) return;
    {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return !pending_; });
      stop_ = true;
    }
    ready_.notify_one();
    thread_.join();
  }
  BackgroundWrites(const BackgroundWrites&) = delete;
  BackgroundWrites& operator=(const BackgroundWrites&) = delete;

  Status operator()(uint64_t offset, ByteSpan bytes) {
    if (!thread_.joinable()) return bytes.empty() ? Status() : out_.write_at(offset, bytes);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return !pending_; });
    Status last = std::exchange(written_, Status());
    if (!last.ok() || bytes.empty()) return last;
    offset_ = offset;
    bytes_ = bytes;
    pending_ = true;
    lock.unlock();
    ready_.notify_one();
    return {};
  }

 private:
  std::thread start() {
    try {
      return std::thread([this] { run(); });
    } catch (const std::system_error&) {
      return {};
    }
  }
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [&] { return pending_ || stop_; });
      if (!pending_) return;
      lock.unlock();
      Status s = out_.write_at(offset_, bytes_);
      lock.lock();
      written_ = std::move(s);
      pending_ = false;
      done_.notify_one();
    }
  }
  OutputFile& out_;
  std::mutex mutex_;
  std::condition_variable ready_, done_;
  bool pending_ = false, stop_ = false;
  uint64_t offset_ = 0;
  ByteSpan bytes_;
  Status written_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace

#ifndef ETKIT_TRACER_TSC
uint64_t EventTracer::monotonic_ticks() { return monotonic_ns(); }
#endif

EventTracer::EventTracer(DebugLevel level, size_t records_in_memory)
    : level_(level), records_capacity_(records_in_memory < 1 ? 1 : records_in_memory), start_ticks_(ticks()),
      start_ns_(monotonic_ns()) {
  records_.reserve(records_capacity_);
}

void EventTracer::spill() {
  if (!spill_) spill_ = SpillFile::create();
  if (spill_) {
    pack_records();
    if (spill_->append(packed_.get(), packed_size_)) {
      spilled_chunks_.push_back(SpilledChunk{packed_size_, uint32_t(records_.size())});
      spilled_records_ += records_.size();
      records_.clear();
      events_size_ = 0;
      return;
    }
  }
  // No room for a temporary file: keep the records in memory, as a tracer
  // without a spill file would, and try again when twice as many are held.
  records_capacity_ *= 2;
  records_.reserve(records_capacity_);
  event_bytes_capacity_ *= 2;
}

uint32_t EventTracer::name_id(std::string_view name) {
  // Fibonacci hashing: names stored next to each other land in unrelated
  // slots, so a run's few names rarely evict each other.
  const uint64_t slot = (uint64_t(reinterpret_cast<uintptr_t>(name.data())) * 0x9E3779B97F4A7C15ull) >> 58;
  RecentName& recent = recent_names_[slot];
  // The same address and size is the same text: names stay valid and
  // unchanged until finish() (see profile()).
  if (recent.data == name.data() && recent.size == name.size() && recent.data != nullptr) return recent.id;
  auto [it, inserted] = name_ids_.try_emplace(name, uint32_t(names_.size()));
  if (inserted) names_.push_back(name);
  recent = RecentName{name.data(), name.size(), it->second};
  return it->second;
}

// A packed record: its kind in one byte, then varints. Blocks and debug
// events: their index. Profile events: name index, zigzag chain and
// instruction, zigzag start - the previous profile start of the chunk,
// zigzag end - start. Debug events: the event (packed_events.h). Delegate
// profile events: the event and the same two times. Ticks of consecutive
// events are close, so times take 2-4 bytes.
void EventTracer::pack_records() {
  constexpr size_t kMaxPackedRecord = 1 + 3 * 5 + 2 * kMaxVarintBytes;
  const size_t needed = records_.size() * kMaxPackedRecord + events_size_;
  if (packed_capacity_ < needed) {
    packed_capacity_ = needed;
    packed_.reset(new uint8_t[packed_capacity_]);
  }
  uint8_t* out = packed_.get();
  uint64_t previous_start = 0;
  for (const Record& r : records_) {
    *out++ = r.kind;
    switch (r.kind) {
      case Record::kBlock: out = put_varint(out, r.index); break;
      case Record::kDebug:
        std::memcpy(out, events_.get() + r.event, r.index);
        out += r.index;
        break;
      case Record::kProfile:
        out = put_varint(out, name_id(r.name()));
        out = put_varint(out, zigzag(r.chain));
        out = put_varint(out, zigzag(r.instruction));
        out = put_varint(out, zigzag(int64_t(r.start - previous_start)));
        out = put_varint(out, zigzag(int64_t(r.end - r.start)));
        previous_start = r.start;
        break;
      case Record::kDelegateProfile:
        std::memcpy(out, events_.get() + r.event, r.index);
        out += r.index;
        out = put_varint(out, zigzag(int64_t(r.start - previous_start)));
        out = put_varint(out, zigzag(int64_t(r.end - r.start)));
        previous_start = r.start;
        break;
    }
  }
  packed_size_ = size_t(out - packed_.get());
}

template <typename Add>
bool EventTracer::unpack_chunk(const uint8_t* p, const uint8_t* end, size_t count, bool lengths_only, Add&& add) const {
  uint64_t previous_start = 0;
  auto times = [&](Record& r) {
    uint64_t start = 0, length = 0;
    if (!(p = get_varint(p, end, start)) || !(p = get_varint(p, end, length))) return false;
    r.start = previous_start + uint64_t(unzigzag(start));
    r.end = r.start + uint64_t(unzigzag(length));
    previous_start = r.start;
    return true;
  };
  // One of each, reused: a chunk's events are added one at a time.
  etdump::DebugEvent debug;
  etdump::ProfileEvent delegate;
  for (size_t i = 0; i < count; ++i) {
    if (p >= end) return false;
    Record r{};
    r.kind = static_cast<Record::Kind>(*p++);
    uint64_t index = 0;
    switch (r.kind) {
      case Record::kBlock:
        if (!(p = get_varint(p, end, index)) || index >= block_names_.size()) return false;
        r.index = uint32_t(index);
        add(r, nullptr, nullptr, 0);
        break;
      case Record::kDebug:
        if (!(p = unpack_event(p, end, debug, lengths_only))) return false;
        add(r, &debug, nullptr, 0);
        break;
      case Record::kProfile: {
        uint64_t chain = 0, instruction = 0;
        if (!(p = get_varint(p, end, index)) || index >= names_.size()) return false;
        if (!(p = get_varint(p, end, chain)) || !(p = get_varint(p, end, instruction))) return false;
        const int64_t c = unzigzag(chain), in = unzigzag(instruction);
        if (c != int32_t(c) || in != int32_t(in)) return false;
        r.name_data = names_[index].data();
        r.index = uint32_t(names_[index].size());
        r.chain = int32_t(c);
        r.instruction = int32_t(in);
        if (!times(r)) return false;
        add(r, nullptr, nullptr, uint32_t(index));
        break;
      }
      case Record::kDelegateProfile:
        if (!(p = unpack_event(p, end, delegate, lengths_only)) || !times(r)) return false;
        add(r, nullptr, &delegate, 0);
        break;
      default: return false;
    }
  }
  return p == end;
}

void EventTracer::set_time_base(uint64_t start_ticks, uint64_t start_ns, double ns_per_tick) {
  fixed_time_base_ = TimeBase{start_ticks, start_ns, ns_per_tick};
}

void EventTracer::create_block(std::string_view name) {
  // Room for another block's worth of logged tensors, allocated before the
  // block's timestamps start (see DebugBufferWriter::reserve_ahead).
  const uint64_t used = buffer_.size();
  buffer_.reserve_ahead(size_t(used - bytes_before_block_));
  bytes_before_block_ = used;
  // One copy per run of equal names: a run of a million executions names a
  // million "Execute" blocks.
  if (block_names_.empty() || block_names_.back() != name) block_names_.emplace_back(name);
  push(Record{Record::kBlock, 0, 0, uint32_t(block_names_.size() - 1), {}, 0, 0});
}

void EventTracer::grow_events(size_t bound) {
  // Doubling: a chunk's events reach at most about kEventBytesInMemory, so
  // after the first chunk this no longer happens.
  const size_t capacity = std::max({2 * events_capacity_, events_size_ + bound, size_t(64) << 10});
  std::unique_ptr<uint8_t[]> grown(new uint8_t[capacity]);
  if (events_size_ != 0) std::memcpy(grown.get(), events_.get(), events_size_);
  events_ = std::move(grown);
  events_capacity_ = capacity;
}

void EventTracer::push_event(Record::Kind kind, int32_t chain, int32_t instruction, const uint8_t* end,
                             uint64_t start_ticks, uint64_t end_ticks) {
  const size_t offset = events_size_;
  events_size_ = size_t(end - events_.get());
  Record r{kind, chain, instruction, uint32_t(events_size_ - offset), {nullptr}, start_ticks, end_ticks};
  r.event = offset;
  push(r);
}

uint8_t* EventTracer::pack_tensor(uint8_t* out, const Tensor& t) {
  const int64_t offset = t.data() == nullptr
                             ? -1
                             : buffer_.append(ByteSpan(static_cast<const uint8_t*>(t.data()), t.nbytes()));
  return rt::pack_tensor(out, static_cast<int8_t>(t.dtype()), t.sizes(), t.strides(), offset);
}

template <typename PackValue>
void EventTracer::debug_event(int32_t chain, int32_t instruction, int32_t id_int, const std::string_view* id_text,
                              size_t value_bound, PackValue&& pack_value) {
  uint8_t* out = event_room(debug_head_bound(id_text ? id_text->size() : 0) + value_bound);
  out = pack_debug_head(out, chain, instruction, id_int, id_text);
  push_event(Record::kDebug, chain, instruction, pack_value(out), 0, 0);
}

void EventTracer::log_value(int32_t chain, int32_t instruction, const EValue& value, bool program_output) {
  switch (value.tag) {
    case Tag::kTensor:
      debug_event(chain, instruction, -1, nullptr, tensor_bound(value.tensor->sizes().size()), [&](uint8_t* out) {
        return pack_tensor(pack_tensor_value(out, program_output), *value.tensor);
      });
      break;
    case Tag::kTensorList: {
      size_t bound = 0;
      for (const Tensor* t : value.tensor_list) bound += tensor_bound(t->sizes().size());
      debug_event(chain, instruction, -1, nullptr, bound, [&](uint8_t* out) {
        out = pack_tensor_list_value(out, value.tensor_list.size(), program_output);
        for (const Tensor* t : value.tensor_list) out = pack_tensor(out, *t);
        return out;
      });
      break;
    }
    case Tag::kInt:
      debug_event(chain, instruction, -1, nullptr, 0, [&](uint8_t* out) { return pack_int_value(out, value.i); });
      break;
    case Tag::kDouble:
      debug_event(chain, instruction, -1, nullptr, 0, [&](uint8_t* out) { return pack_double_value(out, value.d); });
      break;
    case Tag::kBool:
      debug_event(chain, instruction, -1, nullptr, 0, [&](uint8_t* out) { return pack_bool_value(out, value.b); });
      break;
    default:
      return;  // None, String and lists are not loggable
  }
}

void EventTracer::profile_delegate(int32_t chain, int32_t instruction, const DelegateDebugId& id, ByteSpan metadata,
                                   uint64_t start_ticks, uint64_t end_ticks) {
  const std::string_view text = id.text;
  const std::string_view* id_text = id.is_text() ? &text : nullptr;
  uint8_t* out = event_room(delegate_profile_bound(text.size(), metadata.size()));
  out = pack_delegate_profile(out, chain, instruction, id.integer, id_text, metadata);
  push_event(Record::kDelegateProfile, chain, instruction, out, start_ticks, end_ticks);
}

void EventTracer::log_delegate_output(int32_t chain, int32_t instruction, const DelegateDebugId& id, const Tensor& tensor) {
  const std::string_view text = id.text;
  debug_event(chain, instruction, id.integer, id.is_text() ? &text : nullptr, tensor_bound(tensor.sizes().size()),
              [&](uint8_t* out) { return pack_tensor(pack_tensor_value(out, false), tensor); });
}

EventTracer::TimeBase EventTracer::time_base() {
  // Ticks -> nanoseconds: the ratio of both clocks over the tracer's life,
  // at least a millisecond of it for a precise ratio.
  if (fixed_time_base_) return *fixed_time_base_;
#ifdef ETKIT_TRACER_TSC
  uint64_t end_ns = monotonic_ns();
  if (end_ns - start_ns_ < 1'000'000) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(1'000'000 - (end_ns - start_ns_)));
    end_ns = monotonic_ns();
  }
  const uint64_t end_ticks = ticks();
  TimeBase base{start_ticks_, start_ns_, 1.0, false};
  if (end_ticks > start_ticks_) base.ns_per_tick = double(end_ns - start_ns_) / double(end_ticks - start_ticks_);
  return base;
#else
  return TimeBase{0, 0, 1.0, true};
#endif
}

Status EventTracer::replay(etdump::EtDumpWriter& writer, const TimeBase& base, bool lengths_only) {
  // A measuring writer only looks at whether a time is 0 (a field left
  // out), so it is spared the conversions: with a start time that is not 0,
  // none is (each is the start time plus a delta of at least 0).
  const bool none_zero = lengths_only && !base.identity && base.start_ns != 0;
  auto to_ns = [&](uint64_t t) -> uint64_t {
    if (none_zero) return base.start_ns;
    if (base.identity) return t;
    const double delta = (double(t) - double(base.start_ticks)) * base.ns_per_tick;
    return base.start_ns + static_cast<uint64_t>(delta < 0 ? 0 : delta);
  };
  // `debug` and `delegate`: the record's event, unpacked or held in memory;
  // `name`: a profile event's name index (names_).
  auto add = [&](const Record& r, const etdump::DebugEvent* debug, etdump::ProfileEvent* delegate, uint32_t name) {
    switch (r.kind) {
      case Record::kBlock: writer.begin_block(block_names_[r.index]); break;
      case Record::kProfile:
        writer.add_profile_event(name, r.name(), r.chain, r.instruction, to_ns(r.start), to_ns(r.end));
        break;
      case Record::kDebug: writer.add_debug_event(*debug); break;
      case Record::kDelegateProfile:
        delegate->start_time = to_ns(r.start);
        delegate->end_time = to_ns(r.end);
        writer.add_profile_event(*delegate);
        break;
    }
  };
  // Reuses the packing buffer, the size of the largest chunk.
  uint64_t offset = 0;
  for (const SpilledChunk& c : spilled_chunks_) {
    uint8_t* bytes = packed_.get();
    if (c.bytes > packed_capacity_ || !spill_->read(offset, bytes, size_t(c.bytes)) ||
        !unpack_chunk(bytes, bytes + c.bytes, c.records, lengths_only, add)) {
      return Error{ErrorKind::kIo, "", "", "cannot read back the event tracer's temporary file"};
    }
    // A sink that failed fails the dump: the rest would be built for nothing.
    if (writer.failed()) return {};
    offset += c.bytes;
  }
  // The records in memory: their events are packed too, in events_.
  etdump::DebugEvent debug;
  etdump::ProfileEvent delegate;
  for (const Record& r : records_) {
    if (r.kind == Record::kDebug || r.kind == Record::kDelegateProfile) {
      const uint8_t* begin = events_.get() + r.event;
      const uint8_t* end = begin + r.index;
      const bool ok = r.kind == Record::kDebug ? unpack_event(begin, end, debug, lengths_only) == end
                                               : unpack_event(begin, end, delegate, lengths_only) == end;
      if (!ok) return Error{ErrorKind::kRuntime, "", "", "the event tracer's packed events are inconsistent"};
      add(r, &debug, &delegate, 0);
    } else {
      add(r, nullptr, nullptr, r.kind == Record::kProfile ? name_id(r.name()) : 0);
    }
  }
  return {};
}

void EventTracer::reset() {
  records_.clear();
  spill_.reset();
  spilled_records_ = 0;
  spilled_chunks_.clear();
  packed_.reset();
  packed_capacity_ = 0;
  packed_size_ = 0;
  names_.clear();
  name_ids_.clear();
  recent_names_ = {};
  block_names_.clear();
  events_.reset();
  events_capacity_ = 0;
  events_size_ = 0;
  event_bytes_capacity_ = kEventBytesInMemory;
  fixed_time_base_.reset();
  start_ticks_ = ticks();
  start_ns_ = monotonic_ns();
}

size_t EventTracer::size_estimate() const {
  return size_t((spilled_records_ + records_.size()) * kBytesPerEvent) + (size_t(1) << 16);
}

Status EventTracer::finish(const std::function<Status(ByteSpan)>& sink) {
  const TimeBase base = time_base();
  etdump::EtDumpWriter writer(size_estimate());
  Status replayed = replay(writer, base);
  reset();
  if (!replayed) return replayed;
  return writer.finish(sink);
}

Result<uint64_t> EventTracer::finish(const etdump::ChunkSink& sink, size_t window, size_t align, bool sink_keeps_bytes) {
  // Both passes see the same records and the same time base, so they make
  // the same calls (a delegate event's times are set again to equal values).
  const TimeBase base = time_base();
  Result<uint64_t> size = uint64_t(0);
  {
    auto measuring = etdump::EtDumpWriter::measuring(size_estimate(), window);
    Status replayed = replay(*measuring, base, true);
    size = replayed ? measuring->finish_streamed() : Result<uint64_t>(std::move(replayed).error());
  }
  if (size) {
    auto streaming = etdump::EtDumpWriter::streaming(*size, sink, window, align, sink_keeps_bytes);
    Status replayed = replay(*streaming, base);
    size = replayed ? streaming->finish_streamed() : Result<uint64_t>(std::move(replayed).error());
  }
  reset();
  return size;
}

Status EventTracer::write_etdump(const std::string& path, size_t stream_above) {
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(path));
  return write_etdump(*out, stream_above);
}

Status EventTracer::write_etdump(OutputFile& out, size_t stream_above, size_t window, PieceWrites writes,
                                 size_t direct_above) {
  if (out.positional() && size_estimate() > stream_above) {
    const bool direct = size_estimate() > direct_above && out.use_direct_io();
    const size_t align = direct ? OutputFile::kDirectAlignment : 1;
    Result<uint64_t> size = uint64_t(0);
    {
      BackgroundWrites pieces(out, writes == PieceWrites::kInCall);
      size = finish(std::ref(pieces), window, align, true);
    }
    if (!size) return std::move(size).error().at_file(out.path());
    ETKIT_TRY(out.set_size(*size));  // the zeros past the dump's end go
  } else {
    ETKIT_TRY(finish([&](ByteSpan bytes) { return out.write(bytes); }));
  }
  return out.commit();
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
