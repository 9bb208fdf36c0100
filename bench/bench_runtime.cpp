// Runtime benchmarks (Google Benchmark): framework overhead per instruction
// with tracing off and on, kernel throughput (GFLOP/s) of a 512^3 matrix
// multiply, of the demo LeNet's convolutions and of single convolutions
// (regular, depthwise, transposed) on MobileNet-like shapes, and the
// elementwise kernels (ns per call on tiny tensors, GB/s on large ones,
// against memcpy). Programs are built and loaded outside the timed loops.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>

#include "examples/demo_models.h"
#include "libcore/formats/program/program_builder.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "runner/executor.h"
#include "runner/kernels/stream_store.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

constexpr int kInstructions = 1000;

struct Loaded {
  std::vector<uint8_t> bytes;
  pte::Program program;
  std::unique_ptr<LoadedMethod> method;
};

std::unique_ptr<Loaded> load(pte::Program built, const KernelRegistry& kernels) {
  auto out = std::make_unique<Loaded>();
  out->bytes = std::move(pte::write_program(built)).value();
  out->program = std::move(pte::read_program(ByteSpan(out->bytes), nullptr)).value();
  LoadOptions options;
  options.kernels = &kernels;
  auto method = load_method(out->program, "forward", options);
  if (!method) throw std::runtime_error(method.error().describe());
  out->method = std::move(method).value();
  return out;
}

// The program loaded with the portable kernels, or null after marking the
// benchmark skipped.
std::unique_ptr<Loaded> load_or_skip(benchmark::State& state, pte::ProgramBuilder& b) {
  try {
    return load(b.build(), portable_kernel_registry());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

// The timed loop: one execution per iteration.
void execute_each_iteration(benchmark::State& state, LoadedMethod& method) {
  for (auto _ : state) {
    Status s = execute(method);
    if (!s) state.SkipWithError(s.error().describe().c_str());
  }
}

const KernelRegistry& registry_with_noop() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    (void)register_portable_kernels(r);
    KernelInfo noop;
    noop.name = "bench::noop.out";
    noop.num_args = 2;
    noop.out_args = {1};
    noop.fn = [](KernelContext&, std::span<EValue* const>) -> Status { return {}; };
    (void)r.add(noop);
    return r;
  }();
  return registry;
}

// 1000 kernel calls: the no-op kernel isolates the framework; aten::add.out
// on FLOAT[1] is the smallest real kernel.
std::unique_ptr<Loaded> tiny_program(bool real_kernel) {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1});
  const int32_t one = m.add_int(1);
  for (int i = 0; i < kInstructions; ++i) {
    if (real_kernel) m.kernel_call("aten::add", "out", {x, x, one, x, x});
    else m.kernel_call("bench::noop", "out", {x, x});
  }
  m.set_inputs({x});
  m.set_outputs({x});
  return load(b.build(), registry_with_noop());
}

void run_tiny(benchmark::State& state, bool real_kernel) {
  auto loaded = tiny_program(real_kernel);
  const bool traced = state.range(0) != 0;
  auto tracer = std::make_unique<EventTracer>();
  int64_t executions = 0;
  for (auto _ : state) {
    Status s = execute(*loaded->method, traced ? tracer.get() : nullptr);
    if (!s) state.SkipWithError(s.error().describe().c_str());
    // Keep the recorded events bounded; building the ETDump is not timed.
    if (traced && ++executions % 256 == 0) {
      state.PauseTiming();
      (void)tracer->finish();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations() * kInstructions);
  state.counters["ns_per_instruction"] =
      benchmark::Counter(double(state.iterations()) * kInstructions, benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
                         benchmark::Counter::kIs1000);
}

void BM_FrameworkOverhead(benchmark::State& state) { run_tiny(state, false); }
void BM_TinyAddKernels(benchmark::State& state) { run_tiny(state, true); }
BENCHMARK(BM_FrameworkOverhead)->ArgName("traced")->Arg(0)->Arg(1);
BENCHMARK(BM_TinyAddKernels)->ArgName("traced")->Arg(0)->Arg(1);

void set_gflops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * double(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// out[512,512] = a[512,512] @ b[512,512] with aten::mm.out.
void BM_Matmul512(benchmark::State& state) {
  constexpr int n = 512;
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t a = m.add_planned_tensor(ScalarType::kFloat, {n, n});
  const int32_t w = m.add_constant_tensor({n, n}, demo::weights(size_t(n) * n, 7, 0.05f));
  const int32_t out = m.add_planned_tensor(ScalarType::kFloat, {n, n});
  m.kernel_call("aten::mm", "out", {a, w, out, out});
  m.set_inputs({a});
  m.set_outputs({out});
  const auto loaded = load_or_skip(state, b);
  if (!loaded) return;
  const auto x = demo::weights(size_t(n) * n, 3, 1.0f);
  (void)loaded->method->set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{n, n},
                                         ByteSpan(reinterpret_cast<const uint8_t*>(x.data()), x.size() * 4));
  execute_each_iteration(state, *loaded->method);
  set_gflops(state, 2.0 * n * n * n);
}
BENCHMARK(BM_Matmul512)->Unit(benchmark::kMillisecond);

// The demo LeNet's two convolutions (1->6 and 6->16 channels, 5x5), run as
// one program of two convolution.out calls on the LeNet shapes.
void BM_LeNetConvolutions(benchmark::State& state) {
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, 1, 32, 32});
  const int32_t w1 = m.add_constant_tensor({6, 1, 5, 5}, demo::weights(150, 1, 0.2f));
  const int32_t b1 = m.add_constant_tensor({6}, demo::weights(6, 101, 0.1f));
  const int32_t h = m.add_planned_tensor(ScalarType::kFloat, {1, 6, 28, 28});
  const int32_t p = m.add_planned_tensor(ScalarType::kFloat, {1, 6, 14, 14});
  const int32_t w2 = m.add_constant_tensor({16, 6, 5, 5}, demo::weights(2400, 2, 0.08f));
  const int32_t b2 = m.add_constant_tensor({16}, demo::weights(16, 102, 0.1f));
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, 16, 10, 10});
  auto conv = [&](int32_t in, int32_t w, int32_t bias, int32_t out) {
    m.kernel_call("aten::convolution", "out",
                  {in, w, bias, m.add_int_list({1, 1}), m.add_int_list({0, 0}), m.add_int_list({1, 1}), m.add_bool(false),
                   m.add_int_list({0, 0}), m.add_int(1), out, out});
  };
  conv(x, w1, b1, h);
  conv(p, w2, b2, y);  // p: a 14x14 input like LeNet's second convolution sees
  m.set_inputs({x});
  m.set_outputs({y});
  const auto loaded = load_or_skip(state, b);
  if (!loaded) return;
  execute_each_iteration(state, *loaded->method);
  // 2 * out elements * (cin * k * k) multiply-adds per convolution.
  set_gflops(state, 2.0 * (6 * 28 * 28 * 1 * 25) + 2.0 * (16 * 10 * 10 * 6 * 25));
}
BENCHMARK(BM_LeNetConvolutions)->Unit(benchmark::kMicrosecond);

// One aten::convolution.out on MobileNet-like and LeNet shapes (NCHW, batch
// 1, square kernels), so each can be read as a share of BM_Matmul512 in the
// same run. Input values come from demo::weights, not timed.
struct ConvCase {
  int32_t cin, h, w, cout, k, stride, pad, groups;
  bool transposed;
  bool bias;
};

void run_conv(benchmark::State& state, const ConvCase& c) {
  const int32_t cin_g = c.cin / c.groups;
  int32_t oh = 0, ow = 0;
  std::vector<int32_t> wshape;
  if (c.transposed) {
    oh = (c.h - 1) * c.stride - 2 * c.pad + c.k;
    ow = (c.w - 1) * c.stride - 2 * c.pad + c.k;
    wshape = {c.cin, c.cout / c.groups, c.k, c.k};
  } else {
    oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
    ow = (c.w + 2 * c.pad - c.k) / c.stride + 1;
    wshape = {c.cout, cin_g, c.k, c.k};
  }
  pte::ProgramBuilder b;
  auto& m = b.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, c.cin, c.h, c.w});
  const size_t wn = size_t(wshape[0]) * size_t(wshape[1]) * size_t(c.k) * size_t(c.k);
  const int32_t w = m.add_constant_tensor(wshape, demo::weights(wn, 5, 0.1f));
  const int32_t bias = c.bias ? m.add_constant_tensor({c.cout}, demo::weights(size_t(c.cout), 9, 0.1f)) : m.add_null();
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, c.cout, oh, ow});
  m.kernel_call("aten::convolution", "out",
                {x, w, bias, m.add_int_list({c.stride, c.stride}), m.add_int_list({c.pad, c.pad}), m.add_int_list({1, 1}),
                 m.add_bool(c.transposed), m.add_int_list({0, 0}), m.add_int(c.groups), y, y});
  m.set_inputs({x});
  m.set_outputs({y});
  const auto loaded = load_or_skip(state, b);
  if (!loaded) return;
  const auto in = demo::weights(size_t(c.cin) * size_t(c.h) * size_t(c.w), 3, 1.0f);
  (void)loaded->method->set_input_tensor(0, ScalarType::kFloat, std::vector<int32_t>{1, c.cin, c.h, c.w},
                                         ByteSpan(reinterpret_cast<const uint8_t*>(in.data()), in.size() * 4));
  execute_each_iteration(state, *loaded->method);
  // 2 multiply-adds' flops per (output element, input channel of its group,
  // tap); for a transposed convolution the same count is taken over the
  // input: every input element meets Cout/groups * k * k weights.
  const double taps = double(c.k) * c.k;
  const double flops = c.transposed ? 2.0 * c.cin * c.h * c.w * (c.cout / c.groups) * taps
                                    : 2.0 * c.cout * double(oh) * ow * cin_g * taps;
  set_gflops(state, flops);
}

// LeNet's first and second convolutions separately (5x5, no padding).
void BM_ConvLeNet1(benchmark::State& s) { run_conv(s, {1, 32, 32, 6, 5, 1, 0, 1, false, true}); }
void BM_ConvLeNet2(benchmark::State& s) { run_conv(s, {6, 14, 14, 16, 5, 1, 0, 1, false, true}); }
// LeNet's second convolution with padding 2 ("same" output, 14x14): a
// third of the output pixels have windows in the padding.
void BM_ConvLeNet2Pad2(benchmark::State& s) { run_conv(s, {6, 14, 14, 16, 5, 1, 2, 1, false, true}); }
// Few output channels after a deep patch: 256 -> 32, 3x3, 14x14.
void BM_Conv3x3_14x14x256to32(benchmark::State& s) { run_conv(s, {256, 14, 14, 32, 3, 1, 1, 1, false, true}); }
// simpletm's second convolution (wild/pte/simpletm_model.pte, there an
// XNNPACK node): 3x3, 1022x1022x8 -> 1020x1020x16, no padding.
void BM_ConvSimpletm3x3(benchmark::State& s) { run_conv(s, {8, 1022, 1022, 16, 3, 1, 0, 1, false, true}); }
// MobileNet's stem: 3x3 stride 2, 224x224x3 -> 112x112x32.
void BM_ConvStem3x3s2(benchmark::State& s) { run_conv(s, {3, 224, 224, 32, 3, 2, 1, 1, false, true}); }
// A 3x3 layer at 28x28, 64 -> 64 channels.
void BM_Conv3x3_28x28x64(benchmark::State& s) { run_conv(s, {64, 28, 28, 64, 3, 1, 1, 1, false, true}); }
// 1x1 expansion 56x56, 24 -> 144.
void BM_Conv1x1_56x56x24to144(benchmark::State& s) { run_conv(s, {24, 56, 56, 144, 1, 1, 0, 1, false, true}); }
// Depthwise 3x3: 56x56x144 stride 1, 112x112x32 stride 2.
void BM_Depthwise3x3_56x56x144(benchmark::State& s) { run_conv(s, {144, 56, 56, 144, 3, 1, 1, 144, false, true}); }
void BM_Depthwise3x3s2_112x112x32(benchmark::State& s) { run_conv(s, {32, 112, 112, 32, 3, 2, 1, 32, false, true}); }
// Transposed 4x4 stride 2 padding 1: 16x16x64 -> 32x32x32 (a decoder's upsampling).
void BM_ConvTransposed4x4s2(benchmark::State& s) { run_conv(s, {64, 16, 16, 32, 4, 2, 1, 1, true, true}); }
BENCHMARK(BM_ConvLeNet1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvLeNet2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvLeNet2Pad2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvSimpletm3x3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_14x14x256to32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvStem3x3s2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv3x3_28x28x64)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv1x1_56x56x24to144)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Depthwise3x3_56x56x144)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Depthwise3x3s2_112x112x32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvTransposed4x4s2)->Unit(benchmark::kMicrosecond);

// ---- Elementwise kernels ---------------------------------------------------
//
// One program per (kernel, shape): `calls` identical instructions on the
// same tensors, so a call's time is the kernel plus the executor's
// per-instruction cost (BM_FrameworkOverhead). `a` is the method's input
// (random values in [-4, 4)), `b` a constant, `out` planned memory of its own.

enum class Elem {
  kMemcpy, kMemcpyStream, kRelu, kAdd, kAddRow, kAddScalar, kAddChannel, kMul, kMulChannel, kSigmoid, kTanh, kClone, kToCopy,
  kPermute, kPermuteBack,
};

struct ElemCase {
  const char* name;
  Elem op;
};

constexpr ElemCase kElemCases[] = {
    {"memcpy", Elem::kMemcpy},     {"memcpy_stream", Elem::kMemcpyStream}, {"relu", Elem::kRelu},       {"add", Elem::kAdd},
    {"add_row", Elem::kAddRow},    {"add_scalar", Elem::kAddScalar}, {"mul", Elem::kMul},
    {"sigmoid", Elem::kSigmoid},   {"tanh", Elem::kTanh},       {"clone", Elem::kClone},
    {"_to_copy", Elem::kToCopy},   {"permute_nhwc", Elem::kPermute},
    {"permute_nchw", Elem::kPermuteBack}, {"add_channel", Elem::kAddChannel}, {"mul_channel", Elem::kMulChannel},
};

// NCHW shapes: tiny (1 and 16 elements), LeNet's (the first and second
// convolution's activations), and large: 1M, 4M and 16M floats (4, 16 and
// 64 MiB per tensor; the L3 holds 32 MiB).
const std::vector<std::vector<int32_t>> kElemShapes = {
    {1, 1, 1, 1}, {1, 4, 2, 2}, {1, 6, 24, 24}, {1, 16, 8, 8}, {1, 16, 256, 256}, {1, 16, 512, 512}, {1, 16, 1024, 1024},
};

int64_t numel_of(const std::vector<int32_t>& s) {
  int64_t n = 1;
  for (int32_t d : s) n *= d;
  return n;
}

// Bytes one call reads and writes.
double elem_bytes(Elem op, const std::vector<int32_t>& shape) {
  const double t = double(numel_of(shape)) * 4;
  switch (op) {
    case Elem::kAdd: case Elem::kMul: return 3 * t;
    case Elem::kAddRow: return 2 * t + double(shape.back()) * 4;
    case Elem::kAddScalar: return 2 * t + 4;
    case Elem::kAddChannel: case Elem::kMulChannel: return 2 * t + double(shape[1]) * 4;
    default: return 2 * t;
  }
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

void BM_Elementwise(benchmark::State& state, Elem op, std::vector<int32_t> shape) {
  const int64_t n = numel_of(shape);
  const int calls = n <= 4096 ? 1000 : 1;
  const auto input = random_floats(size_t(n), 1);
  if (op == Elem::kMemcpy || op == Elem::kMemcpyStream) {
    // memcpy_stream: the kernels' streaming copy (stream_store.h) at every
    // size, the reference for what the large outputs can reach.
    std::vector<float> out(static_cast<size_t>(n));
    for (auto _ : state) {
      for (int c = 0; c < calls; ++c) {
        if (op == Elem::kMemcpy) std::memcpy(out.data(), input.data(), size_t(n) * 4);
        else kernels::stream_copy(out.data(), input.data(), size_t(n) * 4);
        benchmark::ClobberMemory();
      }
    }
  } else {
    pte::ProgramBuilder b;
    auto& m = b.add_method("forward");
    // permute_nchw reads NHWC (the same N, C, H, W) and writes NCHW.
    const std::vector<int32_t> nhwc = {shape[0], shape[2], shape[3], shape[1]};
    const std::vector<int32_t> in_shape = op == Elem::kPermuteBack ? nhwc : shape;
    const int32_t a = m.add_planned_tensor(ScalarType::kFloat, in_shape);
    const std::vector<int32_t> out_shape = op == Elem::kPermute ? nhwc : shape;
    const int32_t out = m.add_planned_tensor(ScalarType::kFloat, out_shape);
    int32_t other = -1;
    if (op == Elem::kAdd || op == Elem::kMul) other = m.add_constant_tensor(shape, random_floats(size_t(n), 2));
    if (op == Elem::kAddRow) other = m.add_constant_tensor({shape.back()}, random_floats(size_t(shape.back()), 3));
    if (op == Elem::kAddScalar) other = m.add_constant_tensor({}, {0.5f});
    if (op == Elem::kAddChannel || op == Elem::kMulChannel) {
      other = m.add_constant_tensor({shape[1], 1, 1}, random_floats(size_t(shape[1]), 4));
    }
    const int32_t one = m.add_int(1);
    const int32_t none = m.add_null();
    const int32_t no = m.add_bool(false);
    const int32_t dims = m.add_int_list(op == Elem::kPermuteBack ? std::vector<int64_t>{0, 3, 1, 2} : std::vector<int64_t>{0, 2, 3, 1});
    for (int c = 0; c < calls; ++c) {
      switch (op) {
        case Elem::kRelu: m.kernel_call("aten::relu", "out", {a, out, out}); break;
        case Elem::kSigmoid: m.kernel_call("aten::sigmoid", "out", {a, out, out}); break;
        case Elem::kTanh: m.kernel_call("aten::tanh", "out", {a, out, out}); break;
        case Elem::kAdd: case Elem::kAddRow: case Elem::kAddScalar: case Elem::kAddChannel:
          m.kernel_call("aten::add", "out", {a, other, one, out, out});
          break;
        case Elem::kMul: case Elem::kMulChannel: m.kernel_call("aten::mul", "out", {a, other, out, out}); break;
        case Elem::kClone: m.kernel_call("aten::clone", "out", {a, none, out, out}); break;
        case Elem::kToCopy: m.kernel_call("aten::_to_copy", "out", {a, no, none, out, out}); break;
        case Elem::kPermute: case Elem::kPermuteBack:
          m.kernel_call("aten::permute_copy", "out", {a, dims, out, out});
          break;
        case Elem::kMemcpy: case Elem::kMemcpyStream: break;
      }
    }
    m.set_inputs({a});
    m.set_outputs({out});
    const auto loaded = load_or_skip(state, b);
    if (!loaded) return;
    Status s = loaded->method->set_input_tensor(0, ScalarType::kFloat, in_shape,
                                                ByteSpan(reinterpret_cast<const uint8_t*>(input.data()), input.size() * 4));
    if (s) s = execute(*loaded->method);  // faults in the arena's pages
    if (!s) {
      state.SkipWithError(s.error().describe().c_str());
      return;
    }
    for (auto _ : state) {
      s = execute(*loaded->method);
      if (!s) state.SkipWithError(s.error().describe().c_str());
    }
  }
  const double per_call = double(state.iterations()) * calls;
  state.counters["ns_per_call"] =
      benchmark::Counter(per_call, benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
  state.counters["GB"] = benchmark::Counter(per_call * elem_bytes(op, shape) / 1e9, benchmark::Counter::kIsRate);
}

void register_elementwise() {
  for (const ElemCase& c : kElemCases) {
    for (const auto& shape : kElemShapes) {
      std::string name = std::string("BM_Elementwise/") + c.name + "/";
      for (size_t d = 0; d < shape.size(); ++d) {
        if (d > 0) name += 'x';
        name += std::to_string(shape[d]);
      }
      auto* bm = benchmark::RegisterBenchmark(name.c_str(), BM_Elementwise, c.op, shape);
      bm->Unit(numel_of(shape) > 4096 ? benchmark::kMicrosecond : benchmark::kNanosecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_elementwise();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
