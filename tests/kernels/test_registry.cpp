// The portable kernel table registers as a whole: no duplicate names, every
// kernel the fixture programs need is present, slot counts as the schemas say.
#include "tests/support/kernel_harness.h"

using namespace etkit::rt;

TEST_CASE("the portable kernels register without duplicates", "[kernels][registry]") {
  KernelRegistry registry;
  auto status = register_portable_kernels(registry);
  INFO((status ? std::string() : status.error().describe()));
  REQUIRE(status.ok());
  CHECK(registry.size() == portable_kernel_registry().size());
}

TEST_CASE("kernels used by the LeNet programs exist with their slot counts", "[kernels][registry]") {
  // Slot counts = schema arguments + 1 return slot (portable_ops.md table A).
  const std::pair<const char*, int> expected[] = {
      {"aten::convolution.out", 11}, {"aten::relu.out", 3},   {"aten::max_pool2d_with_indices.out", 9},
      {"aten::permute_copy.out", 4}, {"aten::addmm.out", 7},  {"aten::add.out", 5},
      {"aten::mul.out", 4},          {"aten::_softmax.out", 5}, {"aten::mean.out", 6},
      {"dim_order_ops::_to_dim_order_copy.out", 5}, {"aten::expand_copy.out", 5}, {"aten::where.self_out", 5},
  };
  for (const auto& [name, slots] : expected) {
    INFO(name);
    const KernelInfo* k = portable_kernel_registry().find(name);
    REQUIRE(k != nullptr);
    CHECK(k->num_args == slots);
  }
}
