// Reads an ETDump, size-prefixed or not: identifier ED00, FlatBuffers verifier, then
// the fields the Python decoder requires.
#pragma once

#include "libcore/formats/etdump/etdump.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etdump {

// Where an ETDump's FlatBuffer lies in the file. The runtime writes a 4-byte
// size prefix (identifier ED00 at byte 8); ExecuTorch's Python serializer
// writes none (ED00 at byte 4). With a prefix the region is [0, 4 + prefix):
// the prefix must not announce more bytes than the file has, and trailing
// bytes beyond it are ignored (as flatc and the Python Inspector do).
struct EtDumpLayout {
  ByteSpan region;
  bool size_prefixed = true;
};
Result<EtDumpLayout> etdump_layout(ByteSpan file);

Result<EtDump> read_etdump(ByteSpan file);

}  // namespace etkit::etdump
