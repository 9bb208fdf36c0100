#include "runner/packed_events.h"

#include <cstring>

#include "runner/varint.h"

namespace etkit::rt {
namespace {

// Which optional members are present, one bit each.
enum : uint8_t {
  kHasName = 1,
  kHasDelegateText = 2,
  kHasMetadata = 4,
};
enum : uint8_t {
  kHasTensor = 1,
  kHasTensorList = 2,
  kHasInt = 4,
  kHasFloat = 8,
  kHasDouble = 16,
  kHasBool = 32,
  kHasOutput = 64,
};

size_t string_bound(size_t size) { return kMaxVarintBytes + size; }

uint8_t* put_signed(uint8_t* out, int64_t v) { return put_varint(out, zigzag(v)); }

uint8_t* put_bytes(uint8_t* out, const void* data, size_t size) {
  out = put_varint(out, size);
  if (size != 0) std::memcpy(out, data, size);
  return out + size;
}

// Reading side: every step checks the bytes left. With `lengths_only`,
// strings, byte vectors and integer vectors get their length and are
// skipped over, their contents left as they were.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool lengths_only = false;
  bool ok = true;

  uint64_t varint() {
    uint64_t v = 0;
    if (ok && !(p = get_varint(p, end, v))) ok = false;
    return ok ? v : 0;
  }
  int64_t signed_varint() { return unzigzag(varint()); }
  int32_t int32() {
    const int64_t v = signed_varint();
    if (v != int32_t(v)) ok = false;
    return int32_t(v);
  }
  uint8_t byte() {
    if (!ok || p >= end) {
      ok = false;
      return 0;
    }
    return *p++;
  }
  void bytes(void* out, size_t size) {
    if (!ok || size_t(end - p) < size) {
      ok = false;
      return;
    }
    if (size != 0) std::memcpy(out, p, size);
    p += size;
  }
  // A length no larger than the bytes left (each element takes one at least).
  size_t count() {
    const uint64_t n = varint();
    if (n > uint64_t(end - p)) ok = false;
    return ok ? size_t(n) : 0;
  }
  void skip(size_t size) {
    if (!ok || size_t(end - p) < size) {
      ok = false;
      return;
    }
    p += size;
  }
  // Into `s`, `v` and `t` in place: their storage is reused.
  void string(std::string& s) {
    s.resize(count());
    if (lengths_only) return skip(s.size());
    bytes(s.data(), s.size());
  }
  void byte_vector(std::vector<uint8_t>& v) {
    v.resize(count());
    if (lengths_only) return skip(v.size());
    bytes(v.data(), v.size());
  }
  void int64s(std::vector<int64_t>& v) {
    v.resize(count());
    if (!lengths_only) {
      for (int64_t& x : v) x = signed_varint();
      return;
    }
    // Each varint ends at its first byte below 0x80.
    for (size_t n = v.size(); n != 0 && ok;) {
      if (p == end) {
        ok = false;
      } else {
        n -= *p++ < 0x80;
      }
    }
  }
  void tensor(etdump::Tensor& t) {
    t.scalar_type = int8_t(byte());
    int64s(t.sizes);
    int64s(t.strides);
    t.offset = signed_varint();
  }
};

// Engages `o` keeping what it holds, or disengages it.
template <typename T>
T* keep(std::optional<T>& o, bool present) {
  if (!present) {
    o.reset();
    return nullptr;
  }
  if (!o) o.emplace();
  return &*o;
}

}  // namespace

const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::DebugEvent& e, bool lengths_only) {
  Reader r{in, end, lengths_only};
  const uint8_t flags = r.byte();
  e.chain_index = uint64_t(r.signed_varint());
  e.instruction_id = r.int32();
  e.delegate_debug_id_int = r.int32();
  if (auto* s = keep(e.name, flags & kHasName)) r.string(*s);
  if (auto* s = keep(e.delegate_debug_id_str, flags & kHasDelegateText)) r.string(*s);
  etdump::Value& v = e.debug_entry;
  v.val = etdump::ValueType(int8_t(r.byte()));
  const uint8_t has = r.byte();
  v.bool_value.reset();
  v.output.reset();
  if (has & (kHasBool | kHasOutput)) {
    const uint8_t b = r.byte();
    if (has & kHasBool) v.bool_value = (b & 1) != 0;
    if (has & kHasOutput) v.output = (b & 2) != 0;
  }
  v.int_value.reset();
  if (has & kHasInt) v.int_value = r.signed_varint();
  v.float_value.reset();
  if (has & kHasFloat) {
    float f = 0;
    r.bytes(&f, sizeof f);
    v.float_value = f;
  }
  v.double_value.reset();
  if (has & kHasDouble) {
    double d = 0;
    r.bytes(&d, sizeof d);
    v.double_value = d;
  }
  if (auto* t = keep(v.tensor, has & kHasTensor)) r.tensor(*t);
  if (auto* list = keep(v.tensor_list, has & kHasTensorList)) {
    list->resize(r.count());
    for (etdump::Tensor& t : *list) r.tensor(t);
  }
  return r.ok ? r.p : nullptr;
}

const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::ProfileEvent& e, bool lengths_only) {
  Reader r{in, end, lengths_only};
  const uint8_t flags = r.byte();
  e.chain_index = r.int32();
  e.instruction_id = r.int32();
  e.delegate_debug_id_int = r.int32();
  e.start_time = 0;
  e.end_time = 0;
  if (auto* s = keep(e.name, flags & kHasName)) r.string(*s);
  if (auto* s = keep(e.delegate_debug_id_str, flags & kHasDelegateText)) r.string(*s);
  if (auto* metadata = keep(e.delegate_debug_metadata, flags & kHasMetadata)) r.byte_vector(*metadata);
  return r.ok ? r.p : nullptr;
}

size_t delegate_profile_bound(size_t id_text_size, size_t metadata_size) {
  return 1 + 3 * kMaxVarintBytes + string_bound(id_text_size) + string_bound(metadata_size);
}

uint8_t* pack_delegate_profile(uint8_t* out, int32_t chain, int32_t instruction, int32_t id_int,
                               const std::string_view* id_text, std::span<const uint8_t> metadata) {
  // Flags, zigzag chain, instruction and integer id, then the id's text
  // and the metadata, each length first (unpack_event reads the same
  // layout; a runtime's delegate event has no name).
  *out++ = uint8_t((id_text ? kHasDelegateText : 0) | kHasMetadata);
  out = put_signed(out, chain);
  out = put_signed(out, instruction);
  out = put_signed(out, id_text ? -1 : id_int);
  if (id_text) out = put_bytes(out, id_text->data(), id_text->size());
  return put_bytes(out, metadata.data(), metadata.size());
}

size_t debug_head_bound(size_t id_text_size) {
  return 1 + 3 * kMaxVarintBytes + string_bound(id_text_size) + 3 + kMaxVarintBytes + sizeof(double);
}

size_t tensor_bound(size_t dims) { return 1 + 3 * kMaxVarintBytes + 2 * dims * kMaxVarintBytes; }

uint8_t* pack_debug_head(uint8_t* out, int32_t chain, int32_t instruction, int32_t id_int,
                         const std::string_view* id_text) {
  // As a delegate profile event's head (no name). chain_index is unsigned
  // but the runtime's unset chain is -1 (2^64 - 1): zigzag of the signed
  // chain keeps it one byte.
  *out++ = uint8_t(id_text ? kHasDelegateText : 0);
  out = put_signed(out, chain);
  out = put_signed(out, instruction);
  out = put_signed(out, id_text ? -1 : id_int);
  if (id_text) out = put_bytes(out, id_text->data(), id_text->size());
  return out;
}

namespace {

uint8_t* value_head(uint8_t* out, etdump::ValueType type, uint8_t has) {
  *out++ = uint8_t(type);
  *out++ = has;
  return out;
}

}  // namespace

uint8_t* pack_tensor_value(uint8_t* out, bool output) {
  if (!output) return value_head(out, etdump::ValueType::kTensor, kHasTensor);
  out = value_head(out, etdump::ValueType::kTensor, kHasTensor | kHasOutput);
  *out++ = 2;
  return out;
}

uint8_t* pack_tensor_list_value(uint8_t* out, size_t count, bool output) {
  out = value_head(out, etdump::ValueType::kTensorList, uint8_t(kHasTensorList | (output ? kHasOutput : 0)));
  if (output) *out++ = 2;
  return put_varint(out, count);
}

uint8_t* pack_int_value(uint8_t* out, int64_t value) {
  return put_signed(value_head(out, etdump::ValueType::kInt, kHasInt), value);
}

uint8_t* pack_double_value(uint8_t* out, double value) {
  out = value_head(out, etdump::ValueType::kDouble, kHasDouble);
  std::memcpy(out, &value, sizeof value);
  return out + sizeof value;
}

uint8_t* pack_bool_value(uint8_t* out, bool value) {
  out = value_head(out, etdump::ValueType::kBool, kHasBool);
  *out++ = value ? 1 : 0;
  return out;
}

uint8_t* pack_tensor(uint8_t* out, int8_t scalar_type, std::span<const int32_t> sizes,
                     std::span<const int64_t> strides, int64_t offset) {
  *out++ = uint8_t(scalar_type);
  out = put_varint(out, sizes.size());
  for (int32_t v : sizes) out = put_signed(out, v);
  out = put_varint(out, strides.size());
  for (int64_t v : strides) out = put_signed(out, v);
  return put_signed(out, offset);
}

}  // namespace etkit::rt
