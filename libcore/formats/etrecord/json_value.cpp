#include "libcore/formats/etrecord/json_value.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "libcore/support/py_float.h"

namespace etkit::etrecord {

std::optional<bool> JsonValue::as_bool() const {
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  return std::nullopt;
}
std::optional<int64_t> JsonValue::as_int() const {
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return *i;
  return std::nullopt;
}
std::optional<double> JsonValue::as_double() const {
  if (const int64_t* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  if (const double* d = std::get_if<double>(&v_)) return *d;
  return std::nullopt;
}
const std::string* JsonValue::as_string() const { return std::get_if<std::string>(&v_); }
const JsonArray* JsonValue::as_array() const { return std::get_if<JsonArray>(&v_); }
const JsonObject* JsonValue::as_object() const { return std::get_if<JsonObject>(&v_); }
JsonArray* JsonValue::as_array() { return std::get_if<JsonArray>(&v_); }
JsonObject* JsonValue::as_object() { return std::get_if<JsonObject>(&v_); }

const JsonValue* JsonValue::find(std::string_view key) const {
  const JsonObject* object = as_object();
  if (object == nullptr) return nullptr;
  for (auto it = object->rbegin(); it != object->rend(); ++it) {
    if (it->key == key) return &it->value;
  }
  return nullptr;
}

const JsonValue* JsonValue::get(std::string_view key) const {
  const JsonValue* v = find(key);
  return v == nullptr || v->is_null() ? nullptr : v;
}

JsonValue& JsonValue::set(std::string key, JsonValue value) {
  if (!is_object()) v_ = JsonObject{};
  auto& object = std::get<JsonObject>(v_);
  object.push_back(JsonMember{std::move(key), std::move(value)});
  return object.back().value;
}

JsonValue& JsonValue::push(JsonValue value) {
  if (!is_array()) v_ = JsonArray{};
  auto& array = std::get<JsonArray>(v_);
  array.push_back(std::move(value));
  return array.back();
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, const JsonLimits& limits) : text_(text), limits_(limits) {}

  Result<JsonValue> document() {
    if (text_.size() > limits_.max_bytes) {
      return bad_input("json document of " + std::to_string(text_.size()) + " bytes exceeds the limit of " +
                       std::to_string(limits_.max_bytes));
    }
    skip_space();
    JsonValue root;
    if (!value(root, 0)) return std::move(error_);
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected data after the json document");
    return root;
  }

 private:
  Error fail(const std::string& message) {
    error_ = bad_input("json: " + message + " at offset " + std::to_string(pos_));
    return error_;
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool value(JsonValue& out, size_t depth) {
    if (pos_ >= text_.size()) return fail("unexpected end of input"), false;
    const char c = text_[pos_];
    switch (c) {
      case '{': return object(out, depth + 1);
      case '[': return array(out, depth + 1);
      case '"': {
        std::string s;
        if (!string(s)) return false;
        out = JsonValue(std::move(s));
        return true;
      }
      case 't':
        if (literal("true")) return out = JsonValue(true), true;
        break;
      case 'f':
        if (literal("false")) return out = JsonValue(false), true;
        break;
      case 'n':
        if (literal("null")) return out = JsonValue(), true;
        break;
      case 'N':
        if (literal("NaN")) return out = JsonValue(std::numeric_limits<double>::quiet_NaN()), true;
        break;
      case 'I':
        if (literal("Infinity")) return out = JsonValue(std::numeric_limits<double>::infinity()), true;
        break;
      case '-':
        if (literal("-Infinity")) return out = JsonValue(-std::numeric_limits<double>::infinity()), true;
        return number(out);
      default:
        if (c >= '0' && c <= '9') return number(out);
    }
    return fail(std::string("unexpected character '") + printable(c) + "'"), false;
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
  }

  bool object(JsonValue& out, size_t depth) {
    if (depth > limits_.max_depth) return fail("nesting deeper than " + std::to_string(limits_.max_depth)), false;
    ++pos_;  // '{'
    JsonObject members;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      out = JsonValue(std::move(members));
      return true;
    }
    while (true) {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') return fail("expected a string key"), false;
      JsonMember member;
      if (!string(member.key)) return false;
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ':') return fail("expected ':'"), false;
      ++pos_;
      skip_space();
      if (!value(member.value, depth)) return false;
      members.push_back(std::move(member));
      skip_space();
      if (pos_ >= text_.size()) return fail("unexpected end of input in an object"), false;
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        break;
      }
      return fail("expected ',' or '}'"), false;
    }
    out = JsonValue(std::move(members));
    return true;
  }

  bool array(JsonValue& out, size_t depth) {
    if (depth > limits_.max_depth) return fail("nesting deeper than " + std::to_string(limits_.max_depth)), false;
    ++pos_;  // '['
    JsonArray items;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      out = JsonValue(std::move(items));
      return true;
    }
    while (true) {
      skip_space();
      items.emplace_back();
      if (!value(items.back(), depth)) return false;
      skip_space();
      if (pos_ >= text_.size()) return fail("unexpected end of input in an array"), false;
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        break;
      }
      return fail("expected ',' or ']'"), false;
    }
    out = JsonValue(std::move(items));
    return true;
  }

  static void append_utf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(uint32_t& out) {
    if (text_.size() - pos_ < 4) return fail("truncated \\u escape"), false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = text_[pos_++];
      out <<= 4;
      if (h >= '0' && h <= '9') {
        out |= uint32_t(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        out |= uint32_t(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        out |= uint32_t(h - 'A' + 10);
      } else {
        --pos_;
        return fail("bad hex digit in \\u escape"), false;
      }
    }
    return true;
  }

  // Length of the valid UTF-8 sequence at pos_, or 0.
  size_t utf8_length() const {
    const auto b = [&](size_t i) { return static_cast<unsigned char>(text_[pos_ + i]); };
    const size_t left = text_.size() - pos_;
    const unsigned char c = b(0);
    size_t n = 0;
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2, cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3, cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4, cp = c & 0x07u;
    } else {
      return 0;
    }
    if (left < n) return 0;
    for (size_t i = 1; i < n; ++i) {
      if ((b(i) & 0xC0) != 0x80) return 0;
      cp = cp << 6 | (b(i) & 0x3Fu);
    }
    // Overlong forms, surrogates and values beyond U+10FFFF are invalid.
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
  }

  bool string(std::string& out) {
    ++pos_;  // '"'
    while (true) {
      // Copy the run of plain characters at once.
      size_t run = pos_;
      while (run < text_.size()) {
        const auto c = static_cast<unsigned char>(text_[run]);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++run;
      }
      out.append(text_.data() + pos_, run - pos_);
      pos_ = run;
      if (pos_ >= text_.size()) return fail("unterminated string"), false;
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return fail("control character in a string"), false;
      if (c >= 0x80) {
        const size_t n = utf8_length();
        if (n == 0) return fail("invalid utf-8 in a string"), false;
        out.append(text_.data() + pos_, n);
        pos_ += n;
        continue;
      }
      // Backslash escape.
      ++pos_;
      if (pos_ >= text_.size()) return fail("unterminated string"), false;
      const char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            const size_t save = pos_;
            pos_ += 2;
            uint32_t low = 0;
            if (!hex4(low)) return false;
            if (low >= 0xDC00 && low <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          // Python keeps lone surrogates in str; UTF-8 cannot, so they become U+FFFD.
          if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
          append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          return fail(std::string("bad escape '\\") + printable(e) + "'"), false;
      }
    }
  }

  bool number(JsonValue& out) {
    const size_t start = pos_;
    bool negative = false;
    if (text_[pos_] == '-') {
      negative = true;
      ++pos_;
    }
    const auto digits = [&]() {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    const size_t int_start = pos_;
    const size_t int_digits = digits();
    if (int_digits == 0) return fail("bad number"), false;
    if (int_digits > 1 && text_[int_start] == '0') {
      pos_ = int_start + 1;
      return fail("leading zero in a number"), false;
    }
    bool integral = true;
    bool nonzero_mantissa = text_.substr(int_start, int_digits).find_first_not_of('0') != std::string_view::npos;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      const size_t frac_start = pos_;
      if (digits() == 0) return fail("bad number"), false;
      nonzero_mantissa = nonzero_mantissa ||
                         text_.substr(frac_start, pos_ - frac_start).find_first_not_of('0') != std::string_view::npos;
    }
    bool negative_exponent = false;
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) negative_exponent = text_[pos_++] == '-';
      if (digits() == 0) return fail("bad number"), false;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      int64_t i = 0;
      const auto r = std::from_chars(first, last, i);
      if (r.ec == std::errc() && r.ptr == last) {
        out = JsonValue(i);
        return true;
      }
    }
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      // Python's float() overflows to inf and underflows to 0.
      const bool overflow = nonzero_mantissa && !negative_exponent;
      d = overflow ? std::numeric_limits<double>::infinity() : 0.0;
      if (negative) d = -d;
    } else if (r.ec != std::errc() || r.ptr != last) {
      return fail("bad number"), false;
    }
    out = JsonValue(d);
    return true;
  }

  std::string_view text_;
  const JsonLimits& limits_;
  size_t pos_ = 0;
  Error error_;
};

void append_string(std::string& out, const std::string& s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto escape_unit = [&](uint32_t unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 15];
  };
  out += '"';
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          if (c < 0x20) {
            escape_unit(c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence (strings here were validated on parsing or
    // built by us); a stray byte is written as U+FFFD.
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    uint32_t cp = n == 4 ? c & 0x07u : n == 3 ? c & 0x0Fu : c & 0x1Fu;
    bool valid = n > 1 && i + n <= s.size();
    for (size_t k = 1; valid && k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      valid = (b & 0xC0) == 0x80;
      cp = cp << 6 | (b & 0x3Fu);
    }
    if (!valid) {
      cp = 0xFFFD;
      n = 1;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      escape_unit(0xD800 + (cp >> 10));
      escape_unit(0xDC00 + (cp & 0x3FF));
    } else {
      escape_unit(cp);
    }
    i += n;
  }
  out += '"';
}

}  // namespace

Result<JsonValue> parse_json(std::string_view text, const JsonLimits& limits) {
  return Parser(text, limits).document();
}

void append_json(std::string& out, const JsonValue& value) {
  switch (value.type()) {
    case JsonValue::Type::kNull: out += "null"; return;
    case JsonValue::Type::kBool: out += *value.as_bool() ? "true" : "false"; return;
    case JsonValue::Type::kInt: out += std::to_string(*value.as_int()); return;
    case JsonValue::Type::kDouble: {
      // json.dumps writes repr(float), except for its own spellings of these.
      const double d = *value.as_double();
      out += std::isnan(d) ? "NaN" : std::isinf(d) ? (d > 0 ? "Infinity" : "-Infinity") : py_repr_float(d);
      return;
    }
    case JsonValue::Type::kString: append_string(out, *value.as_string()); return;
    case JsonValue::Type::kArray: {
      out += '[';
      bool first = true;
      for (const JsonValue& item : *value.as_array()) {
        if (!first) out += ", ";
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
    case JsonValue::Type::kObject: {
      out += '{';
      bool first = true;
      for (const JsonMember& m : *value.as_object()) {
        if (!first) out += ", ";
        first = false;
        append_string(out, m.key);
        out += ": ";
        append_json(out, m.value);
      }
      out += '}';
      return;
    }
  }
}

std::string to_json(const JsonValue& value) {
  std::string out;
  append_json(out, value);
  return out;
}

}  // namespace etkit::etrecord
