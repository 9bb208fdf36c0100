// Reads an ETRecord ZIP (etrecord_spec.md) into the model of etrecord.h:
// every version from the 2023 pre-releases on. Programs and maps that do not
// parse are errors naming the entry; side-cars that need Python are reported
// as such, never as errors.
#pragma once

#include <string>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/formats/etrecord/json_value.h"
#include "libcore/formats/etrecord/torch_save.h"
#include "libcore/formats/etrecord/zip_archive.h"
#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

struct EtRecordLimits {
  ZipLimits zip;
  JsonLimits json;
  TorchSaveLimits torch_save;
  bool read_side_cars = true;  // false: side-cars are listed, not opened (the Inspector's links need none)
};

Result<EtRecord> read_etrecord(ByteSpan bytes, const EtRecordLimits& limits = {});
// Opens `path` ("-" is standard input); errors name the file.
Result<EtRecord> read_etrecord_file(const std::string& path, const EtRecordLimits& limits = {});

// The ExecuTorch release that wrote `record` (§2), from its entries and JSON.
VersionGuess infer_version(const EtRecord& record);

}  // namespace etkit::etrecord
