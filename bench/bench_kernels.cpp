// Portable kernels on the shapes of the fixtures' programs (issue #15): each
// benchmark loads one single-operator fixture program (maxpool2d.pte,
// softmax.pte) from ETKIT_FIXTURES (default /work/shared/fixtures), fills its
// input once with a fixed pattern and times execute(). Skipped with a
// message when the fixture is absent. Figures: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "libcore/formats/program/program_reader.h"
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

// The program, loaded with the portable kernels and its float input 0 set
// to a pattern of mixed signs; an error message when that fails.
Result<std::unique_ptr<Loaded>> load_fixture(const std::string& relative) {
  const std::string path = fixture_path(relative);
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error(path, "fixture not found (set ETKIT_FIXTURES)");
  auto out = std::make_unique<Loaded>();
  out->bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  ETKIT_ASSIGN_OR_RETURN(out->program, pte::read_program(ByteSpan(out->bytes), nullptr));
  LoadOptions options;
  options.kernels = &portable_kernel_registry();
  ETKIT_ASSIGN_OR_RETURN(out->method, load_method(out->program, "forward", options));
  const Tensor& in = *out->method->input(0).tensor;
  std::vector<float> values(size_t(in.numel()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = float(int64_t(i * 2654435761u % 2001) - 1000) / 250.0f;
  const std::vector<int32_t> sizes(in.sizes().begin(), in.sizes().end());
  ETKIT_TRY(out->method->set_input_tensor(
      0, ScalarType::kFloat, sizes, ByteSpan(reinterpret_cast<const uint8_t*>(values.data()), values.size() * 4)));
  return out;
}

// bytes: what the operator must read and write once (the roofline bound's
// numerator), reported as a rate next to the time.
void run_fixture(benchmark::State& state, const std::string& relative, double bytes) {
  auto loaded = load_fixture(relative);
  if (!loaded) {
    state.SkipWithError(loaded.error().describe().c_str());
    return;
  }
  LoadedMethod& method = *loaded.value()->method;
  for (auto _ : state) {
    Status s = execute(method);
    if (!s) state.SkipWithError(s.error().describe().c_str());
  }
  state.SetBytesProcessed(int64_t(bytes * double(state.iterations())));
}

// max_pool2d_with_indices.out, [1, 64, 112, 112] -> [1, 64, 56, 56] (3x3,
// stride 2, padding 1): reads 3.2 MB, writes 0.8 MB of values and 1.6 MB of
// int64 indices.
void BM_MaxPool2dFixture(benchmark::State& state) {
  run_fixture(state, "pte/maxpool2d.pte", 64.0 * 112 * 112 * 4 + 64.0 * 56 * 56 * (4 + 8));
}
BENCHMARK(BM_MaxPool2dFixture)->Unit(benchmark::kMicrosecond);

// _softmax.out on [2, 4096] along the last dim: 32 KiB in, 32 KiB out.
void BM_SoftmaxFixture(benchmark::State& state) { run_fixture(state, "pte/softmax.pte", 2.0 * 2 * 4096 * 4); }
BENCHMARK(BM_SoftmaxFixture)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
