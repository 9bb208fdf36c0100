// A streaming JSON writer: buffered output to a FILE*, compact or indented,
// numbers via std::to_chars (shortest round-trip form for floats). It does
// not check nesting; callers emit well-formed sequences.
#pragma once

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace etkit {

class JsonWriter {
 public:
  JsonWriter(std::FILE* out, bool pretty) : out_(out), pretty_(pretty) { buffer_.reserve(kFlushAt + 4096); }
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  // `name` must not need escaping (schema field names never do).
  void key(std::string_view name) {
    separator();
    buffer_ += '"';
    buffer_ += name;
    buffer_ += pretty_ ? "\": " : "\":";
    after_key_ = true;
  }

  void string(std::string_view s) {
    separator();
    append_escaped(s);
  }
  void boolean(bool b) {
    separator();
    buffer_ += b ? "true" : "false";
  }
  void null() {
    separator();
    buffer_ += "null";
  }
  template <typename T>
  void number(T v) {
    separator();
    if constexpr (std::is_floating_point_v<T>) {
      // JSON has no NaN/Infinity; FlatBuffers' parser reads these strings back.
      if (v != v) { buffer_ += "\"nan\""; return; }
      if (v == std::numeric_limits<T>::infinity()) { buffer_ += "\"inf\""; return; }
      if (v == -std::numeric_limits<T>::infinity()) { buffer_ += "\"-inf\""; return; }
    }
    char tmp[64];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buffer_.append(tmp, r.ptr);
    maybe_flush();
  }
  // A raw, already valid JSON fragment in value position.
  void raw(std::string_view json) {
    separator();
    buffer_ += json;
  }
  // Ends a line of JSON Lines output (compact mode).
  void newline() {
    buffer_ += '\n';
    first_ = true;
    maybe_flush();
  }

  void flush() {
    if (!buffer_.empty()) {
      if (std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()) {
        failed_ = true;
        broken_pipe_ = broken_pipe_ || errno == EPIPE;
      }
      buffer_.clear();
    }
  }
  bool failed() const { return failed_ || std::ferror(out_); }
  bool broken_pipe() const { return broken_pipe_; }

 private:
  static constexpr size_t kFlushAt = 1 << 20;

  void separator() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_) buffer_ += ',';
    if (pretty_ && depth_ > 0) indent();
    first_ = false;
  }
  void open(char c) {
    separator();
    buffer_ += c;
    ++depth_;
    first_ = true;
  }
  void close(char c) {
    --depth_;
    if (pretty_ && !first_) indent();
    buffer_ += c;
    first_ = false;
    maybe_flush();
  }
  void indent() {
    buffer_ += '\n';
    buffer_.append(static_cast<size_t>(depth_) * 2, ' ');
  }
  void maybe_flush() {
    if (buffer_.size() >= kFlushAt) flush();
  }
  void append_escaped(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    buffer_ += '"';
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == '"' || c == '\\') {
        buffer_ += '\\';
        buffer_ += ch;
      } else if (c < 0x20) {
        switch (c) {
          case '\n': buffer_ += "\\n"; break;
          case '\t': buffer_ += "\\t"; break;
          case '\r': buffer_ += "\\r"; break;
          default:
            buffer_ += "\\u00";
            buffer_ += kHex[c >> 4];
            buffer_ += kHex[c & 15];
        }
      } else {
        buffer_ += ch;
      }
    }
    buffer_ += '"';
    maybe_flush();
  }

  std::FILE* out_;
  bool pretty_;
  std::string buffer_;
  int depth_ = 0;
  bool first_ = true;
  bool after_key_ = false;
  bool failed_ = false;
  bool broken_pipe_ = false;
};

}  // namespace etkit
