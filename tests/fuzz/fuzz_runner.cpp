// Fuzz targets for the runtime: programs that pass the reader (structurally
// valid) but are malicious, loaded and executed as et-run does, traced with
// intermediate outputs, under tight limits. Two shapes of input:
//   runner         raw .pte bytes (seeded from the fixtures);
//   runner_mutate  edits to a valid program built in memory: each record
//                  rewrites one field (an argument's value index, a size, a
//                  dim order, a planned offset or arena, a jump, a value's
//                  kind, a FreeCall) so that most inputs reach the loader and
//                  the kernels instead of dying in the FlatBuffer verifier.
#include <chrono>
#include <cstring>
#include <optional>

#include "examples/demo_models.h"
#include "examples/demo_xnnpack.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "runner/backends/xnnpack/xnnpack_backend.h"
#include "runner/executor.h"
#include "runner/inputs.h"
#include "tests/fuzz/fuzz_targets.h"

namespace etkit::fuzz {
namespace {

// Tight enough that one input stays well inside libFuzzer's 20 s timeout
// under ASan: the work of a kernel grows with its tensors (bounded by the
// memory limit) and a loop repeats kernels (bounded by instructions and
// time).
constexpr uint64_t kMemoryLimit = uint64_t(64) << 20;
constexpr uint64_t kMaxInstructions = 20'000;
constexpr std::chrono::seconds kTimeout{1};
constexpr uint64_t kMaxEtdumpBytes = uint64_t(32) << 20;

// Reads every byte of a tensor the way --print-outputs and --output-dir do.
uint64_t touch(const rt::EValue& v) {
  uint64_t sum = 0;
  auto read = [&](const rt::Tensor& t) {
    const auto* p = static_cast<const uint8_t*>(t.data());
    for (size_t i = 0; i < t.nbytes(); ++i) sum += p[i];
  };
  if (v.tag == rt::Tag::kTensor) read(*v.tensor);
  if (v.tag == rt::Tag::kTensorList) {
    for (const rt::Tensor* t : v.tensor_list) read(*t);
  }
  return sum;
}

void run_program(ByteSpan bytes) {
  auto program = pte::read_program(bytes, nullptr);
  if (!program) return;
  rt::BackendRegistry backends;
  rt::xnnpack::Options xnn;
  xnn.memory_limit = kMemoryLimit;
  (void)backends.add(std::string(rt::xnnpack::kBackendId), rt::xnnpack::make_backend(xnn));
  rt::LoadOptions options;
  options.backends = &backends;
  options.memory_limit = kMemoryLimit;
  for (size_t m = 0; m < program->execution_plan.size() && m < 2; ++m) {
    auto method = rt::load_method(*program, program->execution_plan[m].name, options);
    if (!method) continue;
    rt::LoadedMethod& lm = **method;
    bool inputs_set = true;
    for (size_t i = 0; i < lm.num_inputs() && inputs_set; ++i) {
      const rt::EValue& in = lm.input(i);
      if (in.tag == rt::Tag::kTensor && in.tensor->nbytes() > kMemoryLimit) inputs_set = false;
      else inputs_set = bool(rt::set_input(lm, i, rt::input_ones(lm, i)));
    }
    if (!inputs_set) continue;
    rt::EventTracer tracer(rt::DebugLevel::kIntermediateOutputs);
    tracer.set_max_bytes(kMaxEtdumpBytes);
    tracer.create_block("Execute");
    rt::ExecuteLimits limits;
    limits.max_instructions = kMaxInstructions;
    limits.timeout = kTimeout;
    // Twice: a second execution starts from what the first left behind.
    for (int run = 0; run < 2; ++run) {
      if (!rt::execute(lm, &tracer, limits)) break;
      uint64_t sum = 0;
      for (size_t o = 0; o < lm.num_outputs(); ++o) sum += touch(lm.output(o));
      if (sum == 1) __builtin_trap();  // keeps the reads
    }
    (void)tracer.finish();
  }
}

// Valid programs to mutate: the demo LeNet and MLP, the LeNet lowered to
// XNNPACK, and a small one with control flow (a loop, a move, a free).
pte::Program control_flow_program() {
  pte::ProgramBuilder builder;
  auto& m = builder.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {2, 3});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {2, 3});
  const int32_t z = m.add_unplanned_tensor(ScalarType::kFloat, {2, 3});
  const int32_t cond = m.add_bool(false);
  const int32_t alpha = m.add_int(1);
  const int32_t dim = m.add_int(1);
  const int32_t half = m.add_bool(false);
  const int32_t list = m.add_tensor_list({x, y});
  const int32_t cat = m.add_planned_tensor(ScalarType::kFloat, {2, 6});
  const int32_t w = m.add_constant_tensor({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const int32_t alpha2 = m.add_int(2);
  m.set_inputs({x});
  m.set_outputs({y, cat});
  m.kernel_call("aten::add", "out", {x, w, alpha, y, y});
  m.kernel_call("aten::_softmax", "out", {y, dim, half, z, z});
  m.move(alpha, alpha2);
  m.jump_false(cond, 4);
  m.kernel_call("aten::mul", "out", {z, w, y, y});
  m.kernel_call("aten::cat", "out", {list, dim, cat, cat});
  m.free_value(z);
  return builder.build();
}

const std::vector<pte::Program>& base_programs() {
  static const std::vector<pte::Program> programs = [] {
    std::vector<pte::Program> out;
    out.push_back(demo::lenet());
    out.push_back(demo::mlp());
    out.push_back(control_flow_program());
    if (auto xnn = demo::lenet_xnnpack()) {
      static const std::vector<uint8_t> bytes = xnn->program;
      if (auto p = pte::read_program(ByteSpan(bytes), nullptr)) out.push_back(std::move(p).value());
    }
    return out;
  }();
  return programs;
}

// Values a fuzzer rarely guesses byte by byte.
int64_t interesting(uint8_t k, uint16_t raw) {
  static constexpr int64_t kValues[] = {0, 1, 2, 3, -1, -2, 7, 16, 63, 64, 255, 4096, 65535, 65536,
                                        INT32_MAX, INT32_MIN, int64_t(1) << 31, int64_t(1) << 32,
                                        int64_t(1) << 40, INT64_MAX, INT64_MIN};
  return k < std::size(kValues) ? kValues[k] : int64_t(raw) - 128;
}

struct Reader {
  const uint8_t* p;
  size_t n;
  bool done() const { return n < 6; }
  struct Edit {
    uint8_t kind, a, b, c;
    uint16_t raw;
  };
  Edit next() {
    Edit e{p[0], p[1], p[2], p[3], uint16_t(p[4] | p[5] << 8)};
    p += 6;
    n -= 6;
    return e;
  }
};

pte::Tensor* tensor_at(pte::ExecutionPlan& plan, size_t v) {
  return plan.values.empty() ? nullptr : std::get_if<pte::Tensor>(&plan.values[v % plan.values.size()]);
}

std::vector<int32_t>* args_at(pte::ExecutionPlan& plan, size_t i) {
  auto& instrs = plan.chains[0].instructions;
  if (instrs.empty()) return nullptr;
  auto& instr = instrs[i % instrs.size()];
  if (auto* k = std::get_if<pte::KernelCall>(&instr)) return &k->args;
  if (auto* d = std::get_if<pte::DelegateCall>(&instr)) return &d->args;
  return nullptr;
}

void apply(pte::ExecutionPlan& plan, const Reader::Edit& e) {
  const auto nv = int32_t(plan.values.size());
  const int64_t value = interesting(e.c, e.raw);
  auto& instrs = plan.chains[0].instructions;
  switch (e.kind % 16) {
    case 0:  // an argument names another value
      if (auto* args = args_at(plan, e.a); args && !args->empty()) (*args)[e.b % args->size()] = int32_t(e.raw % (nv + 2)) - 1;
      break;
    case 1:  // a size
      if (auto* t = tensor_at(plan, e.a); t && !t->sizes.empty()) t->sizes[e.b % t->sizes.size()] = int32_t(value);
      break;
    case 2:  // a dim order entry, or one dimension more or less
      if (auto* t = tensor_at(plan, e.a)) {
        if (e.c % 4 == 0) {
          t->sizes.push_back(int32_t(e.raw % 5));
          t->dim_order.push_back(uint8_t(t->dim_order.size()));
        } else if (e.c % 4 == 1 && !t->sizes.empty()) {
          t->sizes.pop_back();
          t->dim_order.pop_back();
        } else if (!t->dim_order.empty()) {
          t->dim_order[e.b % t->dim_order.size()] = uint8_t(e.raw);
        }
      }
      break;
    case 3:  // where a planned tensor lives
      if (auto* t = tensor_at(plan, e.a)) {
        if (!t->allocation_info) t->allocation_info = pte::AllocationDetails{1, 0};
        if (e.b & 1) t->allocation_info->memory_offset = uint64_t(value);
        else t->allocation_info->memory_id = uint32_t(e.raw % 4);
      }
      break;
    case 4:  // a jump
      for (auto& instr : instrs) {
        if (auto* j = std::get_if<pte::JumpFalseCall>(&instr)) {
          if (e.b & 1) j->destination_instruction = int32_t(value);
          else j->cond_value_index = int32_t(e.raw % (nv ? nv : 1));
        }
      }
      break;
    case 5:  // a move
      instrs.insert(instrs.begin() + (e.a % (instrs.size() + 1)),
                    pte::MoveCall{int32_t(e.b % (nv ? nv : 1)), int32_t(e.raw % (nv ? nv : 1))});
      break;
    case 6:  // a free
      instrs.insert(instrs.begin() + (e.a % (instrs.size() + 1)), pte::FreeCall{int32_t(e.raw % (nv ? nv : 1))});
      break;
    case 7:  // a dtype
      if (auto* t = tensor_at(plan, e.a)) t->scalar_type = int8_t(e.raw % 30);
      break;
    case 8:  // an arena's size
      if (!plan.non_const_buffer_sizes.empty()) plan.non_const_buffer_sizes[e.a % plan.non_const_buffer_sizes.size()] = value;
      break;
    case 9:  // a value of another kind
      if (nv > 0) plan.values[e.a % nv] = plan.values[e.raw % nv];
      break;
    case 10:  // dynamism
      if (auto* t = tensor_at(plan, e.a)) t->shape_dynamism = pte::ShapeDynamism(e.b % 3);
      break;
    case 11:  // planned memory becomes a constant, or the reverse
      if (auto* t = tensor_at(plan, e.a)) {
        if (e.b & 1) {
          t->allocation_info.reset();
          t->data_buffer_idx = uint32_t(e.raw % 8);
        } else {
          t->data_buffer_idx = 0;
        }
      }
      break;
    case 12:  // an input or output names another value
      if (e.b & 1 && !plan.inputs.empty()) plan.inputs[e.a % plan.inputs.size()] = int32_t(e.raw % (nv ? nv : 1));
      if (!(e.b & 1) && !plan.outputs.empty()) plan.outputs[e.a % plan.outputs.size()] = int32_t(e.raw % (nv ? nv : 1));
      break;
    case 13:  // an Int
      if (nv > 0) {
        if (auto* i = std::get_if<pte::Int>(&plan.values[e.a % nv])) i->value = value;
      }
      break;
    case 14:  // another operator
      if (!instrs.empty()) {
        if (auto* k = std::get_if<pte::KernelCall>(&instrs[e.a % instrs.size()]); k && !plan.operators.empty()) {
          k->op_index = int32_t(e.raw % plan.operators.size());
        }
      }
      break;
    default:  // an instruction repeated
      if (!instrs.empty() && instrs.size() < 256) {
        const pte::Instruction copy = instrs[e.a % instrs.size()];
        instrs.insert(instrs.begin() + (e.b % (instrs.size() + 1)), copy);
      }
      break;
  }
}

}  // namespace

int runner(const uint8_t* data, size_t size) {
  run_program(ByteSpan(data, size));
  return 0;
}

int runner_mutate(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto& bases = base_programs();
  pte::Program program = bases[data[0] % bases.size()];
  if (program.execution_plan.empty() || program.execution_plan[0].chains.empty()) return 0;
  Reader reader{data + 1, size - 1};
  for (int k = 0; k < 16 && !reader.done(); ++k) apply(program.execution_plan[0], reader.next());
  auto bytes = pte::write_program(program);
  if (!bytes) return 0;
  run_program(ByteSpan(*bytes));
  return 0;
}

}  // namespace etkit::fuzz
