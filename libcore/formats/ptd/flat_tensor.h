// External constant data (.ptd, FlatTensor "FT01" with an "FH01" header):
// named tensors whose bytes a program's EXTERNAL tensors point at.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "libcore/support/bytes.h"
#include "libcore/support/file.h"
#include "libcore/support/result.h"

namespace etkit::ptd {

struct NamedTensor {
  std::string key;
  int8_t scalar_type = 0;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  ByteSpan bytes;  // the whole segment the entry names
};

struct FlatTensorFile {
  std::vector<NamedTensor> tensors;
  std::shared_ptr<const void> storage;
  const NamedTensor* find(std::string_view key) const;
};

Result<FlatTensorFile> read_flat_tensor(ByteSpan file, std::shared_ptr<const void> keepalive);
Result<FlatTensorFile> read_flat_tensor(std::shared_ptr<const InputFile> file);

}  // namespace etkit::ptd
