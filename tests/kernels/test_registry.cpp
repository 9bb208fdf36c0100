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

namespace {

KernelInfo named(std::string name, int num_args = 1) {
  KernelInfo k;
  k.name = std::move(name);
  k.fn = [](KernelContext&, std::span<EValue* const>) -> etkit::Status { return {}; };
  k.num_args = num_args;
  return k;
}

}  // namespace

TEST_CASE("a registry finds exactly the names added, in any order of adding", "[kernels][registry]") {
  KernelRegistry r;
  REQUIRE(r.add(named("ns::b.out", 2)).ok());
  std::vector<KernelInfo> more;
  more.push_back(named("ns::c.out", 3));
  more.push_back(named("ns::a.out", 1));
  more.push_back(named("ns::a", 4));
  REQUIRE(r.add_all(std::move(more)).ok());
  REQUIRE(r.add(named("ns::aa.out", 5)).ok());
  CHECK(r.size() == 5);
  CHECK(r.names() == std::vector<std::string>{"ns::a", "ns::a.out", "ns::aa.out", "ns::b.out", "ns::c.out"});
  const std::pair<const char*, int> expected[] = {{"ns::a", 4}, {"ns::a.out", 1}, {"ns::aa.out", 5}, {"ns::b.out", 2}, {"ns::c.out", 3}};
  for (const auto& [name, slots] : expected) {
    INFO(name);
    const KernelInfo* k = r.find(name);
    REQUIRE(k != nullptr);
    CHECK(k->name == name);
    CHECK(k->num_args == slots);
  }
  // Prefixes, extensions and neighbours of registered names are not found.
  for (const char* absent : {"", "ns::", "ns::a.", "ns::a.outx", "ns::b", "ns::d.out", "a"}) {
    INFO(absent);
    CHECK(r.find(absent) == nullptr);
  }
}

TEST_CASE("a duplicate kernel is refused, and add_all then adds nothing", "[kernels][registry]") {
  KernelRegistry r;
  REQUIRE(r.add(named("ns::x.out")).ok());
  auto again = r.add(named("ns::x.out"));
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message == "kernel 'ns::x.out' is already registered");

  std::vector<KernelInfo> clash_with_registry;
  clash_with_registry.push_back(named("ns::w.out"));
  clash_with_registry.push_back(named("ns::x.out"));
  auto s1 = r.add_all(std::move(clash_with_registry));
  REQUIRE_FALSE(s1.ok());
  CHECK(s1.error().message == "kernel 'ns::x.out' is already registered");

  std::vector<KernelInfo> clash_within;
  clash_within.push_back(named("ns::y.out"));
  clash_within.push_back(named("ns::z.out"));
  clash_within.push_back(named("ns::y.out"));
  auto s2 = r.add_all(std::move(clash_within));
  REQUIRE_FALSE(s2.ok());
  CHECK(s2.error().message == "kernel 'ns::y.out' is already registered");

  std::vector<KernelInfo> unnamed;
  unnamed.push_back(named("ns::v.out"));
  unnamed.push_back(named(""));
  CHECK_FALSE(r.add_all(std::move(unnamed)).ok());

  CHECK(r.names() == std::vector<std::string>{"ns::x.out"});
  CHECK(r.find("ns::w.out") == nullptr);
  CHECK(r.find("ns::y.out") == nullptr);
  CHECK(r.find("ns::v.out") == nullptr);
}

TEST_CASE("every portable kernel is found under its own name", "[kernels][registry]") {
  const KernelRegistry& r = portable_kernel_registry();
  const auto names = r.names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  for (const auto& name : names) {
    const KernelInfo* k = r.find(name);
    REQUIRE(k != nullptr);
    CHECK(k->name == name);
  }
}
