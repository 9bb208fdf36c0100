// Debug events and delegate profile events packed into the event tracer's
// spill chunks (see EventTracer::pack_records): unlike the runtime's named
// profile events they carry per-event data (tensor shapes, delegate ids and
// metadata), which must leave memory with the chunk instead of staying until
// finish(). Varints for integers, lengths before bytes; a delegate event's
// times are packed by the tracer, with the other events' times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "libcore/formats/etdump/etdump.h"

namespace etkit::rt {

// Events are written straight from the tracer's arguments, without
// building etdump structs first (their strings and vectors would cost a few
// heap allocations per event on the hot path), and read back into the
// structs by unpack_event(). A delegate id is an integer when `id_text` is
// null, else that text (and the integer -1).

// A delegate profile event (every field but the times), at most
// delegate_profile_bound() bytes.
size_t delegate_profile_bound(size_t id_text_size, size_t metadata_size);
uint8_t* pack_delegate_profile(uint8_t* out, int32_t chain, int32_t instruction, int32_t id_int,
                               const std::string_view* id_text, std::span<const uint8_t> metadata);
// A debug event is a head, its value's head, then the value's tensors
// (pack_tensor, once for a tensor, `count` times for a list) or nothing.
// Bounds: debug_head_bound() for both heads, tensor_bound(dims) a tensor.
size_t debug_head_bound(size_t id_text_size);
size_t tensor_bound(size_t dims);
uint8_t* pack_debug_head(uint8_t* out, int32_t chain, int32_t instruction, int32_t id_int,
                         const std::string_view* id_text);
uint8_t* pack_tensor_value(uint8_t* out, bool output);
uint8_t* pack_tensor_list_value(uint8_t* out, size_t count, bool output);
uint8_t* pack_int_value(uint8_t* out, int64_t value);
uint8_t* pack_double_value(uint8_t* out, double value);
uint8_t* pack_bool_value(uint8_t* out, bool value);
uint8_t* pack_tensor(uint8_t* out, int8_t scalar_type, std::span<const int32_t> sizes,
                     std::span<const int64_t> strides, int64_t offset);

// Reads an event packed at `in` into `event` (overwritten whole, reusing
// its strings' and vectors' storage: a chunk's events are read into the same
// one); its end, or null when the bytes up to `end` do not hold one.
// `lengths_only`: the strings, metadata and tensor sizes and strides get
// their lengths but keep their old contents (every scalar is read), all a
// measuring EtDumpWriter looks at; the same bytes are checked.
const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::DebugEvent& event,
                            bool lengths_only = false);
const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::ProfileEvent& event,
                            bool lengths_only = false);

}  // namespace etkit::rt
