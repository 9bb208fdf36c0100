// Reads a .bpte: identifier BP08, FlatBuffers verifier, and checks that every
// tensor's data holds exactly numel * element size bytes and its dim_order is
// a permutation (the runtime trusts both).
#pragma once

#include "libcore/formats/bundled/bundled_program.h"
#include "libcore/support/file.h"
#include "libcore/support/result.h"

namespace etkit::bundled {

Result<BundledProgram> read_bundled_program(ByteSpan file, std::shared_ptr<const void> keepalive);
Result<BundledProgram> read_bundled_program(std::shared_ptr<const InputFile> file);

}  // namespace etkit::bundled
