// Writes a .bpte as ExecuTorch's serializer does: BP08, program vector
// 32-byte aligned, tensor data 16-byte aligned, suites sorted by method name.
#pragma once

#include <vector>

#include "libcore/formats/bundled/bundled_program.h"

namespace etkit::bundled {

std::vector<uint8_t> write_bundled_program(const BundledProgram& bundle);

}  // namespace etkit::bundled
