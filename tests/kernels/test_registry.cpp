// The portable kernel table registers as a whole: no duplicate names, every
// kernel the fixture programs need is present, slot counts as the schemas say.
#include <thread>

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

TEST_CASE("the portable registry, built group by group, holds what registering every group at once holds",
          "[kernels][registry]") {
  KernelRegistry eager;
  REQUIRE(register_portable_kernels(eager).ok());
  const KernelRegistry& lazy = portable_kernel_registry();
  REQUIRE(lazy.names() == eager.names());
  CHECK(lazy.size() == eager.size());
  for (const auto& name : eager.names()) {
    INFO(name);
    const KernelInfo* a = eager.find(name);
    const KernelInfo* b = lazy.find(name);
    REQUIRE(b != nullptr);
    CHECK(b->num_args == a->num_args);
    CHECK(b->out_args == a->out_args);
    CHECK(b->prim == a->prim);
    CHECK(b->custom == a->custom);
  }
}

namespace {

// Three groups counting how often they are built; "shared::s.out" is in the
// first two, with different slot counts to tell them apart.
int g_built[3];
std::vector<KernelInfo> group_a() {
  ++g_built[0];
  std::vector<KernelInfo> t;
  t.push_back(named("a::x.out", 1));
  t.push_back(named("shared::s.out", 1));
  return t;
}
std::vector<KernelInfo> group_b() {
  ++g_built[1];
  std::vector<KernelInfo> t;
  t.push_back(named("shared::s.out", 2));
  t.push_back(named("b::y.out", 2));
  return t;
}
std::vector<KernelInfo> group_c() {
  ++g_built[2];
  std::vector<KernelInfo> t;
  t.push_back(named("c::z.out", 3));
  return t;
}
constexpr KernelGroup kGroups[] = {group_a, group_b, group_c};

std::vector<int> built() { return {g_built[0], g_built[1], g_built[2]}; }

}  // namespace

TEST_CASE("a lazy group is built when a lookup first reaches it, and once", "[kernels][registry]") {
  std::fill(std::begin(g_built), std::end(g_built), 0);
  KernelRegistry r;
  REQUIRE(r.add(named("e::eager.out", 7)).ok());
  r.add_lazy(kGroups);
  CHECK(built() == std::vector<int>{0, 0, 0});
  // Kernels added directly are searched first: no group is built.
  REQUIRE(r.find("e::eager.out") != nullptr);
  CHECK(built() == std::vector<int>{0, 0, 0});
  REQUIRE(r.find("a::x.out") != nullptr);
  CHECK(built() == std::vector<int>{1, 0, 0});
  // A name two groups have is the first group's.
  const KernelInfo* shared = r.find("shared::s.out");
  REQUIRE(shared != nullptr);
  CHECK(shared->num_args == 1);
  CHECK(built() == std::vector<int>{1, 0, 0});
  const KernelInfo* y = r.find("b::y.out");
  REQUIRE(y != nullptr);
  CHECK(y->num_args == 2);
  CHECK(built() == std::vector<int>{1, 1, 0});
  // A name no group has builds every group; nothing is built twice, and
  // pointers found earlier stay valid.
  CHECK(r.find("d::absent.out") == nullptr);
  CHECK(r.find("d::absent.out") == nullptr);
  CHECK(built() == std::vector<int>{1, 1, 1});
  CHECK(r.find("shared::s.out") == shared);
  CHECK(r.find("b::y.out") == y);
  CHECK(r.names() ==
        std::vector<std::string>{"a::x.out", "b::y.out", "c::z.out", "e::eager.out", "shared::s.out"});
  CHECK(r.size() == 5);
  CHECK(built() == std::vector<int>{1, 1, 1});

  // Moved, the registry keeps its groups and what they built.
  KernelRegistry moved = std::move(r);
  REQUIRE(moved.find("c::z.out") != nullptr);
  CHECK(moved.find("c::z.out")->num_args == 3);
  CHECK(built() == std::vector<int>{1, 1, 1});
}

TEST_CASE("size() and names() of a lazy registry build every group", "[kernels][registry]") {
  std::fill(std::begin(g_built), std::end(g_built), 0);
  KernelRegistry r;
  r.add_lazy(kGroups);
  CHECK(r.size() == 4);
  CHECK(built() == std::vector<int>{1, 1, 1});
}

TEST_CASE("adding to a registry with lazy groups keeps what find() returned and refuses their names",
          "[kernels][registry]") {
  std::fill(std::begin(g_built), std::end(g_built), 0);
  KernelRegistry r;
  // Added before the groups: it shadows group_a's kernel of the same name.
  REQUIRE(r.add(named("a::x.out", 9)).ok());
  r.add_lazy(kGroups);
  CHECK(r.find("a::x.out")->num_args == 9);
  CHECK(built() == std::vector<int>{0, 0, 0});

  // A refused add changes nothing: the groups stay lazy (only those the
  // lookup of the name reached are built) and what find() returned stays.
  const KernelInfo* x = r.find("a::x.out");
  const KernelInfo* shared = r.find("shared::s.out");
  auto clash = r.add(named("b::y.out", 4));
  REQUIRE_FALSE(clash.ok());
  CHECK(clash.error().message == "kernel 'b::y.out' is already registered");
  CHECK(built() == std::vector<int>{1, 1, 0});
  std::vector<KernelInfo> refused;
  refused.push_back(named("n::other.out", 6));
  refused.push_back(named("shared::s.out", 6));
  CHECK_FALSE(r.add_all(std::move(refused)).ok());
  CHECK(built() == std::vector<int>{1, 1, 1});
  CHECK(r.find("a::x.out") == x);
  CHECK(r.find("shared::s.out") == shared);
  CHECK(r.find("n::other.out") == nullptr);
  REQUIRE(r.add(named("n::new.out", 5)).ok());
  std::vector<KernelInfo> more;
  more.push_back(named("n::more.out", 6));
  more.push_back(named("c::z.out", 6));
  CHECK_FALSE(r.add_all(std::move(more)).ok());

  CHECK(r.find("a::x.out")->num_args == 9);
  CHECK(r.find("shared::s.out")->num_args == 1);
  CHECK(r.find("b::y.out")->num_args == 2);
  CHECK(r.find("c::z.out")->num_args == 3);
  CHECK(r.find("n::new.out")->num_args == 5);
  CHECK(r.find("n::more.out") == nullptr);
  CHECK(r.names() ==
        std::vector<std::string>{"a::x.out", "b::y.out", "c::z.out", "n::new.out", "shared::s.out"});
  CHECK(built() == std::vector<int>{1, 1, 1});
}

TEST_CASE("lookups from several threads build a lazy group once", "[kernels][registry]") {
  std::fill(std::begin(g_built), std::end(g_built), 0);
  KernelRegistry r;
  r.add_lazy(kGroups);
  const KernelInfo* found[4] = {};
  std::vector<std::thread> threads;
  for (auto& f : found) threads.emplace_back([&r, &f] { f = r.find("c::z.out"); });
  for (auto& t : threads) t.join();
  REQUIRE(found[0] != nullptr);
  for (const KernelInfo* f : found) CHECK(f == found[0]);
  CHECK(built() == std::vector<int>{1, 1, 1});
}

namespace {

std::vector<KernelInfo> group_with_duplicate() {
  std::vector<KernelInfo> t;
  t.push_back(named("d::one.out", 1));
  t.push_back(named("d::two.out", 2));
  t.push_back(named("d::two.out", 3));
  t.push_back(KernelInfo{});  // no name, no function
  return t;
}
constexpr KernelGroup kDuplicateGroup[] = {group_with_duplicate};

}  // namespace

TEST_CASE("a lazy group with a duplicate or unnamed kernel keeps the first of each name", "[kernels][registry]") {
  KernelRegistry r;
  r.add_lazy(kDuplicateGroup);
  REQUIRE(r.find("d::one.out") != nullptr);
  CHECK(r.find("d::one.out")->num_args == 1);
  REQUIRE(r.find("d::two.out") != nullptr);
  CHECK(r.find("d::two.out")->num_args == 2);
  CHECK(r.names() == std::vector<std::string>{"d::one.out", "d::two.out"});
}
