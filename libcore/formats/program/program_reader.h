// Reads a .pte: identifier ET12, optional eh00 header, FlatBuffers verifier,
// then bounds checks on every segment, constant and delegate reference.
#pragma once

#include <memory>

#include "libcore/formats/program/program.h"
#include "libcore/support/file.h"
#include "libcore/support/result.h"

namespace etkit::pte {

inline constexpr std::string_view kProgramIdentifier = "ET12";

// Parses the eh00 header if bytes 8..11 hold its magic; nullopt otherwise.
Result<std::optional<ExtendedHeader>> read_extended_header(ByteSpan file);

// `file` must stay valid as long as the returned program; `keepalive` (may be
// null) is stored in Program::storage to guarantee that.
Result<Program> read_program(ByteSpan file, std::shared_ptr<const void> keepalive);
Result<Program> read_program(std::shared_ptr<const InputFile> file);

}  // namespace etkit::pte
