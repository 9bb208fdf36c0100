// Real BundledPrograms (../shared/fixtures/bpte) read through
// etkit::bundled::read_bundled_program, checked against facts derived
// independently of etkit:
//   * "flatc": Debian's flatc 2.0.8,
//       flatc --json --strict-json --defaults-json schemas/bundled_program.fbs -- FILE
//     summarised with python3 (tensor data decoded with struct.unpack);
//     the embedded program was written out from the JSON and decoded again
//     with schemas/program.fbs;
//   * "raw": python3 on the file bytes (bytes.find of the program);
//   * "spec": bundled_spec.md §5 and pte_spec.md §1.2.
// No number below was printed by etkit.
#include <cstring>
#include <string>
#include <vector>

#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/support/file.h"
#include "tests/support/test_support.h"

using namespace etkit;

namespace {

struct LoadedBundle {
  std::shared_ptr<const InputFile> file;
  bundled::BundledProgram bundle;
  size_t file_offset(ByteSpan span) const { return size_t(span.data() - file->bytes().data()); }
};

LoadedBundle load_bundle(const std::string& relative) {
  auto file = InputFile::open(test::fixture(relative).string());
  INFO(relative << (file ? std::string() : ": " + file.error().describe()));
  REQUIRE(file.ok());
  auto bundle = bundled::read_bundled_program(*file);
  INFO((bundle ? std::string() : bundle.error().describe()));
  REQUIRE(bundle.ok());
  return LoadedBundle{*file, std::move(bundle).value()};
}

const bundled::Tensor& tensor_at(const std::vector<bundled::Value>& values, size_t i) {
  INFO("value " << i);
  REQUIRE(i < values.size());
  const auto* t = std::get_if<bundled::Tensor>(&values[i]);
  REQUIRE(t != nullptr);
  return *t;
}

template <typename T>
std::vector<T> elements(ByteSpan bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

float float_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

TEST_CASE("add_mul_int.bpte: one forward suite of 10 identical int32 cases", "[fixtures][bundled]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load_bundle("bpte/add_mul_int.bpte");
  const auto& bundle = loaded.bundle;
  // spec §5: 4608 bytes, root offset 44, BP08, version 2.
  CHECK(loaded.file->bytes().size() == 4608);
  CHECK(load_u32_le(loaded.file->bytes().data()) == 44);
  CHECK(std::memcmp(loaded.file->bytes().data() + 4, "BP08", 4) == 0);
  CHECK(bundle.version == 2);

  REQUIRE(bundle.method_test_suites.size() == 1);
  CHECK(bundle.method_test_suites[0].method_name == "forward");
  CHECK(bundle.find_suite("forward") == &bundle.method_test_suites[0]);
  CHECK(bundle.find_suite("backward") == nullptr);
  const auto& cases = bundle.method_test_suites[0].test_cases;
  REQUIRE(cases.size() == 10);

  // flatc: every case: x = y = zeros INT[2,2] dim_order [0,1] -> INT[2,2] all 2s.
  for (size_t c = 0; c < cases.size(); ++c) {
    INFO("case " << c);
    REQUIRE(cases[c].inputs.size() == 2);
    REQUIRE(cases[c].expected_outputs.size() == 1);
    for (size_t i = 0; i < 2; ++i) {
      const auto& in = tensor_at(cases[c].inputs, i);
      CHECK(in.scalar_type == 3);  // INT
      CHECK(in.sizes == std::vector<int32_t>{2, 2});
      CHECK(in.dim_order == std::vector<uint8_t>{0, 1});
      REQUIRE(in.data.size() == 16);
      CHECK(elements<int32_t>(in.data) == std::vector<int32_t>{0, 0, 0, 0});
      // spec §5: every data vector starts on a 16-byte boundary of the file.
      CHECK(loaded.file_offset(in.data) % 16 == 0);
    }
    const auto& out = tensor_at(cases[c].expected_outputs, 0);
    CHECK(out.scalar_type == 3);
    CHECK(out.sizes == std::vector<int32_t>{2, 2});
    CHECK(out.dim_order == std::vector<uint8_t>{0, 1});
    REQUIRE(out.data.size() == 16);
    CHECK(elements<int32_t>(out.data) == std::vector<int32_t>{2, 2, 2, 2});
    CHECK(loaded.file_offset(out.data) % 16 == 0);
  }
}

TEST_CASE("add_mul_int.bpte: the embedded program has an old 24-byte header and reads", "[fixtures][bundled][pte]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load_bundle("bpte/add_mul_int.bpte");
  const ByteSpan program_bytes = loaded.bundle.program;
  // spec §5 / raw: 1696 bytes at file offset 64 (32-byte aligned).
  CHECK(program_bytes.size() == 1696);
  CHECK(loaded.file_offset(program_bytes) == 64);
  CHECK(std::memcmp(program_bytes.data() + 4, "ET12", 4) == 0);

  auto program = pte::read_program(program_bytes, loaded.bundle.storage);
  INFO((program ? std::string() : program.error().describe()));
  REQUIRE(program.ok());
  // pte_spec.md §1.2 table: length 24, program_size 1584, base 1664, no data size.
  REQUIRE(program->extended_header.has_value());
  CHECK(program->extended_header->length == 24);
  CHECK(program->extended_header->program_size == 1584);
  CHECK(program->extended_header->segment_base_offset == 1664);
  CHECK(program->extended_header->segment_data_size == 0);
  // spec §5: constant offsets [0, 0, 16]: buffer 1 INT[2,2] of 3s, buffer 2 of 2s.
  REQUIRE(program->constant_segment.has_value());
  CHECK(program->constant_segment->offsets == std::vector<uint64_t>{0, 0, 16});
  REQUIRE(program->segments.size() == 1);
  CHECK(program->segments[0].size == 32);  // flatc
  REQUIRE(program->segment_data.at(0).size() == 32);
  CHECK(elements<int32_t>(program->segment_data[0]) == std::vector<int32_t>{3, 3, 3, 3, 2, 2, 2, 2});
  // Segment offsets stay relative to the embedded program (spec §1).
  CHECK(program->segment_data[0].data() == program_bytes.data() + 1664);

  REQUIRE(program->execution_plan.size() == 1);
  const auto& plan = program->execution_plan[0];
  CHECK(plan.name == "forward");
  CHECK(plan.values.size() == 9);  // flatc
  CHECK(plan.inputs == std::vector<int32_t>{2, 3});
  CHECK(plan.outputs == std::vector<int32_t>{7});
  CHECK(plan.non_const_buffer_sizes == std::vector<int64_t>{0, 48});  // arena 48 bytes
  // spec §5: three kernels mul.out, add.out, add.out.
  std::vector<std::string> kernels;
  for (const auto& instr : plan.chains.at(0).instructions) {
    kernels.push_back(plan.operators.at(size_t(std::get<pte::KernelCall>(instr).op_index)).full_name());
  }
  CHECK(kernels == std::vector<std::string>{"aten::mul.out", "aten::add.out", "aten::add.out"});
}

TEST_CASE("lenet_tutorial.bpte: two FLOAT cases and the program of lenet_tutorial.pte", "[fixtures][bundled]") {
  ETKIT_REQUIRE_FIXTURES();
  const auto loaded = load_bundle("bpte/lenet_tutorial.bpte");
  const auto& bundle = loaded.bundle;
  // spec §5.1: 261344 bytes, root offset 44, version 2, one suite with 2 cases.
  CHECK(loaded.file->bytes().size() == 261344);
  CHECK(load_u32_le(loaded.file->bytes().data()) == 44);
  CHECK(bundle.version == 2);
  REQUIRE(bundle.method_test_suites.size() == 1);
  CHECK(bundle.method_test_suites[0].method_name == "forward");
  const auto& cases = bundle.method_test_suites[0].test_cases;
  REQUIRE(cases.size() == 2);

  // spec §5.1: input FLOAT[1,1,32,32] (4096 bytes, dim_order 0..3), expected
  // FLOAT[1,10] (40 bytes, dim_order 0,1).
  for (const auto& tc : cases) {
    REQUIRE(tc.inputs.size() == 1);
    REQUIRE(tc.expected_outputs.size() == 1);
    const auto& in = tensor_at(tc.inputs, 0);
    CHECK(in.scalar_type == 6);
    CHECK(in.sizes == std::vector<int32_t>{1, 1, 32, 32});
    CHECK(in.dim_order == std::vector<uint8_t>{0, 1, 2, 3});
    CHECK(in.data.size() == 4096);
    const auto& out = tensor_at(tc.expected_outputs, 0);
    CHECK(out.scalar_type == 6);
    CHECK(out.sizes == std::vector<int32_t>{1, 10});
    CHECK(out.dim_order == std::vector<uint8_t>{0, 1});
    CHECK(out.data.size() == 40);
  }
  // flatc + struct.unpack: first elements as exact bit patterns (first four
  // data bytes, little-endian), and the double-precision sums of all elements.
  const auto in0 = elements<float>(tensor_at(cases[0].inputs, 0).data);
  const auto out0 = elements<float>(tensor_at(cases[0].expected_outputs, 0).data);
  const auto in1 = elements<float>(tensor_at(cases[1].inputs, 0).data);
  const auto out1 = elements<float>(tensor_at(cases[1].expected_outputs, 0).data);
  CHECK(in0.at(0) == float_from_bits(0x3DA7760Cu));   // bytes 12 118 167 61 = 0.0817681...
  CHECK(out0.at(0) == float_from_bits(0xBD712319u));  // bytes 25 35 113 189 = -0.0588713...
  CHECK(in1.at(0) == float_from_bits(0x3F124989u));   // bytes 137 73 18 63 = 0.5714345...
  CHECK(out1.at(0) == float_from_bits(0xBD897936u));  // bytes 54 121 137 189 = -0.0671257...
  CHECK(in0.at(0) == Approx(0.08176812529563904));
  CHECK(out0.at(0) == Approx(-0.05887136235833168));
  auto sum = [](const std::vector<float>& v) {
    double s = 0;
    for (float f : v) s += f;
    return s;
  };
  CHECK(sum(in0) == Approx(31.76026555491262).epsilon(1e-12));
  CHECK(sum(out0) == Approx(0.1763800736516714).epsilon(1e-12));
  CHECK(sum(in1) == Approx(-32.51495722995605).epsilon(1e-12));
  CHECK(sum(out1) == Approx(0.2550601400434971).epsilon(1e-12));

  // spec §5.1: the embedded program (252600 bytes at offset 64) is
  // byte-identical to pte/lenet_tutorial.pte, and readable.
  CHECK(bundle.program.size() == 252600);
  CHECK(loaded.file_offset(bundle.program) == 64);
  const auto standalone = test::read_bytes(test::fixture("pte/lenet_tutorial.pte"));
  CHECK(std::vector<uint8_t>(bundle.program.begin(), bundle.program.end()) == standalone);
  auto program = pte::read_program(bundle.program, bundle.storage);
  INFO((program ? std::string() : program.error().describe()));
  REQUIRE(program.ok());
  REQUIRE(program->extended_header.has_value());
  CHECK(program->extended_header->length == 24);
  CHECK(program->extended_header->program_size == 5744);
  CHECK(program->extended_header->segment_base_offset == 5760);
  REQUIRE(program->execution_plan.size() == 1);
  CHECK(program->execution_plan[0].chains.at(0).instructions.size() == 14);
}

TEST_CASE("bundled fixtures read the same from a byte span as from an InputFile", "[fixtures][bundled]") {
  ETKIT_REQUIRE_FIXTURES();
  // flatc: (suites, cases) per file.
  const std::pair<const char*, size_t> all[] = {{"bpte/add_mul_int.bpte", 10}, {"bpte/lenet_tutorial.bpte", 2}};
  for (const auto& [file, count] : all) {
    INFO(file);
    const auto bytes = test::read_bytes(test::fixture(file));
    auto bundle = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
    INFO((bundle ? std::string() : bundle.error().describe()));
    REQUIRE(bundle.ok());
    REQUIRE(bundle->method_test_suites.size() == 1);
    CHECK(bundle->method_test_suites[0].test_cases.size() == count);
    CHECK(bundle->program.data() == bytes.data() + 64);  // raw: program at offset 64 in both
  }
}
