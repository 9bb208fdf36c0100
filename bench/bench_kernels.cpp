// Portable kernels on the shapes of the fixtures' programs (issue #15): each
// benchmark loads one single-operator fixture program (maxpool2d.pte,
// softmax.pte) from ETKIT_FIXTURES (default /work/shared/fixtures), fills its
// input once with a fixed pattern (max pooling also with random values and
// all ones) and times execute(). Skipped with a
// message when the fixture is absent. Figures: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "examples/demo_models.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "runner/executor.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

std::string fixture_path(const std::string& relative) {
  const char* root = std::getenv("ETKIT_FIXTURES");
  return std::string(root ? root : "/work/shared/fixtures") + "/" + relative;
}

struct Loaded {
  std::vector<uint8_t> bytes;
  pte::Program program;
  std::unique_ptr<LoadedMethod> method;
};

// A program's bytes, read and loaded with the portable kernels.
Result<std::unique_ptr<Loaded>> load_bytes(std::vector<uint8_t> bytes) {
  auto out = std::make_unique<Loaded>();
  out->bytes = std::move(bytes);
  ETKIT_ASSIGN_OR_RETURN(out->program, pte::read_program(ByteSpan(out->bytes), nullptr));
  LoadOptions options;
  options.kernels = &portable_kernel_registry();
  ETKIT_ASSIGN_OR_RETURN(out->method, load_method(out->program, "forward", options));
  return out;
}

// A program built in place, written and loaded as its file would be.
Result<std::unique_ptr<Loaded>> load_built(const pte::Program& program) {
  ETKIT_ASSIGN_OR_RETURN(auto bytes, pte::write_program(program));
  return load_bytes(std::move(bytes));
}

// Times execute(), the benchmark skipped with the message if it fails.
void time_execute(benchmark::State& state, LoadedMethod& method) {
  for (auto _ : state) {
    Status s = execute(method);
    if (!s) state.SkipWithError(s.error().describe().c_str());
  }
}

// What input 0 holds: a pattern of mixed signs, pseudo-random floats
// (data-dependent branches mispredict on these), or all ones (et-run's
// default input).
enum class Fill { kPattern, kRandom, kOnes };

// The program, loaded with the portable kernels and its float input 0
// filled as `fill` says; an error message when that fails.
Result<std::unique_ptr<Loaded>> load_fixture(const std::string& relative, Fill fill) {
  const std::string path = fixture_path(relative);
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error(path, "fixture not found (set ETKIT_FIXTURES)");
  ETKIT_ASSIGN_OR_RETURN(auto out, load_bytes({std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()}));
  const Tensor& in = *out->method->input(0).tensor;
  std::vector<float> values(size_t(in.numel()));
  uint32_t state = 7;
  for (size_t i = 0; i < values.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    values[i] = fill == Fill::kOnes     ? 1.0f
                : fill == Fill::kRandom ? float(state >> 8) / float(1 << 24) * 2.0f - 1.0f
                                        : float(int64_t(i * 2654435761u % 2001) - 1000) / 250.0f;
  }
  const std::vector<int32_t> sizes(in.sizes().begin(), in.sizes().end());
  ETKIT_TRY(out->method->set_input_tensor(
      0, ScalarType::kFloat, sizes, ByteSpan(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4)));
  return out;
}

// bytes: what the operator must read and write once (the roofline bound's
// numerator), reported as a rate next to the time.
void run_fixture(benchmark::State& state, const std::string& relative, double bytes, Fill fill = Fill::kPattern) {
  auto loaded = load_fixture(relative, fill);
  if (!loaded) {
    state.SkipWithError(loaded.error().describe().c_str());
    return;
  }
  LoadedMethod& method = *loaded.value()->method;
  time_execute(state, method);
  state.SetBytesProcessed(int64_t(bytes * double(state.iterations())));
}

// max_pool2d_with_indices.out, [1, 64, 112, 112] -> [1, 64, 56, 56] (3x3,
// stride 2, padding 1): reads 3.2 MB, writes 0.8 MB of values and 1.6 MB of
// int64 indices.
void BM_MaxPool2dFixture(benchmark::State& state) {
  run_fixture(state, "pte/maxpool2d.pte", 64.0 * 112 * 112 * 4 + 64.0 * 56 * 56 * (4 + 8));
}
BENCHMARK(BM_MaxPool2dFixture)->Unit(benchmark::kMicrosecond);

// The same on uniform random input in [-1, 1) and on all ones: the kernel's
// time must not depend on the data.
void BM_MaxPool2dFixtureRandom(benchmark::State& state) {
  run_fixture(state, "pte/maxpool2d.pte", 64.0 * 112 * 112 * 4 + 64.0 * 56 * 56 * (4 + 8), Fill::kRandom);
}
BENCHMARK(BM_MaxPool2dFixtureRandom)->Unit(benchmark::kMicrosecond);
void BM_MaxPool2dFixtureOnes(benchmark::State& state) {
  run_fixture(state, "pte/maxpool2d.pte", 64.0 * 112 * 112 * 4 + 64.0 * 56 * 56 * (4 + 8), Fill::kOnes);
}
BENCHMARK(BM_MaxPool2dFixtureOnes)->Unit(benchmark::kMicrosecond);

// max_pool2d_with_indices.out as LeNet's second pooling layer: [1, 16, 10,
// 10] -> [1, 16, 5, 5], 2x2 stride 2, built in place (lenet_tutorial.pte
// runs it among 13 other operators). Rows of five outputs are too narrow
// for the AVX2 kernel's eight lanes. Reads 6.4 KB, writes 1.6 KB of values
// and 3.2 KB of indices.
// Also smaller planes ([C, H, W], kernel k, stride s, padding p), whose
// rows hold fewer than four outputs.
void run_small_pool(benchmark::State& state, Fill fill, int32_t C, int32_t H, int32_t W, int64_t k, int64_t st,
                    int64_t p, bool channels_last = false) {
  const int32_t OH = int32_t((H + 2 * p - k) / st + 1), OW = int32_t((W + 2 * p - k) / st + 1);
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  int32_t x, out, idx;
  if (channels_last) {  // input, out and indices NHWC, one after another in the arena
    const std::vector<uint8_t> nhwc = {0, 2, 3, 1};
    const uint64_t in_bytes = uint64_t(C) * H * W * 4, out_bytes = uint64_t(C) * OH * OW * 4;
    x = m.add_planned_tensor_at(ScalarType::kFloat, {1, C, H, W}, 0, nhwc);
    out = m.add_planned_tensor_at(ScalarType::kFloat, {1, C, OH, OW}, in_bytes, nhwc);
    idx = m.add_planned_tensor_at(ScalarType::kLong, {1, C, OH, OW}, (in_bytes + out_bytes + 15) / 16 * 16, nhwc);
  } else {
    x = m.add_planned_tensor(ScalarType::kFloat, {1, C, H, W});
    out = m.add_planned_tensor(ScalarType::kFloat, {1, C, OH, OW});
    idx = m.add_planned_tensor(ScalarType::kLong, {1, C, OH, OW});
  }
  const int32_t kernel = m.add_int_list({k, k}), stride = m.add_int_list({st, st}), one = m.add_int_list({1, 1}),
                padding = m.add_int_list({p, p});
  m.kernel_call("aten::max_pool2d_with_indices", "out",
                {x, kernel, stride, padding, one, m.add_bool(false), out, idx, m.add_tensor_list({out, idx})});
  m.set_inputs({x});
  m.set_outputs({out, idx});
  auto loaded = load_built(b.build());
  if (!loaded) {
    state.SkipWithError(loaded.error().describe().c_str());
    return;
  }
  LoadedMethod& method = *loaded.value()->method;
  // Uniform in [-1, 1) as load_fixture makes it, or a pattern rising
  // along the rows.
  std::vector<float> in(size_t(C * H * W));
  uint32_t seed = 7;
  for (size_t i = 0; i < in.size(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = fill == Fill::kRandom ? float(seed >> 8) / float(1 << 24) * 2.0f - 1.0f
                                  : float(i % size_t(W)) - float(i / size_t(W) % size_t(H)) * 0.5f;
  }
  (void)method.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{1, C, H, W},
                                         ByteSpan(reinterpret_cast<const uint8_t*>(in.data()), in.size() * 4));
  time_execute(state, method);
  const double traffic = double(C) * H * W * 4 + double(C) * OH * OW * (4 + 8);
  state.SetBytesProcessed(int64_t(traffic * double(state.iterations())));
}
void BM_MaxPool2dLeNet(benchmark::State& state) { run_small_pool(state, Fill::kPattern, 16, 10, 10, 2, 2, 0); }
BENCHMARK(BM_MaxPool2dLeNet)->Unit(benchmark::kMicrosecond);
void BM_MaxPool2dLeNetRandom(benchmark::State& state) { run_small_pool(state, Fill::kRandom, 16, 10, 10, 2, 2, 0); }
BENCHMARK(BM_MaxPool2dLeNetRandom)->Unit(benchmark::kMicrosecond);
// [1, 64, 4, 4] -> [1, 64, 2, 2] (2x2, stride 2) and [1, 64, 6, 6] -> [1,
// 64, 3, 3] (3x3, stride 2, padding 1): rows of two and three outputs.
void BM_MaxPool2dTiny4(benchmark::State& state) { run_small_pool(state, Fill::kPattern, 64, 4, 4, 2, 2, 0); }
BENCHMARK(BM_MaxPool2dTiny4)->Unit(benchmark::kMicrosecond);
void BM_MaxPool2dTiny4Random(benchmark::State& state) { run_small_pool(state, Fill::kRandom, 64, 4, 4, 2, 2, 0); }
BENCHMARK(BM_MaxPool2dTiny4Random)->Unit(benchmark::kMicrosecond);
void BM_MaxPool2dTiny6(benchmark::State& state) { run_small_pool(state, Fill::kPattern, 64, 6, 6, 3, 2, 1); }
BENCHMARK(BM_MaxPool2dTiny6)->Unit(benchmark::kMicrosecond);
void BM_MaxPool2dTiny6Random(benchmark::State& state) { run_small_pool(state, Fill::kRandom, 64, 6, 6, 3, 2, 1); }
BENCHMARK(BM_MaxPool2dTiny6Random)->Unit(benchmark::kMicrosecond);
// [1, 64, 56, 56] -> [1, 64, 28, 28], 3x3 stride 2 padding 1, channels-last
// input, out and indices (an NHWC model's pooling).
void BM_MaxPool2dNhwc(benchmark::State& state) { run_small_pool(state, Fill::kPattern, 64, 56, 56, 3, 2, 1, true); }
BENCHMARK(BM_MaxPool2dNhwc)->Unit(benchmark::kMicrosecond);
void BM_MaxPool2dNhwcRandom(benchmark::State& state) {
  run_small_pool(state, Fill::kRandom, 64, 56, 56, 3, 2, 1, true);
}
BENCHMARK(BM_MaxPool2dNhwcRandom)->Unit(benchmark::kMicrosecond);

// Kernels whose NaN and signed-zero rules follow ExecuTorch's portable
// ones: clamp (-1, 1) through its float fast path, hardtanh (0, 6),
// leaky_relu (0.01) on [1, 64, 56, 56], and amax over the last dim of
// [3136, 64]; uniform in [-4, 4).
enum class Select { kClamp, kHardtanh, kLeakyRelu, kAmax };
void run_select(benchmark::State& state, Select op) {
  const bool amax = op == Select::kAmax;
  const std::vector<int32_t> shape = amax ? std::vector<int32_t>{3136, 64} : std::vector<int32_t>{1, 64, 56, 56};
  const std::vector<int32_t> out_shape = amax ? std::vector<int32_t>{3136} : shape;
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, shape);
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, out_shape);
  switch (op) {
    case Select::kClamp: m.kernel_call("aten::clamp", "out", {x, m.add_double(-1), m.add_double(1), out, out}); break;
    case Select::kHardtanh:
      m.kernel_call("aten::hardtanh", "out", {x, m.add_double(0), m.add_double(6), out, out});
      break;
    case Select::kLeakyRelu: m.kernel_call("aten::leaky_relu", "out", {x, m.add_double(0.01), out, out}); break;
    case Select::kAmax:
      m.kernel_call("aten::amax", "out", {x, m.add_int_list({-1}), m.add_bool(false), out, out});
      break;
  }
  m.set_inputs({x});
  m.set_outputs({out});
  auto loaded = load_built(b.build());
  if (!loaded) {
    state.SkipWithError(loaded.error().describe().c_str());
    return;
  }
  LoadedMethod& method = *loaded.value()->method;
  std::vector<float> in(size_t(64 * 56 * 56));
  uint32_t seed = 11;
  for (float& v : in) {
    seed = seed * 1664525u + 1013904223u;
    v = float(seed >> 8) / float(1 << 24) * 8.0f - 4.0f;
  }
  (void)method.set_input_tensor(0, ScalarType::kFloat, shape,
                                         ByteSpan(reinterpret_cast<const uint8_t*>(in.data()), in.size() * 4));
  time_execute(state, method);
  state.SetBytesProcessed(int64_t(double(in.size()) * (amax ? 4 : 8) * double(state.iterations())));
}
void BM_ClampFloat(benchmark::State& state) { run_select(state, Select::kClamp); }
BENCHMARK(BM_ClampFloat)->Unit(benchmark::kMicrosecond);
void BM_Hardtanh(benchmark::State& state) { run_select(state, Select::kHardtanh); }
BENCHMARK(BM_Hardtanh)->Unit(benchmark::kMicrosecond);
void BM_LeakyRelu(benchmark::State& state) { run_select(state, Select::kLeakyRelu); }
BENCHMARK(BM_LeakyRelu)->Unit(benchmark::kMicrosecond);
void BM_AmaxLastDim(benchmark::State& state) { run_select(state, Select::kAmax); }
BENCHMARK(BM_AmaxLastDim)->Unit(benchmark::kMicrosecond);

// _softmax.out on [2, 4096] along the last dim: 32 KiB in, 32 KiB out.
void BM_SoftmaxFixture(benchmark::State& state) { run_fixture(state, "pte/softmax.pte", 2.0 * 2 * 4096 * 4); }
BENCHMARK(BM_SoftmaxFixture)->Unit(benchmark::kMicrosecond);

// addmm.out as LeNet's first fully connected layer: [1, 400] @ [400, 120]
// plus a [120] bias, the weight a contiguous [400, 120] (the program
// permutes it into the planned arena first).
void BM_AddmmLeNetFc1(benchmark::State& state) {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 400});
  const int32_t w = m.add_constant_tensor({400, 120}, demo::weights(400 * 120, 5, 0.05f));
  const int32_t bias = m.add_constant_tensor({120}, demo::weights(120, 6, 0.1f));
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, {1, 120});
  m.kernel_call("aten::addmm", "out", {bias, x, w, m.add_int(1), m.add_int(1), out, out});
  m.set_inputs({x});
  m.set_outputs({out});
  auto loaded = load_built(b.build());
  if (!loaded) {
    state.SkipWithError(loaded.error().describe().c_str());
    return;
  }
  LoadedMethod& method = *loaded.value()->method;
  const auto in = demo::weights(400, 3, 1.0f);
  (void)method.set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{1, 400},
                                         ByteSpan(reinterpret_cast<const uint8_t*>(in.data()), in.size() * 4));
  time_execute(state, method);
  state.SetBytesProcessed(int64_t((400.0 * 120 + 400 + 2 * 120) * 4 * double(state.iterations())));
}
BENCHMARK(BM_AddmmLeNetFc1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
