// Shared first steps of every FlatBuffer reader: identifier, then the
// FlatBuffers verifier with explicit limits scaled to the input size.
#pragma once

#include <string_view>

#include "libcore/support/bytes.h"
#include "libcore/support/result.h"

namespace etkit {

// Runs `verify(verifier)` over `buffer` (no size prefix) with limits that
// allow about one table per 8 bytes (the default cap of 1e6 tables is too
// small for large ETDumps) and FlatBuffers' default depth of 64.
template <typename VerifyFn>
Status verify_flatbuffer(ByteSpan buffer, std::string_view what, VerifyFn&& verify);

}  // namespace etkit

#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <vector>

namespace etkit {

// The elements of a verified vector, copied with memcpy: FlatBuffers 2.0.8's
// verifier checks only the 4-byte alignment of a vector's length, so in a
// corrupted file an 8-byte element may sit misaligned; a typed load would be
// undefined behaviour. (FlatBuffers data is little-endian, as our hosts.)
template <typename T>
std::vector<T> copy_vector(const flatbuffers::Vector<T>* v) {
  std::vector<T> out;
  if (v == nullptr) return out;
  out.resize(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

template <typename VerifyFn>
Status verify_flatbuffer(ByteSpan buffer, std::string_view what, VerifyFn&& verify) {
  if (buffer.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return bad_input(std::string(what) + " is larger than FlatBuffers' 2 GiB limit");
  }
  const auto max_tables = static_cast<flatbuffers::uoffset_t>(buffer.size() / 8 + 1024);
  flatbuffers::Verifier verifier(buffer.data(), buffer.size(), /*max_depth=*/64, max_tables,
                                 /*check_alignment=*/true);
  if (!verify(verifier)) {
    return bad_input(std::string(what) +
                     " failed FlatBuffers verification (truncated, or an offset or size out of range)");
  }
  return {};
}

}  // namespace etkit
