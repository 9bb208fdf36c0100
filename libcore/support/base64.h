// Base64 (RFC 4648, with padding) for byte blobs carried in JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "libcore/support/bytes.h"

namespace etkit {

std::string base64_encode(ByteSpan bytes);
// nullopt when `text` is not valid padded base64.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

}  // namespace etkit
