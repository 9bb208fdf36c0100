#include "libcore/formats/etrecord/json_value.h"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "libcore/support/json_number.h"
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

// RapidJSON reads the document; this stream adapts what it sees to the three
// places where Python's json module and RapidJSON disagree, without changing
// any offset (so RapidJSON's error offsets stay true):
//  - exponent digits are shown as '0': RapidJSON refuses 1e999 as too big,
//    Python reads it as inf; the handler converts every number from the
//    original text, so the value is unaffected;
//  - a lone UTF-16 surrogate escape is shown as \ufffd: RapidJSON refuses it,
//    Python keeps it in str and we keep U+FFFD (UTF-8 cannot hold it);
//  - a NUL byte is shown as 0x01: RapidJSON takes NUL for the end of input,
//    which would silently cut the document short.
class PythonJsonStream {
 public:
  using Ch = char;

  explicit PythonJsonStream(std::string_view text) : text_(text) { shown_ = show(); }

  Ch Peek() const { return shown_; }
  Ch Take() {
    const Ch c = shown_;
    if (pos_ < text_.size()) {
      const char raw = text_[pos_];
      // Most bytes are inside strings, where only these two change the state.
      if (state_ != State::kString || raw == '\\' || raw == '"') consume(raw);
      ++pos_;
      shown_ = show();
    }
    return c;
  }
  size_t Tell() const { return pos_; }

  // Write side: required by the Stream concept, unused (no in-situ parsing).
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

 private:
  enum class State : uint8_t { kValue, kAfterE, kExponent, kString, kEscape, kUnicode };

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // The code unit of the four hex digits at `at`, or -1.
  long hex4(size_t at) const {
    if (at > text_.size() || text_.size() - at < 4) return -1;
    long unit = 0;
    for (size_t i = 0; i < 4; ++i) {
      const int h = hex_value(text_[at + i]);
      if (h < 0) return -1;
      unit = unit << 4 | h;
    }
    return unit;
  }

  void consume(char c) {
    switch (state_) {
      case State::kAfterE:
        if (c == '+' || c == '-') return;  // stays: the digits follow
        [[fallthrough]];
      case State::kExponent:
        if (is_digit(c)) {
          state_ = State::kExponent;
          return;
        }
        state_ = State::kValue;
        [[fallthrough]];
      case State::kValue:
        if (c == '"') state_ = State::kString;
        if (c == 'e' || c == 'E') state_ = State::kAfterE;
        return;
      case State::kString:
        if (c == '\\') state_ = State::kEscape;
        if (c == '"') state_ = State::kValue;
        return;
      case State::kEscape:
        if (c == 'u') {
          start_unicode_escape();
        } else {
          state_ = State::kString;
        }
        return;
      case State::kUnicode:
        if (--unicode_left_ == 0) state_ = State::kString;
        return;
    }
  }

  // Called with pos_ on the 'u' of "\u": decides whether its four digits are
  // shown as they are or as fffd.
  void start_unicode_escape() {
    state_ = State::kUnicode;
    unicode_left_ = 4;
    const size_t digits = pos_ + 1;
    const long unit = hex4(digits);
    const bool high = unit >= 0xD800 && unit <= 0xDBFF;
    const bool low = unit >= 0xDC00 && unit <= 0xDFFF;
    bool lone = false;
    if (high) {
      // hex4 read four digits, so digits + 4 is within the text.
      const long next = text_.substr(digits + 4, 2) == "\\u" ? hex4(digits + 6) : -1;
      low_expected_ = next >= 0xDC00 && next <= 0xDFFF;
      lone = !low_expected_;
    } else {
      lone = low && !low_expected_;
      low_expected_ = false;
    }
    replace_unicode_ = lone;
  }

  Ch show() const {
    if (pos_ >= text_.size()) return '\0';
    const char c = text_[pos_];
    if (c == '\0') return '\x01';
    if (state_ == State::kString) return c;
    if ((state_ == State::kAfterE || state_ == State::kExponent) && is_digit(c)) return '0';
    if (state_ == State::kUnicode && replace_unicode_) return "fffd"[4 - unicode_left_];
    return c;
  }

  std::string_view text_;
  size_t pos_ = 0;
  Ch shown_ = '\0';
  State state_ = State::kValue;
  int unicode_left_ = 0;
  bool replace_unicode_ = false;
  bool low_expected_ = false;
};

// Builds JsonValues from RapidJSON's events with an explicit stack (the
// iterative reader never recurses, and neither does this).
class ValueBuilder {
 public:
  ValueBuilder(std::string_view text, const PythonJsonStream& stream, const JsonLimits& limits)
      : text_(text), stream_(stream), limits_(limits) {}

  bool Null() { return add(JsonValue()); }
  bool Bool(bool b) { return add(JsonValue(b)); }
  // Only RawNumber is called (kParseNumbersAsStringsFlag).
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char*, rapidjson::SizeType length, bool) {
    // The stream stands just past the number; its original text is read,
    // not what the stream showed RapidJSON.
    const size_t end = stream_.Tell();
    const size_t start = end - length;
    const auto value = number(text_.substr(start, length));
    if (!value) return fail("bad number", start);
    return add(*value);
  }
  bool String(const char* s, rapidjson::SizeType length, bool) { return add(JsonValue(std::string(s, length))); }
  bool Key(const char* s, rapidjson::SizeType length, bool) {
    frames_.back().key.assign(s, length);
    return true;
  }
  bool StartObject() { return open(JsonValue::object()); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool StartArray() { return open(JsonValue::array()); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  JsonValue& root() { return root_; }
  // Set when a handler above stopped the parse.
  const std::optional<std::pair<std::string, size_t>>& error() const { return error_; }

 private:
  struct Frame {
    JsonValue value;
    std::string key;  // of the member being read, in an object
  };

  bool fail(std::string message, size_t offset) {
    error_.emplace(std::move(message), offset);
    return false;
  }

  bool add(JsonValue value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return true;
    }
    Frame& top = frames_.back();
    if (JsonArray* array = top.value.as_array()) {
      array->push_back(std::move(value));
    } else {
      top.value.as_object()->push_back(JsonMember{std::move(top.key), std::move(value)});
    }
    return true;
  }

  bool open(JsonValue container) {
    if (frames_.size() >= limits_.max_depth) {
      // The iterative reader calls this before taking the bracket.
      return fail("nesting deeper than " + std::to_string(limits_.max_depth), stream_.Tell());
    }
    frames_.push_back(Frame{std::move(container), {}});
    return true;
  }

  bool close() {
    JsonValue done = std::move(frames_.back().value);
    frames_.pop_back();
    return add(std::move(done));
  }

  // Integers that fit int64 stay integers; everything else is a double, as
  // Python's float() makes it (beyond range: +-inf, or 0 below it).
  static std::optional<JsonValue> number(std::string_view text) {
    if (text == "NaN") return JsonValue(std::numeric_limits<double>::quiet_NaN());
    if (text == "Infinity") return JsonValue(std::numeric_limits<double>::infinity());
    if (text == "-Infinity") return JsonValue(-std::numeric_limits<double>::infinity());
    // RapidJSON also reads Inf, -Inf and -NaN; Python does not.
    if (text.find_first_of("IN") != std::string_view::npos) return std::nullopt;
    const auto n = json_number(text);
    if (!n) return std::nullopt;
    if (const int64_t* i = std::get_if<int64_t>(&n->value)) return JsonValue(*i);
    if (const uint64_t* u = std::get_if<uint64_t>(&n->value)) return JsonValue(static_cast<double>(*u));
    return JsonValue(std::get<double>(n->value));
  }

  std::string_view text_;
  const PythonJsonStream& stream_;
  const JsonLimits& limits_;
  std::vector<Frame> frames_;
  JsonValue root_;
  std::optional<std::pair<std::string, size_t>> error_;
};

std::string printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string(1, c);
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
}

// Our wording for RapidJSON's error codes; `offset` is where RapidJSON stopped.
std::string parse_error_message(rapidjson::ParseErrorCode code, std::string_view text, size_t offset) {
  const bool at_end = offset >= text.size();
  switch (code) {
    case rapidjson::kParseErrorDocumentEmpty: return "unexpected end of input";
    case rapidjson::kParseErrorDocumentRootNotSingular: return "unexpected data after the json document";
    case rapidjson::kParseErrorValueInvalid:
      return at_end ? "unexpected end of input" : "unexpected character '" + printable(text[offset]) + "'";
    case rapidjson::kParseErrorObjectMissName: return at_end ? "unexpected end of input in an object" : "expected a string key";
    case rapidjson::kParseErrorObjectMissColon: return at_end ? "unexpected end of input in an object" : "expected ':'";
    case rapidjson::kParseErrorObjectMissCommaOrCurlyBracket:
      return at_end ? "unexpected end of input in an object" : "expected ',' or '}'";
    case rapidjson::kParseErrorArrayMissCommaOrSquareBracket:
      return at_end ? "unexpected end of input in an array" : "expected ',' or ']'";
    case rapidjson::kParseErrorStringUnicodeEscapeInvalidHex: return "bad hex digit in \\u escape";
    case rapidjson::kParseErrorStringEscapeInvalid:
      return !at_end && static_cast<unsigned char>(text[offset]) < 0x20 ? "control character in a string"
                                                                           : "bad escape in a string";
    case rapidjson::kParseErrorStringMissQuotationMark: return "unterminated string";
    case rapidjson::kParseErrorStringInvalidEncoding: return "invalid utf-8 in a string";
    case rapidjson::kParseErrorNumberTooBig: return "number too big";
    case rapidjson::kParseErrorNumberMissFraction:
    case rapidjson::kParseErrorNumberMissExponent: return "bad number";
    default: return rapidjson::GetParseError_En(code);
  }
}

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
  if (text.size() > limits.max_bytes) {
    return bad_input("json document of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                     std::to_string(limits.max_bytes));
  }
  // Iterative: hostile nesting costs heap, never stack. Numbers as strings:
  // the builder converts them itself, with Python's rules.
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag |
                              rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag;
  PythonJsonStream stream(text);
  ValueBuilder builder(text, stream, limits);
  rapidjson::Reader reader;
  const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, builder);
  if (!result) {
    if (const auto& stopped = builder.error()) {
      return bad_input("json: " + stopped->first + " at offset " + std::to_string(stopped->second));
    }
    return bad_input("json: " + parse_error_message(result.Code(), text, result.Offset()) + " at offset " +
                     std::to_string(result.Offset()));
  }
  return std::move(builder.root());
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
