// XNNPACK delegate node throughput (Google Benchmark): GFLOP/s per node type
// on MobileNet-like shapes, next to the runner's GEMM on the same work, so
// docs/performance.md can state each as a share of the GEMM's rate. Graphs
// are written, read and compiled outside the timed loops. Quantized nodes
// count GOP/s (2 integer ops per multiply-add) against the same GEMM.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <deque>

#include "libcore/formats/xnnpack/xnn_reader.h"
#include "libcore/formats/xnnpack/xnn_builder.h"
#include "runner/backends/xnnpack/xnn_runtime.h"
#include "runner/kernels/linalg/gemm.h"

using namespace etkit;

namespace {

using T = xnn::NodeType;

// One node between an input and an output; constants filled with a ramp.
struct Bench {
  std::vector<uint8_t> payload;
  std::unique_ptr<rt::xnnpack::Runtime> runtime;
  std::vector<float> in, out;
  std::deque<rt::Tensor> tensors;
  std::vector<rt::EValue> values;
  std::vector<rt::EValue*> args;
};

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(float(i)) * 0.1f;
  return v;
}

size_t element_count(const std::vector<uint32_t>& dims) {
  size_t n = 1;
  for (uint32_t d : dims) n *= d;
  return n;
}

// Appends `node`, compiles the graph and binds one input (holding `in`) and
// one output of dtype `io`; float buffers hold int8 tensors too.
std::unique_ptr<Bench> compile(xnn::GraphBuilder& g, xnn::Node node, const std::vector<uint32_t>& in_dims,
                               const std::vector<uint32_t>& out_dims, ScalarType io, std::vector<float> in) {
  auto b = std::make_unique<Bench>();
  g.graph().nodes.push_back(std::move(node));
  b->payload = g.payload();
  auto read = xnn::read_xnn_payload(ByteSpan(b->payload));
  if (!read) throw std::runtime_error(read.error().describe());
  auto rt = rt::xnnpack::Runtime::compile(std::move(read).value(), nullptr, {});
  if (!rt) throw std::runtime_error(rt.error().describe());
  b->runtime = std::move(rt).value();
  b->in = std::move(in);
  b->out.resize(element_count(out_dims));
  b->tensors.emplace_back(io, std::vector<int32_t>(in_dims.begin(), in_dims.end()), std::vector<uint8_t>{}, b->in.data());
  b->tensors.emplace_back(io, std::vector<int32_t>(out_dims.begin(), out_dims.end()), std::vector<uint8_t>{}, b->out.data());
  b->values.resize(2);
  for (size_t i = 0; i < 2; ++i) {
    b->values[i].tag = rt::Tag::kTensor;
    b->values[i].tensor = &b->tensors[i];
    b->args.push_back(&b->values[i]);
  }
  return b;
}

std::unique_ptr<Bench> make(xnn::Node node, std::vector<uint32_t> in_dims, std::vector<uint32_t> out_dims,
                            std::vector<std::vector<uint32_t>> constant_dims) {
  xnn::GraphBuilder g;
  node.inputs = {g.input(in_dims)};
  for (const auto& dims : constant_dims) {
    node.inputs.push_back(g.constant(dims, ramp(element_count(dims))));
  }
  node.outputs = {g.output(out_dims)};
  return compile(g, std::move(node), in_dims, out_dims, ScalarType::kFloat, ramp(element_count(in_dims)));
}

void run(benchmark::State& state, Bench& b, double work, const char* counter = "GFLOP/s") {
  for (auto _ : state) {
    auto s = b.runtime->run(b.args, {});
    if (!s) state.SkipWithError(s.error().describe().c_str());
    benchmark::DoNotOptimize(b.out.data());
  }
  state.counters[counter] = benchmark::Counter(work * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

xnn::Node conv_node(T type, uint32_t k, uint32_t stride, uint32_t pad, uint32_t groups, uint32_t gin, uint32_t gout) {
  xnn::Node n;
  n.type = type;
  n.window = xnn::Window{pad, pad, pad, pad, k, k, stride, stride, 1, 1};
  n.groups = groups;
  n.group_input_channels = gin;
  n.group_output_channels = gout;
  return n;
}

// Fully connected 1x1280 -> 1000 (MobileNetV2's classifier) batched to 64 rows.
void BM_FullyConnected(benchmark::State& state) {
  xnn::Node n;
  n.type = T::kFullyConnected;
  auto b = make(n, {64, 1280}, {64, 1000}, {{1000, 1280}});
  run(state, *b, 2.0 * 64 * 1280 * 1000);
}
// 1x1 convolution 56x56, 24 -> 144 channels (an expansion layer).
void BM_Conv1x1(benchmark::State& state) {
  auto b = make(conv_node(T::kConv2d, 1, 1, 0, 1, 24, 144), {1, 56, 56, 24}, {1, 56, 56, 144}, {{144, 1, 1, 24}});
  run(state, *b, 2.0 * 56 * 56 * 24 * 144);
}
// 3x3 convolution stride 2, 224x224x3 -> 112x112x32 (the stem).
void BM_Conv3x3Stem(benchmark::State& state) {
  auto b = make(conv_node(T::kConv2d, 3, 2, 1, 1, 3, 32), {1, 224, 224, 3}, {1, 112, 112, 32}, {{32, 3, 3, 3}});
  run(state, *b, 2.0 * 112 * 112 * 32 * 27);
}
// 3x3 convolution 28x28, 64 -> 64 channels.
void BM_Conv3x3(benchmark::State& state) {
  auto b = make(conv_node(T::kConv2d, 3, 1, 1, 1, 64, 64), {1, 28, 28, 64}, {1, 28, 28, 64}, {{64, 3, 3, 64}});
  run(state, *b, 2.0 * 28 * 28 * 64 * 64 * 9);
}
// simpletm's second convolution (wild/pte/simpletm_model.pte): 3x3,
// 1022x1022x8 -> 1020x1020x16, no padding.
void BM_Conv3x3Simpletm(benchmark::State& state) {
  auto b = make(conv_node(T::kConv2d, 3, 1, 0, 1, 8, 16), {1, 1022, 1022, 8}, {1, 1020, 1020, 16}, {{16, 3, 3, 8}});
  run(state, *b, 2.0 * 1020 * 1020 * 16 * 72);
}
// Depthwise 3x3 56x56x144.
void BM_Depthwise3x3(benchmark::State& state) {
  auto b = make(conv_node(T::kDepthwiseConv2d, 3, 1, 1, 144, 1, 1), {1, 56, 56, 144}, {1, 56, 56, 144}, {{1, 3, 3, 144}});
  run(state, *b, 2.0 * 56 * 56 * 144 * 9);
}
// Depthwise 3x3 stride 2, 112x112x32 -> 56x56x32.
void BM_Depthwise3x3s2(benchmark::State& state) {
  auto b = make(conv_node(T::kDepthwiseConv2d, 3, 2, 1, 32, 1, 1), {1, 112, 112, 32}, {1, 56, 56, 32}, {{1, 3, 3, 32}});
  run(state, *b, 2.0 * 56 * 56 * 32 * 9);
}
// Transposed 4x4 stride 2 padding 1, 16x16x64 -> 32x32x32: every input
// element meets 32 * 16 weights.
void BM_ConvTranspose4x4s2(benchmark::State& state) {
  auto b = make(conv_node(T::kConvTranspose2d, 4, 2, 1, 1, 64, 32), {1, 16, 16, 64}, {1, 32, 32, 32}, {{32, 4, 4, 64}});
  run(state, *b, 2.0 * 16 * 16 * 64 * 32 * 16);
}
// The GEMM alone on the 3x3 convolution's work (784 x 64 x 576).
void BM_GemmReference(benchmark::State& state) {
  const auto a = ramp(784 * 576), w = ramp(576 * 64);
  std::vector<float> c(784 * 64);
  using rt::kernels::linalg::MatrixView;
  for (auto _ : state) {
    rt::kernels::linalg::sgemm(784, 64, 576, 1.0f, MatrixView{a.data(), 576, 1}, MatrixView{w.data(), 1, 576}, 0.0f,
                               c.data(), 64);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * 784 * 64 * 576 * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
// Sigmoid and add on 112x112x32 floats (elementwise, memory-bound).
void BM_Sigmoid(benchmark::State& state) {
  xnn::Node n;
  n.type = T::kSigmoid;
  auto b = make(n, {1, 112, 112, 32}, {1, 112, 112, 32}, {});
  run(state, *b, 112.0 * 112 * 32, "Gelem/s");
}
void BM_AddBroadcast(benchmark::State& state) {
  xnn::Node n;
  n.type = T::kAdd;
  auto b = make(n, {1, 112, 112, 32}, {1, 112, 112, 32}, {{32}});
  run(state, *b, 112.0 * 112 * 32, "Gelem/s");
}


// Quantized nodes: int8 activations in and out (qs8, per-tensor), or fp32
// rows quantized per row (qd8) before a per-channel / per-block filter.
struct QSpec {
  xnn::Datatype io = xnn::Datatype::kQint8;  // kQint8, or kFp32 for a Convert to qdint8 in front
  xnn::Datatype filter = xnn::Datatype::kQcint8;
  uint32_t block = 0;  // qbint4 block size
};

std::vector<int8_t> bytes_ramp(size_t n) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = int8_t(int(std::lround(std::sin(double(i)) * 100)));
  return v;
}

void per_tensor(xnn::GraphBuilder& g, uint32_t id, float scale, int32_t zero_point) {
  g.value(id).quantized = true;
  g.value(id).quant.scheme = xnn::QuantScheme::kPerTensor;
  g.value(id).quant.scale = scale;
  g.value(id).quant.zero_point = zero_point;
}

std::unique_ptr<Bench> make_q(xnn::Node node, std::vector<uint32_t> in_dims, std::vector<uint32_t> out_dims,
                              std::vector<uint32_t> w_dims, uint32_t out_channels, QSpec q) {
  xnn::GraphBuilder g;
  const bool dynamic = q.io == xnn::Datatype::kFp32;
  uint32_t x = g.input(in_dims, q.io);
  if (!dynamic) per_tensor(g, x, 0.05f, 3);
  if (dynamic) {
    const uint32_t qx = g.internal(in_dims, xnn::Datatype::kQdint8);
    g.value(qx).quantized = true;
    g.value(qx).quant.scheme = xnn::QuantScheme::kPerTokenDynamic;
    g.value(qx).quant.num_nonbatch_dims = 1;
    xnn::Node convert;
    convert.type = T::kConvert;
    convert.inputs = {x};
    convert.outputs = {qx};
    g.graph().nodes.push_back(convert);
    x = qx;
  }
  const size_t n_w = element_count(w_dims);
  const bool four_bit = q.filter == xnn::Datatype::kQcint4 || q.filter == xnn::Datatype::kQbint4;
  auto wq = bytes_ramp(four_bit ? (n_w + 1) / 2 : n_w);
  const uint32_t w = g.constant(w_dims, wq, q.filter);
  g.value(w).quantized = true;
  if (q.filter == xnn::Datatype::kQbint4) {
    g.value(w).quant.scheme = xnn::QuantScheme::kPerChannelGroup;
    g.value(w).quant.group_size = int32_t(q.block);
    g.value(w).quant.scales.assign(n_w / q.block, 0.0078125f);
  } else {
    g.value(w).quant.scheme = xnn::QuantScheme::kPerChannel;
    g.value(w).quant.scales.assign(out_channels, 0.01f);
    // Depthwise filters [1, kh, kw, channels] carry their channels last.
    if (node.type == T::kDepthwiseConv2d) g.value(w).quant.channel_dim = 3;
  }
  const uint32_t out = g.output(out_dims, q.io);
  if (!dynamic) per_tensor(g, out, 0.5f, -2);
  node.inputs = {x, w, xnn::kInvalidId};
  node.outputs = {out};
  const size_t n_in = element_count(in_dims);
  std::vector<float> in = ramp(n_in);
  if (!dynamic) {
    const auto xb = bytes_ramp(n_in);
    std::memcpy(in.data(), xb.data(), n_in);
  }
  return compile(g, std::move(node), in_dims, out_dims, dynamic ? ScalarType::kFloat : ScalarType::kChar, std::move(in));
}

xnn::Node fc_node() {
  xnn::Node n;
  n.type = T::kFullyConnected;
  return n;
}

// qs8 activations x qc8w filters (per-channel scales), int32 sums requantized to qs8.
void BM_QS8_FullyConnected(benchmark::State& state) {
  const auto m = uint32_t(state.range(0)), k = uint32_t(state.range(1)), n = uint32_t(state.range(2));
  auto b = make_q(fc_node(), {m, k}, {m, n}, {n, k}, n, {});
  run(state, *b, 2.0 * m * k * n, "GOP/s");
}
void BM_QS8_Conv1x1(benchmark::State& state) {
  auto b = make_q(conv_node(T::kConv2d, 1, 1, 0, 1, 24, 144), {1, 56, 56, 24}, {1, 56, 56, 144}, {144, 1, 1, 24}, 144, {});
  run(state, *b, 2.0 * 56 * 56 * 24 * 144, "GOP/s");
}
void BM_QS8_Conv3x3Stem(benchmark::State& state) {
  auto b = make_q(conv_node(T::kConv2d, 3, 2, 1, 1, 3, 32), {1, 224, 224, 3}, {1, 112, 112, 32}, {32, 3, 3, 3}, 32, {});
  run(state, *b, 2.0 * 112 * 112 * 32 * 27, "GOP/s");
}
void BM_QS8_Conv3x3(benchmark::State& state) {
  auto b = make_q(conv_node(T::kConv2d, 3, 1, 1, 1, 64, 64), {1, 28, 28, 64}, {1, 28, 28, 64}, {64, 3, 3, 64}, 64, {});
  run(state, *b, 2.0 * 28 * 28 * 64 * 64 * 9, "GOP/s");
}
void BM_QS8_Depthwise3x3(benchmark::State& state) {
  auto b = make_q(conv_node(T::kDepthwiseConv2d, 3, 1, 1, 144, 1, 1), {1, 56, 56, 144}, {1, 56, 56, 144}, {1, 3, 3, 144}, 144, {});
  run(state, *b, 2.0 * 56 * 56 * 144 * 9, "GOP/s");
}
// fp32 rows quantized per row (qd8) times 8-bit, 4-bit per-channel and
// 4-bit blockwise (block 32) filters: an LLM's linear layers.
void BM_QD8_QC8W_FullyConnected(benchmark::State& state) {
  const auto m = uint32_t(state.range(0)), k = uint32_t(state.range(1)), n = uint32_t(state.range(2));
  auto b = make_q(fc_node(), {m, k}, {m, n}, {n, k}, n, {xnn::Datatype::kFp32, xnn::Datatype::kQcint8, 0});
  run(state, *b, 2.0 * m * k * n, "GOP/s");
}
void BM_QD8_QC4W_FullyConnected(benchmark::State& state) {
  const auto m = uint32_t(state.range(0)), k = uint32_t(state.range(1)), n = uint32_t(state.range(2));
  auto b = make_q(fc_node(), {m, k}, {m, n}, {n, k}, n, {xnn::Datatype::kFp32, xnn::Datatype::kQcint4, 0});
  run(state, *b, 2.0 * m * k * n, "GOP/s");
}
void BM_QD8_QB4W_FullyConnected(benchmark::State& state) {
  const auto m = uint32_t(state.range(0)), k = uint32_t(state.range(1)), n = uint32_t(state.range(2));
  auto b = make_q(fc_node(), {m, k}, {m, n}, {n, k}, n, {xnn::Datatype::kFp32, xnn::Datatype::kQbint4, 32});
  run(state, *b, 2.0 * m * k * n, "GOP/s");
}

}  // namespace

BENCHMARK(BM_FullyConnected)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv1x1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv3x3Stem)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv3x3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv3x3Simpletm)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Depthwise3x3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Depthwise3x3s2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ConvTranspose4x4s2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GemmReference)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Sigmoid)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AddBroadcast)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QS8_FullyConnected)->Args({64, 1280, 1000})->Args({1, 4096, 4096})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QS8_Conv1x1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QS8_Conv3x3Stem)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QS8_Conv3x3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QS8_Depthwise3x3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QD8_QC8W_FullyConnected)->Args({1, 4096, 4096})->Args({32, 4096, 4096})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QD8_QC4W_FullyConnected)->Args({1, 4096, 4096})->Args({32, 4096, 4096})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_QD8_QB4W_FullyConnected)->Args({1, 4096, 4096})->Args({32, 4096, 4096})->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
