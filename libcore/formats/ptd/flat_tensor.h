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

// flat_tensor_header.h, at byte 8 (pte_spec.md §3.4).
struct FlatTensorHeader {
  uint32_t length = 0;
  uint64_t flatbuffer_offset = 0;  // the padded header length, not a file position
  uint64_t flatbuffer_size = 0;
  uint64_t segment_base_offset = 0;
  uint64_t segment_data_size = 0;
};

struct FlatTensorFile {
  FlatTensorHeader header;
  ByteSpan flatbuffer;              // [0, flatbuffer_offset + flatbuffer_size), verified
  std::vector<ByteSpan> segments;   // each DataSegment's bytes, checked against the data
  std::vector<NamedTensor> tensors;
  std::shared_ptr<const void> storage;
  const NamedTensor* find(std::string_view key) const;
};

// The layouts of ExecuTorch 0.6 (the same FT01 identifier and version 0,
// but a root table with tensor_alignment and tensors before segments) and of
// its unreleased predecessor (the FH01 header in front of the FlatBuffer)
// are refused as unsupported, naming them.
Result<FlatTensorFile> read_flat_tensor(ByteSpan file, std::shared_ptr<const void> keepalive);
Result<FlatTensorFile> read_flat_tensor(std::shared_ptr<const InputFile> file);

}  // namespace etkit::ptd
