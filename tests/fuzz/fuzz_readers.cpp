// Fuzz targets for the file readers: each calls the library entry point the
// tools use on the raw input and discards the result; the readers must
// refuse bad input with an Error, never crash, hang or over-allocate.
#include <string>
#include <string_view>

#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/formats/etrecord/exported_program_json.h"
#include "libcore/formats/etrecord/json_value.h"
#include "libcore/formats/json/schema_json.h"
#include "libcore/formats/npy/npy.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/ptd/flat_tensor.h"
#include "libcore/inspect/event_blocks.h"
#include "tests/fuzz/fuzz_targets.h"

namespace etkit::fuzz {

int program(const uint8_t* data, size_t size) {
  (void)pte::read_program(ByteSpan(data, size), nullptr);
  return 0;
}

// et-inspect's path: the ETDump decoded, then its event blocks built; the
// input's second half, when it has one, is the debug buffer beside it.
int etdump(const uint8_t* data, size_t size) {
  const ByteSpan bytes(data, size);
  (void)etdump::read_etdump(bytes);
  (void)inspect::build_event_blocks(bytes);
  inspect::BuildOptions options;
  options.debug_buffer = bytes.subspan(size / 2);
  (void)inspect::build_event_blocks(bytes.first(size / 2), options);
  return 0;
}

int bundled(const uint8_t* data, size_t size) {
  (void)bundled::read_bundled_program(ByteSpan(data, size), nullptr);
  return 0;
}

int etrecord(const uint8_t* data, size_t size) {
  (void)etrecord::read_etrecord(ByteSpan(data, size));
  return 0;
}

// An ETRecord member's JSON alone: mutated zips mostly fail their CRC checks,
// so the etrecord target rarely gets this far. What parses is read as an
// ExportedProgram, and must survive our Python-style writer: writing it and
// reading that back gives the same text.
int etrecord_json(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = etrecord::parse_json(text);
  if (!doc) return 0;
  (void)etrecord::exported_program_from_json(*doc);
  const std::string written = etrecord::to_json(*doc);
  auto again = etrecord::parse_json(written);
  if (!again || etrecord::to_json(*again) != written) __builtin_trap();
  return 0;
}

int npy(const uint8_t* data, size_t size) {
  (void)npy::read_npy(ByteSpan(data, size));
  return 0;
}

int ptd(const uint8_t* data, size_t size) {
  (void)ptd::read_flat_tensor(ByteSpan(data, size), nullptr);
  return 0;
}

int json_encode(const uint8_t* data, size_t size) {
  (void)encode_from_json(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

}  // namespace etkit::fuzz
