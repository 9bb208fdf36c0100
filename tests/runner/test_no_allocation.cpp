// execute() allocates nothing once a method is loaded (untraced): every
// allocation the hot path would need happens in load_method. Proven with a
// global operator new that counts.
#include <atomic>
#include <cstdlib>
#include <new>

#include "tests/runner/runner_test_util.h"

namespace {
std::atomic<size_t> g_allocations{0};
}

// Every allocating form is replaced together with its deallocating forms, so
// the pairs always match (sanitizers check this).
namespace {
void* counted_malloc(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
}  // namespace

void* operator new(std::size_t size) {
  if (void* p = counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  if (void* p = counted_malloc(size)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

using namespace etkit;
using namespace etkit::rt;

TEST_CASE("execute() allocates nothing after load", "[runner][allocation]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2, 3});
  const int32_t row = m.add_constant_tensor({3}, std::vector<float>{1, 2, 3});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2, 3});
  const int32_t flag = m.add_bool(true);
  const int32_t copy = m.add_unplanned_tensor(ScalarType::kFloat, {2, 3});
  m.kernel_call("aten::add", "out", {x, row, m.add_int(1), y, y});  // broadcasting
  m.kernel_call("aten::mul", "Scalar_out", {y, m.add_double(0.5), y, y});
  m.jump_false(flag, 4);
  m.move(y, copy);
  m.set_inputs({x});
  m.set_outputs({copy});
  auto p = test::build_program(b);
  auto method = load_method(p->program, "forward");
  REQUIRE(method.ok());
  auto& lm = **method;
  REQUIRE(execute(lm).ok());  // first run: nothing left to allocate lazily

  const size_t before = g_allocations.load();
  for (int i = 0; i < 10; ++i) {
    Status s = execute(lm);
    if (!s) FAIL(s.error().describe());
  }
  const size_t after = g_allocations.load();
  CHECK(after - before == 0);
  // (0 + [1,2,3]) * 0.5 with the zero-filled arena as input.
  CHECK(test::floats_of(lm.output(0)) == std::vector<float>{0.5f, 1.0f, 1.5f, 0.5f, 1.0f, 1.5f});
}
