// The debug buffer streamed to its file as it grows: the bytes of the buffer
// built in memory, offsets unchanged, no write or reallocation inside a
// block that logs what the last one did, atomic output, errors naming the
// file.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "libcore/formats/etdump/debug_buffer.h"
#include "runner/event_tracer.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

// Blocks logging tensors of 1 to 700 bytes (a float per 4 bytes; sizes not
// multiples of 64, so the padding varies), one of 5,000 bytes every 7th
// block, and Int values (no bytes).
struct Tensors {
  std::vector<float> data = std::vector<float>(1250);
  std::vector<Tensor> tensors;
  Tensors() {
    for (size_t i = 0; i < data.size(); ++i) data[i] = float(i) * 0.5f + 1;
    for (int32_t n : {1, 7, 16, 175, 1250}) tensors.emplace_back(ScalarType::kFloat, std::vector<int32_t>{n}, std::vector<uint8_t>{0}, data.data());
  }
};

void record(EventTracer& tracer, Tensors& t, int blocks) {
  tracer.set_time_base(0, 0, 1.0);
  for (int b = 0; b < blocks; ++b) {
    tracer.create_block("Execute");
    for (size_t i = 0; i < 4; ++i) {
      EValue v;
      v.tag = Tag::kTensor;
      v.tensor = &t.tensors[(i + size_t(b)) % 4];
      tracer.log_value(0, int32_t(i), v, false);
    }
    if (b % 7 == 0) {
      EValue big;
      big.tag = Tag::kTensor;
      big.tensor = &t.tensors[4];
      tracer.log_value(0, 9, big, true);
    }
    EValue i;
    i.tag = Tag::kInt;
    i.i = b;
    tracer.log_value(0, 10, i, false);
  }
}

}  // namespace

TEST_CASE("EventTracer: the debug buffer streamed to its file has the bytes of the one in memory",
          "[runner][etdump]") {
  Tensors t;
  EventTracer in_memory(DebugLevel::kIntermediateOutputs);
  record(in_memory, t, 300);
  const std::vector<uint8_t> expected = in_memory.debug_buffer();
  const std::vector<uint8_t> expected_dump = in_memory.finish();
  // By hand: every block logs the four tensors of 4, 28, 64 and 700 bytes,
  // each from a 64-byte boundary (64 + 64 + 64 + 704 bytes with padding),
  // and blocks 0, 7, ..., 294 (43 of them) 5,000 bytes more (5,056); the
  // last tensor of all is block 299's (3 + 299) % 4 = 2nd, 64 bytes, so no
  // padding is cut off at the end.
  REQUIRE(expected.size() == 300 * 896 + 43 * 5'056);

  const std::filesystem::path dir = test::scratch_dir() / "debug_buffer_stream";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.debug.bin").string();
  // Windows smaller than one tensor, than a block, and larger than all.
  for (size_t window : {size_t(1), size_t(100), size_t(4096), size_t(1) << 20}) {
    INFO("window " << window);
    EventTracer streaming(DebugLevel::kIntermediateOutputs, 64);
    REQUIRE(streaming.stream_debug_buffer(path, window).ok());
    record(streaming, t, 300);
    // Never more than a window and a block's bytes in memory.
    CHECK(streaming.debug_buffer().capacity() <= std::max<size_t>(window, 2 * 5'800));
    CHECK(streaming.finish() == expected_dump);  // the same offsets
    CHECK_FALSE(std::filesystem::exists(path));  // not before it is complete
    REQUIRE(streaming.write_debug_buffer().ok());
    CHECK(test::read_bytes(path) == expected);
    std::vector<std::string> entries;
    for (const auto& e : std::filesystem::directory_iterator(dir)) entries.push_back(e.path().filename().string());
    CHECK(entries == std::vector<std::string>{"out.debug.bin"});  // no temporary file left
    std::filesystem::remove(path);
  }
}

TEST_CASE("EventTracer: a streamed debug buffer is written only when a block begins once reserved ahead",
          "[runner][etdump]") {
  // The reserve_ahead contract: a block logging what the last one logged
  // copies into memory already there (no reallocation, no write to the
  // file, no first-touch page faults) inside the kernels' timed scopes.
  Tensors t;
  const std::filesystem::path dir = test::scratch_dir() / "debug_buffer_reserve";
  std::filesystem::create_directories(dir);
  EventTracer tracer(DebugLevel::kIntermediateOutputs);
  REQUIRE(tracer.stream_debug_buffer((dir / "b.bin").string(), 1000).ok());
  tracer.set_time_base(0, 0, 1.0);
  EValue v;
  v.tag = Tag::kTensor;
  v.tensor = &t.tensors[3];  // 700 bytes: a window holds one block
  for (int b = 0; b < 50; ++b) {
    tracer.create_block("Execute");
    const std::vector<uint8_t>& window = tracer.debug_buffer();
    const size_t before = window.size();
    const uint8_t* data = window.data();
    const size_t capacity = window.capacity();
    tracer.log_value(0, 0, v, false);
    tracer.log_value(0, 1, v, false);  // 768 + 700 bytes more: a block of 1,468
    if (b >= 1) {
      // From the second block on: what the block logged is all in memory,
      // appended where the block began, and the memory did not move.
      CHECK(window.size() - before >= 2 * 700);
      CHECK(window.data() == data);
      CHECK(window.capacity() == capacity);
    }
  }
  REQUIRE(tracer.write_debug_buffer().ok());
  // Each block from a 64-byte boundary: 700 bytes, 4 of padding, 700, so
  // 1,408 bytes with the padding before the next; the last one unpadded.
  CHECK(std::filesystem::file_size(dir / "b.bin") == 49 * 1408 + 1404);
}

TEST_CASE("EventTracer: a debug buffer streamed to a FIFO is written in sequence", "[runner][etdump]") {
  Tensors t;
  EventTracer in_memory(DebugLevel::kIntermediateOutputs);
  record(in_memory, t, 100);
  const std::vector<uint8_t> expected = in_memory.debug_buffer();

  const std::filesystem::path dir = test::scratch_dir() / "debug_buffer_fifo";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::vector<uint8_t> received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    received.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  });
  Status opened;
  {
    // The tracer closes the FIFO's write end when its buffer is committed.
    EventTracer streaming(DebugLevel::kIntermediateOutputs);
    opened = streaming.stream_debug_buffer(fifo, 512);
    if (opened.ok()) {
      record(streaming, t, 100);
      CHECK(streaming.write_debug_buffer().ok());
    }
  }
  reader.join();
  REQUIRE(opened.ok());
  CHECK(received == expected);
}

TEST_CASE("EventTracer: a streamed debug buffer that cannot be written is an error naming it, and no file",
          "[runner][etdump]") {
  Tensors t;
  const std::filesystem::path dir = test::scratch_dir() / "debug_buffer_errors";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  SECTION("a directory that does not exist") {
    EventTracer tracer(DebugLevel::kIntermediateOutputs);
    const std::string path = (dir / "missing" / "b.bin").string();
    Status s = tracer.stream_debug_buffer(path);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kIo);
    CHECK(s.error().file == path);
  }

  SECTION("a device that is full") {
    EventTracer tracer(DebugLevel::kIntermediateOutputs);
    REQUIRE(tracer.stream_debug_buffer("/dev/full", 256).ok());
    record(tracer, t, 50);
    Status s = tracer.write_debug_buffer();
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kIo);
    CHECK(s.error().file == "/dev/full");
  }

  SECTION("a file size limit reached part of the way") {
    // In a child whose files may not grow past 16 KiB (SIGXFSZ ignored: the
    // write fails with EFBIG), as a full disk fails a write.
    const std::string path = (dir / "limited.bin").string();
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{16 << 10, 16 << 10};
      if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
      EventTracer tracer(DebugLevel::kIntermediateOutputs);
      if (!tracer.stream_debug_buffer(path, 4096).ok()) _exit(11);
      record(tracer, t, 200);  // about 200 KB
      Status s = tracer.write_debug_buffer();
      if (s.ok()) _exit(12);
      if (s.error().kind != ErrorKind::kIo) _exit(13);
      if (s.error().file != path) _exit(14);
      _exit(0);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(std::filesystem::is_empty(dir));  // neither the file nor its temporary file
  }
}
