#include "libcore/formats/npy/npy.h"

#include <cstring>

namespace etkit::npy {
namespace {

struct Descr {
  const char* code;  // without the byte-order character
  ScalarType dtype;
};
constexpr Descr kDescrs[] = {
    {"b1", ScalarType::kBool},   {"u1", ScalarType::kByte},   {"i1", ScalarType::kChar},
    {"i2", ScalarType::kShort},  {"u2", ScalarType::kUInt16}, {"i4", ScalarType::kInt},
    {"u4", ScalarType::kUInt32}, {"i8", ScalarType::kLong},   {"u8", ScalarType::kUInt64},
    {"f2", ScalarType::kHalf},   {"f4", ScalarType::kFloat},  {"f8", ScalarType::kDouble},
};

// The value of `'key': <value>` in the header dict, as raw text.
std::string dict_value(std::string_view header, std::string_view key) {
  std::string quoted = "'";  // built with += (GCC 12 -Wrestrict false positive on "'" + s + "'")
  quoted += key;
  quoted += '\'';
  auto pos = header.find(quoted);
  if (pos == std::string_view::npos) return {};
  pos = header.find(':', pos + quoted.size());
  if (pos == std::string_view::npos) return {};
  ++pos;
  while (pos < header.size() && header[pos] == ' ') ++pos;
  size_t end = pos;
  if (end < header.size() && header[end] == '(') {
    end = header.find(')', end);
    return end == std::string_view::npos ? std::string() : std::string(header.substr(pos, end - pos + 1));
  }
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return std::string(header.substr(pos, end - pos));
}

}  // namespace

Result<Array> read_npy(ByteSpan file) {
  if (file.size() < 10 || std::memcmp(file.data(), "\x93NUMPY", 6) != 0) return bad_input("not a .npy file (bad magic)");
  const uint8_t major = file[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = size_t(file[8]) | size_t(file[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return bad_input("truncated .npy header");
    header_len = load_u32_le(file.data() + 8);
    header_start = 12;
  } else {
    return unsupported(".npy format version " + std::to_string(major) + " is not supported");
  }
  if (!in_bounds(header_start, header_len, file.size())) return bad_input("truncated .npy header");
  const std::string_view header(reinterpret_cast<const char*>(file.data() + header_start), header_len);

  std::string descr = dict_value(header, "descr");
  if (descr.size() < 4 || descr.front() != '\'' || descr.back() != '\'') return bad_input("missing descr in the .npy header");
  descr = descr.substr(1, descr.size() - 2);
  const char order = descr[0];
  if (order == '>') return unsupported("big-endian .npy data is not supported");
  Array array;
  bool known = false;
  for (const auto& d : kDescrs) {
    if (descr.substr(1) == d.code) {
      array.dtype = d.dtype;
      known = true;
    }
  }
  if (!known) return unsupported(".npy dtype '" + printable(descr) + "' is not supported");
  if (dict_value(header, "fortran_order") != "False") return unsupported("Fortran-order .npy arrays are not supported");

  const std::string shape = dict_value(header, "shape");
  if (shape.size() < 2 || shape.front() != '(') return bad_input("missing shape in the .npy header");
  uint64_t numel = 1;
  size_t pos = 1;
  while (pos < shape.size()) {
    while (pos < shape.size() && (shape[pos] == ' ' || shape[pos] == ',')) ++pos;
    if (pos >= shape.size() || shape[pos] == ')') break;
    size_t end = pos;
    while (end < shape.size() && shape[end] >= '0' && shape[end] <= '9') ++end;
    if (end == pos || end - pos > 12) return bad_input("malformed shape " + printable(shape) + " in the .npy header");
    const int64_t dim = std::stoll(shape.substr(pos, end - pos));
    array.shape.push_back(dim);
    // Checked before multiplying (a dim is below 10^12 < 2^40, so is numel).
    if (dim != 0 && numel > (uint64_t(1) << 40) / uint64_t(dim)) return bad_input("shape " + printable(shape) + " is too large");
    numel *= uint64_t(dim);
    pos = end;
  }
  const uint64_t nbytes = numel * element_size(int(array.dtype)).value_or(1);
  const size_t data_start = header_start + header_len;
  if (file.size() - data_start != nbytes) {
    return bad_input(".npy data holds " + std::to_string(file.size() - data_start) + " bytes, the shape needs " +
                     std::to_string(nbytes));
  }
  array.data = file.subspan(data_start, nbytes);
  return array;
}

Result<std::vector<uint8_t>> write_npy(ScalarType dtype, std::span<const int64_t> shape, ByteSpan data) {
  const char* code = nullptr;
  for (const auto& d : kDescrs) {
    if (d.dtype == dtype) code = d.code;
  }
  if (dtype == ScalarType::kBits16) code = "u2";
  if (!code) return unsupported("dtype " + std::string(scalar_type_name(int(dtype))) + " has no .npy equivalent");
  std::string header = std::string("{'descr': '") + (code[0] == 'b' || code[1] == '1' ? '|' : '<') + code +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i) header += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + '\n' padded to 64.
  const size_t total = align_up(10 + header.size() + 1, 64);
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size() & 0xff), uint8_t(header.size() >> 8)};
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace etkit::npy
