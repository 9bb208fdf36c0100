// JSON as Python's json module reads and writes it, for ETRecord entries:
// besides RFC 8259 it has the tokens NaN, Infinity and -Infinity (Python
// writes them for unbounded shape ranges and infinite float arguments,
// etrecord_spec.md §4), keeps object members in file order (the Inspector's
// delegate-id lookup depends on it, §7 step 4) and lets the last of duplicate
// keys win. Parsing is bounded in depth and size; RapidJSON does the reading
// (iteratively), json_value.cpp adapts it to Python's reading of numbers and
// lone surrogates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "libcore/support/result.h"

namespace etkit::etrecord {

class JsonValue;
struct JsonMember;
using JsonArray = std::vector<JsonValue>;
using JsonObject = std::vector<JsonMember>;

class JsonValue {
 public:
  enum class Type : uint8_t { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  // Constructors are defined below JsonMember: the variant may not be built
  // while one of its vectors holds an incomplete type (clang instantiates it
  // at the constructor).
  JsonValue();
  JsonValue(std::nullptr_t);  // NOLINT: implicit, as the literal it stands for
  JsonValue(bool b);          // NOLINT
  JsonValue(int64_t i);       // NOLINT
  JsonValue(int i);           // NOLINT
  JsonValue(double d);        // NOLINT
  JsonValue(std::string s);   // NOLINT
  JsonValue(const char* s);   // NOLINT
  JsonValue(JsonArray a);     // NOLINT
  JsonValue(JsonObject o);    // NOLINT

  Type type() const { return static_cast<Type>(v_.index()); }
  bool is_null() const { return type() == Type::kNull; }
  bool is_object() const { return type() == Type::kObject; }
  bool is_array() const { return type() == Type::kArray; }
  bool is_string() const { return type() == Type::kString; }
  bool is_number() const { return type() == Type::kInt || type() == Type::kDouble; }

  // Typed access; nullopt/nullptr when the value has another type.
  std::optional<bool> as_bool() const;
  std::optional<int64_t> as_int() const;    // integers only (no 2.0)
  std::optional<double> as_double() const;  // any number
  const std::string* as_string() const;
  const JsonArray* as_array() const;
  const JsonObject* as_object() const;
  JsonArray* as_array();
  JsonObject* as_object();

  // The member named `key` of an object (the last one, as Python's dict
  // keeps), or nullptr.
  const JsonValue* find(std::string_view key) const;
  // find(), with a JSON null treated as absent.
  const JsonValue* get(std::string_view key) const;

  // Appends to an object (no duplicate check): for building documents.
  JsonValue& set(std::string key, JsonValue value);
  // Appends to an array.
  JsonValue& push(JsonValue value);

  static JsonValue object();
  static JsonValue array();

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, JsonArray, JsonObject> v_;
};

struct JsonMember {
  std::string key;
  JsonValue value;
};

inline JsonValue::JsonValue() = default;
inline JsonValue::JsonValue(std::nullptr_t) {}
inline JsonValue::JsonValue(bool b) : v_(b) {}
inline JsonValue::JsonValue(int64_t i) : v_(i) {}
inline JsonValue::JsonValue(int i) : v_(int64_t{i}) {}
inline JsonValue::JsonValue(double d) : v_(d) {}
inline JsonValue::JsonValue(std::string s) : v_(std::move(s)) {}
inline JsonValue::JsonValue(const char* s) : v_(std::string(s)) {}
inline JsonValue::JsonValue(JsonArray a) : v_(std::move(a)) {}
inline JsonValue::JsonValue(JsonObject o) : v_(std::move(o)) {}
inline JsonValue JsonValue::object() { return JsonValue(JsonObject{}); }
inline JsonValue JsonValue::array() { return JsonValue(JsonArray{}); }

struct JsonLimits {
  size_t max_depth = 512;               // nested arrays/objects
  size_t max_bytes = size_t{1} << 31;   // document size
};

// Parses one JSON document (whitespace around it allowed). Integers that do
// not fit int64 become doubles, as do numbers with a fraction or exponent;
// numbers beyond double's range become +-Infinity or 0 as Python's float()
// makes them. Errors name the byte offset.
Result<JsonValue> parse_json(std::string_view text, const JsonLimits& limits = {});

// Serializes as Python's json.dumps does by default: ", " and ": "
// separators, non-ASCII escaped as \uXXXX, floats in repr form (1.0, 1e-05),
// NaN/Infinity/-Infinity as bare tokens.
std::string to_json(const JsonValue& value);
void append_json(std::string& out, const JsonValue& value);

}  // namespace etkit::etrecord
