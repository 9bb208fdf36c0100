// For code inside libcore that walks a verified ETDump FlatBuffer directly
// (the reader and the JSON codec); everything else uses etdump_reader.h.
#pragma once

#include <memory>

#include "etdump_generated.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/support/file.h"

namespace etkit::etdump {

struct VerifiedEtDump {
  const ::etdump::ETDump* root = nullptr;
  // An aligned copy the root points into, when the file's buffer does not
  // start at an 8-byte aligned address (a prefix added in front of an
  // unprefixed buffer); null when the root points into the file.
  std::shared_ptr<const InputFile> storage;
};

// etdump_layout plus the FlatBuffers verifier. A size-prefixed file is
// verified with alignment counted from byte 0 (the runtime's layout), then
// from byte 4 (a prefix put in front of an unprefixed buffer).
Result<VerifiedEtDump> verify_etdump(ByteSpan file);

}  // namespace etkit::etdump
