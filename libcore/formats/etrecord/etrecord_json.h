// The ETRecord model as JSON ("format": "etkit.etrecord/1"). Names that come
// from the file (tensors, metadata keys, methods, instruction ids) are values,
// never object keys: lists of {"name": ..., ...} keep file order and need no
// key escaping. Non-finite floats print as "nan"/"inf"/"-inf" strings.
#pragma once

#include <cstdio>
#include <string_view>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

// The whole record.
Status write_etrecord_json(const EtRecord& record, std::string_view file_name, std::FILE* out, bool pretty);
// One program (as in "programs" of the whole document).
Status write_program_json(const Program& program, std::FILE* out, bool pretty);

}  // namespace etkit::etrecord
