// Uses an installed etkit: builds a one-method program in memory (z = x * c + x
// with c = [2, 3]), writes it as .pte bytes, reads them back with the
// verifying reader, runs the method on x = [1, 2] with the runner and prints
// what it found. Expected by hand: identifier ET12, z = [3, 8].
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "runner/executor.h"
#include "runner/method.h"

using namespace etkit;

namespace {

int fail(const std::string& what, const Error& error) {
  std::fprintf(stderr, "etkit-consumer: %s: %s\n", what.c_str(), error.describe().c_str());
  return 1;
}

}  // namespace

int main() {
  pte::ProgramBuilder builder;
  auto& m = builder.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t c = m.add_constant_tensor({2}, std::vector<float>{2.0f, 3.0f});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::mul", "out", {x, c, y, y});
  m.kernel_call("aten::add", "out", {y, x, m.add_int(1), z, z});
  m.set_inputs({x});
  m.set_outputs({z});

  auto bytes = pte::write_program(builder.build());
  if (!bytes) return fail("write", bytes.error());
  auto program = pte::read_program(ByteSpan(*bytes), nullptr);
  if (!program) return fail("read", program.error());
  // The file identifier sits at bytes [4, 8) of a program.
  std::printf("identifier %.4s\n", reinterpret_cast<const char*>(bytes->data() + 4));
  std::printf("methods %zu\n", program->execution_plan.size());

  auto method = rt::load_method(*program, "forward");
  if (!method) return fail("load", method.error());
  const std::vector<float> input = {1.0f, 2.0f};
  std::vector<uint8_t> input_bytes(sizeof(float) * input.size());
  std::memcpy(input_bytes.data(), input.data(), input_bytes.size());
  auto set = (*method)->set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{2}, ByteSpan(input_bytes));
  if (!set) return fail("input", set.error());
  auto run = rt::execute(**method);
  if (!run) return fail("execute", run.error());
  const rt::Tensor& out = *(*method)->output(0).tensor;
  std::printf("forward([1, 2]) = [%g, %g]\n", double(out.data_as<float>()[0]), double(out.data_as<float>()[1]));
  return 0;
}
