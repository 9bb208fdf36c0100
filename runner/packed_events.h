// Debug events and delegate profile events packed into the event tracer's
// spill chunks (see EventTracer::pack_records): unlike the runtime's named
// profile events they carry per-event data (tensor shapes, delegate ids and
// metadata), which must leave memory with the chunk instead of staying until
// finish(). Varints for integers, lengths before bytes; a delegate event's
// times are packed by the tracer, with the other events' times.
#pragma once

#include <cstddef>
#include <cstdint>

#include "libcore/formats/etdump/etdump.h"

namespace etkit::rt {

// Bytes pack_event() may write for `event`, at most.
size_t packed_bound(const etdump::DebugEvent& event);
size_t packed_bound(const etdump::ProfileEvent& event);

// Writes `event` at `out` (room for packed_bound) and returns its end.
uint8_t* pack_event(uint8_t* out, const etdump::DebugEvent& event);
// Every field but the times.
uint8_t* pack_event(uint8_t* out, const etdump::ProfileEvent& event);

// Reads an event packed at `in` into `event` (overwritten whole); its end,
// or null when the bytes up to `end` do not hold one.
const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::DebugEvent& event);
const uint8_t* unpack_event(const uint8_t* in, const uint8_t* end, etdump::ProfileEvent& event);

}  // namespace etkit::rt
