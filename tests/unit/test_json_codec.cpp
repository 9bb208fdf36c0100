// The JSON form: compared with what Debian's flatc (an independent decoder)
// prints for the same bytes with our schemas, and round trips.
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "examples/demo_models.h"
#include "libcore/formats/json/schema_json.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;
using nlohmann::json;

namespace {

std::string decode(FileKind kind, ByteSpan bytes, const DecodeOptions& options = {}) {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  auto status = decode_to_json(kind, bytes, options, out);
  INFO((status ? std::string() : status.error().describe()));
  REQUIRE(status.ok());
  std::rewind(out);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, out)) > 0) text.append(buf, n);
  std::fclose(out);
  return text;
}

// flatc's view of `bytes` with the given schema (defaults filled in).
json flatc_json(const std::vector<uint8_t>& bytes, const std::string& schema, bool size_prefixed) {
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "in.bin", bytes);
  const std::string cmd = std::string(ETKIT_FLATC) + " --json --strict-json --defaults-json --raw-binary " +
                          (size_prefixed ? "--size-prefixed " : "") + "-o " + dir.string() + " " +
                          ETKIT_SCHEMAS_DIR + "/" + schema + " -- " + (dir / "in.bin").string();
  auto r = test::run_shell(cmd);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(dir / "in.json");
  return json::parse(in);
}

}  // namespace

TEST_CASE("program JSON matches flatc's decoding of the same file", "[json][pte]") {
  auto bytes = pte::write_program(demo::lenet());
  REQUIRE(bytes.ok());
  json ours = json::parse(decode(FileKind::kProgram, ByteSpan(*bytes)));
  // Our extension keys describe bytes outside the FlatBuffer.
  REQUIRE(ours.contains("extended_header"));
  REQUIRE(ours.contains("segment_data"));
  CHECK(ours["extended_header"]["length"] == 32);
  ours.erase("extended_header");
  ours.erase("segment_data");
  CHECK(ours == flatc_json(*bytes, "program.fbs", false));
}

TEST_CASE("ETDump JSON matches flatc's decoding, keys in schema order", "[json][etdump]") {
  demo::SyntheticRun run;
  run.executions = 2;
  run.log_program_output = true;
  std::vector<uint8_t> buffer;
  const auto bytes = demo::synthetic_etdump(run, &buffer);
  const std::string text = decode(FileKind::kEtDump, ByteSpan(bytes));
  CHECK(json::parse(text) == flatc_json(bytes, "etdump.fbs", true));
  // Schema order (name, chain_index, instruction_id, ...) and defaults filled in.
  CHECK(text.rfind(R"({"version":0,"run_data":[{"name":"Default","bundled_input_index":-1,"events":[{"profile_event":{"name":"Method::init","chain_index":-1,"instruction_id":0,"delegate_debug_id_int":-1,"start_time":)", 0) == 0);
}

TEST_CASE("tensor values from the debug buffer, limited by max_values", "[json][etdump]") {
  demo::SyntheticRun run;
  run.executions = 1;
  run.log_program_output = true;
  std::vector<uint8_t> buffer;
  const auto bytes = demo::synthetic_etdump(run, &buffer);
  DecodeOptions options;
  options.debug_buffer = ByteSpan(buffer);
  options.max_values = 2;
  json doc = json::parse(decode(FileKind::kEtDump, ByteSpan(bytes), options));
  const json& tensor = doc["run_data"][1]["events"].back()["debug_event"]["debug_entry"]["tensor"];
  const auto expected = demo::weights(10, 1, 2.0f);  // the logits the demo logs for execution 0
  REQUIRE(tensor["values"].size() == 2);
  CHECK(tensor["values"][0].get<float>() == expected[0]);
  CHECK(tensor["values"][1].get<float>() == expected[1]);
  CHECK(tensor["values_omitted"] == 8);
}

TEST_CASE("decode -> encode -> decode is lossless for our own files", "[json][roundtrip]") {
  auto lenet = pte::write_program(demo::lenet());
  REQUIRE(lenet.ok());
  auto mlp = pte::write_program(demo::mlp());
  REQUIRE(mlp.ok());
  std::vector<uint8_t> buffer;
  demo::SyntheticRun run;
  run.log_program_output = true;
  const std::vector<std::pair<FileKind, std::vector<uint8_t>>> files = {
      {FileKind::kProgram, *lenet},
      {FileKind::kBundledProgram, demo::bundled_mlp(*mlp, 3)},
      {FileKind::kEtDump, demo::synthetic_etdump(run, &buffer)},
  };
  for (const auto& [kind, bytes] : files) {
    const std::string first = decode(kind, ByteSpan(bytes));
    auto encoded = encode_from_json(first);
    INFO((encoded ? std::string() : encoded.error().describe()));
    REQUIRE(encoded.ok());
    CHECK(decode(kind, ByteSpan(*encoded)) == first);
  }
}

TEST_CASE("encode rejects what it cannot turn into a valid file", "[json][errors]") {
  auto invalid = encode_from_json("{\"run_data\": [");
  REQUIRE_FALSE(invalid.ok());
  CHECK(invalid.error().message.rfind("invalid JSON at line 1, column 15", 0) == 0);

  // Deep nesting is refused before anything recursive touches it.
  std::string deep = "{\"run_data\": ";
  for (int i = 0; i < 100000; ++i) deep += '[';
  for (int i = 0; i < 100000; ++i) deep += ']';
  deep += '}';
  auto too_deep = encode_from_json(deep);
  REQUIRE_FALSE(too_deep.ok());
  CHECK(too_deep.error().message == "JSON nested deeper than 64 levels");

  auto unknown = encode_from_json(R"({"something": 1})");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("cannot tell the file kind") != std::string::npos);

  auto bad_field = encode_from_json(R"({"run_data": [{"name": "x", "no_such_field": 1}]})");
  REQUIRE_FALSE(bad_field.ok());
  CHECK(bad_field.error().message.find("no_such_field") != std::string::npos);

  auto bad_base64 = encode_from_json(R"({"execution_plan": [], "segment_data": ["!!"]})");
  REQUIRE_FALSE(bad_base64.ok());
  CHECK(bad_base64.error().field == "segment_data[0]");

  // A program whose segment table disagrees with the data given.
  auto mismatch = encode_from_json(
      R"({"execution_plan": [], "segments": [{"offset": 0, "size": 8}], "segment_data": ["AAAA"]})");
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error().field == "segments[0]");
}

TEST_CASE("file kinds are detected by identifier", "[json]") {
  const uint8_t program[12] = {0, 0, 0, 0, 'E', 'T', '1', '2', 0, 0, 0, 0};
  const uint8_t bundled[12] = {0, 0, 0, 0, 'B', 'P', '0', '8', 0, 0, 0, 0};
  const uint8_t dump[12] = {8, 0, 0, 0, 0, 0, 0, 0, 'E', 'D', '0', '0'};
  const uint8_t other[12] = {0, 0, 0, 0, 'T', 'F', 'L', '3', 0, 0, 0, 0};
  CHECK(*detect_file_kind(ByteSpan(program)) == FileKind::kProgram);
  CHECK(*detect_file_kind(ByteSpan(bundled)) == FileKind::kBundledProgram);
  CHECK(*detect_file_kind(ByteSpan(dump)) == FileKind::kEtDump);
  auto unknown = detect_file_kind(ByteSpan(other));
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("'TFL3'") != std::string::npos);
}

TEST_CASE("encode: a number beyond double is a one-line error, not an exception", "[json]") {
  auto r = encode_from_json(R"({"version": 1e400, "execution_plan": []})");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == ErrorKind::kBadInput);
  // The number starts at byte 12 of the line: column 13.
  CHECK(r.error().message == "invalid JSON at line 1, column 13: number too big to be stored in double");
}

TEST_CASE("encode: errors count lines and columns from 1, and a NUL byte is not the end of the input", "[json][errors]") {
  // Line 3, the '}' right after the comma at column 5.
  auto r = encode_from_json("{\n  \"run_data\": [],\n  \"x\": 1,}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.rfind("invalid JSON at line 3, column 10: ", 0) == 0);
  // A complete document of 16 bytes followed by a NUL byte and more.
  auto nul = encode_from_json(std::string("{\"run_data\": []}\0{}", 19));
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().message == "invalid JSON at line 1, column 17: a NUL byte after the document");
}

TEST_CASE("encode: a key given twice keeps its first place and its last value", "[json]") {
  // nlohmann's reading, which --encode always had; FlatBuffers' parser alone
  // would refuse the second "name" as a field set twice.
  auto twice = encode_from_json(
      R"({"version": 3, "run_data": [{"name": "a", "bundled_input_index": 1, "name": "b"}], "version": 0})");
  INFO((twice ? std::string() : twice.error().describe()));
  REQUIRE(twice.ok());
  auto once = encode_from_json(R"({"version": 0, "run_data": [{"name": "b", "bundled_input_index": 1}]})");
  REQUIRE(once.ok());
  CHECK(*twice == *once);
}

TEST_CASE("encode: numbers keep their exact values (a zero with a large negative exponent is zero)", "[json]") {
  // RapidJSON 1.1.0's own full-precision conversion reads 0e-44 as about
  // -4.5e-277; every spelling below denotes zero, 2^-1074 or the largest
  // uint64 exactly.
  const std::string doc = R"({"run_data": [{"events": [)"
                          R"({"debug_event": {"debug_entry": {"val": "Double", "double_value": {"double_val": 0e-44}}}},)"
                          R"({"debug_event": {"debug_entry": {"val": "Double", "double_value": {"double_val": -0.000e-30}}}},)"
                          R"({"debug_event": {"debug_entry": {"val": "Double", "double_value": {"double_val": 4.9406564584124654e-324}}}},)"
                          R"({"debug_event": {"chain_index": 18446744073709551615}}]}]})";
  auto encoded = encode_from_json(doc);
  INFO((encoded ? std::string() : encoded.error().describe()));
  REQUIRE(encoded.ok());
  const json back = json::parse(decode(FileKind::kEtDump, ByteSpan(*encoded)));
  const auto& events = back["run_data"][0]["events"];
  const double zero = events[0]["debug_event"]["debug_entry"]["double_value"]["double_val"].get<double>();
  CHECK(zero == 0.0);
  CHECK_FALSE(std::signbit(zero));
  // (FlatBuffers stores -0.0 as the default 0.0, so its sign is not kept.)
  CHECK(events[1]["debug_event"]["debug_entry"]["double_value"]["double_val"].get<double>() == 0.0);
  CHECK(events[2]["debug_event"]["debug_entry"]["double_value"]["double_val"].get<double>() ==
        std::numeric_limits<double>::denorm_min());
  CHECK(events[3]["debug_event"]["chain_index"].get<uint64_t>() == UINT64_MAX);
}
