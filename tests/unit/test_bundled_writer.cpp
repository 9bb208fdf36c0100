// BundledProgram writer -> reader round trip, with the alignments the
// schema forces (program 32, tensor data 16) and suites sorted by name.
#include "examples/demo_models.h"
#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/bundled/bundled_writer.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;

TEST_CASE("bundled MLP: program embedded in place, cases and expected outputs", "[writer][bundled]") {
  auto program_bytes = pte::write_program(demo::mlp());
  REQUIRE(program_bytes.ok());
  const auto bytes = demo::bundled_mlp(*program_bytes, 2);
  auto bundle = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
  INFO((bundle ? std::string() : bundle.error().describe()));
  REQUIRE(bundle.ok());
  CHECK(bundle->version == 2);
  CHECK((bundle->program.data() - bytes.data()) % 32 == 0);
  CHECK(std::vector<uint8_t>(bundle->program.begin(), bundle->program.end()) == *program_bytes);
  CHECK(pte::read_program(bundle->program, nullptr).ok());

  REQUIRE(bundle->method_test_suites.size() == 1);
  const auto& cases = bundle->method_test_suites[0].test_cases;
  REQUIRE(cases.size() == 2);
  const auto& input = std::get<bundled::Tensor>(cases[1].inputs.at(0));
  CHECK(input.sizes == std::vector<int32_t>{1, demo::kMlpIn});
  CHECK((input.data.data() - bytes.data()) % 16 == 0);
  const auto expected_input = demo::weights(demo::kMlpIn, 1001, 1.0f);
  CHECK(std::memcmp(input.data.data(), expected_input.data(), input.data.size()) == 0);

  // Expected output: computed here from the weights with plain loops.
  const auto& expected = std::get<bundled::Tensor>(cases[1].expected_outputs.at(0));
  REQUIRE(expected.data.size() == demo::kMlpOut * 4);
  std::vector<float> hidden(demo::kMlpHidden);
  const auto w1 = demo::weights(8 * 16, 11, 1.0f / std::sqrt(8.0f));
  const auto b1 = demo::weights(16, 111, 0.1f);
  const auto w2 = demo::weights(16 * 4, 12, 0.25f);
  const auto b2 = demo::weights(4, 112, 0.1f);
  for (int o = 0; o < 16; ++o) {
    float acc = b1[size_t(o)];
    for (int i = 0; i < 8; ++i) acc += w1[size_t(o * 8 + i)] * expected_input[size_t(i)];
    hidden[size_t(o)] = std::max(acc, 0.0f);
  }
  for (int o = 0; o < 4; ++o) {
    float acc = b2[size_t(o)];
    for (int i = 0; i < 16; ++i) acc += w2[size_t(o * 16 + i)] * hidden[size_t(i)];
    float got;
    std::memcpy(&got, expected.data.data() + 4 * o, 4);
    CHECK(got == Approx(acc).epsilon(1e-5));
  }
}

TEST_CASE("bundled suites are written sorted by method name", "[writer][bundled]") {
  const std::vector<uint8_t> program{0, 0, 0, 0, 'E', 'T', '1', '2'};
  bundled::BundledProgram b;
  b.program = ByteSpan(program);
  b.method_test_suites = {{"zeta", {}}, {"alpha", {bundled::TestCase{{bundled::Int{5}, bundled::Double{1.5}}, {}}}}};
  const auto bytes = bundled::write_bundled_program(b);
  auto back = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
  REQUIRE(back.ok());
  REQUIRE(back->method_test_suites.size() == 2);
  CHECK(back->method_test_suites[0].method_name == "alpha");
  CHECK(back->method_test_suites[1].method_name == "zeta");
  CHECK(std::get<bundled::Int>(back->method_test_suites[0].test_cases[0].inputs[0]).value == 5);
  CHECK(std::get<bundled::Double>(back->method_test_suites[0].test_cases[0].inputs[1]).value == 1.5);
  CHECK(back->find_suite("zeta") != nullptr);
}

TEST_CASE("a bundled tensor whose data does not match its sizes is rejected", "[writer][bundled][errors]") {
  const std::vector<uint8_t> program{0, 0, 0, 0, 'E', 'T', '1', '2'};
  const std::vector<uint8_t> data(12, 0);  // INT[2,2] needs 16 bytes
  bundled::BundledProgram b;
  b.program = ByteSpan(program);
  b.method_test_suites = {{"forward", {bundled::TestCase{{bundled::Tensor{3, {2, 2}, ByteSpan(data), {0, 1}}}, {}}}}};
  const auto bytes = bundled::write_bundled_program(b);
  auto back = bundled::read_bundled_program(ByteSpan(bytes), nullptr);
  REQUIRE_FALSE(back.ok());
  CHECK(back.error().field == "method_test_suites[0].test_cases[0].inputs[0]");
  CHECK(back.error().message == "data has 12 bytes but the sizes need 16");
}
