// Writes a .pte the way ExecuTorch's serializer lays it out: an ET12
// FlatBuffer, and when there is segment data an eh00 header (length 32)
// spliced in after the identifier, segments at 128-byte boundaries.
#pragma once

#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"

namespace etkit::pte {

inline constexpr uint64_t kSegmentAlignment = 128;  // ExecutorchBackendConfig.segment_alignment

// Encodes `program`. Program::segments may be left empty: it is then laid out
// from Program::segment_data. When given, it must describe segment_data
// (same count and sizes, increasing non-overlapping offsets).
Result<std::vector<uint8_t>> write_program(const Program& program);

// Turns a finished ET12 FlatBuffer into a .pte file: splices in an eh00
// header of `header_length` (24 or 32) when any segment has bytes, and places
// segment_data[i] at segment_base_offset + segments[i].offset.
Result<std::vector<uint8_t>> assemble_program_file(ByteSpan flatbuffer, const std::vector<DataSegment>& segments,
                                                   const std::vector<ByteSpan>& segment_data,
                                                   uint32_t header_length = 32);

// Offsets for `segment_data` packed at kSegmentAlignment boundaries.
std::vector<DataSegment> layout_segments(const std::vector<ByteSpan>& segment_data);

}  // namespace etkit::pte
