// Helpers for runner tests: write a built program and read it back (so the
// runtime sees exactly what a file would give it), then load a method.
#pragma once

#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "runner/executor.h"
#include "runner/inputs.h"
#include "tests/support/test_support.h"

namespace etkit::test {

struct BuiltProgram {
  std::vector<uint8_t> bytes;
  pte::Program program;
};

inline std::unique_ptr<BuiltProgram> build_program(pte::ProgramBuilder& builder) {
  auto out = std::make_unique<BuiltProgram>();
  auto bytes = pte::write_program(builder.build());
  REQUIRE(bytes.ok());
  out->bytes = std::move(bytes).value();
  auto program = pte::read_program(ByteSpan(out->bytes), nullptr);
  INFO((program ? std::string() : program.error().describe()));
  REQUIRE(program.ok());
  out->program = std::move(program).value();
  return out;
}

inline std::vector<uint8_t> float_bytes(const std::vector<float>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

inline std::vector<float> floats_of(const rt::EValue& v) {
  REQUIRE(v.tag == rt::Tag::kTensor);
  const rt::Tensor& t = *v.tensor;
  REQUIRE(t.dtype() == ScalarType::kFloat);
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

}  // namespace etkit::test
