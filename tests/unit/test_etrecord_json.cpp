// The Python-flavoured JSON of ETRecord entries: NaN/Infinity outside strings
// only, member order, limits, and agreement with nlohmann::json on standard
// documents.
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "libcore/formats/etrecord/json_value.h"
#include "tests/support/test_support.h"

using namespace etkit;
using etrecord::JsonArray;
using etrecord::JsonValue;
using etrecord::parse_json;
using etrecord::to_json;

TEST_CASE("python json: Infinity, -Infinity and NaN are numbers outside strings", "[etrecord][json]") {
  auto doc = parse_json(R"({"min_val": 2, "max_val": Infinity, "low": -Infinity, "x": NaN, "s": "Infinity NaN"})");
  REQUIRE(doc.ok());
  CHECK(*doc->find("min_val")->as_int() == 2);
  CHECK(*doc->find("max_val")->as_double() == std::numeric_limits<double>::infinity());
  CHECK(*doc->find("low")->as_double() == -std::numeric_limits<double>::infinity());
  CHECK(std::isnan(*doc->find("x")->as_double()));
  // Inside strings the same letters are text.
  CHECK(*doc->find("s")->as_string() == "Infinity NaN");
  auto in_array = parse_json("[1.5, -Infinity,NaN,Infinity]");
  REQUIRE(in_array.ok());
  REQUIRE(in_array->as_array()->size() == 4);
  CHECK((*in_array->as_array())[1].as_double() == -std::numeric_limits<double>::infinity());
}

TEST_CASE("python json: tokens that only look like NaN or Infinity are rejected", "[etrecord][json]") {
  for (const char* text : {"nan", "inf", "-inf", "Infinit", "NaNa", "[Inf]", "+1", "-NaN", "-", "01", "1.", ".5", "1e"}) {
    INFO(text);
    CHECK_FALSE(parse_json(text).ok());
  }
}

TEST_CASE("python json: escaped quotes do not end a string before NaN-like text", "[etrecord][json]") {
  auto doc = parse_json(R"(["a\"NaN\"", "\\", NaN])");
  REQUIRE(doc.ok());
  const auto& a = *doc->as_array();
  CHECK(*a[0].as_string() == "a\"NaN\"");
  CHECK(*a[1].as_string() == "\\");
  CHECK(std::isnan(*a[2].as_double()));
}

TEST_CASE("python json: members keep file order and the last duplicate wins", "[etrecord][json]") {
  auto doc = parse_json(R"({"12": [1], "2": [2], "12": [3]})");
  REQUIRE(doc.ok());
  const auto& members = *doc->as_object();
  REQUIRE(members.size() == 3);
  CHECK(members[0].key == "12");
  CHECK(members[1].key == "2");
  CHECK(*(*doc->find("12")->as_array())[0].as_int() == 3);
}

TEST_CASE("python json: numbers", "[etrecord][json]") {
  auto doc = parse_json("[0, -0, 9223372036854775807, 9223372036854775808, -9223372036854775808, 2.5e3, 1e999, -1e999, "
                        "1e-999, 0e999]");
  REQUIRE(doc.ok());
  const auto& a = *doc->as_array();
  CHECK(*a[0].as_int() == 0);
  CHECK(*a[2].as_int() == INT64_MAX);
  CHECK_FALSE(a[3].as_int().has_value());  // beyond int64: a double, as nlohmann does
  CHECK(*a[3].as_double() == 9223372036854775808.0);
  CHECK(*a[4].as_int() == INT64_MIN);
  CHECK(*a[5].as_double() == 2500.0);
  // Python's float('1e999') is inf, float('1e-999') is 0.
  CHECK(*a[6].as_double() == std::numeric_limits<double>::infinity());
  CHECK(*a[7].as_double() == -std::numeric_limits<double>::infinity());
  CHECK(*a[8].as_double() == 0.0);
  CHECK(*a[9].as_double() == 0.0);
}

TEST_CASE("python json: strings, escapes and utf-8", "[etrecord][json]") {
  auto doc = parse_json(R"(["\u00e9\ud83d\ude00\n\t\/", "é", "\ud800x"])");
  REQUIRE(doc.ok());
  const auto& a = *doc->as_array();
  CHECK(*a[0].as_string() == "\xc3\xa9\xf0\x9f\x98\x80\n\t/");
  CHECK(*a[1].as_string() == "\xc3\xa9");
  CHECK(*a[2].as_string() == "\xef\xbf\xbdx");  // lone surrogate -> U+FFFD
  CHECK_FALSE(parse_json("\"\xff\"").ok());
  CHECK_FALSE(parse_json("\"\xc0\xaf\"").ok());  // overlong '/'
  CHECK_FALSE(parse_json("\"a\nb\"").ok());      // raw control character
  CHECK_FALSE(parse_json(R"("\x")").ok());
  CHECK_FALSE(parse_json(R"("\u12")").ok());
}

TEST_CASE("python json: what RapidJSON reads differently from Python is read as Python does", "[etrecord][json]") {
  // A NUL byte is data (an error here), not the end of the document.
  CHECK_FALSE(parse_json(std::string("[1]\0 trailing", 14)).ok());
  CHECK_FALSE(parse_json(std::string("[\"a\0b\"]", 8)).ok());
  // Exponents beyond double's range: Python's float() gives +-inf or 0.
  auto big = parse_json("[1E+400, -2e0400, 5e-0400]");
  REQUIRE(big.ok());
  CHECK(*(*big->as_array())[0].as_double() == std::numeric_limits<double>::infinity());
  CHECK(*(*big->as_array())[1].as_double() == -std::numeric_limits<double>::infinity());
  CHECK(*(*big->as_array())[2].as_double() == 0.0);
  // Lone surrogates either way round become U+FFFD; a pair stays one character.
  auto lone = parse_json(R"(["\udc00", "\ud800\ud800\udc00", "\ud800\u0041"])");
  REQUIRE(lone.ok());
  const auto& a = *lone->as_array();
  CHECK(*a[0].as_string() == "\xef\xbf\xbd");
  CHECK(*a[1].as_string() == "\xef\xbf\xbd\xf0\x90\x80\x80");  // U+FFFD U+10000
  CHECK(*a[2].as_string() == "\xef\xbf\xbd" "A");
  // The letters of a literal inside an exponent-looking context stay text.
  auto text = parse_json(R"({"e1": "1e999", "true": true})");
  REQUIRE(text.ok());
  CHECK(*text->find("e1")->as_string() == "1e999");
  CHECK(*text->find("true")->as_bool());
}

TEST_CASE("python json: errors name the offset", "[etrecord][json]") {
  auto r = parse_json("{\"a\": 1,}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "json: expected a string key at offset 8");
  auto t = parse_json("[1, 2");
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message == "json: unexpected end of input in an array at offset 5");
  CHECK_FALSE(parse_json("").ok());
  CHECK_FALSE(parse_json("1 2").ok());
}

TEST_CASE("python json: depth and size limits", "[etrecord][json]") {
  etrecord::JsonLimits limits;
  limits.max_depth = 8;
  CHECK(parse_json(std::string(8, '[') + std::string(8, ']'), limits).ok());
  auto deep = parse_json(std::string(9, '[') + std::string(9, ']'), limits);
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.error().message == "json: nesting deeper than 8 at offset 8");
  // The default limit stops a hostile document long before the stack does.
  CHECK_FALSE(parse_json(std::string(100000, '[')).ok());
  limits.max_bytes = 4;
  CHECK_FALSE(parse_json("12345", limits).ok());
}

TEST_CASE("python json: output matches python's json.dumps", "[etrecord][json]") {
  JsonValue v = JsonValue::object();
  v.set("a", 1.0);
  v.set("b", 1.5e-5);
  v.set("c", 1e16);
  v.set("d", 123456.789);
  v.set("e", -0.001);
  v.set("f", std::numeric_limits<double>::infinity());
  v.set("g", JsonValue(JsonArray{JsonValue(int64_t{3}), JsonValue(), JsonValue(true)}));
  v.set("h", "\xc3\xa9\"\n\xf0\x9f\x98\x80");
  v.set("i", 1e-4);
  v.set("j", 1e22);
  // Each expected literal is what CPython 3 prints for json.dumps of the same dict.
  CHECK(to_json(v) ==
        R"({"a": 1.0, "b": 1.5e-05, "c": 1e+16, "d": 123456.789, "e": -0.001, "f": Infinity, )"
        R"("g": [3, null, true], "h": "\u00e9\"\n\ud83d\ude00", "i": 0.0001, "j": 1e+22})");
}

TEST_CASE("python json: non-finite floats use json.dumps' spellings, not repr's", "[etrecord][json]") {
  const JsonValue v(JsonArray{JsonValue(std::numeric_limits<double>::quiet_NaN()),
                              JsonValue(-std::numeric_limits<double>::infinity()), JsonValue(-0.0), JsonValue(2.5e-300)});
  // CPython 3: json.dumps([float("nan"), float("-inf"), -0.0, 2.5e-300])
  CHECK(to_json(v) == "[NaN, -Infinity, -0.0, 2.5e-300]");
}

TEST_CASE("python json: agrees with nlohmann on random standard documents", "[etrecord][json]") {
  std::mt19937 rng(42);
  std::function<nlohmann::ordered_json(int)> random_value = [&](int depth) -> nlohmann::ordered_json {
    const int kind = static_cast<int>(rng() % (depth > 3 ? 5 : 7));
    switch (kind) {
      case 0: return nullptr;
      case 1: return rng() % 2 == 0;
      case 2: return static_cast<int64_t>(rng()) - (int64_t{1} << 31);
      case 3: return std::ldexp(static_cast<double>(rng()), static_cast<int>(rng() % 80) - 40);
      case 4: {
        std::string s;
        for (int i = 0, n = static_cast<int>(rng() % 8); i < n; ++i) s += "ab\"\\\n\x01\xc3\xa9 N"[rng() % 10];
        // Keep whole UTF-8 sequences only.
        std::string clean;
        for (size_t i = 0; i < s.size(); ++i) {
          if (s[i] == '\xc3') {
            clean += "\xc3\xa9";
          } else if (s[i] != '\xa9') {
            clean += s[i];
          }
        }
        return clean;
      }
      case 5: {
        auto a = nlohmann::ordered_json::array();
        for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) a.push_back(random_value(depth + 1));
        return a;
      }
      default: {
        auto o = nlohmann::ordered_json::object();
        for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) {
          std::string key(1, 'k');  // not "k" + to_string: GCC 12 warns falsely (-Wrestrict)
          key += std::to_string(i);
          o[key] = random_value(depth + 1);
        }
        return o;
      }
    }
  };
  for (int round = 0; round < 200; ++round) {
    const nlohmann::ordered_json expected = random_value(0);
    const std::string text = expected.dump(round % 2 == 0 ? -1 : 2);
    auto ours = parse_json(text);
    REQUIRE(ours.ok());
    // Our output, read back by nlohmann, is the same document.
    CHECK(nlohmann::ordered_json::parse(to_json(*ours)) == expected);
  }
}
