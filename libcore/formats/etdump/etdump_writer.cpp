#include "libcore/formats/etdump/etdump_writer.h"

#include <deque>
#include <string>
#include <unordered_map>

#include "etdump_generated.h"

namespace etkit::etdump {
namespace fb = ::etdump;
using flatbuffers::Offset;

struct EtDumpWriter::Impl {
  explicit Impl(size_t size_hint) : builder(size_hint) {}
  flatbuffers::FlatBufferBuilder builder;
  // Event names written so far; a runtime repeats a few hundred names over
  // millions of events.
  std::deque<std::string> name_storage;
  std::unordered_map<std::string_view, Offset<flatbuffers::String>> names;
  std::vector<Offset<fb::RunData>> runs;
  bool block_open = false;
  Offset<flatbuffers::String> block_name;
  int32_t bundled_input_index = -1;
  std::vector<Offset<fb::Allocator>> allocators;
  std::vector<Offset<fb::Event>> events;
  bool block_has_events = false;

  void close_block() {
    if (!block_open) return;
    auto allocs = allocators.empty() ? 0 : builder.CreateVector(allocators);
    // The runtime leaves `events` out of a block that received none.
    auto evs = block_has_events ? builder.CreateVector(events) : 0;
    runs.push_back(fb::CreateRunData(builder, block_name, bundled_input_index, allocs, evs));
    allocators.clear();
    events.clear();
    block_has_events = false;
    block_open = false;
  }

  void ensure_block() {
    if (!block_open) open_block("", -1);
  }

  void open_block(std::string_view name, int32_t index) {
    close_block();
    block_name = builder.CreateString(name.data(), name.size());
    bundled_input_index = index;
    block_open = true;
  }

  Offset<fb::Tensor> tensor(const Tensor& t) {
    return fb::CreateTensor(builder, static_cast<executorch_flatbuffer::ScalarType>(t.scalar_type),
                            builder.CreateVector(t.sizes), builder.CreateVector(t.strides), t.offset);
  }

  Offset<fb::Value> value(const Value& v) {
    auto t = v.tensor ? tensor(*v.tensor) : 0;
    Offset<fb::TensorList> list;
    if (v.tensor_list) {
      std::vector<Offset<fb::Tensor>> items;
      for (const auto& item : *v.tensor_list) items.push_back(tensor(item));
      list = fb::CreateTensorList(builder, builder.CreateVector(items));
    }
    auto i = v.int_value ? fb::CreateInt(builder, *v.int_value) : 0;
    auto f = v.float_value ? fb::CreateFloat(builder, *v.float_value) : 0;
    auto d = v.double_value ? fb::CreateDouble(builder, *v.double_value) : 0;
    auto b = v.bool_value ? fb::CreateBool(builder, *v.bool_value) : 0;
    auto o = v.output ? fb::CreateBool(builder, *v.output) : 0;
    return fb::CreateValue(builder, static_cast<fb::ValueType>(v.val), t, list, i, f, d, b, o);
  }

  Offset<flatbuffers::String> string(const std::optional<std::string>& s) {
    return s ? builder.CreateString(*s) : 0;
  }

  Offset<fb::ProfileEvent> profile(const ProfileEvent& p) {
    auto name = string(p.name);
    auto id_str = string(p.delegate_debug_id_str);
    auto metadata = p.delegate_debug_metadata ? builder.CreateVector(*p.delegate_debug_metadata) : 0;
    return fb::CreateProfileEvent(builder, name, p.chain_index, p.instruction_id, p.delegate_debug_id_int, id_str,
                                  metadata, p.start_time, p.end_time);
  }

  Offset<fb::DebugEvent> debug(const DebugEvent& d) {
    auto entry = value(d.debug_entry);
    auto id_str = string(d.delegate_debug_id_str);
    auto name = string(d.name);
    return fb::CreateDebugEvent(builder, d.chain_index, d.instruction_id, entry, d.delegate_debug_id_int, id_str, name);
  }

  Offset<flatbuffers::String> shared_name(std::string_view name) {
    auto it = names.find(name);
    if (it != names.end()) return it->second;
    auto offset = builder.CreateString(name.data(), name.size());
    names.emplace(name_storage.emplace_back(name), offset);
    return offset;
  }

  void push(Offset<fb::Event> event) {
    events.push_back(event);
    block_has_events = true;
  }
};

EtDumpWriter::EtDumpWriter(size_t size_hint) : impl_(std::make_unique<Impl>(size_hint)) {}
EtDumpWriter::~EtDumpWriter() = default;

void EtDumpWriter::begin_block(std::string_view name, int32_t bundled_input_index) {
  impl_->open_block(name, bundled_input_index);
}

int32_t EtDumpWriter::add_allocator(std::string_view name) {
  impl_->ensure_block();
  impl_->allocators.push_back(fb::CreateAllocator(impl_->builder, impl_->builder.CreateString(name.data(), name.size())));
  return static_cast<int32_t>(impl_->allocators.size());
}

void EtDumpWriter::add_profile_event(const ProfileEvent& event) {
  impl_->ensure_block();
  auto p = impl_->profile(event);
  impl_->push(fb::CreateEvent(impl_->builder, p));
}

void EtDumpWriter::add_profile_event(std::string_view name, int32_t chain_index, int32_t instruction_id,
                                     uint64_t start_time, uint64_t end_time) {
  impl_->ensure_block();
  auto& b = impl_->builder;
  auto n = impl_->shared_name(name);
  auto p = fb::CreateProfileEvent(b, n, chain_index, instruction_id, -1, 0, 0, start_time, end_time);
  impl_->push(fb::CreateEvent(b, p));
}

void EtDumpWriter::add_allocation_event(const AllocationEvent& event) {
  impl_->ensure_block();
  auto a = fb::CreateAllocationEvent(impl_->builder, event.allocator_id, event.allocation_size);
  impl_->push(fb::CreateEvent(impl_->builder, 0, a));
}

void EtDumpWriter::add_debug_event(const DebugEvent& event) {
  impl_->ensure_block();
  auto d = impl_->debug(event);
  impl_->push(fb::CreateEvent(impl_->builder, 0, 0, d));
}

void EtDumpWriter::add_event(const Event& event) {
  impl_->ensure_block();
  auto p = event.profile_event ? impl_->profile(*event.profile_event) : 0;
  auto a = event.allocation_event
               ? fb::CreateAllocationEvent(impl_->builder, event.allocation_event->allocator_id,
                                           event.allocation_event->allocation_size)
               : 0;
  auto d = event.debug_event ? impl_->debug(*event.debug_event) : 0;
  impl_->push(fb::CreateEvent(impl_->builder, p, a, d));
}

Status EtDumpWriter::finish(const std::function<Status(ByteSpan)>& sink) {
  impl_->close_block();
  auto runs = impl_->builder.CreateVector(impl_->runs);
  auto root = fb::CreateETDump(impl_->builder, 0, runs);
  impl_->builder.FinishSizePrefixed(root, kIdentifier.data());
  Status s = sink(ByteSpan(impl_->builder.GetBufferPointer(), impl_->builder.GetSize()));
  impl_ = std::make_unique<Impl>(size_t(1) << 20);
  return s;
}

std::vector<uint8_t> EtDumpWriter::finish() {
  std::vector<uint8_t> out;
  (void)finish([&](ByteSpan bytes) -> Status {
    out.assign(bytes.begin(), bytes.end());
    return {};
  });
  return out;
}

std::vector<uint8_t> write_etdump(const EtDump& dump) {
  EtDumpWriter writer;
  for (const auto& run : dump.run_data) {
    writer.begin_block(run.name, run.bundled_input_index);
    if (run.allocators) {
      for (const auto& a : *run.allocators) writer.add_allocator(a);
    }
    if (run.events) {
      for (const auto& e : *run.events) writer.add_event(e);
    }
  }
  return writer.finish();
}

}  // namespace etkit::etdump
