// Small programs several tests build their expectations around.
#pragma once

#include <vector>

#include "libcore/formats/bundled/bundled_writer.h"
#include "libcore/formats/program/program_builder.h"

namespace etkit::test {

// Adds forward(x: float[2]) = x * [2, 3] + x (z planned, x = [1, 2] gives
// [3, 8], ones give [3, 4]) to `b`: instruction 0 aten::mul.out, 1 aten::add.out.
inline void add_mul_add_forward(pte::ProgramBuilder& b) {
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t c = m.add_constant_tensor({2}, std::vector<float>{2.0f, 3.0f});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::mul", "out", {x, c, y, y});
  m.kernel_call("aten::add", "out", {y, x, m.add_int(1), z, z});
  m.set_inputs({x});
  m.set_outputs({z});
}

// forward(x: float[2]) = relu(x * [2, 3]): instruction 0 aten::mul.out,
// instruction 1 aten::relu.out.
inline pte::Program mul_relu_program() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t c = m.add_constant_tensor({2}, std::vector<float>{2, 3});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::mul", "out", {x, c, y, y});
  m.kernel_call("aten::relu", "out", {y, z, z});
  m.set_inputs({x});
  m.set_outputs({z});
  return b.build();
}

// A .bpte of `program` with one test case for method forward: a float32[n]
// input and the float32[n] output expected for it.
inline std::vector<uint8_t> one_case_bundle(const std::vector<uint8_t>& program, const std::vector<float>& input,
                                            const std::vector<float>& expected) {
  auto tensor = [](const std::vector<float>& v) {
    return bundled::Tensor{static_cast<int8_t>(ScalarType::kFloat), {static_cast<int32_t>(v.size())},
                           ByteSpan(reinterpret_cast<const uint8_t*>(v.data()), v.size() * sizeof(float)), {0}};
  };
  bundled::BundledProgram b;
  b.program = ByteSpan(program);
  b.method_test_suites = {{"forward", {bundled::TestCase{{tensor(input)}, {tensor(expected)}}}}};
  return bundled::write_bundled_program(b);
}

}  // namespace etkit::test
