#include "libcore/inspect/tabulate_text.h"

#include <cstdint>
#include <optional>

namespace etkit::inspect {

namespace {

constexpr char kEsc = '\x1b';

bool is_py_space(uint32_t c) {
  if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20)) return true;
  if (c == 0x85 || c == 0xa0 || c == 0x1680 || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f ||
      c == 0x3000) {
    return true;
  }
  return c >= 0x2000 && c <= 0x200a;
}

// The code point starting at s[i] and its length; invalid UTF-8 counts as
// one non-space byte.
std::pair<uint32_t, size_t> decode_at(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = b(i);
  size_t n = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3 : (lead >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return {0xfffd, 1};
  uint32_t c = n == 1 ? lead : lead & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return {0xfffd, 1};
    c = (c << 6) | (b(i + k) & 0x3f);
  }
  return {c, n};
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_link_param(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == ':';
}

// Length of a hyperlink at s[i] and where its text lies, or nullopt:
// ESC ]8;[a-zA-Z0-9:]*;[^ESC]+ ESC \\ ([^ESC]+) ESC ]8;; ESC \\ (the link regex).
std::optional<std::pair<size_t, std::string_view>> link_at(std::string_view s, size_t i) {
  if (s.substr(i, 4) != "\x1b]8;") return std::nullopt;
  size_t k = i + 4;
  while (k < s.size() && is_link_param(s[k])) ++k;
  if (k >= s.size() || s[k] != ';') return std::nullopt;
  const size_t uri = ++k;
  while (k < s.size() && s[k] != kEsc) ++k;
  if (k == uri || s.substr(k, 2) != "\x1b\\") return std::nullopt;
  const size_t text = k += 2;
  while (k < s.size() && s[k] != kEsc) ++k;
  if (k == text || s.substr(k, 7) != "\x1b]8;;\x1b\\") return std::nullopt;
  return std::make_pair(k + 7 - i, s.substr(text, k - text));
}

// Length of a colour code or bare ESC]8;; ... ESC\ sequence at s[i], trying
// _invisible_codes' alternatives in order, or 0.
size_t code_at(std::string_view s, size_t i) {
  if (s.substr(i, 2) == "\x1b[") {
    // \x1b\[\d+[;\d]*m
    size_t k = i + 2;
    if (k < s.size() && is_digit(s[k])) {
      while (k < s.size() && (is_digit(s[k]) || s[k] == ';')) ++k;
      if (k < s.size() && s[k] == 'm') return k + 1 - i;
    }
    // \x1b\[\d*\;\d*\;\d*m
    k = i + 2;
    for (int part = 0; part < 3; ++part) {
      while (k < s.size() && is_digit(s[k])) ++k;
      const char want = part < 2 ? ';' : 'm';
      if (k >= s.size() || s[k] != want) return 0;
      ++k;
    }
    return k - i;
  }
  // \x1b\]8;;(.*?)\x1b\\ ('.' stops at a line feed)
  if (s.substr(i, 5) == "\x1b]8;;") {
    for (size_t k = i + 5; k < s.size() && s[k] != '\n'; ++k) {
      if (s.substr(k, 2) == "\x1b\\") return k + 2 - i;
    }
  }
  return 0;
}

}  // namespace

std::string py_strip(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    const auto [c, n] = decode_at(s, begin);
    if (!is_py_space(c)) break;
    begin += n;
  }
  return py_rstrip(s.substr(begin));
}

std::string py_rstrip(std::string_view s) {
  const size_t begin = 0;
  size_t end = s.size();
  while (end > begin) {
    size_t start = end - 1;  // back to the lead byte of the last code point
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xc0) == 0x80 && end - start < 4) --start;
    const auto [c, n] = decode_at(s, start);
    if (start + n != end || !is_py_space(c)) break;
    end = start;
  }
  return std::string(s.substr(begin, end - begin));
}

bool has_invisible_codes(std::string_view s) {
  for (size_t i = s.find(kEsc); i != std::string_view::npos; i = s.find(kEsc, i + 1)) {
    if (code_at(s, i) > 0 || link_at(s, i)) return true;
  }
  return false;
}

std::string strip_invisible(std::string_view s) {
  if (s.find(kEsc) == std::string_view::npos) return std::string(s);
  std::string links_removed;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == kEsc) {
      if (auto link = link_at(s, i)) {
        links_removed += link->second;
        i += link->first;
        continue;
      }
    }
    links_removed += s[i++];
  }
  std::string out;
  for (size_t i = 0; i < links_removed.size();) {
    const size_t n = links_removed[i] == kEsc ? code_at(links_removed, i) : 0;
    if (n > 0) {
      i += n;
    } else {
      out += links_removed[i++];
    }
  }
  return out;
}

}  // namespace etkit::inspect
