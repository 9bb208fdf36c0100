// The runtime on programs built with the project's program writer: every
// instruction kind, control flow, shared arenas, several methods, and the
// load-time checks. Expected values are worked out by hand in comments.
#include "libcore/formats/etdump/etdump_reader.h"
#include "runner/executor.h"
#include "tests/runner/runner_test_util.h"

using namespace etkit;
using namespace etkit::rt;
using test::build_program;

namespace {

// z = x * c + x, with z planned on top of x's bytes (outputs reusing input
// memory is normal in real programs).
std::unique_ptr<test::BuiltProgram> mul_add_program() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});               // offset 0
  const int32_t c = m.add_constant_tensor({2}, std::vector<float>{2.0f, 3.0f});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});               // offset 16
  const int32_t z = m.add_planned_tensor_at(ScalarType::kFloat, {2}, 0);         // aliases x
  m.kernel_call("aten::mul", "out", {x, c, y, y});
  m.kernel_call("aten::add", "out", {y, x, m.add_int(1), z, z});
  m.set_inputs({x});
  m.set_outputs({z});
  auto& second = b.add_method("answer");
  second.set_outputs({second.add_int(42)});
  return build_program(b);
}

}  // namespace

TEST_CASE("a planned program runs, with its output aliasing its input", "[runner]") {
  auto p = mul_add_program();
  auto method = load_method(p->program, "forward");
  REQUIRE(method.ok());
  auto& m = **method;
  CHECK(m.arena_bytes() == 32);  // two FLOAT[2] slots at 0 and 16
  const std::vector<float> x = {1.0f, 2.0f};
  // x*c = [2, 6]; + x = [3, 8]
  REQUIRE(m.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{2}, ByteSpan(test::float_bytes(x))).ok());
  REQUIRE(execute(m).ok());
  CHECK(test::floats_of(m.output(0)) == std::vector<float>{3.0f, 8.0f});
  // The output overwrote the input: without setting it again the next run
  // computes from [3, 8]: [3*2+3, 8*3+8] = [9, 32].
  REQUIRE(execute(m).ok());
  CHECK(test::floats_of(m.output(0)) == std::vector<float>{9.0f, 32.0f});
}

TEST_CASE("a method without instructions returns its constants", "[runner]") {
  auto p = mul_add_program();
  auto method = load_method(p->program, "answer");
  REQUIRE(method.ok());
  REQUIRE(execute(**method).ok());
  CHECK((*method)->output(0).tag == Tag::kInt);
  CHECK((*method)->output(0).i == 42);
  auto missing = load_method(p->program, "backward");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "no method 'backward' (methods: forward, answer)");
}

TEST_CASE("every missing operator is listed once, before anything runs", "[runner][errors]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t t = m.add_planned_tensor(ScalarType::kFloat, {1});
  m.kernel_call("my_ns::frobnicate", "out", {t, t, t});
  m.kernel_call("aten::add", "out", {t, t, m.add_int(1), t, t});
  m.kernel_call("my_ns::defrobnicate", "out", {t, t});
  m.kernel_call("my_ns::frobnicate", "out", {t, t, t});
  m.set_outputs({t});
  auto p = build_program(b);
  auto method = load_method(p->program, "forward");
  REQUIRE_FALSE(method.ok());
  CHECK(method.error().kind == ErrorKind::kUnsupported);
  CHECK(method.error().message ==
        "2 missing operators: my_ns::frobnicate.out, my_ns::defrobnicate.out");
}

TEST_CASE("a kernel called with the wrong number of arguments is refused at load", "[runner][errors]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t t = m.add_planned_tensor(ScalarType::kFloat, {1});
  m.kernel_call("aten::mul", "out", {t, t, t});  // mul.out takes 4 slots
  auto p = build_program(b);
  auto method = load_method(p->program, "forward");
  REQUIRE_FALSE(method.ok());
  CHECK(method.error().field == "method 'forward'.chains[0].instructions[0]");
  CHECK(method.error().message == "aten::mul.out takes 4 argument slots, the program passes 3");
}

TEST_CASE("planned tensors must fit their arena", "[runner][errors]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  m.add_planned_tensor(ScalarType::kFloat, {4});  // arena of 16 bytes
  pte::Program program = b.build();
  auto& tensor = std::get<pte::Tensor>(program.execution_plan[0].values[0]);
  tensor.allocation_info->memory_offset = 8;  // [8, 24) overflows the 16-byte arena
  auto bytes = pte::write_program(program);
  auto read = pte::read_program(ByteSpan(*bytes), nullptr);
  REQUIRE(read.ok());
  auto method = load_method(*read, "forward");
  REQUIRE_FALSE(method.ok());
  CHECK(method.error().field == "method 'forward'.values[0]");
  CHECK(method.error().message == "bytes [8, +16) lie outside arena 1 of 16 bytes");
}

TEST_CASE("empty tensors cannot carry sizes whose strides overflow", "[runner][errors]") {
  // [0, 2^31-1, 2^31-1]: no bytes, but strides of 2^62 elements.
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  m.add_unplanned_tensor(ScalarType::kFloat, {0, INT32_MAX, INT32_MAX});
  auto bytes = pte::write_program(b.build());
  auto read = pte::read_program(ByteSpan(*bytes), nullptr);
  REQUIRE(read.ok());
  auto method = load_method(*read, "forward");
  REQUIRE_FALSE(method.ok());
  CHECK(method.error().message == "sizes whose strides exceed 2^40 elements");
  // A dynamic-bound tensor resized to such sizes is refused the same way.
  float storage[4];
  Tensor t(ScalarType::kFloat, {4, 1}, {}, storage, pte::ShapeDynamism::kDynamicBound);
  const std::vector<int64_t> huge = {0, INT32_MAX};
  CHECK(t.resize(std::span<const int64_t>(huge)).ok());  // 2^31 - 1 < 2^40
  Tensor t3(ScalarType::kFloat, {4, 1, 1}, {}, storage, pte::ShapeDynamism::kDynamicBound);
  const std::vector<int64_t> overflow = {0, INT32_MAX, INT32_MAX};
  auto r = t3.resize(std::span<const int64_t>(overflow));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "sizes whose strides exceed 2^40 elements");
}

TEST_CASE("a kernel failure stops execution with a runtime error naming the instruction", "[runner][errors]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t a = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t c = m.add_planned_tensor(ScalarType::kFloat, {3});
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, {2});
  m.kernel_call("aten::add", "out", {a, c, m.add_int(1), out, out});
  m.set_outputs({out});
  auto p = build_program(b);
  auto method = load_method(p->program, "forward");
  REQUIRE(method.ok());
  auto s = execute(**method);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == ErrorKind::kRuntime);
  CHECK(s.error().field == "method 'forward'.chains[0].instructions[0]");
  CHECK(s.error().message == "aten::add.out: shapes [2] and [3] cannot be broadcast");
}

TEST_CASE("dynamic-bound inputs resize and outputs follow within their bound", "[runner]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {4}, pte::ShapeDynamism::kDynamicBound);
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {4}, pte::ShapeDynamism::kDynamicBound);
  m.kernel_call("aten::add", "out", {x, x, m.add_int(1), y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  auto p = build_program(b);
  auto method = load_method(p->program, "forward");
  REQUIRE(method.ok());
  auto& lm = **method;
  REQUIRE(lm.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{2}, ByteSpan(test::float_bytes({1, 5}))).ok());
  REQUIRE(execute(lm).ok());
  CHECK(test::floats_of(lm.output(0)) == std::vector<float>{2, 10});
  auto too_big = lm.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{5}, ByteSpan(test::float_bytes({1, 2, 3, 4, 5})));
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.error().message == "shape does not fit: resize to 5 elements exceeds the upper bound of 4");
  auto wrong_dtype = lm.set_input_tensor(0, ScalarType::kInt, std::vector<int32_t>{1}, ByteSpan(test::float_bytes({1})));
  REQUIRE_FALSE(wrong_dtype.ok());
  CHECK(wrong_dtype.error().message == "dtype INT does not match the method's FLOAT");
}

TEST_CASE("control flow: a counted loop with JumpFalse, a custom kernel, MoveCall and FreeCall", "[runner]") {
  // Registry: the portable kernels plus a user kernel (the public API for
  // custom operators): test::countdown(counter, cond) decrements the Int
  // counter and writes cond = counter > 0.
  KernelRegistry registry;
  REQUIRE(register_portable_kernels(registry).ok());
  KernelInfo countdown;
  countdown.name = "test::countdown.out";
  countdown.num_args = 2;
  countdown.custom = true;
  countdown.fn = [](KernelContext&, std::span<EValue* const> args) -> Status {
    args[0]->i -= 1;
    args[1]->tag = Tag::kBool;
    args[1]->b = args[0]->i > 0;
    return {};
  };
  REQUIRE(registry.add(countdown).ok());
  CHECK_FALSE(registry.add(countdown).ok());  // duplicates are rejected

  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t counter = m.add_int(3);
  const int32_t cond = m.add_bool(true);
  const int32_t never = m.add_bool(false);
  const int32_t acc = m.add_planned_tensor(ScalarType::kFloat, {1});
  const int32_t one = m.add_constant_tensor({1}, std::vector<float>{1.0f});
  const int32_t moved = m.add_unplanned_tensor(ScalarType::kFloat, {1});
  const int32_t scratch = m.add_unplanned_tensor(ScalarType::kFloat, {1});
  m.kernel_call("test::countdown", "out", {counter, cond});      // 0
  m.kernel_call("aten::add", "out", {acc, one, m.add_int(1), acc, acc});  // 1: acc += 1
  m.jump_false(cond, 4);                                           // 2: leave when done
  m.jump_false(never, 0);                                          // 3: always back to 0
  m.move(acc, moved);                                              // 4
  m.free_value(scratch);                                           // 5
  m.set_inputs({acc});
  m.set_outputs({moved});
  auto p = build_program(b);
  LoadOptions options;
  options.kernels = &registry;
  auto method = load_method(p->program, "forward", options);
  INFO((method ? std::string() : method.error().describe()));
  REQUIRE(method.ok());
  auto& lm = **method;
  REQUIRE(lm.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{1}, ByteSpan(test::float_bytes({10}))).ok());
  EventTracer tracer;
  REQUIRE(execute(lm, &tracer).ok());
  // Three passes add 1 each: 13, which the move hands to `moved`.
  CHECK(test::floats_of(lm.output(0)) == std::vector<float>{13});

  auto dump = etdump::read_etdump(ByteSpan(tracer.finish()));
  REQUIRE(dump.ok());
  REQUIRE(dump->run_data.size() == 1);
  std::vector<std::pair<std::string, int32_t>> events;
  for (const auto& e : *dump->run_data[0].events) events.emplace_back(*e.profile_event->name, e.profile_event->instruction_id);
  // Passes 1 and 2 run instructions 0-3, pass 3 runs 0-2 then 4 and 5.
  std::vector<std::pair<std::string, int32_t>> expected;
  for (int pass = 0; pass < 3; ++pass) {
    expected.insert(expected.end(), {{"test::countdown.out", 0}, {"OPERATOR_CALL", 0}, {"native_call_add.out", 1},
                                     {"OPERATOR_CALL", 1}, {"JF_CALL", 2}});
    if (pass < 2) expected.emplace_back("JF_CALL", 3);
  }
  expected.insert(expected.end(), {{"MOVE_CALL", 4}, {"FREE_CALL", 5}, {"Method::execute", 0}});
  CHECK(events == expected);

  // A kernel's event spans exactly its OPERATOR_CALL (they share their two
  // clock reads); every event lies within Method::execute, and each starts
  // no earlier than the one before it ended.
  const auto& all = *dump->run_data[0].events;
  const auto& execute_event = *all.back().profile_event;
  uint64_t previous_end = execute_event.start_time;
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    const auto& e = *all[i].profile_event;
    INFO(*e.name << " at " << i);
    CHECK(e.start_time <= e.end_time);
    CHECK(e.end_time <= execute_event.end_time);
    if (*e.name == "OPERATOR_CALL") {
      const auto& kernel = *all[i - 1].profile_event;
      CHECK(kernel.start_time == e.start_time);
      CHECK(kernel.end_time == e.end_time);
    } else {
      CHECK(e.start_time >= previous_end);
      previous_end = e.end_time;
    }
  }
}

namespace {

// Doubles its first argument into its second; records what init received.
class DoublingBackend : public Backend {
 public:
  std::vector<uint8_t> blob;
  std::string spec_key;
  Result<std::shared_ptr<void>> init(const BackendInitContext& context) override {
    blob.assign(context.processed.begin(), context.processed.end());
    if (!context.compile_specs.empty()) spec_key = context.compile_specs[0].key;
    return std::shared_ptr<void>(std::make_shared<int>(7));
  }
  Status execute(void* handle, std::span<EValue* const> args, const DelegateCallContext&) override {
    if (*static_cast<int*>(handle) != 7) return bad_input("wrong handle");
    const Tensor& in = *args[0]->tensor;
    Tensor& out = *args[1]->tensor;
    for (int64_t i = 0; i < in.numel(); ++i) out.data_as<float>()[i] = 2 * in.data_as<float>()[i];
    return {};
  }
};

}  // namespace

TEST_CASE("delegates: a missing backend is named and a registered one runs and is traced", "[runner]") {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2});
  const int32_t d = m.add_delegate("DoublingBackend", {0xAB, 0xCD}, {{"mode", {1}}});
  m.delegate_call(d, {x, y});
  m.set_inputs({x});
  m.set_outputs({y});
  auto p = build_program(b);

  auto missing = load_method(p->program, "forward");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "backend 'DoublingBackend' is not registered (delegate 0, used by instruction 0; 0 of the method's 1 instructions do not need it; et-run --list-backends names those it runs)");

  auto backend = std::make_shared<DoublingBackend>();
  BackendRegistry backends;
  REQUIRE(backends.add("DoublingBackend", backend).ok());
  LoadOptions options;
  options.backends = &backends;
  auto method = load_method(p->program, "forward", options);
  REQUIRE(method.ok());
  CHECK(backend->blob == std::vector<uint8_t>{0xAB, 0xCD});
  CHECK(backend->spec_key == "mode");
  auto& lm = **method;
  REQUIRE(lm.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{2}, ByteSpan(test::float_bytes({1.5f, -2}))).ok());
  EventTracer tracer(DebugLevel::kIntermediateOutputs);
  REQUIRE(execute(lm, &tracer).ok());
  CHECK(test::floats_of(lm.output(0)) == std::vector<float>{3.0f, -4.0f});
  auto dump = etdump::read_etdump(ByteSpan(tracer.finish()));
  REQUIRE(dump.ok());
  const auto& events = *dump->run_data.at(0).events;
  // Every delegate argument is logged (2), then DELEGATE_CALL, Method::execute, the output.
  REQUIRE(events.size() == 5);
  CHECK(events[0].debug_event->instruction_id == 0);
  CHECK(events[1].debug_event->debug_entry.tensor->offset == 64);
  CHECK(*events[2].profile_event->name == "DELEGATE_CALL");
  CHECK(*events[3].profile_event->name == "Method::execute");
  CHECK(events[4].debug_event->chain_index == UINT64_MAX);
  CHECK(*events[4].debug_event->debug_entry.output);
  // The logged tensors are in the debug buffer: input, output, program output.
  const auto& buffer = tracer.debug_buffer();
  REQUIRE(buffer.size() == 128 + 8);
  float logged[2];
  std::memcpy(logged, buffer.data() + 128, 8);
  CHECK(logged[0] == 3.0f);
  CHECK(logged[1] == -4.0f);
}
