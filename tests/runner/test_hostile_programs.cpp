// Programs that pass the reader but attack the runtime: one class of attack
// per test, each found by a mutation campaign on et-run (issue 16). What a
// program cannot be trusted with is refused with bad input naming the field
// or instruction; what only shows at run time stops the run the same way.
#include <chrono>
#include <fstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libcore/formats/etdump/etdump_reader.h"
#include "runner/backends/xnnpack/xnnpack_backend.h"
#include "runner/executor.h"
#include "tests/runner/runner_test_util.h"
#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::rt;
using test::build_program;

namespace {

// This process's resident memory (/proc/self/statm, in pages).
uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t total_pages = 0, resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * uint64_t(sysconf(_SC_PAGESIZE));
}

std::unique_ptr<LoadedMethod> load_ok(const pte::Program& program, const LoadOptions& options = {}) {
  auto method = load_method(program, "forward", options);
  INFO((method ? std::string() : method.error().describe()));
  REQUIRE(method.ok());
  return std::move(method).value();
}

Error load_fails(const pte::Program& program, const LoadOptions& options = {}) {
  auto method = load_method(program, "forward", options);
  REQUIRE_FALSE(method.ok());
  return method.error();
}

// Builds, then lets `edit` change the in-memory program before it is written
// and read back (what the builder itself would never produce).
template <typename Edit>
std::unique_ptr<test::BuiltProgram> edited(pte::ProgramBuilder& b, Edit edit) {
  pte::Program program = b.build();
  edit(program.execution_plan[0]);
  auto out = std::make_unique<test::BuiltProgram>();
  auto bytes = pte::write_program(program);
  REQUIRE(bytes.ok());
  out->bytes = std::move(bytes).value();
  auto read = pte::read_program(ByteSpan(out->bytes), nullptr);
  INFO((read ? std::string() : read.error().describe()));
  REQUIRE(read.ok());
  out->program = std::move(read).value();
  return out;
}

}  // namespace

TEST_CASE("a tensor used after a FreeCall released it stops the run, every execution", "[runner][hostile]") {
  // 0: y = x + x   1: free x   2: z = x + y (x is gone)
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t one = m.add_int(1);
  m.kernel_call("aten::add", "out", {x, x, one, y, y});
  m.free_value(x);
  m.kernel_call("aten::add", "out", {x, y, one, z, z});
  m.set_inputs({x});
  m.set_outputs({z});
  auto p = build_program(b);
  auto method = load_ok(p->program);
  for (int run = 0; run < 2; ++run) {
    auto s = execute(*method);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kBadInput);
    CHECK(s.error().field == "method 'forward'.chains[0].instructions[2]");
    CHECK(s.error().message == "uses a tensor after a FreeCall released it");
  }
}

TEST_CASE("a FreeCall lasts one execution: the next one uses the tensor again", "[runner][hostile]") {
  // y = x * 2 then free x: valid, and valid again on the second execution.
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t two = m.add_constant_tensor({1}, std::vector<float>{2});
  m.kernel_call("aten::mul", "out", {x, two, y, y});
  m.free_value(x);
  m.set_inputs({x});
  m.set_outputs({y});
  auto p = build_program(b);
  auto method = load_ok(p->program);
  for (float v : {1.5f, -4.0f}) {
    REQUIRE(method->set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{2}, ByteSpan(test::float_bytes({v, 1}))).ok());
    REQUIRE(execute(*method).ok());
    CHECK(test::floats_of(method->output(0)) == std::vector<float>{2 * v, 2});
  }
}

TEST_CASE("an output released by a FreeCall is an error, not a dangling result", "[runner][hostile]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.free_value(x);
  m.set_outputs({x});
  auto p = build_program(b);
  auto method = load_ok(p->program);
  auto s = execute(*method);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().field == "method 'forward'.outputs[0]");
  CHECK(s.error().message == "the output was released by a FreeCall");
}

TEST_CASE("constants are never written: kernel outputs, inputs and moved values", "[runner][hostile]") {
  SECTION("a kernel whose out argument is a constant is refused at load") {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
    const int32_t c = m.add_constant_tensor({2}, std::vector<float>{1, 2});
    m.kernel_call("aten::add", "out", {x, x, m.add_int(1), c, c});
    m.set_inputs({x});
    auto p = build_program(b);
    const Error e = load_fails(p->program);
    CHECK(e.kind == ErrorKind::kBadInput);
    CHECK(e.field == "method 'forward'.chains[0].instructions[0]");
    CHECK(e.message == "aten::add.out would write its output (value 1) into a constant of the program");
  }
  SECTION("a method input that is a constant is refused at load") {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    const int32_t c = m.add_constant_tensor({2}, std::vector<float>{1, 2});
    m.set_inputs({c});
    auto p = build_program(b);
    const Error e = load_fails(p->program);
    CHECK(e.field == "method 'forward'.inputs[0]");
    CHECK(e.message == "input 0 is value 0, a constant of the program");
  }
  SECTION("a MoveCall that hands a constant to an out slot stops the run") {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
    const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
    const int32_t c = m.add_constant_tensor({2}, std::vector<float>{1, 2});
    m.move(c, y);                                           // y now is the constant
    m.kernel_call("aten::add", "out", {x, x, m.add_int(1), y, y});
    m.set_inputs({x});
    auto p = build_program(b);
    auto method = load_ok(p->program);
    auto s = execute(*method);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kBadInput);
    CHECK(s.error().field == "method 'forward'.chains[0].instructions[1]");
    CHECK(s.error().message == "aten::add.out would write into a constant of the program");
    // The constant is untouched: 1, 2 as written.
    const auto* data = static_cast<const float*>(method->values()[size_t(c)].tensor->data());
    CHECK(data[0] == 1.0f);
    CHECK(data[1] == 2.0f);
  }
  SECTION("a view of a constant is as read-only as the constant") {
    // 0: v = et_view(c, [2])   1: v = x + x (writes through the view into c)
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
    const int32_t c = m.add_constant_tensor({2}, std::vector<float>{1, 2});
    const int32_t v = m.add_unplanned_tensor(ScalarType::kFloat, {2});
    m.kernel_call("executorch_prim::et_view", "default", {c, m.add_int_list({2}), v});
    m.kernel_call("aten::add", "out", {x, x, m.add_int(1), v, v});
    m.set_inputs({x});
    auto p = build_program(b);
    auto method = load_ok(p->program);
    auto s = execute(*method);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().field == "method 'forward'.chains[0].instructions[1]");
    CHECK(s.error().message == "aten::add.out would write into a constant of the program");
    const auto* data = static_cast<const float*>(method->values()[size_t(c)].tensor->data());
    CHECK(data[0] == 1.0f);
    CHECK(data[1] == 2.0f);
  }
  SECTION("an XNNPACK delegate output that is a constant stops the run") {
    test::XnnGraphBuilder g;
    const uint32_t in = g.input({2});
    const uint32_t out = g.output({2});
    g.node(xnn::NodeType::kAbs, {in}, {out});
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
    const int32_t c = m.add_constant_tensor({2}, std::vector<float>{1, 2});
    m.delegate_call(m.add_delegate(std::string(xnnpack::kBackendId), g.payload()), {x, c});
    m.set_inputs({x});
    auto p = build_program(b);
    BackendRegistry backends;
    REQUIRE(backends.add(std::string(xnnpack::kBackendId), xnnpack::make_backend()).ok());
    LoadOptions options;
    options.backends = &backends;
    auto method = load_ok(p->program, options);
    auto s = execute(*method);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kBadInput);
    CHECK(s.error().message.find("delegate argument 1 is an output of the delegate, but a constant of the program") !=
          std::string::npos);
  }
}

TEST_CASE("tensor sizes whose product wraps 64 bits are refused", "[runner][hostile]") {
  // 2^20 * 2^20 * 2^24 = 2^64 elements: 0 in wrapping arithmetic (and 0
  // bytes), so a wrapping check saw a harmless tensor.
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  m.add_unplanned_tensor(ScalarType::kFloat, {1 << 20, 1 << 20, 1 << 24});
  auto p = build_program(b);
  const Error e = load_fails(p->program);
  CHECK(e.field == "method 'forward'.values[0]");
  CHECK(e.message == "sizes whose strides exceed 2^40 elements");
}

TEST_CASE("the method's memory is bounded, and large arenas cost only what is touched", "[runner][hostile]") {
  auto program_with_arena = [](int64_t bytes) {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    m.add_planned_tensor(ScalarType::kFloat, {4});
    return edited(b, [&](pte::ExecutionPlan& plan) { plan.non_const_buffer_sizes = {0, bytes}; });
  };
  SECTION("beyond the limit: refused before anything is allocated") {
    auto p = program_with_arena(int64_t(16) << 30);  // one flipped byte away from a small arena
    const Error e = load_fails(p->program);
    CHECK(e.field == "method 'forward'.non_const_buffer_sizes[1]");
    CHECK(e.message == "arena 1 of 17179869184 bytes would take the method's memory to 17179869184 bytes, beyond its "
                       "limit of 4294967296");
  }
  SECTION("when the system refuses the memory: a runtime error naming the arena") {
#if defined(__SANITIZE_ADDRESS__)
    SUCCEED("skipped under ASan, whose shadow memory needs more address space than the limit leaves");
#else
    // In a child whose address space is capped 256 MiB above what it uses,
    // so the 3 GiB mapping (within the method's 4 GiB limit) fails.
    auto p = program_with_arena(int64_t(3) << 30);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      std::ifstream statm("/proc/self/statm");
      uint64_t total_pages = 0;
      statm >> total_pages;
      const rlim_t cap = rlim_t(total_pages * uint64_t(sysconf(_SC_PAGESIZE)) + (uint64_t(256) << 20));
      const rlimit limit{cap, cap};
      if (setrlimit(RLIMIT_AS, &limit) != 0) _exit(3);
      auto method = load_method(p->program, "forward", {});
      if (method.ok()) _exit(1);
      const bool named = method.error().kind == ErrorKind::kRuntime &&
                         method.error().message.find("out of memory for arena 1 of 3221225472 bytes") != std::string::npos;
      _exit(named ? 0 : 2);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));  // not killed by a signal
    CHECK(WEXITSTATUS(status) == 0);
#endif
  }
  SECTION("arenas and unplanned tensors count together") {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    m.add_planned_tensor(ScalarType::kFloat, {256});     // arena of 1024 bytes
    m.add_unplanned_tensor(ScalarType::kFloat, {256});   // 1024 more
    auto p = build_program(b);
    LoadOptions options;
    options.memory_limit = 2047;
    CHECK(load_fails(p->program, options).message ==
          "an unplanned tensor of 1024 bytes would take the method's memory to 2048 bytes, beyond its limit of 2047");
    options.memory_limit = 2048;
    CHECK(load_method(p->program, "forward", options).ok());
  }
  SECTION("a 3 GiB arena within the limit loads at once") {
    auto p = program_with_arena(int64_t(3) << 30);
    const uint64_t before = resident_bytes();
    auto method = load_ok(p->program);
    // Zero-filling the arena would make all 3 GiB resident; mapping it
    // touches none of it (measured as memory, not time, so a busy machine
    // cannot fail it).
    CHECK(resident_bytes() - before < (uint64_t(64) << 20));
    CHECK(method->arena_bytes() == uint64_t(3) << 30);
  }
}

TEST_CASE("planned offsets must be aligned for their dtype", "[runner][hostile]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  m.add_planned_tensor(ScalarType::kFloat, {2});
  m.add_planned_tensor(ScalarType::kByte, {2});
  auto p = edited(b, [](pte::ExecutionPlan& plan) {
    plan.non_const_buffer_sizes = {0, 64};
    std::get<pte::Tensor>(plan.values[0]).allocation_info->memory_offset = 6;  // floats at 6: misaligned
    std::get<pte::Tensor>(plan.values[1]).allocation_info->memory_offset = 3;  // bytes anywhere
  });
  const Error e = load_fails(p->program);
  CHECK(e.field == "method 'forward'.values[0]");
  CHECK(e.message == "memory_offset 6 is not aligned for 4-byte elements");
}

TEST_CASE("one execution is bounded in instructions, time and ETDump size", "[runner][hostile]") {
  // A self-loop: instruction 0 jumps to itself forever.
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  m.jump_false(m.add_bool(false), 0);
  auto p = build_program(b);
  auto method = load_ok(p->program);
  SECTION("by default after a million instructions") {
    auto s = execute(*method);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == ErrorKind::kRuntime);
    CHECK(s.error().message == "more than 1000000 instructions executed (endless loop?)");
  }
  SECTION("or as many as the caller allows") {
    ExecuteLimits limits;
    limits.max_instructions = 5;
    auto s = execute(*method, nullptr, limits);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "more than 5 instructions executed (endless loop?)");
  }
  SECTION("by wall time when asked") {
    ExecuteLimits limits;
    limits.max_instructions = UINT64_MAX;
    limits.timeout = std::chrono::milliseconds(20);
    const auto start = std::chrono::steady_clock::now();
    auto s = execute(*method, nullptr, limits);
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.rfind("execution exceeded its time limit after ", 0) == 0);
    CHECK(took >= std::chrono::milliseconds(20));
    CHECK(took < std::chrono::seconds(5));
  }
  SECTION("by the ETDump's size when traced") {
    EventTracer tracer;
    tracer.set_max_bytes(96 * 1000);  // room for about a thousand events
    ExecuteLimits limits;
    limits.max_instructions = UINT64_MAX;
    auto s = execute(*method, &tracer, limits);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message == "the ETDump would exceed its size limit of 96000 bytes");
    const auto dump = tracer.finish();
    CHECK(dump.size() <= 96 * 1000);
    auto read = etdump::read_etdump(ByteSpan(dump));
    REQUIRE(read.ok());
    // Each JF_CALL is one event; the block stopped at about a thousand.
    REQUIRE(read->run_data.size() == 1);
    CHECK(read->run_data[0].events->size() <= 1001);
    CHECK(read->run_data[0].events->size() >= 900);
  }
}
