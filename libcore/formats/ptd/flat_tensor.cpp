#include "libcore/formats/ptd/flat_tensor.h"

#include <cstring>

#include "flat_tensor_generated.h"
#include "libcore/formats/flatbuffer_verify.h"

namespace etkit::ptd {
namespace fb = flat_tensor_flatbuffer;

namespace {
// flat_tensor_header.h: magic at 8, then u32 length (>= 40), u64
// flatbuffer_offset, flatbuffer_size, segment_base_offset, segment_data_size.
constexpr size_t kHeaderOffset = 8;
constexpr uint32_t kMinHeaderLength = 40;

// ExecuTorch 0.6's schema: FlatTensor{version, tensor_alignment, tensors,
// segments, named_data}; 0.7 dropped the middle two, so segments moved from
// slot 3 to slot 1. A root vtable with a field in slot 3 or 4 is the old one.
// Read with bounds checks: this runs before the verifier.
bool has_v06_root_fields(ByteSpan file) {
  if (file.size() < 8) return false;
  const uint32_t table = load_u32_le(file.data());
  if (!in_bounds(table, 4, file.size())) return false;
  int32_t soffset = 0;
  std::memcpy(&soffset, file.data() + table, 4);
  const int64_t vtable = int64_t(table) - soffset;
  if (vtable < 0 || !in_bounds(uint64_t(vtable), 4, file.size())) return false;
  const uint16_t vtable_size = uint16_t(file[size_t(vtable)] | (file[size_t(vtable) + 1] << 8));
  if (!in_bounds(uint64_t(vtable), vtable_size, file.size())) return false;
  for (size_t slot = 3; 4 + 2 * slot + 2 <= vtable_size; ++slot) {
    const size_t at = size_t(vtable) + 4 + 2 * slot;
    if ((file[at] | (file[at + 1] << 8)) != 0) return true;
  }
  return false;
}
}  // namespace

const NamedTensor* FlatTensorFile::find(std::string_view key) const {
  for (const auto& t : tensors) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

Result<FlatTensorFile> read_flat_tensor(ByteSpan file, std::shared_ptr<const void> keepalive) {
  if (file.size() >= 4 && std::memcmp(file.data(), "FH01", 4) == 0) {
    return unsupported(
        "FlatTensor layout with the FH01 header in front of the FlatBuffer (ExecuTorch development builds of "
        "January 2025) is not supported: re-export the .ptd with ExecuTorch 0.7 or later");
  }
  if (file.size() < kHeaderOffset + kMinHeaderLength) return bad_input("too short for a .ptd file");
  if (identifier_at(file, 4) != "FT01") return bad_input("not a FlatTensor file (identifier '" + identifier_at(file, 4) + "', expected 'FT01')");
  if (std::memcmp(file.data() + kHeaderOffset, "FH01", 4) != 0) return bad_input("missing the FH01 header");
  const uint8_t* h = file.data() + kHeaderOffset;
  if (load_u32_le(h + 4) < kMinHeaderLength) return bad_input("FH01 header length below 40");
  const uint64_t fb_offset = load_u64_le(h + 8), fb_size = load_u64_le(h + 16);
  const uint64_t base = load_u64_le(h + 24), data_size = load_u64_le(h + 32);
  if (fb_offset > file.size() || !in_bounds(0, fb_offset + fb_size, file.size())) {
    return bad_input("FlatBuffer region [0, " + std::to_string(fb_offset) + " + " + std::to_string(fb_size) +
                     ") lies beyond the file size " + std::to_string(file.size()));
  }
  if (!in_bounds(base, data_size, file.size())) {
    return bad_input("segments end at " + std::to_string(base + data_size) + " beyond the file size " +
                     std::to_string(file.size()));
  }
  const ByteSpan region = file.first(fb_offset + fb_size);
  if (has_v06_root_fields(region)) {
    return unsupported(
        "FlatTensor layout of ExecuTorch 0.6 (FT01, version 0, with tensor_alignment and tensors[] in the root "
        "table) is not supported; ExecuTorch 0.7 changed the layout under the same identifier and version: "
        "re-export the .ptd with ExecuTorch 0.7 or later");
  }
  ETKIT_TRY(verify_flatbuffer(region, ".ptd", [](flatbuffers::Verifier& v) { return v.VerifyBuffer<fb::FlatTensor>("FT01"); }));
  const auto* root = flatbuffers::GetRoot<fb::FlatTensor>(region.data());
  if (!root->segments() || !root->named_data()) return bad_input("missing segments or named_data");
  FlatTensorFile out;
  out.storage = std::move(keepalive);
  out.header = FlatTensorHeader{load_u32_le(h + 4), fb_offset, fb_size, base, data_size};
  out.flatbuffer = region;
  for (flatbuffers::uoffset_t i = 0; i < root->segments()->size(); ++i) {
    const auto* seg = root->segments()->Get(i);
    if (seg->offset() > data_size || !in_bounds(seg->offset(), seg->size(), data_size)) {
      return bad_input("segment [" + std::to_string(seg->offset()) + ", +" + std::to_string(seg->size()) +
                           ") lies beyond the segment data (" + std::to_string(data_size) + " bytes)",
                       "segments[" + std::to_string(i) + "]");
    }
    out.segments.push_back(file.subspan(base + seg->offset(), seg->size()));
  }
  for (flatbuffers::uoffset_t i = 0; i < root->named_data()->size(); ++i) {
    const auto* nd = root->named_data()->Get(i);
    const std::string where = "named_data[" + std::to_string(i) + "]";
    if (!nd->key()) return bad_input("missing key", where);
    if (nd->segment_index() >= root->segments()->size()) return bad_input("segment_index out of range", where);
    NamedTensor t;
    t.key = nd->key()->str();
    t.bytes = out.segments[nd->segment_index()];
    if (const auto* layout = nd->tensor_layout()) {
      t.scalar_type = static_cast<int8_t>(layout->scalar_type());
      t.sizes = copy_vector(layout->sizes());
      t.dim_order = copy_vector(layout->dim_order());
    }
    out.tensors.push_back(std::move(t));
  }
  return out;
}

Result<FlatTensorFile> read_flat_tensor(std::shared_ptr<const InputFile> file) {
  ByteSpan bytes = file->bytes();
  auto out = read_flat_tensor(bytes, file);
  if (!out) return std::move(out).error().at_file(file->path());
  return out;
}

}  // namespace etkit::ptd
