// A planted divergence: one program run twice with the runner library, once
// with the portable kernels and once with one kernel perturbed; the
// intermediates comparison must name that kernel's instruction.
#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>

#include "libcore/compare/commands.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "tests/runner/runner_test_util.h"

using namespace etkit;
using namespace etkit::compare;

namespace {

// x[8] -> 0 mul(c0) -> 1 add(c1) -> 2 relu -> 3 tanh -> 4 add(c1) -> 5 mul(c0) -> y.
// tanh runs only at instruction 3.
constexpr int32_t kPerturbedInstruction = 3;
constexpr float kPerturbation = 0.1f;
constexpr float kScale = 0.5f, kShift = 0.25f;

std::unique_ptr<test::BuiltProgram> chain_program() {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  auto tensor = [&] { return m.add_planned_tensor(ScalarType::kFloat, {8}); };
  const int32_t x = tensor();
  const int32_t c0 = m.add_constant_tensor({8}, std::vector<float>(8, kScale));
  const int32_t c1 = m.add_constant_tensor({8}, std::vector<float>(8, kShift));
  const int32_t alpha = m.add_int(1);
  const int32_t t0 = tensor(), t1 = tensor(), t2 = tensor(), t3 = tensor(), t4 = tensor(), t5 = tensor();
  m.kernel_call("aten::mul", "out", {x, c0, t0, t0});
  m.kernel_call("aten::add", "out", {t0, c1, alpha, t1, t1});
  m.kernel_call("aten::relu", "out", {t1, t2, t2});
  m.kernel_call("aten::tanh", "out", {t2, t3, t3});
  m.kernel_call("aten::add", "out", {t3, c1, alpha, t4, t4});
  m.kernel_call("aten::mul", "out", {t4, c0, t5, t5});
  m.set_inputs({x});
  m.set_outputs({t5});
  return test::build_program(b);
}

// The portable kernels, with `op` adding kPerturbation to element 0 of its
// output after computing it.
rt::KernelRegistry perturbed_registry(const std::string& op) {
  rt::KernelRegistry registry;
  const rt::KernelRegistry& portable = rt::portable_kernel_registry();
  for (const auto& name : portable.names()) {
    rt::KernelInfo kernel = *portable.find(name);
    if (name == op) {
      const size_t out_slot = size_t(kernel.out_args.at(0));
      kernel.fn = [inner = kernel.fn, out_slot](rt::KernelContext& ctx, std::span<rt::EValue* const> args) -> Status {
        ETKIT_TRY(inner(ctx, args));
        args[out_slot]->tensor->data_as<float>()[0] += kPerturbation;
        return {};
      };
    }
    REQUIRE(registry.add(std::move(kernel)).ok());
  }
  return registry;
}

struct TracedRun {
  std::vector<uint8_t> etdump;
  std::vector<uint8_t> debug_buffer;
};

TracedRun run_traced(const pte::Program& program, const rt::KernelRegistry& kernels) {
  rt::LoadOptions options;
  options.kernels = &kernels;
  rt::EventTracer tracer(rt::DebugLevel::kIntermediateOutputs);
  tracer.create_block("Default");
  auto method = rt::load_method(program, "forward", options);
  REQUIRE(method.ok());
  const std::vector<float> x = {-1.0f, -0.5f, 0.0f, 0.25f, 0.5f, 1.0f, 1.5f, 2.0f};
  const std::vector<int32_t> sizes = {8};
  REQUIRE((*method)->set_input_tensor(0, ScalarType::kFloat, sizes, ByteSpan(test::float_bytes(x))).ok());
  REQUIRE(rt::execute(**method, &tracer).ok());
  TracedRun out;
  out.etdump = tracer.finish();
  out.debug_buffer = tracer.debug_buffer();
  return out;
}

std::vector<LoggedTensor> intermediates_of(const TracedRun& run) {
  auto dump = etdump::read_etdump(run.etdump);
  REQUIRE(dump.ok());
  auto values = intermediate_outputs(*dump, run.debug_buffer);
  REQUIRE(values.ok());
  return std::move(values).value();
}

std::string q(const std::filesystem::path& p) { return std::string(1, '\'').append(p.string()).append(1, '\''); }

}  // namespace

TEST_CASE("intermediates: a perturbed kernel is named as the first divergence", "[et-compare][intermediates]") {
  const auto program = chain_program();
  const TracedRun reference = run_traced(program->program, rt::portable_kernel_registry());
  const rt::KernelRegistry perturbed = perturbed_registry("aten::tanh.out");
  const TracedRun candidate = run_traced(program->program, perturbed);

  const auto a = intermediates_of(reference), b = intermediates_of(candidate);
  REQUIRE(a.size() == 6);  // one out tensor per kernel
  Criteria criteria;  // allclose with the default tolerance
  IntermediatesComparison c = compare_intermediates(a, b, criteria);
  REQUIRE(c.pairs.size() == 6);
  REQUIRE(c.first_divergence.has_value());
  const InstructionPair& first = c.pairs[*c.first_divergence];
  CHECK(first.instruction_id == kPerturbedInstruction);
  CHECK(first.chain_index == 0);
  CHECK(first.op_name == "native_call_tanh.out");
  // Before the perturbation the runs agree bit for bit.
  for (int i = 0; i < kPerturbedInstruction; ++i) {
    CHECK(c.pairs[size_t(i)].instruction_id == i);
    CHECK(c.pairs[size_t(i)].result.metrics.mse == 0.0);
    CHECK(c.pairs[size_t(i)].result.metrics.snr_db == std::numeric_limits<double>::infinity());
    CHECK_FALSE(c.pairs[size_t(i)].result.failed);
  }
  // One element of eight is off by the perturbation: max |e| = 0.1,
  // mse = 0.1^2 / 8; downstream, add keeps it and mul scales it by 0.5.
  CHECK(first.result.metrics.max_abs == Approx(kPerturbation).epsilon(1e-5));
  CHECK(first.result.metrics.mse == Approx(kPerturbation * kPerturbation / 8).epsilon(1e-4));
  CHECK(first.result.metrics.mismatches == 1);
  CHECK(c.pairs[4].result.metrics.max_abs == Approx(kPerturbation).epsilon(1e-5));
  CHECK(c.pairs[5].result.metrics.max_abs == Approx(kScale * kPerturbation).epsilon(1e-5));

  // The same with an SNR threshold, and with a locator for the location column.
  criteria.thresholds = *parse_thresholds("snr<40");
  c = compare_intermediates(a, b, criteria, [](int64_t chain, int32_t instruction) {
    return "chain " + std::to_string(chain) + " line " + std::to_string(100 + instruction);
  });
  REQUIRE(c.first_divergence.has_value());
  CHECK(c.pairs[*c.first_divergence].instruction_id == kPerturbedInstruction);
  CHECK(c.pairs[*c.first_divergence].location == "chain 0 line 103");
  const Report report = intermediates_report(c, criteria, {});
  CHECK(report.columns.back() == "location");
  bool named = false;
  for (const auto& [key, value] : report.summary) {
    if (key == "first_divergence_instruction") named = std::get<int64_t>(value) == kPerturbedInstruction;
  }
  CHECK(named);
}

TEST_CASE("intermediates: identical runs do not diverge, and et-compare exits 0 or 1", "[et-compare][intermediates][cli]") {
  const auto program = chain_program();
  const TracedRun reference = run_traced(program->program, rt::portable_kernel_registry());
  const TracedRun again = run_traced(program->program, rt::portable_kernel_registry());
  const rt::KernelRegistry perturbed = perturbed_registry("aten::tanh.out");
  const TracedRun candidate = run_traced(program->program, perturbed);
  CHECK_FALSE(compare_intermediates(intermediates_of(reference), intermediates_of(again), {}).first_divergence);

  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "ref.etdp", reference.etdump);
  test::write_bytes(dir / "ref.bin", reference.debug_buffer);
  test::write_bytes(dir / "again.etdp", again.etdump);
  test::write_bytes(dir / "again.etdp.debug.bin", again.debug_buffer);  // found by its default name
  test::write_bytes(dir / "cand.etdp", candidate.etdump);
  test::write_bytes(dir / "cand.bin", candidate.debug_buffer);

  auto same = test::run_tool("et-compare", "intermediates --etdump " + q(dir / "ref.etdp") + " --debug-buffer " +
                                               q(dir / "ref.bin") + " --against " + q(dir / "again.etdp"));
  INFO(same.err);
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("first_divergence: none") != std::string::npos);

  auto diverged = test::run_tool("et-compare", "intermediates --format json --threshold 'snr<40' --etdump " +
                                                   q(dir / "ref.etdp") + " --debug-buffer " + q(dir / "ref.bin") +
                                                   " --against " + q(dir / "cand.etdp") + " --against-debug-buffer " +
                                                   q(dir / "cand.bin"));
  INFO(diverged.err);
  CHECK(diverged.exit_code == 1);
  CHECK(diverged.out.find("\"first_divergence_instruction\":3") != std::string::npos);
  CHECK(diverged.out.find("\"first_divergence\":\"instruction 3 (chain 0) native_call_tanh.out out 0: snr ") !=
        std::string::npos);

  // A missing debug buffer is bad input naming the ETDump.
  auto no_buffer = test::run_tool("et-compare", "intermediates --etdump " + q(dir / "ref.etdp") + " --against " +
                                                    q(dir / "cand.etdp"));
  CHECK(no_buffer.exit_code == 2);
  CHECK(no_buffer.err.rfind("et-compare: error: " + (dir / "ref.etdp").string() + ": run_data[1].events[0]", 0) == 0);
  CHECK(no_buffer.err.find("(no --debug-buffer given)") != std::string::npos);
}
