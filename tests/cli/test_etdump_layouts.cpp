// ETDumps in the three layouts found in the wild, built with the
// flatc-generated builder: size-prefixed as the runtime writes them (8-byte
// fields aligned from byte 0), unprefixed as ExecuTorch's Python serializer
// writes them (flatc --binary), and an unprefixed buffer with a size prefix
// put in front (8-byte fields aligned from byte 4). Every reader and every
// tool that takes an ETDump must read all three the same way.
#include <cstring>

#include <nlohmann/json.hpp>

#include "etdump_generated.h"
#include "examples/demo_etrecord.h"
#include "examples/demo_models.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/json/schema_json.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/inspect/event_blocks.h"
#include "libcore/support/bytes.h"
#include "tests/support/small_programs.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

// Block "Execute": instruction 0 (mul) runs over [100, 400) ns, its kernel
// over [110, 390); instruction 1 (relu) over [400, 500), its kernel over
// [405, 495). Times are u64 fields: the alignment that differs between the
// layouts.
void add_events(flatbuffers::FlatBufferBuilder& b, std::vector<flatbuffers::Offset<::etdump::Event>>& events) {
  const std::tuple<const char*, int, uint64_t, uint64_t> all[] = {{"native_call_mul.out", 0, 110, 390},
                                                                  {"OPERATOR_CALL", 0, 100, 400},
                                                                  {"native_call_relu.out", 1, 405, 495},
                                                                  {"OPERATOR_CALL", 1, 400, 500}};
  for (const auto& [name, instruction, start, end] : all) {
    auto profile = ::etdump::CreateProfileEventDirect(b, name, 0, instruction, -1, nullptr, nullptr, start, end);
    events.push_back(::etdump::CreateEvent(b, profile));
  }
}

std::vector<uint8_t> unprefixed_etdump() {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<::etdump::Event>> events;
  add_events(b, events);
  std::vector<flatbuffers::Offset<::etdump::RunData>> runs{
      ::etdump::CreateRunDataDirect(b, "Execute", -1, nullptr, &events)};
  b.Finish(::etdump::CreateETDumpDirect(b, 0, &runs), "ED00");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::vector<uint8_t> with_prefix(const std::vector<uint8_t>& buffer) {
  std::vector<uint8_t> out(buffer.size() + 4);
  store_u32_le(out.data(), uint32_t(buffer.size()));
  std::memcpy(out.data() + 4, buffer.data(), buffer.size());
  return out;
}

std::vector<uint8_t> runtime_etdump() {
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<::etdump::Event>> events;
  add_events(b, events);
  std::vector<flatbuffers::Offset<::etdump::RunData>> runs{
      ::etdump::CreateRunDataDirect(b, "Execute", -1, nullptr, &events)};
  b.FinishSizePrefixed(::etdump::CreateETDumpDirect(b, 0, &runs), "ED00");
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

struct Layouts {
  std::filesystem::path pte;
  std::filesystem::path etrecord;  // the demo LeNet's: instructions 0 and 1 are its first conv and relu
  std::vector<std::pair<std::string, std::filesystem::path>> etdumps;  // layout name, file
};

const Layouts& layouts() {
  static const Layouts files = [] {
    Layouts f;
    const auto dir = test::scratch_dir();
    f.pte = dir / "model.pte";
    test::write_bytes(f.pte, *pte::write_program(test::mul_relu_program()));
    auto record = demo::lenet_etrecord(demo::lenet());
    REQUIRE(record.ok());
    f.etrecord = dir / "lenet.etrecord";
    test::write_bytes(f.etrecord, *record);
    const auto plain = unprefixed_etdump();
    for (const auto& [name, bytes] : {std::pair<std::string, std::vector<uint8_t>>{"runtime", runtime_etdump()},
                                      {"unprefixed", plain},
                                      {"prefix added", with_prefix(plain)}}) {
      f.etdumps.emplace_back(name, dir / (name.substr(0, 3) + ".etdp"));
      test::write_bytes(f.etdumps.back().second, bytes);
    }
    return f;
  }();
  return files;
}

// Where the first start_time lies, counted from byte 0 of the file.
size_t first_start_time_offset(const std::vector<uint8_t>& file, size_t buffer_start) {
  const auto* root = flatbuffers::GetRoot<::etdump::ETDump>(file.data() + buffer_start);
  const auto* event = root->run_data()->Get(0)->events()->Get(0)->profile_event();
  const auto* field = reinterpret_cast<const uint8_t*>(event) +
                      reinterpret_cast<const flatbuffers::Table*>(event)->GetOptionalFieldOffset(
                          ::etdump::ProfileEvent::VT_START_TIME);
  return size_t(field - file.data());
}

}  // namespace

TEST_CASE("ETDump layouts: the test inputs have the layouts they are meant to have", "[etdump][layouts]") {
  const auto runtime = runtime_etdump();
  CHECK(load_u32_le(runtime.data()) == runtime.size() - 4);
  CHECK(std::memcmp(runtime.data() + 8, "ED00", 4) == 0);
  CHECK(first_start_time_offset(runtime, 4) % 8 == 0);

  const auto plain = unprefixed_etdump();
  CHECK(std::memcmp(plain.data() + 4, "ED00", 4) == 0);
  CHECK(first_start_time_offset(plain, 0) % 8 == 0);

  const auto added = with_prefix(plain);
  CHECK(std::memcmp(added.data() + 8, "ED00", 4) == 0);
  CHECK(first_start_time_offset(added, 4) % 8 == 4);  // aligned from byte 4, not 0
}

TEST_CASE("ETDump layouts: the reader, the event blocks and the JSON decoder read all three alike",
          "[etdump][layouts]") {
  for (const auto& [name, path] : layouts().etdumps) {
    INFO(name);
    const auto bytes = test::read_bytes(path);
    auto dump = etkit::etdump::read_etdump(ByteSpan(bytes));
    INFO((dump ? std::string() : dump.error().describe()));
    REQUIRE(dump.ok());
    REQUIRE(dump->run_data.size() == 1);
    CHECK(dump->run_data[0].name == "Execute");
    REQUIRE(dump->run_data[0].events.has_value());
    REQUIRE(dump->run_data[0].events->size() == 4);
    const auto& last = *(*dump->run_data[0].events)[3].profile_event;
    CHECK(last.name == "OPERATOR_CALL");
    CHECK(last.instruction_id == 1);
    CHECK(last.start_time == 400);
    CHECK(last.end_time == 500);

    auto blocks = inspect::build_event_blocks(ByteSpan(bytes));
    REQUIRE(blocks.ok());
    REQUIRE(blocks->blocks.size() == 1);
    REQUIRE(blocks->blocks[0].events.size() == 4);
    CHECK(blocks->blocks[0].events[1].name == "OPERATOR_CALL");
    CHECK(blocks->blocks[0].events[1].raw == std::vector<double>{300e-6});  // 300 ns in ms

    auto kind = detect_file_kind(ByteSpan(bytes));
    REQUIRE(kind.ok());
    CHECK(*kind == FileKind::kEtDump);
  }
}

TEST_CASE("ETDump layouts: et-dump-decode, et-inspect, et-graph, et-record-inspect and et-compare perf accept all three",
          "[etdump][layouts][cli]") {
  const auto q = [](const std::filesystem::path& p) { return test::shell_quote(p); };
  for (const auto& [name, path] : layouts().etdumps) {
    INFO(name);
    auto decoded = test::run_tool("et-dump-decode", q(path));
    INFO(decoded.err);
    REQUIRE(decoded.exit_code == 0);
    const auto doc = nlohmann::json::parse(decoded.out);
    CHECK(doc["run_data"][0]["events"][3]["profile_event"]["start_time"] == 400);

    auto table = test::run_tool("et-inspect", q(path));
    INFO(table.err);
    CHECK(table.exit_code == 0);
    CHECK(table.out.find("native_call_relu.out") != std::string::npos);

    // OPERATOR_CALL spans 300 and 100 ns: 75% and 25%.
    auto graph = test::run_tool("et-graph", q(layouts().pte) + " --etdump " + q(path));
    INFO(graph.err);
    CHECK(graph.exit_code == 0);
    CHECK(graph.out.find("label=\"#0 aten::mul.out\\n75.0%\"") != std::string::npos);
    CHECK(graph.out.find("label=\"#1 aten::relu.out\\n25.0%\"") != std::string::npos);

    auto dot = test::run_tool("et-record-inspect", q(layouts().etrecord) + " --format dot --etdump " + q(path));
    INFO(dot.err);
    CHECK(dot.exit_code == 0);
    CHECK(dot.out.find("lenet.py:29\\n75.0%\"") != std::string::npos);
    CHECK(dot.out.find("lenet.py:30\\n25.0%\"") != std::string::npos);

    auto perf = test::run_tool("et-compare", "perf --baseline " + q(layouts().etdumps[0].second) + " --candidate " +
                                                 q(path));
    INFO(perf.err);
    CHECK(perf.exit_code == 0);
  }
}

TEST_CASE("ETDump layouts: neither identifier position holding ED00 names both", "[etdump][layouts][errors]") {
  std::vector<uint8_t> bytes(16, 0);
  std::memcpy(bytes.data() + 4, "ET12", 4);
  std::memcpy(bytes.data() + 8, "eh00", 4);
  auto dump = etkit::etdump::read_etdump(ByteSpan(bytes));
  REQUIRE_FALSE(dump.ok());
  CHECK(dump.error().message ==
        "not an ETDump (identifier 'eh00' at byte 8 and 'ET12' at byte 4, expected 'ED00' at byte 8 after a size "
        "prefix or at byte 4)");
}
