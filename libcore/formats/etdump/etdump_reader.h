// Reads an ETDump: size prefix, identifier ED00, FlatBuffers verifier, then
// the fields the Python decoder requires.
#pragma once

#include "libcore/formats/etdump/etdump.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etdump {

// The size-prefixed region [0, 4 + prefix) after checking the identifier;
// the prefix must not announce more bytes than the file has, and trailing
// bytes beyond it are ignored (as flatc and the Python Inspector do).
Result<ByteSpan> size_prefixed_region(ByteSpan file);


Result<EtDump> read_etdump(ByteSpan file);

}  // namespace etkit::etdump
