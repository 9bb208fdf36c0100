// ExecuTorch's serialized ExportedProgram (etrecord_spec.md §4) <-> the
// model in etrecord.h. Reading accepts both union encodings (§4.9: a union
// is the single key whose value is not null); writing produces either.
#pragma once

#include <string>
#include <string_view>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/formats/etrecord/json_value.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

Result<ExportedProgram> exported_program_from_json(const JsonValue& doc);

// The op label the Inspector shows for a target (§4.4) and its kind.
std::pair<OpKind, std::string> classify_target(std::string_view target);

// How to write unions and optional fields.
enum class JsonStyle : uint8_t {
  kNarrow,  // v0.4+: one-key unions, None-default optionals omitted
  kWide,    // v0.1: every variant key listed (others null), tensor_values wrapped in {"meta": ...}
};
JsonValue exported_program_to_json(const ExportedProgram& program, JsonStyle style);

}  // namespace etkit::etrecord
