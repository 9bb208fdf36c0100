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

size_t tensor_bound(const etdump::Tensor& t) {
  return 1 + 3 * kMaxVarintBytes + (t.sizes.size() + t.strides.size()) * kMaxVarintBytes;
}

uint8_t* put_signed(uint8_t* out, int64_t v) { return put_varint(out, zigzag(v)); }

uint8_t* put_bytes(uint8_t* out, const void* data, size_t size) {
  out = put_varint(out, size);
  if (size != 0) std::memcpy(out, data, size);
  return out + size;
}

uint8_t* put_tensor(uint8_t* out, const etdump::Tensor& t) {
  *out++ = uint8_t(t.scalar_type);
  out = put_varint(out, t.sizes.size());
  for (int64_t v : t.sizes) out = put_signed(out, v);
  out = put_varint(out, t.strides.size());
  for (int64_t v : t.strides) out = put_signed(out, v);
  return put_signed(out, t.offset);
}

// Reading side: every step checks the bytes left.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
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
  std::string string() {
    std::string s(count(), '\0');
    bytes(s.data(), s.size());
    return s;
  }
  std::vector<int64_t> int64s() {
    std::vector<int64_t> v(count());
    for (int64_t& x : v) x = signed_varint();
    return v;
  }
  etdump::Tensor tensor() {
    etdump::Tensor t;
    t.scalar_type = int8_t(byte());
    t.sizes = int64s();
    t.strides = int64s();
    t.offset = signed_varint();
    return t;
  }
};

}  // namespace

size_t packed_bound(const etdump::DebugEvent& e) {
  size_t n = 1 + 3 * kMaxVarintBytes;  // flags, chain, instruction, delegate id
  if (e.name) n += string_bound(e.name->size());
  if (e.delegate_debug_id_str) n += string_bound(e.delegate_debug_id_str->size());
  const etdump::Value& v = e.debug_entry;
  n += 3 + kMaxVarintBytes + sizeof(float) + sizeof(double);  // type, flags, bool/output, scalars
  if (v.tensor) n += tensor_bound(*v.tensor);
  if (v.tensor_list) {
    n += kMaxVarintBytes;
    for (const etdump::Tensor& t : *v.tensor_list) n += tensor_bound(t);
  }
  return n;
}

size_t packed_bound(const etdump::ProfileEvent& e) {
  size_t n = 1 + 3 * kMaxVarintBytes;
  if (e.name) n += string_bound(e.name->size());
  if (e.delegate_debug_id_str) n += string_bound(e.delegate_debug_id_str->size());
  if (e.delegate_debug_metadata) n += string_bound(e.delegate_debug_metadata->size());
  return n;
}

uint8_t* pack_event(uint8_t* out, const etdump::DebugEvent& e) {
  *out++ = uint8_t((e.name ? kHasName : 0) | (e.delegate_debug_id_str ? kHasDelegateText : 0));
  // chain_index is unsigned but the runtime's unset chain is -1 (2^64 - 1):
  // zigzag of the signed view keeps it one byte.
  out = put_signed(out, int64_t(e.chain_index));
  out = put_signed(out, e.instruction_id);
  out = put_signed(out, e.delegate_debug_id_int);
  if (e.name) out = put_bytes(out, e.name->data(), e.name->size());
  if (e.delegate_debug_id_str) out = put_bytes(out, e.delegate_debug_id_str->data(), e.delegate_debug_id_str->size());
  const etdump::Value& v = e.debug_entry;
  *out++ = uint8_t(v.val);
  *out++ = uint8_t((v.tensor ? kHasTensor : 0) | (v.tensor_list ? kHasTensorList : 0) | (v.int_value ? kHasInt : 0) |
                   (v.float_value ? kHasFloat : 0) | (v.double_value ? kHasDouble : 0) |
                   (v.bool_value ? kHasBool : 0) | (v.output ? kHasOutput : 0));
  if (v.bool_value || v.output) *out++ = uint8_t((v.bool_value.value_or(false) ? 1 : 0) | (v.output.value_or(false) ? 2 : 0));
  if (v.int_value) out = put_signed(out, *v.int_value);
  if (v.float_value) {
    std::memcpy(out, &*v.float_value, sizeof(float));
    out += sizeof(float);
  }
  if (v.double_value) {
    std::memcpy(out, &*v.double_value, sizeof(double));
    out += sizeof(double);
  }
  if (v.tensor) out = put_tensor(out, *v.tensor);
  if (v.tensor_list) {
    out = put_varint(out, v.tensor_list->size());
    for (const etdump::Tensor& t : *v.tensor_list) out = put_tensor(out, t);
  }
  return out;
}

uint8_t* pack_event(uint8_t* out, const etdump::ProfileEvent& e) {
  *out++ = uint8_t((e.name ? kHasName : 0) | (e.delegate_debug_id_str ? kHasDelegateText : 0) |
                   (e.delegate_debug_metadata ? kHasMetadata : 0));
  out = put_signed(out, e.chain_index);
  out = put_signed(out, e.instruction_id);
  out = put_signed(out, e.delegate_debug_id_int);
  if (e.name) out = put_bytes(out, e.name->data(), e.name->size());
  if (e.delegate_debug_id_str) out = put_bytes(out, e.delegate_debug_id_str->data(), e.delegate_debug_id_str->size());
  if (e.delegate_debug_metadata) {
    out = put_bytes(out, e.delegate_debug_metadata->data(), e.delegate_debug_metadata->size());
  }
  return out;
}

const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::DebugEvent& e) {
  Reader r{in, end};
  e = etdump::DebugEvent{};
  const uint8_t flags = r.byte();
  e.chain_index = uint64_t(r.signed_varint());
  e.instruction_id = r.int32();
  e.delegate_debug_id_int = r.int32();
  if (flags & kHasName) e.name = r.string();
  if (flags & kHasDelegateText) e.delegate_debug_id_str = r.string();
  etdump::Value& v = e.debug_entry;
  v.val = etdump::ValueType(int8_t(r.byte()));
  const uint8_t has = r.byte();
  if (has & (kHasBool | kHasOutput)) {
    const uint8_t b = r.byte();
    if (has & kHasBool) v.bool_value = (b & 1) != 0;
    if (has & kHasOutput) v.output = (b & 2) != 0;
  }
  if (has & kHasInt) v.int_value = r.signed_varint();
  if (has & kHasFloat) {
    float f = 0;
    r.bytes(&f, sizeof f);
    v.float_value = f;
  }
  if (has & kHasDouble) {
    double d = 0;
    r.bytes(&d, sizeof d);
    v.double_value = d;
  }
  if (has & kHasTensor) v.tensor = r.tensor();
  if (has & kHasTensorList) {
    std::vector<etdump::Tensor> list(r.count());
    for (etdump::Tensor& t : list) t = r.tensor();
    v.tensor_list = std::move(list);
  }
  return r.ok ? r.p : nullptr;
}

const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::ProfileEvent& e) {
  Reader r{in, end};
  e = etdump::ProfileEvent{};
  const uint8_t flags = r.byte();
  e.chain_index = r.int32();
  e.instruction_id = r.int32();
  e.delegate_debug_id_int = r.int32();
  if (flags & kHasName) e.name = r.string();
  if (flags & kHasDelegateText) e.delegate_debug_id_str = r.string();
  if (flags & kHasMetadata) {
    std::vector<uint8_t> metadata(r.count());
    r.bytes(metadata.data(), metadata.size());
    e.delegate_debug_metadata = std::move(metadata);
  }
  return r.ok ? r.p : nullptr;
}

}  // namespace etkit::rt
