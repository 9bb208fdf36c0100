#include "libcore/formats/etdump/etdump_reader.h"

#include "libcore/formats/etdump/etdump_flatbuffer.h"
#include "libcore/formats/flatbuffer_verify.h"
#include "libcore/formats/scalar_type.h"
#include "libcore/support/file.h"

namespace etkit::etdump {
namespace fb = ::etdump;

namespace {

std::string indexed(std::string_view name, size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}
std::optional<std::string> opt_string(const flatbuffers::String* s) {
  return s ? std::optional<std::string>(s->str()) : std::nullopt;
}

Result<Tensor> convert_tensor(const fb::Tensor& t) {
  if (!t.sizes()) return bad_input("tensor without sizes");
  if (!t.strides()) return bad_input("tensor without strides");
  return Tensor{static_cast<int8_t>(t.scalar_type()), copy_vector(t.sizes()), copy_vector(t.strides()), t.offset()};
}

Result<Value> convert_value(const fb::Value& v) {
  Value out;
  out.val = static_cast<ValueType>(v.val());
  if (v.tensor()) {
    auto t = convert_tensor(*v.tensor());
    if (!t) return std::move(t).error().in("tensor");
    out.tensor = std::move(t).value();
  }
  if (v.tensor_list()) {
    if (!v.tensor_list()->tensors()) return bad_input("tensor list without tensors", "tensor_list");
    std::vector<Tensor> list;
    const auto* tensors = v.tensor_list()->tensors();
    for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
      auto t = convert_tensor(*tensors->Get(i));
      if (!t) return std::move(t).error().in("tensor_list.tensors" + indexed("", i));
      list.push_back(std::move(t).value());
    }
    out.tensor_list = std::move(list);
  }
  if (v.int_value()) out.int_value = v.int_value()->int_val();
  if (v.float_value()) out.float_value = v.float_value()->float_val();
  if (v.double_value()) out.double_value = v.double_value()->double_val();
  if (v.bool_value()) out.bool_value = v.bool_value()->bool_val();
  if (v.output()) out.output = v.output()->bool_val();
  return out;
}

Result<Event> convert_event(const fb::Event& e) {
  Event out;
  if (const auto* p = e.profile_event()) {
    ProfileEvent pe;
    pe.name = opt_string(p->name());
    pe.chain_index = p->chain_index();
    pe.instruction_id = p->instruction_id();
    pe.delegate_debug_id_int = p->delegate_debug_id_int();
    pe.delegate_debug_id_str = opt_string(p->delegate_debug_id_str());
    if (p->delegate_debug_metadata()) {
      pe.delegate_debug_metadata.emplace(p->delegate_debug_metadata()->begin(), p->delegate_debug_metadata()->end());
    }
    pe.start_time = p->start_time();
    pe.end_time = p->end_time();
    out.profile_event = std::move(pe);
  }
  if (const auto* a = e.allocation_event()) out.allocation_event = AllocationEvent{a->allocator_id(), a->allocation_size()};
  if (const auto* d = e.debug_event()) {
    DebugEvent de;
    de.chain_index = d->chain_index();
    de.instruction_id = d->instruction_id();
    if (!d->debug_entry()) return bad_input("debug event without debug_entry", "debug_event");
    auto value = convert_value(*d->debug_entry());
    if (!value) return std::move(value).error().in("debug_event.debug_entry");
    de.debug_entry = std::move(value).value();
    de.delegate_debug_id_int = d->delegate_debug_id_int();
    de.delegate_debug_id_str = opt_string(d->delegate_debug_id_str());
    de.name = opt_string(d->name());
    out.debug_event = std::move(de);
  }
  return out;
}

}  // namespace

std::optional<uint64_t> tensor_nbytes(const Tensor& tensor) {
  auto elem = element_size(tensor.scalar_type);
  if (!elem) return std::nullopt;
  uint64_t n = *elem;
  for (int64_t s : tensor.sizes) {
    if (s < 0) return std::nullopt;
    if (s != 0 && n > (uint64_t(1) << 62) / uint64_t(s)) return std::nullopt;
    n *= uint64_t(s);
  }
  return n;
}

Result<EtDumpLayout> etdump_layout(ByteSpan file) {
  if (file.size() >= 12 && identifier_at(file, 8) == kIdentifier) {
    const uint32_t size = load_u32_le(file.data());
    if (size > file.size() - 4) {
      return bad_input("truncated: the size prefix announces " + std::to_string(size) + " bytes but only " +
                       std::to_string(file.size() - 4) + " follow");
    }
    return EtDumpLayout{file.first(size_t(size) + 4), true};
  }
  if (file.size() >= 8 && identifier_at(file, 4) == kIdentifier) return EtDumpLayout{file, false};
  if (file.size() < 12) return bad_input("too short for an ETDump (" + std::to_string(file.size()) + " bytes)");
  return bad_input("not an ETDump (identifier '" + identifier_at(file, 8) + "' at byte 8 and '" +
                   identifier_at(file, 4) + "' at byte 4, expected 'ED00' at byte 8 after a size prefix or at byte 4)");
}

namespace {

// FlatBuffers reads fields with typed loads, so the buffer must sit at an
// address aligned as the verifier assumed (8 bytes, for the u64 times).
VerifiedEtDump rooted(ByteSpan buffer, bool size_prefixed) {
  VerifiedEtDump out;
  if (reinterpret_cast<uintptr_t>(buffer.data()) % 8 != 0) {
    out.storage = InputFile::from_bytes(buffer, "ETDump");
    buffer = out.storage->bytes();
  }
  out.root = size_prefixed ? flatbuffers::GetSizePrefixedRoot<fb::ETDump>(buffer.data())
                           : flatbuffers::GetRoot<fb::ETDump>(buffer.data());
  return out;
}

Status verify_unprefixed(ByteSpan buffer) {
  return verify_flatbuffer(buffer, "ETDump", [](flatbuffers::Verifier& v) {
    return v.VerifyBuffer<fb::ETDump>(kIdentifier.data());
  });
}

}  // namespace

Result<VerifiedEtDump> verify_etdump(ByteSpan file) {
  ETKIT_ASSIGN_OR_RETURN(EtDumpLayout layout, etdump_layout(file));
  if (!layout.size_prefixed) {
    // flatc --binary without --size-prefixed (ExecuTorch's Python
    // serializer): offsets and alignment count from byte 0.
    ETKIT_TRY(verify_unprefixed(layout.region));
    return rooted(layout.region, false);
  }
  // The runtime's flatcc builder aligns 8-byte fields relative to byte 0,
  // prefix included; so does FlatBufferBuilder::FinishSizePrefixed.
  const Status from_zero = verify_flatbuffer(layout.region, "ETDump", [](flatbuffers::Verifier& v) {
    return v.VerifySizePrefixedBuffer<fb::ETDump>(kIdentifier.data());
  });
  if (from_zero.ok()) return rooted(layout.region, true);
  // A prefix put in front of an unprefixed buffer: alignment counts from
  // byte 4, where the buffer proper starts.
  const ByteSpan buffer = layout.region.subspan(4);
  if (verify_unprefixed(buffer).ok()) return rooted(buffer, false);
  return from_zero.error();
}

Result<EtDump> read_etdump(ByteSpan file) {
  ETKIT_ASSIGN_OR_RETURN(const VerifiedEtDump verified, verify_etdump(file));
  const fb::ETDump* root = verified.root;
  EtDump dump;
  dump.version = root->version();
  if (!root->run_data()) return bad_input("missing run_data");
  for (flatbuffers::uoffset_t r = 0; r < root->run_data()->size(); ++r) {
    const auto* run = root->run_data()->Get(r);
    RunData out;
    if (!run->name()) return bad_input("block without a name", indexed("run_data", r));
    out.name = run->name()->str();
    out.bundled_input_index = run->bundled_input_index();
    if (run->allocators()) {
      std::vector<std::string> names;
      for (flatbuffers::uoffset_t a = 0; a < run->allocators()->size(); ++a) {
        const auto* alloc = run->allocators()->Get(a);
        if (!alloc->name()) return bad_input("allocator without a name", indexed("run_data", r) + "." + indexed("allocators", a));
        names.push_back(alloc->name()->str());
      }
      out.allocators = std::move(names);
    }
    if (run->events()) {
      std::vector<Event> events;
      events.reserve(run->events()->size());
      for (flatbuffers::uoffset_t e = 0; e < run->events()->size(); ++e) {
        auto event = convert_event(*run->events()->Get(e));
        if (!event) return std::move(event).error().in(indexed("run_data", r) + "." + indexed("events", e));
        events.push_back(std::move(event).value());
      }
      out.events = std::move(events);
    }
    dump.run_data.push_back(std::move(out));
  }
  return dump;
}

}  // namespace etkit::etdump
