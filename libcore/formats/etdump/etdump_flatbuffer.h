// For code inside libcore that walks a verified ETDump FlatBuffer directly
// (the reader and the JSON codec); everything else uses etdump_reader.h.
#pragma once

#include "etdump_generated.h"
#include "libcore/formats/etdump/etdump_reader.h"

namespace etkit::etdump {

// size_prefixed_region plus the FlatBuffers verifier; returns the root.
Result<const ::etdump::ETDump*> verify_etdump(ByteSpan file);

}  // namespace etkit::etdump
