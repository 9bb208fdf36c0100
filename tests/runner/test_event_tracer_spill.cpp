// The event tracer's spill file: records that went to the temporary file
// give the same ETDump, decoded, as records kept in memory and as the struct
// writer (write_etdump) given the same events by hand.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <algorithm>
#include <climits>
#include <filesystem>
#include <string>
#include <vector>

#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/json/schema_json.h"
#include "libcore/support/file.h"
#include "runner/event_tracer.h"
#include "runner/packed_events.h"
#include "runner/spill_file.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

std::string etdump_json(ByteSpan bytes) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  REQUIRE(out != nullptr);
  Status s = decode_to_json(FileKind::kEtDump, bytes, DecodeOptions{}, out);
  std::fclose(out);
  std::string json(text, size);
  std::free(text);
  REQUIRE(s.ok());
  return json;
}

// Time base of the recordings below: ns = 5,000,000 + (ticks - 1000) / 2.
constexpr uint64_t kStartTicks = 1000;
constexpr uint64_t kStartNs = 5'000'000;

// Two "Execute" blocks after "Default": 14 records (blocks count), so a
// tracer holding 3 in memory spills four times and keeps 2.
void record(EventTracer& tracer, Tensor& tensor) {
  tracer.set_time_base(kStartTicks, kStartNs, 0.5);
  tracer.create_block("Default");
  tracer.profile("Method::init", kUnsetChain, kUnsetInstruction, 1000, 3000);
  for (int run = 0; run < 2; ++run) {
    tracer.create_block("Execute");
    const uint64_t base = 10'000 + 1'000 * uint64_t(run);
    tracer.profile("native_call_add.out", 0, 0, base, base + 20);
    EValue i;
    i.tag = Tag::kInt;
    i.i = 7 + run;
    tracer.log_value(0, 1, i, false);
    DelegateDebugId id;
    id.integer = 4;
    const uint8_t metadata[] = {1, 2};
    tracer.profile_delegate(0, 2, id, ByteSpan(metadata), base + 40, base + 100);
    EValue t;
    t.tag = Tag::kTensor;
    t.tensor = &tensor;
    tracer.log_value(0, 3, t, true);
    tracer.profile("Method::execute", kUnsetChain, kUnsetInstruction, base, base + 200);
  }
}

// The same events written by the struct writer, times converted by hand.
etdump::EtDump expected_dump() {
  etdump::EtDump dump;
  auto profile = [](std::string name, int32_t chain, int32_t instruction, uint64_t start, uint64_t end) {
    etdump::Event e;
    e.profile_event.emplace();
    e.profile_event->name = std::move(name);
    e.profile_event->chain_index = chain;
    e.profile_event->instruction_id = instruction;
    e.profile_event->start_time = start;
    e.profile_event->end_time = end;
    return e;
  };
  etdump::RunData init;
  init.name = "Default";
  init.events.emplace();
  init.events->push_back(profile("Method::init", -1, 0, 5'000'000, 5'001'000));
  dump.run_data.push_back(init);
  for (int run = 0; run < 2; ++run) {
    const uint64_t ns = 5'004'500 + 500 * uint64_t(run);  // ticks 10,000 + 1,000 run
    etdump::RunData r;
    r.name = "Execute";
    r.events.emplace();
    r.events->push_back(profile("native_call_add.out", 0, 0, ns, ns + 10));
    etdump::Event i;
    i.debug_event.emplace();
    i.debug_event->chain_index = 0;
    i.debug_event->instruction_id = 1;
    i.debug_event->debug_entry.val = etdump::ValueType::kInt;
    i.debug_event->debug_entry.int_value = 7 + run;
    r.events->push_back(i);
    etdump::Event d;
    d.profile_event.emplace();
    d.profile_event->chain_index = 0;
    d.profile_event->instruction_id = 2;
    d.profile_event->delegate_debug_id_int = 4;
    d.profile_event->delegate_debug_metadata = std::vector<uint8_t>{1, 2};
    d.profile_event->start_time = ns + 20;
    d.profile_event->end_time = ns + 50;
    r.events->push_back(d);
    etdump::Event t;
    t.debug_event.emplace();
    t.debug_event->chain_index = 0;
    t.debug_event->instruction_id = 3;
    t.debug_event->debug_entry.val = etdump::ValueType::kTensor;
    etdump::Tensor tensor;
    tensor.scalar_type = 6;  // FLOAT
    tensor.sizes = {2, 3};
    tensor.strides = {3, 1};
    tensor.offset = 64 * run;  // 24 bytes each, 64-byte aligned
    t.debug_event->debug_entry.tensor = tensor;
    t.debug_event->debug_entry.output = true;
    r.events->push_back(t);
    r.events->push_back(profile("Method::execute", -1, 0, ns, ns + 100));
    dump.run_data.push_back(r);
  }
  return dump;
}

}  // namespace

TEST_CASE("EventTracer: records spilled to the temporary file give the ETDump of records kept in memory", "[runner][etdump]") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, data);

  EventTracer in_memory(DebugLevel::kIntermediateOutputs, 1 << 20);
  record(in_memory, tensor);
  EventTracer spilling(DebugLevel::kIntermediateOutputs, 3);
  record(spilling, tensor);
  REQUIRE(in_memory.over_limit() == false);
  // Spilled records still count: 14 records and 88 bytes of tensors.
  spilling.set_max_bytes(14 * EventTracer::kBytesPerEvent + 64 + 24);
  CHECK_FALSE(spilling.over_limit());
  spilling.set_max_bytes(14 * EventTracer::kBytesPerEvent + 64 + 24 - 1);
  CHECK(spilling.over_limit());

  const std::vector<uint8_t> a = in_memory.finish();
  std::vector<uint8_t> b;
  REQUIRE(spilling.finish([&](ByteSpan bytes) -> Status {
                    b.assign(bytes.begin(), bytes.end());
                    return {};
                  }).ok());
  const std::string expected = etdump_json(ByteSpan(etdump::write_etdump(expected_dump())));
  CHECK(etdump_json(ByteSpan(a)) == expected);
  CHECK(etdump_json(ByteSpan(b)) == expected);

  // The debug buffer: both tensors at 64-byte aligned offsets.
  const auto& buffer = spilling.debug_buffer();
  REQUIRE(buffer.size() == 64 + 24);
  CHECK(std::memcmp(buffer.data(), data, 24) == 0);
  CHECK(std::memcmp(buffer.data() + 64, data, 24) == 0);
  CHECK(buffer == in_memory.debug_buffer());

  // Empty again: a second dump has no blocks.
  CHECK(etdump_json(ByteSpan(spilling.finish())) == etdump_json(ByteSpan(etdump::write_etdump(etdump::EtDump{}))));
}

TEST_CASE("EventTracer: a sink's error is finish()'s", "[runner][etdump]") {
  EventTracer tracer(DebugLevel::kNone, 2);
  for (int i = 0; i < 5; ++i) tracer.profile("x", 0, i, 1, 2);
  Status s = tracer.finish([](ByteSpan) -> Status { return io_error("out.etdp", "disk full"); });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().file == "out.etdp");
}

TEST_CASE("SpillFile: appends read back by offset, nothing past the end", "[runner]") {
  auto file = SpillFile::create();
  REQUIRE(file != nullptr);
  const char first[] = "abcdef";
  const char second[] = "XYZ";
  REQUIRE(file->append(first, 6));
  REQUIRE(file->append(second, 3));
  CHECK(file->size() == 9);
  char out[9] = {};
  REQUIRE(file->read(0, out, 9));
  CHECK(std::string(out, 9) == "abcdefXYZ");
  REQUIRE(file->read(4, out, 3));
  CHECK(std::string(out, 3) == "efX");
  CHECK_FALSE(file->read(7, out, 3));
  CHECK_FALSE(file->read(10, out, 0));
}

namespace {

// Profile, delegate and debug events across blocks, with what packing must
// carry exactly: names of equal text at different addresses, chains and
// instructions at the int32 limits, ticks that jump by more than 2^32 and go
// backwards, an end before its start.
void record_varied(EventTracer& tracer, const std::vector<std::string>& names, Tensor& tensor) {
  tracer.set_time_base(0, 1'000'000, 0.25);
  uint64_t t = 5'000;
  for (int block = 0; block < 4; ++block) {
    tracer.create_block(block % 2 ? "Execute" : "Default");
    for (int i = 0; i < 9; ++i) {
      const std::string& name = names[size_t(block + i) % names.size()];
      tracer.profile(name, i == 3 ? INT32_MIN : i - 1, i == 5 ? INT32_MAX : i * 1000, t, t + uint64_t(i) * 7);
      t += i == 4 ? (uint64_t(1) << 33) : 13;
    }
    tracer.profile("backwards", 2, 3, t - 100'000, t - 200'000);
    DelegateDebugId id;
    if (block % 2) {
      id.text = "delegate_op_" + std::to_string(block);
    } else {
      id.integer = block;
    }
    const uint8_t metadata[] = {uint8_t(block), 9};
    tracer.profile_delegate(1, block, id, ByteSpan(metadata), t + 5, t + 50);
    tracer.log_delegate_output(1, block, id, tensor);
    EValue i;
    i.tag = Tag::kInt;
    i.i = -block;
    tracer.log_value(kUnsetChain, 4, i, false);
    EValue v;
    v.tag = Tag::kTensor;
    v.tensor = &tensor;
    tracer.log_value(0, 5, v, true);
  }
}

}  // namespace

TEST_CASE("EventTracer: the ETDump's bytes are the same with and without spilling", "[runner][etdump]") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, data);
  // Two copies of each text: equal names at different addresses.
  const std::vector<std::string> names = {"OPERATOR_CALL", "native_call_add.out", "OPERATOR_CALL",
                                          "native_call_add.out", ""};

  EventTracer in_memory(DebugLevel::kIntermediateOutputs, 1 << 20);
  record_varied(in_memory, names, tensor);
  const std::vector<uint8_t> expected = in_memory.finish();
  REQUIRE_FALSE(expected.empty());
  // 4 blocks of 1 + 9 + 1 + 4 records = 60: chunks of 1, 7 and 16 records
  // spill 60, 8 and 3 times, the last of them ending inside a block.
  for (size_t chunk : {size_t(1), size_t(7), size_t(16)}) {
    EventTracer spilling(DebugLevel::kIntermediateOutputs, chunk);
    record_varied(spilling, names, tensor);
    std::vector<uint8_t> bytes = spilling.finish();
    CHECK(bytes == expected);
  }

  // And they read back: 4 blocks, 14 events each, the times converted by the
  // time base (ns = 1,000,000 + ticks / 4).
  auto dump = etdump::read_etdump(ByteSpan(expected));
  REQUIRE(dump.ok());
  REQUIRE(dump.value().run_data.size() == 4);
  for (const auto& run : dump.value().run_data) {
    REQUIRE(run.events);
    CHECK(run.events->size() == 14);
  }
  const auto& first = (*dump.value().run_data[0].events)[3];
  REQUIRE(first.profile_event);
  CHECK(first.profile_event->chain_index == INT32_MIN);
  CHECK(first.profile_event->start_time == 1'000'000 + (5'000 + 3 * 13) / 4);
}

namespace {

// A dump streamed through finish(ChunkSink) into memory, checking that the
// chunks cover it once, from its end to its start.
// With `align`, every chunk is aligned (offset, size, address) and the
// zeros past the dump's end are checked and cut off.
std::vector<uint8_t> streamed(EventTracer& tracer, size_t window, size_t align = 1) {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> chunks;
  bool aligned = true;
  auto s = tracer.finish([&](uint64_t offset, ByteSpan bytes) -> Status {
    chunks.emplace_back(offset, std::vector<uint8_t>(bytes.begin(), bytes.end()));
    aligned = aligned && offset % align == 0 && bytes.size() % align == 0 &&
              reinterpret_cast<uintptr_t>(bytes.data()) % align == 0;
    return {};
  }, window, align);
  REQUIRE(s.ok());
  CHECK(aligned);
  REQUIRE_FALSE(chunks.empty());
  const uint64_t size = chunks.front().first + chunks.front().second.size();
  CHECK(size == (*s + align - 1) / align * align);
  std::vector<uint8_t> out(static_cast<size_t>(size));
  uint64_t next_end = size;
  for (const auto& [offset, bytes] : chunks) {
    CHECK(offset + bytes.size() == next_end);
    next_end = offset;
    std::memcpy(out.data() + offset, bytes.data(), bytes.size());
  }
  CHECK(next_end == 0);
  CHECK(std::all_of(out.begin() + std::ptrdiff_t(*s), out.end(), [](uint8_t b) { return b == 0; }));
  out.resize(size_t(*s));
  return out;
}

// record_varied `rounds` times: 60 records each.
void record_rounds(EventTracer& tracer, const std::vector<std::string>& names, Tensor& tensor, int rounds) {
  for (int r = 0; r < rounds; ++r) record_varied(tracer, names, tensor);
}

}  // namespace

TEST_CASE("EventTracer: a streamed ETDump has the bytes of the one built in memory", "[runner][etdump]") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, data);
  const std::vector<std::string> names = {"OPERATOR_CALL", "native_call_add.out", "OPERATOR_CALL",
                                          "native_call_add.out", ""};
  // 100 rounds of 4 blocks: 6,000 records, a dump of 340 KB over 80 pages,
  // with profile, delegate and debug events in every block.
  constexpr int kRounds = 100;
  EventTracer in_memory(DebugLevel::kIntermediateOutputs, 1 << 20);
  record_rounds(in_memory, names, tensor, kRounds);
  const std::vector<uint8_t> expected = in_memory.finish();
  REQUIRE(expected.size() > 300'000);
  // Records kept in memory or spilled in chunks of 7 and 1000; written after
  // every event (window 1), every page or two, or at the default window.
  for (size_t chunk : {size_t(1) << 20, size_t(7), size_t(1000)}) {
    for (size_t window : {size_t(1), size_t(5000), etdump::EtDumpWriter::kStreamWindow}) {
      INFO("chunk " << chunk << ", window " << window);
      EventTracer tracer(DebugLevel::kIntermediateOutputs, chunk);
      record_rounds(tracer, names, tensor, kRounds);
      CHECK(streamed(tracer, window) == expected);
      // Empty again, as after finish(sink).
      CHECK(tracer.finish() == etdump::write_etdump(etdump::EtDump{}));
      // Aligned for O_DIRECT: the same bytes, in whole 4 KiB blocks.
      EventTracer direct(DebugLevel::kIntermediateOutputs, chunk);
      record_rounds(direct, names, tensor, kRounds);
      CHECK(streamed(direct, window, 4096) == expected);
    }
  }
  // A dump ending on a block boundary has no zeros past it, one that does
  // not fits in a single block.
  for (size_t align : {size_t(8), size_t(16), size_t(4096)}) {
    EventTracer small(DebugLevel::kIntermediateOutputs, 3);
    record(small, tensor);
    EventTracer reference(DebugLevel::kIntermediateOutputs, 3);
    record(reference, tensor);
    CHECK(streamed(small, 1, align) == reference.finish());
  }
}

TEST_CASE("EventTracer: write_etdump streams into the file atomically and names it on errors", "[runner][etdump]") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, data);
  const std::vector<std::string> names = {"OPERATOR_CALL", "native_call_add.out"};
  EventTracer reference(DebugLevel::kIntermediateOutputs, 16);
  record_rounds(reference, names, tensor, 50);
  const std::vector<uint8_t> expected = reference.finish();
  REQUIRE(expected.size() > 100'000);

  const std::filesystem::path dir = test::scratch_dir() / "stream";
  std::filesystem::create_directories(dir);
  auto only_entry = [&]() {
    std::vector<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(dir)) entries.push_back(e.path().filename().string());
    return entries;
  };

  SECTION("streamed (any size) and built in memory: the same file") {
    for (size_t stream_above : {size_t(0), SIZE_MAX}) {
      EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
      record_rounds(tracer, names, tensor, 50);
      const std::string path = (dir / "out.etdp").string();
      REQUIRE(tracer.write_etdump(path, stream_above).ok());
      CHECK(test::read_bytes(path) == expected);
      CHECK(only_entry() == std::vector<std::string>{"out.etdp"});  // no temporary file left
      std::filesystem::remove(path);
    }
  }

  SECTION("a device that is full: an I/O error naming it") {
    EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
    record_rounds(tracer, names, tensor, 50);
    Status s = tracer.write_etdump("/dev/full", 0);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kIo);
    CHECK(s.error().file == "/dev/full");
  }

  SECTION("a file size limit reached while streaming, or writing at once: no file, an error naming it") {
    // In a child whose files may not grow past 64 KiB (SIGXFSZ ignored, so
    // the write fails with EFBIG instead of killing it), as a full disk
    // fails a write part of the way.
    for (size_t stream_above : {size_t(0), SIZE_MAX}) {
      INFO("stream_above " << stream_above);
      const std::string path = (dir / "limited.etdp").string();
      const pid_t child = fork();
      REQUIRE(child >= 0);
      if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{64 << 10, 64 << 10};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
        EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
        record_rounds(tracer, names, tensor, 50);
        Status s = tracer.write_etdump(path, stream_above);
        if (s.ok()) _exit(11);
        if (s.error().kind != ErrorKind::kIo) _exit(12);
        if (s.error().file != path) _exit(13);
        if (s.error().message.find("cannot write") == std::string::npos) _exit(14);
        _exit(0);
      }
      int status = 0;
      REQUIRE(waitpid(child, &status, 0) == child);
      REQUIRE(WIFEXITED(status));  // not killed by a signal
      CHECK(WEXITSTATUS(status) == 0);
      CHECK(only_entry().empty());  // neither the file nor its temporary file
    }
  }
}

namespace {

// Blocks of nothing but delegate and debug events, each carrying data of its
// own: text and integer delegate ids, metadata of 0 to 299 bytes, Int,
// Double and Bool values, tensors and tensor lists.
void record_debug_blocks(EventTracer& tracer, Tensor& a, Tensor& b, int blocks) {
  tracer.set_time_base(0, 2'000'000, 1.0);
  Tensor* list[] = {&a, &b};
  uint64_t t = 100;
  for (int block = 0; block < blocks; ++block) {
    tracer.create_block("Execute");
    DelegateDebugId id;
    if (block % 3 == 0) {
      id.text = "xnn_node_" + std::to_string(block);
    } else {
      id.integer = block;
    }
    std::vector<uint8_t> metadata(size_t(block % 300));
    for (size_t i = 0; i < metadata.size(); ++i) metadata[i] = uint8_t(i * 7 + size_t(block));
    tracer.profile_delegate(block % 5 - 1, block, id, ByteSpan(metadata), t, t + 30);
    tracer.log_delegate_output(block % 5 - 1, block, id, a);
    EValue i;
    i.tag = Tag::kInt;
    i.i = -int64_t(block) * 1'000'003;
    tracer.log_value(kUnsetChain, 1, i, false);
    EValue d;
    d.tag = Tag::kDouble;
    d.d = block * 0.5;
    tracer.log_value(0, 2, d, false);
    EValue f;
    f.tag = Tag::kBool;
    f.b = block % 2 == 1;
    tracer.log_value(0, 3, f, false);
    EValue l;
    l.tag = Tag::kTensorList;
    l.tensor_list = std::span<Tensor* const>(list, 2);
    tracer.log_value(0, 4, l, block % 4 == 0);
    t += 1'000;
  }
}

}  // namespace

TEST_CASE("EventTracer: debug and delegate events leave memory with their chunk, the ETDump's bytes unchanged",
          "[runner][etdump]") {
  float da[6] = {1, 2, 3, 4, 5, 6};
  int32_t db[3] = {7, 8, 9};
  Tensor a(ScalarType::kFloat, {2, 3}, {0, 1}, da);
  Tensor b(ScalarType::kInt, {3}, {0}, db);
  constexpr int kBlocks = 1'000;  // 7 records a block
  EventTracer in_memory(DebugLevel::kIntermediateOutputs, 1 << 20);
  record_debug_blocks(in_memory, a, b, kBlocks);
  // One record per event, each debug or delegate event packed beside them.
  CHECK(in_memory.events_in_memory() == 7 * kBlocks);
  CHECK(in_memory.event_bytes_in_memory() > 6 * kBlocks);
  const std::vector<uint8_t> expected = in_memory.finish();
  REQUIRE_FALSE(expected.empty());
  for (size_t chunk : {size_t(1), size_t(5), size_t(64)}) {
    INFO("chunk " << chunk);
    EventTracer spilling(DebugLevel::kIntermediateOutputs, chunk);
    record_debug_blocks(spilling, a, b, kBlocks);
    // At most a chunk's records, each with its event, whatever the count.
    CHECK(spilling.events_in_memory() < chunk);
    CHECK(spilling.event_bytes_in_memory() < chunk * 400);
    CHECK(spilling.finish() == expected);
    EventTracer streaming(DebugLevel::kIntermediateOutputs, chunk);
    record_debug_blocks(streaming, a, b, kBlocks);
    CHECK(streamed(streaming, 4096, 4096) == expected);
  }

  // What the packing must carry, read back from block 299 (text id: 299 is
  // not a multiple of 3 -> integer id 299; metadata of 299 bytes) and block
  // 300 (text id, metadata empty but present, program output list).
  auto dump = etdump::read_etdump(ByteSpan(expected));
  REQUIRE(dump.ok());
  REQUIRE(dump.value().run_data.size() == size_t(kBlocks));
  const auto& e299 = *dump.value().run_data[299].events;
  REQUIRE(e299.size() == 6);
  REQUIRE(e299[0].profile_event);
  CHECK(e299[0].profile_event->delegate_debug_id_int == 299);
  CHECK(e299[0].profile_event->chain_index == 299 % 5 - 1);
  REQUIRE(e299[0].profile_event->delegate_debug_metadata);
  REQUIRE(e299[0].profile_event->delegate_debug_metadata->size() == 299);
  CHECK((*e299[0].profile_event->delegate_debug_metadata)[10] == uint8_t(70 + 299));
  CHECK(e299[0].profile_event->start_time == 2'000'000 + 100 + 299'000);
  REQUIRE(e299[2].debug_event);
  CHECK(e299[2].debug_event->chain_index == UINT64_MAX);
  CHECK(e299[2].debug_event->debug_entry.int_value == -299 * 1'000'003);
  CHECK(e299[3].debug_event->debug_entry.double_value == 149.5);
  CHECK(e299[4].debug_event->debug_entry.bool_value == true);
  const auto& e300 = *dump.value().run_data[300].events;
  CHECK(e300[0].profile_event->delegate_debug_id_str == std::string("xnn_node_300"));
  REQUIRE(e300[0].profile_event->delegate_debug_metadata);
  CHECK(e300[0].profile_event->delegate_debug_metadata->empty());
  CHECK(e300[1].debug_event->delegate_debug_id_str == std::string("xnn_node_300"));
  const auto& list = e300[5].debug_event->debug_entry;
  REQUIRE(list.tensor_list);
  REQUIRE(list.tensor_list->size() == 2);
  CHECK((*list.tensor_list)[1].sizes == std::vector<int64_t>{3});
  CHECK((*list.tensor_list)[1].scalar_type == 3);  // INT
  CHECK(list.output == true);
}

TEST_CASE("EventTracer: a chunk whose debug events carry many tensors goes before it is full", "[runner][etdump]") {
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, nullptr);
  std::vector<Tensor*> list(1000, &tensor);
  EValue v;
  v.tag = Tag::kTensorList;
  v.tensor_list = std::span<Tensor* const>(list.data(), list.size());
  // Room for a million records, but 1,000 events of 1,000 tensors' shapes
  // each pass the 4 MiB bound on a chunk's packed events (a tensor of two
  // dims packs to 8 bytes: dtype, 2 sizes and 2 strides with their counts,
  // the offset -1; 8 MB in all).
  EventTracer tracer(DebugLevel::kIntermediateOutputs, 1 << 20);
  tracer.set_time_base(0, 0, 1.0);
  tracer.create_block("Execute");
  constexpr int kEvents = 1000;
  for (int i = 0; i < kEvents; ++i) tracer.log_value(0, i, v, false);
  // Some went: at most 4 MiB and an event stay.
  CHECK(tracer.events_in_memory() < kEvents);
  CHECK(tracer.events_in_memory() > 0);
  CHECK(tracer.event_bytes_in_memory() <= (size_t(4) << 20) + 8'100);
  auto dump = etdump::read_etdump(ByteSpan(tracer.finish()));
  REQUIRE(dump.ok());
  REQUIRE(dump.value().run_data.size() == 1);
  const auto& events = *dump.value().run_data[0].events;
  REQUIRE(events.size() == size_t(kEvents));
  for (int i = 0; i < kEvents; ++i) {
    const auto& entry = events[size_t(i)].debug_event;
    REQUIRE(entry);
    CHECK(entry->instruction_id == i);
    REQUIRE(entry->debug_entry.tensor_list);
    REQUIRE(entry->debug_entry.tensor_list->size() == 1000);
    CHECK(entry->debug_entry.tensor_list->back().sizes == std::vector<int64_t>{2, 3});
    CHECK(entry->debug_entry.tensor_list->back().offset == -1);  // no data
  }
}

TEST_CASE("EventTracer: debug and delegate events packed as recorded give the struct writer's bytes",
          "[runner][etdump]") {
  // The tracer packs these events straight from its arguments; the same
  // events built by hand as structs and given to EtDumpWriter must make the
  // same dump, in memory and spilled after every record.
  float fa[6] = {1, 2, 3, 4, 5, 6};
  int32_t ib[3] = {7, 8, 9};
  // Dim orders; the strides follow from them: {3, 1}, {1}, {8, 1}.
  Tensor a(ScalarType::kFloat, {2, 3}, {0, 1}, fa);
  Tensor b(ScalarType::kInt, {3}, {0}, ib);
  Tensor empty(ScalarType::kFloat, {1, 8}, {0, 1}, nullptr);
  Tensor* list[] = {&a, &empty, &b};
  const uint8_t metadata[] = {'x', 0, 255, 3};
  auto record = [&](EventTracer& t) {
    t.set_time_base(0, 1'000, 1.0);
    t.create_block("Execute");
    DelegateDebugId text;
    text.text = "node_7";
    DelegateDebugId integer;
    integer.integer = 300;
    t.profile_delegate(-1, 2'000'000'000, text, ByteSpan(metadata), 5, 9);
    t.profile_delegate(3, 0, integer, ByteSpan(), 10, 10);
    t.log_delegate_output(0, 1, integer, a);
    t.log_delegate_output(0, 1, text, empty);
    EValue v;
    v.tag = Tag::kTensor;
    v.tensor = &b;
    t.log_value(kUnsetChain, 4, v, true);
    v.tag = Tag::kTensorList;
    v.tensor_list = std::span<Tensor* const>(list, 3);
    t.log_value(1, 5, v, false);
    EValue i;
    i.tag = Tag::kInt;
    i.i = INT64_MIN;
    t.log_value(1, 6, i, false);
    EValue d;
    d.tag = Tag::kDouble;
    d.d = -0.25;
    t.log_value(1, 7, d, false);
    EValue f;
    f.tag = Tag::kBool;
    f.b = false;
    t.log_value(1, 8, f, false);
    EValue none;  // not loggable: no event
    t.log_value(1, 9, none, false);
  };

  // Offsets by hand: a (24 bytes) at 0, b (12 bytes) at 64, then a at 128
  // and b at 192 (the list; `empty` has no data: -1).
  auto tensor = [](int8_t type, std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset) {
    etdump::Tensor t;
    t.scalar_type = type;
    t.sizes = std::move(sizes);
    t.strides = std::move(strides);
    t.offset = offset;
    return t;
  };
  etdump::EtDumpWriter w;
  w.begin_block("Execute");
  etdump::ProfileEvent p1;
  p1.chain_index = -1;
  p1.instruction_id = 2'000'000'000;
  p1.delegate_debug_id_str = "node_7";
  p1.delegate_debug_metadata = std::vector<uint8_t>{'x', 0, 255, 3};
  p1.start_time = 1'005;
  p1.end_time = 1'009;
  w.add_profile_event(p1);
  etdump::ProfileEvent p2;
  p2.chain_index = 3;
  p2.instruction_id = 0;
  p2.delegate_debug_id_int = 300;
  p2.delegate_debug_metadata = std::vector<uint8_t>{};
  p2.start_time = 1'010;
  p2.end_time = 1'010;
  w.add_profile_event(p2);
  auto debug = [](uint64_t chain, int32_t instruction) {
    etdump::DebugEvent e;
    e.chain_index = chain;
    e.instruction_id = instruction;
    return e;
  };
  etdump::DebugEvent d1 = debug(0, 1);
  d1.delegate_debug_id_int = 300;
  d1.debug_entry.val = etdump::ValueType::kTensor;
  d1.debug_entry.tensor = tensor(6, {2, 3}, {3, 1}, 0);
  w.add_debug_event(d1);
  etdump::DebugEvent d2 = debug(0, 1);
  d2.delegate_debug_id_str = "node_7";
  d2.debug_entry.val = etdump::ValueType::kTensor;
  d2.debug_entry.tensor = tensor(6, {1, 8}, {8, 1}, -1);
  w.add_debug_event(d2);
  etdump::DebugEvent d3 = debug(UINT64_MAX, 4);
  d3.debug_entry.val = etdump::ValueType::kTensor;
  d3.debug_entry.tensor = tensor(3, {3}, {1}, 64);
  d3.debug_entry.output = true;
  w.add_debug_event(d3);
  etdump::DebugEvent d4 = debug(1, 5);
  d4.debug_entry.val = etdump::ValueType::kTensorList;
  d4.debug_entry.tensor_list =
      std::vector<etdump::Tensor>{tensor(6, {2, 3}, {3, 1}, 128), tensor(6, {1, 8}, {8, 1}, -1), tensor(3, {3}, {1}, 192)};
  w.add_debug_event(d4);
  etdump::DebugEvent d5 = debug(1, 6);
  d5.debug_entry.val = etdump::ValueType::kInt;
  d5.debug_entry.int_value = INT64_MIN;
  w.add_debug_event(d5);
  etdump::DebugEvent d6 = debug(1, 7);
  d6.debug_entry.val = etdump::ValueType::kDouble;
  d6.debug_entry.double_value = -0.25;
  w.add_debug_event(d6);
  etdump::DebugEvent d7 = debug(1, 8);
  d7.debug_entry.val = etdump::ValueType::kBool;
  d7.debug_entry.bool_value = false;
  w.add_debug_event(d7);
  const std::vector<uint8_t> expected = w.finish();

  for (size_t chunk : {size_t(1), size_t(1) << 16}) {
    INFO("chunk " << chunk);
    EventTracer tracer(DebugLevel::kIntermediateOutputs, chunk);
    record(tracer);
    CHECK(tracer.events_in_memory() == (chunk == 1 ? 0u : 10u));
    const std::vector<uint8_t> buffer = tracer.debug_buffer();
    const std::vector<uint8_t> dump = tracer.finish();
    CHECK(etdump_json(ByteSpan(dump)) == etdump_json(ByteSpan(expected)));
    CHECK(dump == expected);
    REQUIRE(buffer.size() == 192 + 12);
    CHECK(std::memcmp(buffer.data() + 128, fa, 24) == 0);
    CHECK(std::memcmp(buffer.data() + 192, ib, 12) == 0);
  }
}

TEST_CASE("EventTracer: write_etdump goes on through the page cache when O_DIRECT writes are refused part of the way",
          "[runner][etdump]") {
  // The file systems here take O_DIRECT, so the refusal is the test seam's:
  // the nth piece's pwrite fails with EINVAL; it and every later piece must
  // go through the page cache, and the file hold the dump built in memory.
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, data);
  const std::vector<std::string> names = {"OPERATOR_CALL", "native_call_add.out"};
  EventTracer reference(DebugLevel::kIntermediateOutputs, 16);
  record_rounds(reference, names, tensor, 50);
  const std::vector<uint8_t> expected = reference.finish();
  REQUIRE(expected.size() > 10 * 4096);  // more than 10 pieces of 4 KiB

  const std::filesystem::path dir = test::scratch_dir() / "direct_fallback";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.etdp").string();
  for (size_t refused : {size_t(1), size_t(2), size_t(3), size_t(10)}) {
    INFO("refused piece " << refused);
    EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
    record_rounds(tracer, names, tensor, 50);
    auto out = OutputFile::create(path);
    REQUIRE(out.ok());
    if (!out.value()->use_direct_io()) {
      WARN("the scratch directory's file system refuses O_DIRECT: the fallback runs without the seam");
    }
    out.value()->refuse_direct_write_for_testing(refused);
    REQUIRE(tracer.write_etdump(*out.value(), 0, 4096, EventTracer::PieceWrites::kBackground, 0).ok());
    CHECK_FALSE(out.value()->direct_io());  // fell back (or never had it)
    CHECK(test::read_bytes(path) == expected);
    std::filesystem::remove(path);
  }

  SECTION("below the O_DIRECT threshold: through the page cache, the same bytes") {
    EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
    record_rounds(tracer, names, tensor, 50);
    auto out = OutputFile::create(path);
    REQUIRE(out.ok());
    REQUIRE(tracer.write_etdump(*out.value(), 0, 4096, EventTracer::PieceWrites::kBackground, SIZE_MAX).ok());
    CHECK_FALSE(out.value()->direct_io());
    CHECK(test::read_bytes(path) == expected);
    std::filesystem::remove(path);
  }

  SECTION("no refusal: O_DIRECT throughout, the same bytes") {
    EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
    record_rounds(tracer, names, tensor, 50);
    auto out = OutputFile::create(path);
    REQUIRE(out.ok());
    const bool direct = out.value()->use_direct_io();
    REQUIRE(tracer.write_etdump(*out.value(), 0, 4096, EventTracer::PieceWrites::kBackground, 0).ok());
    CHECK(out.value()->direct_io() == direct);
    CHECK(test::read_bytes(path) == expected);
    std::filesystem::remove(path);
  }
}

TEST_CASE("unpack_event with lengths only reads every scalar and length, skips the contents, checks the same bytes",
          "[runner][etdump]") {
  // A delegate id of 200 characters and sizes past 127 take varints of two
  // bytes and more; the contents must not matter, the lengths must.
  const std::string id(200, 'q');
  const std::string_view id_view = id;
  const uint8_t metadata[] = {1, 2, 3, 4, 5};
  const int32_t sizes[] = {1, 300, -70000};
  const int64_t strides[] = {210'000, 70'000, INT64_MIN};
  std::vector<uint8_t> bytes(1024);
  uint8_t* end = pack_debug_head(bytes.data(), -1, 9, -1, &id_view);
  end = pack_tensor(pack_tensor_value(end, true), 6, sizes, strides, 4096);
  const size_t debug_size = size_t(end - bytes.data());
  end = pack_delegate_profile(end, 3, 4, -1, &id_view, metadata);
  const size_t size = size_t(end - bytes.data());
  const uint8_t* begin = bytes.data();

  etdump::DebugEvent debug;
  debug.delegate_debug_id_str = "old contents";
  REQUIRE(unpack_event(begin, begin + debug_size, debug, true) == begin + debug_size);
  CHECK(debug.chain_index == UINT64_MAX);  // the unset chain, -1
  CHECK(debug.instruction_id == 9);
  CHECK(debug.delegate_debug_id_int == -1);
  REQUIRE(debug.delegate_debug_id_str);
  CHECK(debug.delegate_debug_id_str->size() == 200);
  CHECK_FALSE(debug.name);
  CHECK(debug.debug_entry.val == etdump::ValueType::kTensor);
  CHECK(debug.debug_entry.output == std::optional<bool>(true));
  REQUIRE(debug.debug_entry.tensor);
  CHECK(debug.debug_entry.tensor->scalar_type == 6);
  CHECK(debug.debug_entry.tensor->sizes.size() == 3);
  CHECK(debug.debug_entry.tensor->strides.size() == 3);
  CHECK(debug.debug_entry.tensor->offset == 4096);
  // The full read gives the contents, over the same bytes.
  etdump::DebugEvent full;
  REQUIRE(unpack_event(begin, begin + debug_size, full) == begin + debug_size);
  CHECK(*full.delegate_debug_id_str == id);
  CHECK(full.debug_entry.tensor->sizes == std::vector<int64_t>{1, 300, -70000});

  etdump::ProfileEvent delegate;
  const uint8_t* at = begin + debug_size;
  REQUIRE(unpack_event(at, begin + size, delegate, true) == begin + size);
  CHECK(delegate.chain_index == 3);
  CHECK(delegate.instruction_id == 4);
  CHECK(delegate.delegate_debug_id_str->size() == 200);
  REQUIRE(delegate.delegate_debug_metadata);
  CHECK(delegate.delegate_debug_metadata->size() == 5);

  // Cut anywhere, neither read finds an event.
  for (size_t cut = 0; cut < debug_size; ++cut) {
    INFO("cut at " << cut);
    CHECK(unpack_event(begin, begin + cut, debug, true) == nullptr);
    CHECK(unpack_event(begin, begin + cut, full) == nullptr);
  }
  for (const uint8_t* cut = at; cut < begin + size; ++cut) {
    CHECK(unpack_event(at, cut, delegate, true) == nullptr);
  }
}

TEST_CASE("EventTracer: a streamed dump's pieces written in the call, as without a writing thread: the same file, "
          "write errors still reported",
          "[runner][etdump]") {
  // PieceWrites::kInCall is the path taken when no thread can be started:
  // each piece is written by the call that hands it over.
  float data[6] = {1, 2, 3, 4, 5, 6};
  Tensor tensor(ScalarType::kFloat, {2, 3}, {0, 1}, data);
  const std::vector<std::string> names = {"OPERATOR_CALL", "native_call_add.out"};
  EventTracer reference(DebugLevel::kIntermediateOutputs, 16);
  record_rounds(reference, names, tensor, 50);
  const std::vector<uint8_t> expected = reference.finish();
  REQUIRE(expected.size() > 10 * 4096);  // more than 10 pieces of 4 KiB

  const std::filesystem::path dir = test::scratch_dir() / "pieces_in_call";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.etdp").string();
  auto entries = [&]() {
    std::vector<std::string> names_found;
    for (const auto& e : std::filesystem::directory_iterator(dir)) names_found.push_back(e.path().filename().string());
    return names_found;
  };

  for (auto writes : {EventTracer::PieceWrites::kBackground, EventTracer::PieceWrites::kInCall}) {
    for (size_t window : {size_t(4096), etdump::EtDumpWriter::kStreamWindow}) {
      INFO("in call " << (writes == EventTracer::PieceWrites::kInCall) << ", window " << window);
      EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
      record_rounds(tracer, names, tensor, 50);
      auto out = OutputFile::create(path);
      REQUIRE(out.ok());
      (void)out.value()->use_direct_io();
      REQUIRE(tracer.write_etdump(*out.value(), 0, window, writes, 0).ok());
      CHECK(test::read_bytes(path) == expected);
      CHECK(entries() == std::vector<std::string>{"out.etdp"});
      std::filesystem::remove(path);
    }
  }

  // A file that may not grow past 64 KiB (in a child, SIGXFSZ ignored: the
  // write fails with EFBIG): the piece written in the call fails, and the
  // error names the file; no file is left.
  for (auto writes : {EventTracer::PieceWrites::kBackground, EventTracer::PieceWrites::kInCall}) {
    INFO("in call " << (writes == EventTracer::PieceWrites::kInCall));
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{64 << 10, 64 << 10};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
      int code = 0;
      {
        EventTracer tracer(DebugLevel::kIntermediateOutputs, 16);
        record_rounds(tracer, names, tensor, 50);
        auto out = OutputFile::create(path);
        if (!out.ok()) _exit(15);
        Status s = tracer.write_etdump(*out.value(), 0, 4096, writes, 0);
        if (s.ok()) code = 11;
        else if (s.error().kind != ErrorKind::kIo) code = 12;
        else if (s.error().file != path) code = 13;
        else if (s.error().message.find("cannot write") == std::string::npos) code = 14;
      }  // the temporary file goes with `out`
      _exit(code);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(entries().empty());
  }
}
