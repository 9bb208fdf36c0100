#include "examples/demo_models.h"

#include <cmath>

#include "libcore/formats/bundled/bundled_writer.h"
#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "libcore/formats/program/program_builder.h"

namespace etkit::demo {

using pte::MethodBuilder;
using pte::ProgramBuilder;

std::vector<float> weights(size_t count, uint32_t seed, float scale) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    out[i] = scale * static_cast<float>(std::sin(0.618033988749895 * double(i + 1) + 1.7 * double(seed)));
  }
  return out;
}

namespace {

// W^T of a [out, in] weight as a constant [in, out]: ExecuTorch's exported
// linear layers permute the weight at run time; we show both forms, so the
// first layers keep the permute_copy kernel like the tutorial's program.
struct Linear {
  int32_t weight;  // [out, in] constant
  int32_t bias;    // [out] constant
};

Linear add_linear(MethodBuilder& m, int in, int out, uint32_t seed) {
  const float scale = 1.0f / std::sqrt(float(in));
  Linear l;
  l.weight = m.add_constant_tensor({out, in}, weights(size_t(in) * size_t(out), seed, scale));
  l.bias = m.add_constant_tensor({out}, weights(size_t(out), seed + 100, 0.1f));
  return l;
}

// permute_copy(W) -> W^T, addmm(bias, x, W^T) -> y; returns y.
int32_t linear(MethodBuilder& m, int32_t x, const Linear& l, int in, int out) {
  const int32_t wt = m.add_planned_tensor(ScalarType::kFloat, {in, out});
  m.kernel_call("aten::permute_copy", "out", {l.weight, m.add_int_list({1, 0}), wt, wt});
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, out});
  const int32_t one = m.add_int(1);
  m.kernel_call("aten::addmm", "out", {l.bias, x, wt, one, one, y, y});
  return y;
}

int32_t relu(MethodBuilder& m, int32_t x, std::vector<int32_t> sizes) {
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, std::move(sizes));
  m.kernel_call("aten::relu", "out", {x, y, y});
  return y;
}

int32_t conv(MethodBuilder& m, int32_t x, int cin, int cout, int k, int out_hw, uint32_t seed) {
  const float scale = 1.0f / std::sqrt(float(cin * k * k));
  const int32_t w = m.add_constant_tensor({cout, cin, k, k}, weights(size_t(cout * cin * k * k), seed, scale));
  const int32_t b = m.add_constant_tensor({cout}, weights(size_t(cout), seed + 100, 0.1f));
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, cout, out_hw, out_hw});
  m.kernel_call("aten::convolution", "out",
                {x, w, b, m.add_int_list({1, 1}), m.add_int_list({0, 0}), m.add_int_list({1, 1}), m.add_bool(false),
                 m.add_int_list({0, 0}), m.add_int(1), y, y});
  return y;
}

int32_t maxpool(MethodBuilder& m, int32_t x, int c, int out_hw) {
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, c, out_hw, out_hw});
  const int32_t idx = m.add_planned_tensor(ScalarType::kLong, {1, c, out_hw, out_hw});
  const int32_t ret = m.add_tensor_list({y, idx});
  m.kernel_call("aten::max_pool2d_with_indices", "out",
                {x, m.add_int_list({2, 2}), m.add_int_list({2, 2}), m.add_int_list({0, 0}), m.add_int_list({1, 1}),
                 m.add_bool(false), y, idx, ret});
  return y;
}

}  // namespace

pte::Program lenet() {
  ProgramBuilder b;
  MethodBuilder& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 1, 32, 32});
  int32_t h = conv(m, x, 1, 6, 5, 28, 1);
  h = relu(m, h, {1, 6, 28, 28});
  h = maxpool(m, h, 6, 14);
  h = conv(m, h, 6, 16, 5, 10, 2);
  h = relu(m, h, {1, 16, 10, 10});
  const int32_t pooled = maxpool(m, h, 16, 5);
  // The flatten is an elided view: a second tensor over the same bytes.
  const auto& pooled_tensor = std::get<pte::Tensor>(m.plan().values[size_t(pooled)]);
  const int32_t flat =
      m.add_planned_tensor_at(ScalarType::kFloat, {1, 400}, pooled_tensor.allocation_info->memory_offset);
  h = linear(m, flat, add_linear(m, 400, 120, 3), 400, 120);
  h = relu(m, h, {1, 120});
  h = linear(m, h, add_linear(m, 120, 84, 4), 120, 84);
  h = relu(m, h, {1, 84});
  h = linear(m, h, add_linear(m, 84, 10, 5), 84, 10);
  m.set_inputs({x});
  m.set_outputs({h});
  return b.build();
}

pte::Program mlp() {
  ProgramBuilder b;
  MethodBuilder& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, kMlpIn});
  int32_t h = linear(m, x, add_linear(m, kMlpIn, kMlpHidden, 11), kMlpIn, kMlpHidden);
  h = relu(m, h, {1, kMlpHidden});
  h = linear(m, h, add_linear(m, kMlpHidden, kMlpOut, 12), kMlpHidden, kMlpOut);
  m.set_inputs({x});
  m.set_outputs({h});
  return b.build();
}

namespace {

// y[co][i][j] = b[co] + sum_ci,ki,kj w[co][ci][ki][kj] * x[ci][i+ki][j+kj]
std::vector<float> reference_conv(const std::vector<float>& x, int cin, int hw, int cout, int k, uint32_t seed) {
  const auto w = weights(size_t(cout * cin * k * k), seed, 1.0f / std::sqrt(float(cin * k * k)));
  const auto b = weights(size_t(cout), seed + 100, 0.1f);
  const int out_hw = hw - k + 1;
  std::vector<float> y(size_t(cout * out_hw * out_hw));
  for (int co = 0; co < cout; ++co) {
    for (int i = 0; i < out_hw; ++i) {
      for (int j = 0; j < out_hw; ++j) {
        double acc = b[size_t(co)];
        for (int ci = 0; ci < cin; ++ci) {
          for (int ki = 0; ki < k; ++ki) {
            for (int kj = 0; kj < k; ++kj) {
              acc += double(w[size_t(((co * cin + ci) * k + ki) * k + kj)]) *
                     double(x[size_t((ci * hw + i + ki) * hw + j + kj)]);
            }
          }
        }
        y[size_t((co * out_hw + i) * out_hw + j)] = float(acc);
      }
    }
  }
  return y;
}

std::vector<float> reference_relu(std::vector<float> x) {
  for (float& v : x) v = v > 0 ? v : 0;
  return x;
}

std::vector<float> reference_maxpool2(const std::vector<float>& x, int c, int hw) {
  const int out_hw = hw / 2;
  std::vector<float> y(size_t(c * out_hw * out_hw));
  for (int ch = 0; ch < c; ++ch) {
    for (int i = 0; i < out_hw; ++i) {
      for (int j = 0; j < out_hw; ++j) {
        float m = x[size_t((ch * hw + 2 * i) * hw + 2 * j)];
        for (int di = 0; di < 2; ++di) {
          for (int dj = 0; dj < 2; ++dj) m = std::max(m, x[size_t((ch * hw + 2 * i + di) * hw + 2 * j + dj)]);
        }
        y[size_t((ch * out_hw + i) * out_hw + j)] = m;
      }
    }
  }
  return y;
}

std::vector<float> reference_dense(const std::vector<float>& x, int in, int out, uint32_t seed) {
  const auto w = weights(size_t(in) * size_t(out), seed, 1.0f / std::sqrt(float(in)));
  const auto bias = weights(size_t(out), seed + 100, 0.1f);
  std::vector<float> y(static_cast<size_t>(out));
  for (int o = 0; o < out; ++o) {
    double acc = bias[size_t(o)];
    for (int i = 0; i < in; ++i) acc += double(w[size_t(o * in + i)]) * double(x[size_t(i)]);
    y[size_t(o)] = float(acc);
  }
  return y;
}

std::vector<uint8_t> bundle_float_model(const std::vector<uint8_t>& program_bytes, int cases, int in_numel,
                                        std::vector<int32_t> in_sizes, std::vector<int32_t> out_sizes,
                                        std::vector<float> (*reference)(const std::vector<float>&)) {
  bundled::BundledProgram bundle;
  bundle.program = ByteSpan(program_bytes);
  bundled::MethodTestSuite suite;
  suite.method_name = "forward";
  std::vector<std::vector<float>> storage;  // keeps tensor bytes alive until written
  storage.reserve(size_t(cases) * 2);
  auto dim_order = [](size_t rank) {
    std::vector<uint8_t> order(rank);
    for (size_t i = 0; i < rank; ++i) order[i] = uint8_t(i);
    return order;
  };
  for (int c = 0; c < cases; ++c) {
    storage.push_back(weights(size_t(in_numel), uint32_t(1000 + c), 1.0f));
    storage.push_back(reference(storage.back()));
    auto tensor = [&](const std::vector<float>& v, const std::vector<int32_t>& sizes) {
      return bundled::Tensor{static_cast<int8_t>(ScalarType::kFloat), sizes,
                             ByteSpan(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4), dim_order(sizes.size())};
    };
    suite.test_cases.push_back(bundled::TestCase{{tensor(storage[storage.size() - 2], in_sizes)},
                                                 {tensor(storage.back(), out_sizes)}});
  }
  bundle.method_test_suites.push_back(std::move(suite));
  return bundled::write_bundled_program(bundle);
}

}  // namespace

std::vector<float> mlp_reference(const std::vector<float>& input) {
  return reference_dense(reference_relu(reference_dense(input, kMlpIn, kMlpHidden, 11)), kMlpHidden, kMlpOut, 12);
}

std::vector<float> lenet_reference(const std::vector<float>& input) {
  auto h = reference_maxpool2(reference_relu(reference_conv(input, 1, 32, 6, 5, 1)), 6, 28);
  h = reference_maxpool2(reference_relu(reference_conv(h, 6, 14, 16, 5, 2)), 16, 10);
  h = reference_relu(reference_dense(h, 400, 120, 3));
  h = reference_relu(reference_dense(h, 120, 84, 4));
  return reference_dense(h, 84, 10, 5);
}

std::vector<uint8_t> bundled_lenet(const std::vector<uint8_t>& program_bytes, int cases) {
  return bundle_float_model(program_bytes, cases, 32 * 32, {1, 1, 32, 32}, {1, 10}, lenet_reference);
}

std::vector<uint8_t> bundled_mlp(const std::vector<uint8_t>& program_bytes, int cases) {
  return bundle_float_model(program_bytes, cases, kMlpIn, {1, kMlpIn}, {1, kMlpOut}, mlp_reference);
}

const std::vector<std::string>& lenet_kernel_names() {
  static const std::vector<std::string> names = {
      "convolution.out", "relu.out", "max_pool2d_with_indices.out", "convolution.out", "relu.out",
      "max_pool2d_with_indices.out", "permute_copy.out", "addmm.out", "relu.out", "permute_copy.out",
      "addmm.out", "relu.out", "permute_copy.out", "addmm.out"};
  return names;
}

std::vector<uint8_t> synthetic_etdump(const SyntheticRun& run, std::vector<uint8_t>* debug_buffer) {
  etdump::EtDumpWriter writer;
  etdump::DebugBufferWriter buffer;
  uint64_t clock = 1'000'000;
  uint64_t state = run.seed * 0x9E3779B97F4A7C15ull + 1;
  auto jitter = [&state]() {  // xorshift: deterministic small noise
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % 200;
  };
  auto profile = [](std::string name, int32_t chain, int32_t instruction, uint64_t start, uint64_t end) {
    etdump::ProfileEvent e;
    e.name = std::move(name);
    e.chain_index = chain;
    e.instruction_id = instruction;
    e.start_time = start;
    e.end_time = end;
    return e;
  };

  writer.begin_block("Default");
  const uint64_t load_start = clock;
  writer.add_profile_event(profile("Method::init", -1, 0, load_start + 100, load_start + 20'000));
  writer.add_profile_event(profile("Program::load_method", -1, 0, load_start, load_start + 21'000));
  clock += 50'000;

  const auto& names = lenet_kernel_names();
  for (int x = 0; x < run.executions; ++x) {
    writer.begin_block("Execute");
    const uint64_t exec_start = clock;
    clock += 500;
    for (int i = 0; i < run.kernels_per_execution; ++i) {
      const uint64_t op_start = clock;
      const uint64_t kernel_start = op_start + 40;
      const uint64_t kernel_end = kernel_start + 1'000 + 100 * uint64_t(i % 7) + jitter();
      const uint64_t op_end = kernel_end + 30;
      writer.add_profile_event(profile("native_call_" + names[size_t(i) % names.size()], 0, i, kernel_start, kernel_end));
      writer.add_profile_event(profile("OPERATOR_CALL", 0, i, op_start, op_end));
      clock = op_end + 20;
    }
    writer.add_profile_event(profile("Method::execute", -1, 0, exec_start, clock + 300));
    if (run.log_program_output) {
      std::vector<float> logits = weights(10, uint32_t(x + 1), 2.0f);
      etdump::DebugEvent d;
      d.chain_index = UINT64_MAX;  // the unset chain -1 stored in the unsigned field
      d.instruction_id = 0;
      etdump::Tensor t{static_cast<int8_t>(ScalarType::kFloat), {1, 10}, {10, 1}, -1};
      t.offset = buffer.append(ByteSpan(reinterpret_cast<const uint8_t*>(logits.data()), logits.size() * 4));
      d.debug_entry.val = etdump::ValueType::kTensor;
      d.debug_entry.tensor = t;
      d.debug_entry.output = true;
      writer.add_debug_event(d);
    }
    clock += 10'000;
  }
  if (debug_buffer != nullptr) *debug_buffer = buffer.bytes();
  return writer.finish();
}

}  // namespace etkit::demo
