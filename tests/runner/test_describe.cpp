// describe_program: what a program needs, judged against the registries it
// is given (not only the host's), counted per instruction.
#include <nlohmann/json.hpp>

#include "runner/backends/xnnpack/xnnpack_backend.h"
#include "runner/describe.h"
#include "tests/runner/runner_test_util.h"

using namespace etkit;
using namespace etkit::rt;

TEST_CASE("describe_program marks operators and backends by the registries given", "[runner][describe]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {3}, pte::ShapeDynamism::kDynamicUnbound);
  const int32_t y = m.add_planned_tensor(ScalarType::kInt, {3});
  m.kernel_call("aten::relu", "out", {x, x, x});
  m.kernel_call("aten::abs", "out", {x, x, x});
  m.kernel_call("aten::relu", "out", {x, x, x});
  m.delegate_call(m.add_delegate("XnnpackBackend", {0}), {x, y});
  m.add_delegate("UnusedBackend", {0});  // loaded, so needed, though no instruction calls it
  m.set_inputs({x});
  m.set_outputs({y, x});
  const auto built = test::build_program(b);

  KernelRegistry kernels;  // only relu
  KernelInfo relu;
  relu.name = "aten::relu.out";
  relu.fn = [](KernelContext&, std::span<EValue* const>) -> Status { return {}; };
  REQUIRE(kernels.add(relu).ok());
  BackendRegistry backends;
  REQUIRE(backends.add(std::string(xnnpack::kBackendId), xnnpack::make_backend()).ok());

  const ProgramDescription d = describe_program(built->program, kernels, backends);
  REQUIRE(d.methods.size() == 1);
  const DescribedMethod& f = d.methods[0];
  REQUIRE(f.inputs.size() == 1);
  CHECK(f.inputs[0].type == "Tensor");
  CHECK(f.inputs[0].sizes == std::vector<int32_t>{3});
  CHECK(f.inputs[0].dynamism == pte::ShapeDynamism::kDynamicUnbound);
  REQUIRE(f.outputs.size() == 2);
  CHECK(f.outputs[0].scalar_type == int(ScalarType::kInt));
  REQUIRE(f.operators.size() == 2);  // the operator table: relu once, though called twice
  CHECK((f.operators[0].name == "aten::relu.out" && f.operators[0].calls == 2 && f.operators[0].supported));
  CHECK((f.operators[1].name == "aten::abs.out" && f.operators[1].calls == 1 && !f.operators[1].supported));
  REQUIRE(f.delegates.size() == 2);
  CHECK((f.delegates[0].name == "XnnpackBackend" && f.delegates[0].calls == 1 && f.delegates[0].supported));
  CHECK((f.delegates[1].name == "UnusedBackend" && f.delegates[1].calls == 0 && !f.delegates[1].supported));
  CHECK_FALSE(d.all_supported());

  // The same program against the portable kernels: abs is there, the unused backend still is not.
  CHECK_FALSE(describe_program(built->program, portable_kernel_registry(), backends).all_supported());
  CHECK(describe_text(d).find("    0: FLOAT[3] dynamic, unbounded\n") != std::string::npos);
}
