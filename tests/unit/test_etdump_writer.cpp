// ETDump writer -> reader round trips, and the wire details the runtime's
// writer has (size prefix, ED00, defaults left out), checked on the bytes.
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "etdump_generated.h"

#include "examples/demo_models.h"
#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/support/bytes.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::etdump;

TEST_CASE("an ETDump with every event kind round-trips", "[writer][etdump]") {
  EtDumpWriter w;
  w.begin_block("Default");
  ProfileEvent init;
  init.name = "Method::init";
  init.chain_index = -1;
  init.instruction_id = 0;
  init.start_time = 100;
  init.end_time = 250;
  w.add_profile_event(init);
  w.begin_block("Execute", 3);
  const int32_t alloc = w.add_allocator("method");
  w.add_allocation_event({alloc, 4096});
  ProfileEvent delegate;
  delegate.chain_index = 0;
  delegate.instruction_id = 2;
  delegate.delegate_debug_id_str = "Convolution (NHWC, F32) IGEMM #1";
  delegate.delegate_debug_metadata = std::vector<uint8_t>{};
  delegate.start_time = 1;
  delegate.end_time = 2;
  w.add_profile_event(delegate);
  DebugEvent d;
  d.chain_index = UINT64_MAX;
  d.instruction_id = 0;
  d.debug_entry.val = ValueType::kTensorList;
  d.debug_entry.tensor_list = std::vector<Tensor>{Tensor{6, {2, 2}, {2, 1}, 0}, Tensor{4, {0}, {1}, -1}};
  d.debug_entry.output = true;
  w.add_debug_event(d);
  DebugEvent scalar;
  scalar.debug_entry.val = ValueType::kDouble;
  scalar.debug_entry.double_value = -0.25;
  w.add_debug_event(scalar);
  w.begin_block("Empty");
  const auto bytes = w.finish();

  // Size prefix = everything after it; identifier at 8..11.
  REQUIRE(bytes.size() > 12);
  CHECK(load_u32_le(bytes.data()) == bytes.size() - 4);
  CHECK(std::memcmp(bytes.data() + 8, "ED00", 4) == 0);

  auto dump = read_etdump(ByteSpan(bytes));
  INFO((dump ? std::string() : dump.error().describe()));
  REQUIRE(dump.ok());
  REQUIRE(dump->run_data.size() == 3);
  const auto& def = dump->run_data[0];
  CHECK(def.name == "Default");
  CHECK(def.bundled_input_index == -1);
  REQUIRE(def.events->size() == 1);
  const auto& pe = *(*def.events)[0].profile_event;
  CHECK(*pe.name == "Method::init");
  CHECK(pe.chain_index == -1);
  CHECK(pe.instruction_id == 0);
  CHECK(pe.delegate_debug_id_int == -1);
  CHECK_FALSE(pe.delegate_debug_id_str.has_value());
  CHECK(pe.start_time == 100);
  CHECK(pe.end_time == 250);

  const auto& exec = dump->run_data[1];
  CHECK(exec.bundled_input_index == 3);
  CHECK(*exec.allocators == std::vector<std::string>{"method"});
  REQUIRE(exec.events->size() == 4);
  CHECK((*exec.events)[0].allocation_event->allocator_id == 1);
  CHECK((*exec.events)[0].allocation_event->allocation_size == 4096);
  const auto& de = *(*exec.events)[1].profile_event;
  CHECK_FALSE(de.name.has_value());
  CHECK(*de.delegate_debug_id_str == "Convolution (NHWC, F32) IGEMM #1");
  CHECK(de.delegate_debug_metadata.has_value());  // present though empty
  CHECK(de.delegate_debug_metadata->empty());
  const auto& dbg = *(*exec.events)[2].debug_event;
  CHECK(dbg.chain_index == UINT64_MAX);
  CHECK(dbg.debug_entry.val == ValueType::kTensorList);
  REQUIRE(dbg.debug_entry.tensor_list->size() == 2);
  CHECK((*dbg.debug_entry.tensor_list)[1].offset == -1);
  CHECK(*dbg.debug_entry.output);
  const auto& sc = *(*exec.events)[3].debug_event;
  CHECK(sc.instruction_id == -1);
  CHECK(*sc.debug_entry.double_value == -0.25);
  CHECK_FALSE(sc.debug_entry.output.has_value());

  // A block that received nothing has no events vector at all.
  CHECK(dump->run_data[2].name == "Empty");
  CHECK_FALSE(dump->run_data[2].events.has_value());
}

TEST_CASE("write_etdump(read_etdump(x)) reproduces the bytes of our own dumps", "[writer][etdump]") {
  std::vector<uint8_t> buffer;
  demo::SyntheticRun run;
  run.executions = 2;
  run.log_program_output = true;
  const auto bytes = demo::synthetic_etdump(run, &buffer);
  auto dump = read_etdump(ByteSpan(bytes));
  REQUIRE(dump.ok());
  CHECK(write_etdump(*dump) == bytes);
  // Default: 2 events; each Execute: 14 x 2 kernel events + Method::execute + 1 output.
  REQUIRE(dump->run_data.size() == 3);
  CHECK(dump->run_data[0].events->size() == 2);
  CHECK(dump->run_data[1].events->size() == 30);
}

TEST_CASE("debug buffer blobs are 64-byte aligned and found again", "[writer][etdump]") {
  DebugBufferWriter w;
  const std::vector<uint8_t> a(10, 0xAA), b(3, 0xBB);
  CHECK(w.append(ByteSpan(a)) == 0);
  CHECK(w.append(ByteSpan()) == -1);  // empty: nothing written
  CHECK(w.append(ByteSpan(b)) == 64);
  CHECK(w.bytes().size() == 67);
  CHECK(w.bytes()[10] == 0);  // zero padding
  // A CHAR[3] tensor at 64 reads back the 0xBB bytes.
  auto bytes = tensor_bytes(ByteSpan(w.bytes()), Tensor{1, {3}, {1}, 64});
  REQUIRE(bytes.ok());
  CHECK(bytes->size() == 3);
  CHECK((*bytes)[2] == 0xBB);
  // FLOAT[2] at 64 needs 8 bytes but only 3 remain.
  auto too_short = tensor_bytes(ByteSpan(w.bytes()), Tensor{6, {2}, {1}, 64});
  REQUIRE_FALSE(too_short.ok());
  CHECK(too_short.error().message == "debug buffer too short: tensor needs bytes [64, 72) but the buffer has 67 bytes");
  // An empty tensor needs no bytes whatever its offset.
  CHECK(tensor_bytes(ByteSpan(), Tensor{6, {0, 5}, {5, 1}, -1}).ok());
}

namespace {

// flatc's JSON of an ETDump as it is: fields the bytes leave out stay out.
std::string flatc_etdump_json(const std::vector<uint8_t>& bytes) {
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "in.etdp", bytes);
  const auto r = test::run_shell(std::string(ETKIT_FLATC) + " --json --strict-json --raw-binary --size-prefixed -o " +
                                 test::shell_quote(dir) + " " + ETKIT_SCHEMAS_DIR + "/etdump.fbs -- " +
                                 test::shell_quote(dir / "in.etdp"));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return std::string(reinterpret_cast<const char*>(test::read_bytes(dir / "in.json").data()),
                     test::read_bytes(dir / "in.json").size());
}

}  // namespace

TEST_CASE("named profile events (the runtime's path) read as ProfileEvent structs written generically",
          "[writer][etdump]") {
  // Every combination of the fields left out at their defaults (chain 0,
  // instruction -1, times 0), an empty name, and one buffer reused for a
  // second name: the name cache must not hand back the first.
  struct Named {
    int32_t chain, instruction;
    uint64_t start, end;
  };
  const Named cases[] = {{0, -1, 0, 0}, {3, -1, 5, 0}, {0, 7, 0, 9}, {-1, 0, 1, 2}, {2, 4, 6, 8}, {0, 0, 10, 20}};
  char reused[8] = "abc";
  EtDumpWriter fast;
  EtDumpWriter generic;
  for (int block = 0; block < 2; ++block) {
    fast.begin_block("Execute");
    generic.begin_block("Execute");
    for (const Named& n : cases) {
      for (std::string_view name : {std::string_view("native_call_add.out"), std::string_view(""),
                                    std::string_view(reused, 3)}) {
        fast.add_profile_event(name, n.chain, n.instruction, n.start, n.end);
        ProfileEvent p;
        p.name = std::string(name);
        p.chain_index = n.chain;
        p.instruction_id = n.instruction;
        p.start_time = n.start;
        p.end_time = n.end;
        generic.add_profile_event(p);
      }
      std::memcpy(reused, reused[0] == 'a' ? "xyz" : "abc", 4);
    }
  }
  const auto fast_bytes = fast.finish();
  const auto generic_bytes = generic.finish();
  const std::string fast_json = flatc_etdump_json(fast_bytes);
  CHECK(fast_json == flatc_etdump_json(generic_bytes));
  CHECK(fast_json.find("\"xyz\"") != std::string::npos);
  // Names written once: smaller than the generic dump.
  CHECK(fast_bytes.size() < generic_bytes.size());
  auto dump = read_etdump(ByteSpan(fast_bytes));
  REQUIRE(dump.ok());
  REQUIRE(dump->run_data.size() == 2);
  REQUIRE(dump->run_data[1].events->size() == 18);
  const ProfileEvent& last = *dump->run_data[1].events->back().profile_event;
  CHECK(*last.name == "xyz");  // a block's sixth case finds "xyz" in the buffer
  CHECK(last.chain_index == 0);
  CHECK(last.instruction_id == 0);
  CHECK(last.start_time == 10);
  CHECK(last.end_time == 20);
}

namespace {

// Every kind of call, repeated over blocks: generic tables whose vtables the
// builder reads again, named events, allocators, a block with no events.
void add_events(EtDumpWriter& w, int blocks) {
  const std::string names[] = {"OPERATOR_CALL", "native_call_add.out", "Method::execute"};
  for (int b = 0; b < blocks; ++b) {
    w.begin_block(b % 3 ? "Execute" : "Default", b % 5 == 0 ? b : -1);
    if (b % 7 == 3) continue;
    const int32_t alloc = w.add_allocator("method");
    for (int i = 0; i < 20; ++i) {
      w.add_profile_event(names[(b + i) % 3], i % 4 - 1, i, 1000 * uint64_t(b) + uint64_t(i), i % 6 ? 2000 : 0);
    }
    w.add_allocation_event({alloc, 64 * uint64_t(b)});
    ProfileEvent delegate;
    delegate.chain_index = b;
    delegate.instruction_id = 2;
    if (b % 2) {
      delegate.delegate_debug_id_str = "node " + std::to_string(b);
    } else {
      delegate.delegate_debug_id_int = b;
    }
    delegate.delegate_debug_metadata = std::vector<uint8_t>(size_t(b % 4), uint8_t(b));
    delegate.start_time = uint64_t(b);
    delegate.end_time = uint64_t(b) + 9;
    w.add_profile_event(delegate);
    DebugEvent d;
    d.chain_index = uint64_t(b);
    d.instruction_id = 4;
    d.debug_entry.val = ValueType::kTensorList;
    d.debug_entry.tensor_list = std::vector<Tensor>{Tensor{6, {2, b}, {b, 1}, 64 * b}, Tensor{4, {0}, {1}, -1}};
    w.add_debug_event(d);
    DebugEvent scalar;
    scalar.debug_entry.val = ValueType::kInt;
    scalar.debug_entry.int_value = -b;
    w.add_debug_event(scalar);
  }
}

}  // namespace

TEST_CASE("a measured then streamed ETDump has the bytes of the one built in memory", "[writer][etdump]") {
  EtDumpWriter in_memory;
  add_events(in_memory, 200);
  const std::vector<uint8_t> expected = in_memory.finish();
  REQUIRE(expected.size() > 100'000);  // tens of pages, so pages are given back while building
  // A window of 1 byte writes after every event; 4096 and 10,000 give back
  // whole pages between events that reuse the vtables on them.
  for (size_t window : {size_t(1), size_t(4096), size_t(10'000), EtDumpWriter::kStreamWindow}) {
    INFO("window " << window);
    auto measuring = EtDumpWriter::measuring(expected.size() * 2, window);
    add_events(*measuring, 200);
    auto size = measuring->finish_streamed();
    REQUIRE(size.ok());
    REQUIRE(*size == expected.size());

    std::vector<uint8_t> out(size_t(*size), 0xAA);
    uint64_t next_end = *size;  // chunks arrive from the end, each once, no gaps
    bool in_order = true;
    size_t chunks = 0;
    auto streaming = EtDumpWriter::streaming(*size, [&](uint64_t offset, ByteSpan bytes) -> Status {
      in_order = in_order && offset + bytes.size() == next_end;
      next_end = offset;
      std::memcpy(out.data() + offset, bytes.data(), bytes.size());
      ++chunks;
      return {};
    }, window);
    add_events(*streaming, 200);
    auto written = streaming->finish_streamed();
    REQUIRE(written.ok());
    CHECK(*written == expected.size());
    CHECK(in_order);
    CHECK(next_end == 0);
    CHECK(out == expected);
    if (window == 1) CHECK(chunks > 4000);  // 200 blocks of 24 events
  }
}

namespace {

// Debug and delegate events of many shapes (present fields, string and
// vector lengths, scalars at and off their defaults, NaN and -0.0), in an
// order that starts each shape at every builder size modulo 8, with named
// events of odd sizes between them.
void add_shapes(EtDumpWriter& w, int blocks) {
  const float floats[] = {0.0f, -0.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()};
  for (int b = 0; b < blocks; ++b) {
    w.begin_block(b % 2 ? "Execute" : "E", -1);
    for (int i = 0; i < 40; ++i) {
      const int k = b * 40 + i;
      if (k % 3 == 0) w.add_profile_event(std::string(size_t(k % 5), 'n'), k % 2, k % 4 - 1, uint64_t(k), uint64_t(k + 1));
      DebugEvent d;
      d.chain_index = uint64_t(k % 3 == 1 ? 0 : k);
      d.instruction_id = k % 5 == 0 ? -1 : k;
      d.delegate_debug_id_int = k % 7 == 0 ? -1 : k % 9;
      if (k % 4 == 1) d.delegate_debug_id_str = std::string(size_t(k % 13), 'i');
      if (k % 6 == 2) d.name = std::string(size_t(k % 11), 'a');
      switch (k % 6) {
        case 0:
        case 1: {
          d.debug_entry.val = ValueType::kTensor;
          Tensor t;
          t.scalar_type = int8_t(k % 2 ? 6 : 0);
          t.sizes.assign(size_t(k % 5), k % 300);
          t.strides.assign(size_t(k % 5), 1 << (k % 20));
          t.offset = k % 4 == 0 ? 0 : (k % 4 == 1 ? -1 : 64 * k);
          d.debug_entry.tensor = t;
          if (k % 8 < 3) d.debug_entry.output = k % 8 == 1;
          break;
        }
        case 2: d.debug_entry.val = ValueType::kInt; d.debug_entry.int_value = k % 4 ? k : 0; break;
        case 3: d.debug_entry.val = ValueType::kFloat; d.debug_entry.float_value = floats[k % 4]; break;
        case 4: d.debug_entry.val = ValueType::kDouble; d.debug_entry.double_value = k % 3 ? -0.25 * k : 0.0; break;
        default: d.debug_entry.val = ValueType::kBool; d.debug_entry.bool_value = k % 4 == 1; break;
      }
      w.add_debug_event(d);
      ProfileEvent p;
      p.chain_index = k % 3;
      p.instruction_id = k % 4 ? k : -1;
      if (k % 5 == 2) {
        p.delegate_debug_id_str = std::string(size_t(k % 17), 's');
      } else {
        p.delegate_debug_id_int = k % 6 - 1;
      }
      if (k % 3) p.delegate_debug_metadata = std::vector<uint8_t>(size_t(k % 19), uint8_t(k));
      if (k % 10 == 3) p.name = std::string(size_t(k % 7), 'p');
      p.start_time = k % 8 ? uint64_t(k) : 0;
      p.end_time = k % 9 ? uint64_t(k) + 5 : 0;
      w.add_profile_event(p);
    }
  }
}

}  // namespace

TEST_CASE("a measuring writer gives the size of the dump built in memory for events of every shape",
          "[writer][etdump]") {
  EtDumpWriter in_memory;
  add_shapes(in_memory, 60);
  const std::vector<uint8_t> expected = in_memory.finish();
  for (size_t window : {size_t(1), size_t(4096), EtDumpWriter::kStreamWindow}) {
    INFO("window " << window);
    auto measuring = EtDumpWriter::measuring(expected.size() * 2, window);
    add_shapes(*measuring, 60);
    auto size = measuring->finish_streamed();
    REQUIRE(size.ok());
    CHECK(*size == expected.size());
    std::vector<uint8_t> out(static_cast<size_t>(*size), 0);
    auto streaming = EtDumpWriter::streaming(*size, [&](uint64_t offset, ByteSpan bytes) -> Status {
      std::memcpy(out.data() + offset, bytes.data(), bytes.size());
      return {};
    }, window);
    add_shapes(*streaming, 60);
    auto written = streaming->finish_streamed();
    REQUIRE(written.ok());
    CHECK(out == expected);
  }
}

TEST_CASE("a streaming sink that keeps its pieces reads each one intact until its next call", "[writer][etdump]") {
  EtDumpWriter in_memory;
  add_events(in_memory, 200);
  const std::vector<uint8_t> expected = in_memory.finish();
  // Windows of whole pages and of pages and a bit; aligned writes (O_DIRECT's
  // layout) and not: the pages the writer gives back as it goes must not
  // include the piece the sink still holds.
  for (size_t window : {size_t(4096), size_t(10'000), size_t(100'000)}) {
    for (size_t align : {size_t(1), size_t(4096)}) {
      INFO("window " << window << ", align " << align);
      auto measuring = EtDumpWriter::measuring(expected.size() * 2, window);
      add_events(*measuring, 200);
      auto size = measuring->finish_streamed();
      REQUIRE(size.ok());
      // Each piece is read only at the next call (as a write in the
      // background would read it), the last one at the call with no bytes.
      std::vector<uint8_t> out(size_t(*size) + align, 0xAA);
      ByteSpan held;
      uint64_t held_at = 0;
      size_t releases = 0, pieces = 0;
      bool released_last = true;
      auto streaming = EtDumpWriter::streaming(*size, [&](uint64_t offset, ByteSpan bytes) -> Status {
        if (!held.empty()) std::memcpy(out.data() + held_at, held.data(), held.size());
        held = bytes;
        held_at = offset;
        released_last = bytes.empty();
        releases += bytes.empty();
        pieces += !bytes.empty();
        return {};
      }, window, align, true);
      add_events(*streaming, 200);
      auto written = streaming->finish_streamed();
      REQUIRE(written.ok());
      CHECK(*written == expected.size());
      CHECK(releases == 1);
      CHECK(released_last);
      CHECK(pieces >= 3);
      out.resize(expected.size());
      CHECK(out == expected);
    }
  }
  // A writer dropped before its end (a replay that failed) releases its
  // sink too, before its buffer goes.
  auto measuring = EtDumpWriter::measuring(expected.size() * 2, 4096);
  add_events(*measuring, 200);
  auto size = measuring->finish_streamed();
  REQUIRE(size.ok());
  size_t releases = 0;
  {
    auto dropped = EtDumpWriter::streaming(*size, [&](uint64_t, ByteSpan bytes) -> Status {
      releases += bytes.empty();
      return {};
    }, 4096, 1, true);
    add_events(*dropped, 100);
    CHECK(releases == 0);
  }
  CHECK(releases == 1);
}

TEST_CASE("a streamed ETDump stops at its sink's first error, and refuses calls that outgrow its size",
          "[writer][etdump]") {
  auto measuring = EtDumpWriter::measuring(1 << 20, 1);
  add_events(*measuring, 10);
  auto size = measuring->finish_streamed();
  REQUIRE(size.ok());

  int calls = 0;
  auto failing = EtDumpWriter::streaming(*size, [&](uint64_t, ByteSpan) -> Status {
    return ++calls == 3 ? io_error("out.etdp", "cannot write: No space left on device") : Status{};
  }, 1);
  add_events(*failing, 10);
  CHECK(failing->failed());
  auto failed = failing->finish_streamed();
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().file == "out.etdp");
  CHECK(calls == 3);  // nothing written after the error

  // Calls that do not match the measured ones: one block more is 12+ bytes
  // more than announced.
  auto larger = EtDumpWriter::streaming(*size, [](uint64_t, ByteSpan) -> Status { return {}; }, 1);
  add_events(*larger, 11);
  auto outgrown = larger->finish_streamed();
  REQUIRE_FALSE(outgrown.ok());
  CHECK(outgrown.error().kind == ErrorKind::kIo);
  CHECK(outgrown.error().message.find("outgrew its measured size of " + std::to_string(*size)) != std::string::npos);
  // And fewer calls than measured: the dump is smaller than announced.
  auto smaller = EtDumpWriter::streaming(*size, [](uint64_t, ByteSpan) -> Status { return {}; }, 1);
  add_events(*smaller, 9);
  auto short_dump = smaller->finish_streamed();
  REQUIRE_FALSE(short_dump.ok());
  CHECK(short_dump.error().message.find("not its measured " + std::to_string(*size)) != std::string::npos);
}

TEST_CASE("profile and debug events laid out by hand read back field for field, every field at or off its default",
          "[writer][etdump]") {
  // The writer lays these tables out itself (vtables cached by which fields
  // are present); the verifying reader and flatc must see each field as
  // given, whichever others are left out.
  EtDumpWriter w;
  w.begin_block("Execute");
  std::vector<ProfileEvent> profiles;
  for (unsigned mask = 0; mask < 256; ++mask) {
    ProfileEvent p;
    if (mask & 1) p.name = "n" + std::to_string(mask);
    if (mask & 2) p.chain_index = -int32_t(mask);
    if (mask & 4) p.instruction_id = int32_t(mask) * 1000;
    if (mask & 8) p.delegate_debug_id_int = int32_t(mask) + 7;
    if (mask & 16) p.delegate_debug_id_str = "d" + std::to_string(mask);
    if (mask & 32) p.delegate_debug_metadata = std::vector<uint8_t>(mask % 5, uint8_t(mask));
    if (mask & 64) p.start_time = (uint64_t(1) << 40) + mask;
    if (mask & 128) p.end_time = UINT64_MAX - mask;
    profiles.push_back(p);
    w.add_profile_event(p);
  }
  std::vector<DebugEvent> debugs;
  for (unsigned mask = 0; mask < 64 * 6; ++mask) {
    DebugEvent d;
    const unsigned fields = mask % 64;
    if (fields & 1) d.chain_index = UINT64_MAX - fields;
    if (fields & 2) d.instruction_id = int32_t(fields);
    if (fields & 4) d.delegate_debug_id_int = 0;
    if (fields & 8) d.delegate_debug_id_str = "";
    if (fields & 16) d.name = "x" + std::to_string(mask);
    Value& v = d.debug_entry;
    switch (mask / 64) {
      case 0: break;  // Null: no member
      case 1:
        v.val = ValueType::kTensor;
        v.tensor = Tensor{int8_t(fields & 32 ? 6 : 0), {int64_t(mask), 3}, {3, 1}, fields & 32 ? int64_t(mask) * 64 : 0};
        v.output = (fields & 32) != 0;
        break;
      case 2:
        v.val = ValueType::kTensorList;
        v.tensor_list = std::vector<Tensor>{Tensor{4, {}, {}, -1}, Tensor{0, {1}, {1}, 128}};
        break;
      case 3:
        v.val = ValueType::kInt;
        v.int_value = -int64_t(mask) << 40;
        break;
      case 4:
        v.val = ValueType::kDouble;
        v.double_value = mask * 0.25;
        v.float_value = float(mask);
        break;
      case 5:
        v.val = ValueType::kBool;
        v.bool_value = (fields & 32) != 0;
        break;
    }
    debugs.push_back(d);
    w.add_debug_event(d);
  }
  const auto bytes = w.finish();
  auto dump = read_etdump(ByteSpan(bytes));
  REQUIRE(dump.ok());
  REQUIRE(dump->run_data.size() == 1);
  const auto& events = *dump->run_data[0].events;
  REQUIRE(events.size() == profiles.size() + debugs.size());
  auto same_tensor = [](const Tensor& a, const Tensor& b) {
    return a.scalar_type == b.scalar_type && a.sizes == b.sizes && a.strides == b.strides && a.offset == b.offset;
  };
  for (size_t i = 0; i < profiles.size(); ++i) {
    INFO("profile " << i);
    REQUIRE(events[i].profile_event);
    const ProfileEvent& got = *events[i].profile_event;
    const ProfileEvent& want = profiles[i];
    CHECK(got.name == want.name);
    CHECK(got.chain_index == want.chain_index);
    CHECK(got.instruction_id == want.instruction_id);
    CHECK(got.delegate_debug_id_int == want.delegate_debug_id_int);
    CHECK(got.delegate_debug_id_str == want.delegate_debug_id_str);
    CHECK(got.delegate_debug_metadata == want.delegate_debug_metadata);
    CHECK(got.start_time == want.start_time);
    CHECK(got.end_time == want.end_time);
  }
  for (size_t i = 0; i < debugs.size(); ++i) {
    INFO("debug " << i);
    const Event& e = events[profiles.size() + i];
    REQUIRE(e.debug_event);
    CHECK_FALSE(e.profile_event);
    const DebugEvent& got = *e.debug_event;
    const DebugEvent& want = debugs[i];
    CHECK(got.chain_index == want.chain_index);
    CHECK(got.instruction_id == want.instruction_id);
    CHECK(got.delegate_debug_id_int == want.delegate_debug_id_int);
    CHECK(got.delegate_debug_id_str == want.delegate_debug_id_str);
    CHECK(got.name == want.name);
    const Value& gv = got.debug_entry;
    const Value& wv = want.debug_entry;
    CHECK(gv.val == wv.val);
    CHECK(gv.tensor.has_value() == wv.tensor.has_value());
    if (gv.tensor && wv.tensor) CHECK(same_tensor(*gv.tensor, *wv.tensor));
    REQUIRE(gv.tensor_list.has_value() == wv.tensor_list.has_value());
    if (gv.tensor_list) {
      REQUIRE(gv.tensor_list->size() == wv.tensor_list->size());
      for (size_t k = 0; k < gv.tensor_list->size(); ++k) CHECK(same_tensor((*gv.tensor_list)[k], (*wv.tensor_list)[k]));
    }
    CHECK(gv.int_value == wv.int_value);
    CHECK(gv.float_value == wv.float_value);
    CHECK(gv.double_value == wv.double_value);
    CHECK(gv.bool_value == wv.bool_value);
    CHECK(gv.output == wv.output);
  }
  // flatc reads the same: a few values only the right offsets give.
  const std::string json = flatc_etdump_json(bytes);
  CHECK(json.find("\"n255\"") != std::string::npos);
  CHECK(json.find("\"d254\"") != std::string::npos);
  CHECK(json.find("18446744073709551614") != std::string::npos);  // debug 1: chain_index 2^64 - 2
  CHECK(json.find("\"x383\"") != std::string::npos);
}

TEST_CASE("RunData tables after the first of their kind have the bytes FlatBufferBuilder gives them", "[writer][etdump]") {
  // Blocks of allocation events (written the generic way by both) with
  // every combination of bundled input index, allocators and events, names
  // and event counts varied so that each combination starts at every
  // builder size modulo 8; the reference is built with the generated
  // builder alone, call for call (a block's name, its allocators and events
  // as they come, then its vectors and RunData when the next one begins).
  struct Block {
    std::string name;
    int32_t bundled_input_index;
    std::vector<std::string> allocators;
    int events;
  };
  std::vector<Block> blocks;
  for (int i = 0; i < 96; ++i) {
    Block b;
    b.name = std::string(size_t(i % 7), char('a' + i % 26));
    b.bundled_input_index = i % 3 == 0 ? -1 : i;
    if (i % 4 >= 2) {
      for (int a = 0; a <= i % 3; ++a) b.allocators.push_back(std::string(size_t(a + i % 5), 'm'));
    }
    b.events = (i / 2) % 2 == 0 ? 0 : 1 + i % 5;
    blocks.push_back(b);
  }

  EtDumpWriter writer;
  for (const Block& b : blocks) {
    writer.begin_block(b.name, b.bundled_input_index);
    std::vector<int32_t> ids;
    for (const auto& a : b.allocators) ids.push_back(writer.add_allocator(a));
    for (int e = 0; e < b.events; ++e) {
      writer.add_allocation_event({ids.empty() ? 0 : ids[size_t(e) % ids.size()], uint64_t(4096 * e + b.events)});
    }
  }
  const std::vector<uint8_t> bytes = writer.finish();

  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<::etdump::RunData>> runs;
  for (const Block& b : blocks) {
    auto name = fbb.CreateString(b.name);
    std::vector<flatbuffers::Offset<::etdump::Allocator>> allocators;
    std::vector<int32_t> ids;
    for (const auto& a : b.allocators) {
      allocators.push_back(::etdump::CreateAllocator(fbb, fbb.CreateString(a)));
      ids.push_back(int32_t(allocators.size()));
    }
    std::vector<flatbuffers::Offset<::etdump::Event>> events;
    for (int e = 0; e < b.events; ++e) {
      auto a = ::etdump::CreateAllocationEvent(fbb, ids.empty() ? 0 : ids[size_t(e) % ids.size()],
                                               uint64_t(4096 * e + b.events));
      events.push_back(::etdump::CreateEvent(fbb, 0, a));
    }
    auto allocs = allocators.empty() ? 0 : fbb.CreateVector(allocators);
    auto evs = events.empty() ? 0 : fbb.CreateVector(events);
    runs.push_back(::etdump::CreateRunData(fbb, name, b.bundled_input_index, allocs, evs));
  }
  auto root = ::etdump::CreateETDump(fbb, 0, fbb.CreateVector(runs));
  fbb.FinishSizePrefixed(root, "ED00");
  const std::vector<uint8_t> expected(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  CHECK(bytes == expected);

  // Measured and streamed, the same bytes and size.
  auto measuring = EtDumpWriter::measuring(expected.size() * 2, 64);
  auto replay = [&](EtDumpWriter& w) {
    for (const Block& b : blocks) {
      w.begin_block(b.name, b.bundled_input_index);
      std::vector<int32_t> ids;
      for (const auto& a : b.allocators) ids.push_back(w.add_allocator(a));
      for (int e = 0; e < b.events; ++e) {
        w.add_allocation_event({ids.empty() ? 0 : ids[size_t(e) % ids.size()], uint64_t(4096 * e + b.events)});
      }
    }
  };
  replay(*measuring);
  auto size = measuring->finish_streamed();
  REQUIRE(size.ok());
  REQUIRE(*size == expected.size());
  std::vector<uint8_t> streamed(static_cast<size_t>(*size), 0);
  auto streaming = EtDumpWriter::streaming(*size, [&](uint64_t offset, ByteSpan piece) -> Status {
    std::memcpy(streamed.data() + offset, piece.data(), piece.size());
    return {};
  }, 64);
  replay(*streaming);
  REQUIRE(streaming->finish_streamed().ok());
  CHECK(streamed == expected);
}

TEST_CASE("named profile events given by the caller's name index have the bytes of those given by name",
          "[writer][etdump]") {
  // Names repeated, at other addresses too, between debug and delegate
  // events, over several blocks; indices in order of first use, as the
  // event tracer numbers them.
  const std::vector<std::string> texts = {"OPERATOR_CALL", "native_call_add.out", "", "Method::execute", "x"};
  auto run = [&](EtDumpWriter& w, bool by_index) {
    for (int b = 0; b < 6; ++b) {
      w.begin_block(b % 2 ? "Execute" : "Default");
      for (int i = 0; i < 30; ++i) {
        const uint32_t index = uint32_t((b * 7 + i * 3) % texts.size());
        const std::string copy = texts[index];  // the same text at another address
        const std::string_view name = i % 2 ? std::string_view(copy) : std::string_view(texts[index]);
        const int32_t chain = i % 3 - 1;
        const int32_t instruction = i % 4 - 1;
        const uint64_t start = uint64_t(i % 5 == 0 ? 0 : 1000 * b + i);
        const uint64_t end = uint64_t(i % 7 == 0 ? 0 : 1000 * b + i + 9);
        if (by_index) {
          w.add_profile_event(index, name, chain, instruction, start, end);
        } else {
          w.add_profile_event(name, chain, instruction, start, end);
        }
        if (i % 4 == 1) {
          DebugEvent d;
          d.chain_index = uint64_t(i);
          d.instruction_id = i;
          d.debug_entry.val = ValueType::kInt;
          d.debug_entry.int_value = i * 11;
          w.add_debug_event(d);
        }
        if (i % 6 == 2) {
          ProfileEvent p;
          p.chain_index = 0;
          p.instruction_id = i;
          p.delegate_debug_id_int = i;
          p.delegate_debug_metadata = std::vector<uint8_t>(size_t(i % 5), uint8_t(i));
          p.start_time = uint64_t(i);
          p.end_time = uint64_t(i + 3);
          w.add_profile_event(p);
        }
      }
    }
  };
  EtDumpWriter by_name;
  run(by_name, false);
  const std::vector<uint8_t> expected = by_name.finish();
  EtDumpWriter by_index;
  run(by_index, true);
  CHECK(by_index.finish() == expected);
  // Every name appears once in the dump, shared by its events.
  const std::string dump(expected.begin(), expected.end());
  CHECK(dump.find("native_call_add.out") == dump.rfind("native_call_add.out"));
}
