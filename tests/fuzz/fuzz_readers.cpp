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
#include "libcore/formats/etrecord/serde_types.h"
#include "libcore/formats/etrecord/torch_pickle.h"
#include "libcore/formats/etrecord/torch_save.h"
#include "libcore/formats/etrecord/zip_archive.h"
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

// An ETRecord side-car's pickle (data.pkl of a torch.save archive, or a
// plain pickle as ExecuTorch v0.2-v1.2 wrote): unpickled and described as
// read_side_car does, then saved in an archive beside a record of the exact
// size for each storage it names, and read back as et-record-inspect reads
// state dicts, with every tensor's storage. Mutated archives rarely pass
// their CRC checks, so the pickle is what this target mutates.
int etrecord_pickle(const uint8_t* data, size_t size) {
  auto pickle = etrecord::unpickle(ByteSpan(data, size));
  if (!pickle) return 0;
  (void)etrecord::describe_pickle(*pickle);

  constexpr uint64_t kMaxRecordBytes = 1 << 16;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> records;
  for (const etrecord::PickleValue& v : pickle->values) {
    if (v.kind != etrecord::PickleValue::Kind::kStorage) continue;
    uint64_t bytes = 0;
    const uint64_t element = v.untyped ? 1 : etrecord::serde_dtype_size(v.dtype);
    if (v.i < 0 || __builtin_mul_overflow(static_cast<uint64_t>(v.i), element, &bytes) || bytes > kMaxRecordBytes) return 0;
    records.emplace_back("archive/data/" + v.s, std::vector<uint8_t>(bytes, 0x5a));
  }
  std::vector<std::pair<std::string, ByteSpan>> entries{{"archive/data.pkl", ByteSpan(data, size)}};
  for (const auto& [name, bytes] : records) entries.emplace_back(name, ByteSpan(bytes));
  auto archive = etrecord::write_zip(entries);
  if (!archive) return 0;  // e.g. a storage key that is no valid entry name, or one named twice
  auto saved = etrecord::read_torch_save(*archive);
  if (!saved) return 0;
  for (const etrecord::StoredTensor& t : saved->tensors) (void)etrecord::read_torch_storage(*archive, *saved, t.storage_key);
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
