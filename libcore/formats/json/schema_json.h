// The JSON form of our three binaries, driven by the binary schemas that flatc
// compiles from schemas/*.fbs and that are embedded in the library.
//
// Decoding writes the same document `flatc --json --strict-json
// --defaults-json` would (keys in schema order, every scalar with its default
// filled in, enum names, unions as `x_type` + `x`), plus extension keys for
// what lies outside the FlatBuffer: a program's "extended_header" and
// "segment_data" (base64), and with a debug buffer each ETDump tensor's
// "values". Encoding reads that document back with FlatBuffers' own parser.
#pragma once

#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit {

enum class FileKind { kProgram, kEtDump, kBundledProgram, kFlatTensor };

std::string_view file_kind_name(FileKind kind);

// By identifier: ET12 (or any ETxx) and BP08 (or BPxx) at bytes 4..7, ED00
// at bytes 8..11 (after the size prefix) or at bytes 4..7 (no prefix), FT01
// (.ptd) at bytes 4..7.
Result<FileKind> detect_file_kind(ByteSpan file);

struct DecodeOptions {
  bool pretty = false;
  // ETDump only: add each tensor's values from this buffer.
  std::optional<ByteSpan> debug_buffer;
  size_t max_values = SIZE_MAX;  // per tensor
};

// Verifies `file` completely, then writes its JSON document to `out`. Nothing
// is written when verification fails.
Status decode_to_json(FileKind kind, ByteSpan file, const DecodeOptions& options, std::FILE* out);

// ETDump only: one JSON object per line per event, streaming:
// {"format":"etkit.etdump-events/1","run_index":R,"run_name":"...","event_index":E,"profile_event":{...}}.
Status decode_etdump_jsonl(ByteSpan file, const DecodeOptions& options, std::FILE* out);

// Parses a document produced by decode_to_json (the kind is taken from its
// root keys) and returns the binary.
Result<std::vector<uint8_t>> encode_from_json(std::string_view json_text);

}  // namespace etkit
