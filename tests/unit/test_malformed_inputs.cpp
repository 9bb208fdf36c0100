// Damaged inputs: every reader must fail with an Error (never crash, never
// accept a proper prefix of a file), and corrupted files must either read or
// fail cleanly. Run under -DETKIT_SANITIZE=ON: every input is copied into a
// buffer of exactly its size, so a read past its end is an ASan report.
//
// Inputs: a few real fixtures (skipped without ../shared/fixtures), and files
// produced by the project's own writers (always available).
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "examples/demo_models.h"
#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/bundled/bundled_writer.h"
#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;
namespace ed = etkit::etdump;

namespace {

// Reads `bytes` with one reader; on success touches every byte span the
// result refers to (so ASan sees spans that point outside the input).
// Returns the error, or nullopt on success.
using ReadFn = std::function<std::optional<Error>(ByteSpan)>;

volatile uint64_t g_sink = 0;
void touch(ByteSpan span) {
  uint64_t sum = 0;
  for (uint8_t b : span) sum += b;
  g_sink = g_sink + sum;
}

std::optional<Error> read_as_program(ByteSpan bytes) {
  auto program = pte::read_program(bytes, nullptr);
  if (!program) return program.error();
  for (auto span : program->constant_buffer) touch(span);
  for (auto span : program->backend_delegate_data) touch(span);
  for (auto span : program->segment_data) touch(span);
  return std::nullopt;
}

std::optional<Error> read_as_etdump(ByteSpan bytes) {
  auto dump = ed::read_etdump(bytes);
  if (!dump) return dump.error();
  return std::nullopt;
}

std::optional<Error> read_as_bundle(ByteSpan bytes) {
  auto bundle = bundled::read_bundled_program(bytes, nullptr);
  if (!bundle) return bundle.error();
  touch(bundle->program);
  for (const auto& suite : bundle->method_test_suites) {
    for (const auto& tc : suite.test_cases) {
      for (const auto* list : {&tc.inputs, &tc.expected_outputs}) {
        for (const auto& v : *list) {
          if (const auto* t = std::get_if<bundled::Tensor>(&v)) touch(t->data);
        }
      }
    }
  }
  // The embedded program goes on to the program reader; its result may be
  // an error (a corrupted program), but must not crash.
  (void)read_as_program(bundle->program);
  return std::nullopt;
}

struct SweepResult {
  std::vector<size_t> accepted;       // proper prefix lengths that read successfully
  std::vector<size_t> empty_message;  // lengths whose error had no message
};

// Reads every proper prefix [0, n) of `bytes`, each copied into a buffer of
// exactly n bytes.
SweepResult truncation_sweep(const std::vector<uint8_t>& bytes, const ReadFn& read) {
  SweepResult r;
  for (size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
    auto error = read(ByteSpan(prefix.data(), n));
    if (!error) {
      r.accepted.push_back(n);
    } else if (error->message.empty()) {
      r.empty_message.push_back(n);
    }
  }
  return r;
}

struct FlipResult {
  size_t ok = 0;
  size_t failed = 0;
  std::vector<size_t> empty_message;
};

// Flips every byte of `bytes` (XOR with each mask in turn), one at a time.
FlipResult flip_sweep(const std::vector<uint8_t>& bytes, const ReadFn& read,
                      std::initializer_list<uint8_t> masks = {0xFF, 0x01, 0x80}) {
  FlipResult r;
  std::vector<uint8_t> copy = bytes;
  for (uint8_t mask : masks) {
    for (size_t i = 0; i < copy.size(); ++i) {
      copy[i] ^= mask;
      auto error = read(ByteSpan(copy));
      copy[i] ^= mask;
      if (!error) {
        ++r.ok;
      } else {
        ++r.failed;
        if (error->message.empty()) r.empty_message.push_back(i);
      }
    }
  }
  return r;
}

void check_truncations(const std::vector<uint8_t>& bytes, const ReadFn& read) {
  REQUIRE_FALSE(read(ByteSpan(bytes)).has_value());  // the whole file reads
  const auto r = truncation_sweep(bytes, read);
  CAPTURE(bytes.size());
  CHECK(r.accepted.empty());
  CHECK(r.empty_message.empty());
}

void check_flips(const std::vector<uint8_t>& bytes, const ReadFn& read) {
  const auto r = flip_sweep(bytes, read);
  CAPTURE(bytes.size(), r.ok, r.failed);
  CHECK(r.ok + r.failed == 3 * bytes.size());
  CHECK(r.failed > 0);  // some flips (identifier, root offset) must be caught
  CHECK(r.empty_message.empty());
}

std::vector<uint8_t> mlp_program() {
  auto bytes = pte::write_program(demo::mlp());
  INFO((bytes ? std::string() : bytes.error().describe()));
  REQUIRE(bytes.ok());
  return *bytes;
}

std::vector<uint8_t> fixture_bytes(const std::string& relative) { return test::read_bytes(test::fixture(relative)); }

}  // namespace

// ---------------------------------------------------------------------------
// Truncation

TEST_CASE("every proper prefix of a written program is rejected", "[malformed][pte]") {
  const auto bytes = mlp_program();
  // The MLP has constants, so the writer adds eh00 and a segment: prefixes end
  // inside the FlatBuffer, the padding or the segment.
  REQUIRE(bytes.size() > 1000);
  check_truncations(bytes, read_as_program);
}

TEST_CASE("every proper prefix of a written ETDump is rejected", "[malformed][etdump]") {
  const auto bytes = demo::synthetic_etdump(demo::SyntheticRun{}, nullptr);
  check_truncations(bytes, read_as_etdump);
}

TEST_CASE("every proper prefix of a written bundled program is rejected", "[malformed][bundled]") {
  const auto program = mlp_program();
  const auto bytes = demo::bundled_mlp(program, 2);
  check_truncations(bytes, read_as_bundle);
}

TEST_CASE("every proper prefix of add.pte is rejected", "[malformed][pte][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto bytes = fixture_bytes("pte/add.pte");
  REQUIRE(bytes.size() == 728);
  check_truncations(bytes, read_as_program);
}

TEST_CASE("every proper prefix of add_mul_int.bpte is rejected", "[malformed][bundled][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto bytes = fixture_bytes("bpte/add_mul_int.bpte");
  REQUIRE(bytes.size() == 4608);
  check_truncations(bytes, read_as_bundle);
}

TEST_CASE("every proper prefix of lenet_tutorial.etdp is rejected", "[malformed][etdump][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto bytes = fixture_bytes("etdump/lenet_tutorial.etdp");
  REQUIRE(bytes.size() == 2320);
  check_truncations(bytes, read_as_etdump);
}

TEST_CASE("prefixes of programs with an extended header fail on the header or a segment", "[malformed][pte][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  // Every prefix: add_model_eh00 (32-byte header, a 4-byte segment) and
  // module_linear_inline_constants (no header, inline constants).
  for (const char* file : {"pte/add_model_eh00.pte", "pte/module_linear_inline_constants.pte"}) {
    INFO(file);
    check_truncations(fixture_bytes(file), read_as_program);
  }
  // Selected prefixes of lenet_tutorial (24-byte header: no
  // segment_data_size, so only the segment bounds can catch the truncation).
  const auto lenet = fixture_bytes("pte/lenet_tutorial.pte");
  // The last byte, the middle of the segment, the first segment byte, and
  // inside the FlatBuffer region (program_size 5744, base 5760).
  for (size_t n : {lenet.size() - 1, size_t(130000), size_t(5760), size_t(5744), size_t(3000)}) {
    INFO("prefix " << n);
    const std::vector<uint8_t> prefix(lenet.begin(), lenet.begin() + std::ptrdiff_t(n));
    auto error = read_as_program(ByteSpan(prefix));
    REQUIRE(error.has_value());
    CHECK(error->kind == ErrorKind::kBadInput);
  }
}

// ---------------------------------------------------------------------------
// Single-byte corruption
//
// Some flips misplace 8-byte vectors (see the misaligned-vector test at the
// end of this file); the readers must handle them without misaligned loads,
// which a -DETKIT_SANITIZE=ON build checks.

TEST_CASE("byte flips in a written program read or fail cleanly", "[malformed][pte]") {
  check_flips(mlp_program(), read_as_program);
}

TEST_CASE("byte flips in a written ETDump read or fail cleanly", "[malformed][etdump]") {
  check_flips(demo::synthetic_etdump(demo::SyntheticRun{}, nullptr), read_as_etdump);
  // With debug events: tensors, sizes and strides, the output flag.
  demo::SyntheticRun with_outputs;
  with_outputs.executions = 2;
  with_outputs.log_program_output = true;
  check_flips(demo::synthetic_etdump(with_outputs, nullptr), read_as_etdump);
}

TEST_CASE("byte flips in a written bundled program read or fail cleanly", "[malformed][bundled]") {
  const auto program = mlp_program();
  check_flips(demo::bundled_mlp(program, 1), read_as_bundle);
}

TEST_CASE("byte flips in small fixture files read or fail cleanly", "[malformed][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  SECTION("programs") {
    for (const char* file : {"pte/add.pte", "pte/add_model_eh00.pte", "pte/module_linear_inline_constants.pte",
                             "pte/add_mul_old_identifier_et02.pte", "pte/simple_two.pte"}) {
      INFO(file);
      check_flips(fixture_bytes(file), read_as_program);
    }
  }
  SECTION("ETDumps") {
    for (const char* file : {"etdump/lenet_tutorial.etdp", "etdump/mobilenet_v2_xnnpack.etdp"}) {
      INFO(file);
      check_flips(fixture_bytes(file), read_as_etdump);
    }
  }
  SECTION("bundled program") { check_flips(fixture_bytes("bpte/add_mul_int.bpte"), read_as_bundle); }
}

TEST_CASE("random multi-byte corruption reads or fails cleanly", "[malformed]") {
  // Deterministic: xorshift64 with a fixed seed; 1 to 8 bytes overwritten
  // with random values per trial.
  uint64_t state = 0x2545F4914F6CDD1Dull;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  auto corrupt_trials = [&](const std::vector<uint8_t>& original, const ReadFn& read) {
    size_t failed = 0;
    std::vector<uint8_t> copy;
    for (int trial = 0; trial < 1500; ++trial) {
      copy = original;
      const int count = 1 + int(next() % 8);
      for (int k = 0; k < count; ++k) copy[next() % copy.size()] = uint8_t(next());
      auto error = read(ByteSpan(copy));
      if (error) {
        ++failed;
        CHECK_FALSE(error->message.empty());
      }
    }
    return failed;
  };
  const auto program = mlp_program();
  CHECK(corrupt_trials(program, read_as_program) > 0);
  CHECK(corrupt_trials(demo::synthetic_etdump(demo::SyntheticRun{}, nullptr), read_as_etdump) > 0);
  CHECK(corrupt_trials(demo::bundled_mlp(program, 2), read_as_bundle) > 0);
}

// ---------------------------------------------------------------------------
// Targeted damage

TEST_CASE("an ETDump whose size prefix exceeds the file is reported as truncated", "[malformed][etdump]") {
  auto bytes = demo::synthetic_etdump(demo::SyntheticRun{}, nullptr);
  REQUIRE(load_u32_le(bytes.data()) == bytes.size() - 4);
  for (uint32_t announced : {uint32_t(bytes.size() - 3), uint32_t(bytes.size() + 100), UINT32_MAX}) {
    INFO("prefix " << announced);
    store_u32_le(bytes.data(), announced);
    auto dump = ed::read_etdump(ByteSpan(bytes));
    REQUIRE_FALSE(dump.ok());
    CHECK(dump.error().kind == ErrorKind::kBadInput);
    CHECK_THAT(dump.error().message, Catch::Contains("truncated"));
    CHECK_FALSE(ed::etdump_layout(ByteSpan(bytes)).ok());
  }
  // A smaller prefix is allowed (trailing bytes are ignored, as flatc does)
  // when the region it announces still verifies: here, the exact size with
  // 8 extra bytes appended.
  store_u32_le(bytes.data(), uint32_t(bytes.size() - 4));
  bytes.resize(bytes.size() + 8, 0);
  CHECK(ed::read_etdump(ByteSpan(bytes)).ok());
}

TEST_CASE("wrong identifiers are rejected, naming the identifier found", "[malformed][errors]") {
  SECTION("program") {
    auto bytes = mlp_program();
    std::memcpy(bytes.data() + 4, "XY34", 4);
    auto program = pte::read_program(ByteSpan(bytes), nullptr);
    REQUIRE_FALSE(program.ok());
    CHECK(program.error().kind == ErrorKind::kBadInput);
    CHECK_THAT(program.error().message, Catch::Contains("XY34"));
    // Another ETxx version is "unsupported", naming both identifiers.
    std::memcpy(bytes.data() + 4, "ET13", 4);
    auto newer = pte::read_program(ByteSpan(bytes), nullptr);
    REQUIRE_FALSE(newer.ok());
    CHECK(newer.error().kind == ErrorKind::kUnsupported);
    CHECK_THAT(newer.error().message, Catch::Contains("ET13") && Catch::Contains("ET12"));
  }
  SECTION("ETDump") {
    auto bytes = demo::synthetic_etdump(demo::SyntheticRun{}, nullptr);
    std::memcpy(bytes.data() + 8, "ZZ99", 4);
    auto dump = ed::read_etdump(ByteSpan(bytes));
    REQUIRE_FALSE(dump.ok());
    CHECK_THAT(dump.error().message, Catch::Contains("ZZ99"));
  }
  SECTION("bundled program") {
    const auto program = mlp_program();
    auto bytes = demo::bundled_mlp(program, 1);
    std::memcpy(bytes.data() + 4, "QQ77", 4);
    auto bundle = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
    REQUIRE_FALSE(bundle.ok());
    CHECK(bundle.error().kind == ErrorKind::kBadInput);
    CHECK_THAT(bundle.error().message, Catch::Contains("QQ77"));
    // BP06 (v0.1.0) is a known older version: unsupported.
    std::memcpy(bytes.data() + 4, "BP06", 4);
    auto old = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
    REQUIRE_FALSE(old.ok());
    CHECK(old.error().kind == ErrorKind::kUnsupported);
    CHECK_THAT(old.error().message, Catch::Contains("BP06"));
  }
  SECTION("one format given to another format's reader") {
    const auto program = mlp_program();
    auto as_bundle = bundled::read_bundled_program(ByteSpan(program), nullptr);
    REQUIRE_FALSE(as_bundle.ok());
    CHECK_THAT(as_bundle.error().message, Catch::Contains("ET12"));
    const auto bundle = demo::bundled_mlp(program, 1);
    auto as_program = pte::read_program(ByteSpan(bundle), nullptr);
    REQUIRE_FALSE(as_program.ok());
    CHECK_THAT(as_program.error().message, Catch::Contains("BP08"));
    auto as_dump = ed::read_etdump(ByteSpan(program));
    REQUIRE_FALSE(as_dump.ok());
    // bytes 8..11 of the program are its eh00 header.
    CHECK_THAT(as_dump.error().message, Catch::Contains("eh00"));
  }
  SECTION("inputs too short to hold an identifier") {
    const std::vector<uint8_t> tiny = {1, 2, 3};
    CHECK_FALSE(pte::read_program(ByteSpan(tiny), nullptr).ok());
    CHECK_FALSE(ed::read_etdump(ByteSpan(tiny)).ok());
    CHECK_FALSE(bundled::read_bundled_program(ByteSpan(tiny), nullptr).ok());
    CHECK_FALSE(pte::read_program(ByteSpan(), nullptr).ok());
    CHECK_FALSE(ed::read_etdump(ByteSpan()).ok());
    CHECK_FALSE(bundled::read_bundled_program(ByteSpan(), nullptr).ok());
  }
}

TEST_CASE("an eh00 header shorter than 24 bytes is an error", "[malformed][pte]") {
  auto bytes = mlp_program();
  REQUIRE(std::memcmp(bytes.data() + 8, "eh00", 4) == 0);
  REQUIRE(load_u32_le(bytes.data() + 12) == 32);
  for (uint32_t length : {0u, 8u, 16u, 23u}) {
    INFO("length " << length);
    store_u32_le(bytes.data() + 12, length);
    auto header = pte::read_extended_header(ByteSpan(bytes));
    REQUIRE_FALSE(header.ok());
    CHECK(header.error().kind == ErrorKind::kBadInput);
    auto program = pte::read_program(ByteSpan(bytes), nullptr);
    REQUIRE_FALSE(program.ok());
    CHECK(program.error().kind == ErrorKind::kBadInput);
    CHECK_THAT(program.error().describe(), Catch::Contains("extended_header"));
  }
  // 24 (the old length) is valid: segment_data_size is then not read.
  store_u32_le(bytes.data() + 12, 24);
  auto old = pte::read_program(ByteSpan(bytes), nullptr);
  INFO((old ? std::string() : old.error().describe()));
  REQUIRE(old.ok());
  CHECK(old->extended_header->length == 24);
  CHECK(old->extended_header->segment_data_size == 0);
}

TEST_CASE("eh00 sizes beyond the file are errors", "[malformed][pte]") {
  const auto original = mlp_program();
  const uint64_t size = original.size();
  SECTION("program_size larger than the file") {
    auto bytes = original;
    store_u64_le(bytes.data() + 16, size + 1);
    CHECK_FALSE(pte::read_program(ByteSpan(bytes), nullptr).ok());
  }
  SECTION("segment_base_offset + segment_data_size beyond the file, or overflowing") {
    for (uint64_t base : {size, size - 1, UINT64_MAX - 7, uint64_t(1) << 63}) {
      INFO("base " << base);
      auto bytes = original;
      store_u64_le(bytes.data() + 24, base);
      CHECK_FALSE(pte::read_program(ByteSpan(bytes), nullptr).ok());
    }
    auto bytes = original;
    store_u64_le(bytes.data() + 32, UINT64_MAX);
    CHECK_FALSE(pte::read_program(ByteSpan(bytes), nullptr).ok());
  }
  SECTION("program_size too small for the FlatBuffer") {
    for (uint64_t program_size : {uint64_t(0), uint64_t(8), uint64_t(40)}) {
      INFO("program_size " << program_size);
      auto bytes = original;
      store_u64_le(bytes.data() + 16, program_size);
      CHECK_FALSE(pte::read_program(ByteSpan(bytes), nullptr).ok());
    }
  }
}

TEST_CASE("tensor_bytes rejects a debug buffer too short for the tensor", "[malformed][etdump]") {
  // FLOAT[2,3]: 24 bytes (element size 4, pte_spec.md §2).
  const ed::Tensor t{6, {2, 3}, {3, 1}, 64};
  std::vector<uint8_t> buffer(64 + 24);
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = uint8_t(i);

  auto whole = ed::tensor_bytes(ByteSpan(buffer), t);
  REQUIRE(whole.ok());
  CHECK(whole->size() == 24);
  CHECK(whole->data() == buffer.data() + 64);

  for (size_t short_size : {size_t(64 + 23), size_t(64), size_t(10), size_t(0)}) {
    INFO("buffer of " << short_size);
    const std::vector<uint8_t> shorter(buffer.begin(), buffer.begin() + std::ptrdiff_t(short_size));
    auto bytes = ed::tensor_bytes(ByteSpan(shorter), t);
    REQUIRE_FALSE(bytes.ok());
    CHECK(bytes.error().kind == ErrorKind::kBadInput);
    CHECK_THAT(bytes.error().message, Catch::Contains("too short"));
  }

  SECTION("offsets that are negative or overflow") {
    for (int64_t offset : {int64_t(-1), int64_t(-64), INT64_MAX, INT64_MAX - 23}) {
      INFO("offset " << offset);
      ed::Tensor bad = t;
      bad.offset = offset;
      CHECK_FALSE(ed::tensor_bytes(ByteSpan(buffer), bad).ok());
    }
  }
  SECTION("unknown dtype, negative and huge sizes") {
    ed::Tensor bad = t;
    bad.scalar_type = 30;
    CHECK_FALSE(ed::tensor_bytes(ByteSpan(buffer), bad).ok());
    bad = t;
    bad.sizes = {2, -3};
    CHECK_FALSE(ed::tensor_bytes(ByteSpan(buffer), bad).ok());
    bad = t;
    bad.sizes = {int64_t(1) << 31, int64_t(1) << 31, int64_t(1) << 31};
    CHECK_FALSE(ed::tensor_bytes(ByteSpan(buffer), bad).ok());
  }
  SECTION("a tensor without bytes needs no buffer") {
    ed::Tensor empty{6, {0, 3}, {3, 1}, -1};
    auto bytes = ed::tensor_bytes(ByteSpan(), empty);
    REQUIRE(bytes.ok());
    CHECK(bytes->empty());
  }
}

// BYTE sizes {2^20, 2^20, 2^24} describe 2^64 bytes, which wraps to 0 in
// uint64_t and would match an empty data vector if the product were checked
// only after multiplying.
TEST_CASE("a bundled tensor whose byte count overflows 64 bits is rejected", "[malformed][bundled]") {
  bundled::BundledProgram bundle;
  const auto program = mlp_program();
  bundle.program = ByteSpan(program);
  bundled::Tensor huge;
  huge.scalar_type = 0;  // BYTE
  huge.sizes = {1 << 20, 1 << 20, 1 << 24};
  huge.dim_order = {0, 1, 2};
  bundle.method_test_suites.push_back(bundled::MethodTestSuite{"forward", {bundled::TestCase{{huge}, {}}}});
  const auto bytes = bundled::write_bundled_program(bundle);
  auto read = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().message == "tensor sizes describe more than 2^40 bytes");
}

// FlatBuffers 2.0.8's verifier checks only the 4-byte alignment of a
// vector's length, so a corrupted offset can place an [i64] vector at 4 mod 8.
// The readers copy vector elements with memcpy, so such a file reads like
// flatc reads it, without misaligned loads (run under -DETKIT_SANITIZE=ON to
// see UBSan stay quiet). Reproduction: add.pte with bit 0 of byte 131
// flipped (the ExecutionPlan vtable slot of non_const_buffer_sizes, 0x0024 ->
// 0x0124); flatc decodes the same four values.
TEST_CASE("a program with a misaligned [i64] vector reads without misaligned loads", "[malformed][pte][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  auto bytes = fixture_bytes("pte/add.pte");
  REQUIRE(bytes.size() == 728);
  REQUIRE(bytes[130] == 0x24);
  REQUIRE(bytes[131] == 0x00);
  bytes[131] ^= 0x01;
  auto program = pte::read_program(ByteSpan(bytes), nullptr);
  REQUIRE(program.ok());
  CHECK(program->execution_plan.at(0).non_const_buffer_sizes ==
        std::vector<int64_t>{432345568522534850, 85899345952, -858993459196, 137438953473});
}
