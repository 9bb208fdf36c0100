// What is wrong with a ZIP archive libzip refused. libzip 1.7 (Debian 12)
// reports most structural damage as "not a zip archive" or "zip archive
// inconsistent" without saying where; this walks the end record, the central
// directory and the local headers the way a reader finds them and names the
// first thing that does not hold (APPNOTE.TXT 4.3).
#pragma once

#include <optional>
#include <string>

#include "libcore/support/bytes.h"

namespace etkit::etrecord {

// The first structural problem found, or nullopt when the structure holds
// (or uses ZIP64 records, which are not walked here).
std::optional<std::string> describe_zip_damage(ByteSpan bytes);

}  // namespace etkit::etrecord
