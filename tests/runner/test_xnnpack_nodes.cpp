// XNNPACK node semantics on hand-built payloads; every expectation is worked
// out by hand in the comments (XNNPACK layouts: NHWC activations, OHWI
// filters).
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::test;
using T = xnn::NodeType;
using Catch::Matchers::Approx;

namespace {

std::vector<float> run_unary(T type, std::vector<float> x, float scalar = 0, bool clamp = false, float lo = 0, float hi = 0) {
  XnnGraphBuilder g;
  const uint32_t in = g.input({uint32_t(x.size())});
  const uint32_t out = g.output({uint32_t(x.size())});
  auto& n = g.node(type, {in}, {out});
  n.scalar = scalar;
  if (clamp) {
    n.has_output_min_max = true;
    n.output_min = lo;
    n.output_max = hi;
  }
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg({int32_t(x.size())}, x), xnn_out({int32_t(x.size())})};
  auto s = run_xnn(payload, args);
  REQUIRE(s.ok());
  return values_of(args[1]);
}

}  // namespace

TEST_CASE("xnnpack: unary nodes follow their closed forms", "[xnnpack]") {
  // sigmoid(0) = 0.5, sigmoid(ln 3) = 3/4.
  CHECK_THAT(run_unary(T::kSigmoid, {0.0f, std::log(3.0f)}), Approx(std::vector<float>{0.5f, 0.75f}).epsilon(1e-6f));
  // hardswish(x) = x * relu6(x + 3) / 6: -4 -> 0, -1 -> -1*2/6, 1 -> 4/6, 4 -> 4.
  CHECK_THAT(run_unary(T::kHardswish, {-4, -1, 1, 4}), Approx(std::vector<float>{0, -1.0f / 3, 2.0f / 3, 4}).epsilon(1e-6f));
  // leaky relu slope 0.1; elu alpha 2: 2 * (e^-1 - 1) = -1.2642411.
  CHECK_THAT(run_unary(T::kLeakyReLU, {-2, 3}, 0.1f), Approx(std::vector<float>{-0.2f, 3}).epsilon(1e-6f));
  CHECK_THAT(run_unary(T::kELU, {-1, 3}, 2.0f), Approx(std::vector<float>{-1.26424112f, 3}).epsilon(1e-6f));
  // gelu (erf form): gelu(1) = 0.5 * (1 + erf(1/sqrt 2)) = 0.8413447.
  CHECK_THAT(run_unary(T::kGelu, {1, 0}), Approx(std::vector<float>{0.84134475f, 0}).epsilon(1e-6f));
  CHECK(run_unary(T::kReciprocalSquareRoot, {4, 0.25f}) == std::vector<float>{0.5f, 2});
  CHECK(run_unary(T::kFloor, {-1.5f, 2.5f}) == std::vector<float>{-2, 2});
  CHECK(run_unary(T::kCeiling, {-1.5f, 2.5f}) == std::vector<float>{-1, 3});
  CHECK(run_unary(T::kSquare, {-3}) == std::vector<float>{9});
  CHECK(run_unary(T::kNegate, {2, -0.5f}) == std::vector<float>{-2, 0.5f});
  CHECK(run_unary(T::kAbs, {-2}) == std::vector<float>{2});
  // Clamp is relu6 when its output range is [0, 6].
  CHECK(run_unary(T::kClamp, {-1, 3, 9}, 0, true, 0, 6) == std::vector<float>{0, 3, 6});
}

TEST_CASE("xnnpack: binary nodes broadcast and clamp", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t a = g.input({2, 3});
  const uint32_t b = g.input({3});
  const uint32_t out = g.output({2, 3});
  auto& n = g.node(T::kAdd, {a, b}, {out});
  n.has_output_min_max = true;
  n.output_min = 0;  // a fused relu
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({2, 3}, {1, 2, 3, 4, 5, 6}), xnn_arg<float>({3}, {-2, 0, 10}),
                              xnn_out({2, 3})};
  REQUIRE(run_xnn(payload, args).ok());
  // [1-2, 2+0, 3+10, 4-2, 5+0, 6+10] with negatives clamped to 0.
  CHECK(values_of(args[2]) == std::vector<float>{0, 2, 13, 2, 5, 16});
}

TEST_CASE("xnnpack: fully connected with and without transposed weights", "[xnnpack]") {
  for (bool transposed : {false, true}) {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2, 3});
    // W [out=2, in=3] = [[1, 0, -1], [2, 1, 0]]; transposed stored as [in, out].
    const std::vector<float> w = transposed ? std::vector<float>{1, 2, 0, 1, -1, 0} : std::vector<float>{1, 0, -1, 2, 1, 0};
    const uint32_t wid = g.constant(transposed ? std::vector<uint32_t>{3, 2} : std::vector<uint32_t>{2, 3}, w);
    const uint32_t bias = g.constant<float>({2}, {0.5f, -1});
    const uint32_t out = g.output({2, 2});
    g.node(T::kFullyConnected, {x, wid, bias}, {out}).flags = transposed ? xnn::kTransposeWeights : 0;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 3}, {1, 2, 3, -1, 0, 4}), xnn_out({2, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    // row 0: (1 - 3) + 0.5 = -1.5, (2 + 2) - 1 = 3; row 1: (-1 - 4) + 0.5 = -4.5, (-2 + 0) - 1 = -3.
    CHECK(values_of(args[1]) == std::vector<float>{-1.5f, 3, -4.5f, -3});
  }
}

TEST_CASE("xnnpack: 3x3 convolution over NHWC with padding, stride and bias", "[xnnpack]") {
  XnnGraphBuilder g;
  // Input 1x3x3x1 = 1..9; filter 1 output channel, 3x3, all ones; padding 1, stride 2.
  const uint32_t x = g.input({1, 3, 3, 1});
  const uint32_t w = g.constant<float>({1, 3, 3, 1}, std::vector<float>(9, 1.0f));
  const uint32_t b = g.constant<float>({1}, {100});
  const uint32_t out = g.output({1, 2, 2, 1});
  auto& n = g.node(T::kConv2d, {x, w, b}, {out});
  n.window = xnn::Window{1, 1, 1, 1, 3, 3, 2, 2, 1, 1};
  n.groups = 1;
  n.group_input_channels = 1;
  n.group_output_channels = 1;
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), xnn_out({1, 2, 2, 1})};
  REQUIRE(run_xnn(payload, args).ok());
  // Windows centred at (0,0): 1+2+4+5 = 12; (0,2): 2+3+5+6 = 16; (2,0): 4+5+7+8 = 24; (2,2): 5+6+8+9 = 28.
  CHECK(values_of(args[1]) == std::vector<float>{112, 116, 124, 128});
}

TEST_CASE("xnnpack: grouped 1x1 convolution and depthwise convolution with a multiplier", "[xnnpack]") {
  {
    XnnGraphBuilder g;
    // 2 groups of 1 input -> 1 output channel each: out = [2 * c0, -c1] per pixel.
    const uint32_t x = g.input({1, 1, 2, 2});
    const uint32_t w = g.constant<float>({2, 1, 1, 1}, {2, -1});
    const uint32_t out = g.output({1, 1, 2, 2});
    auto& n = g.node(T::kConv2d, {x, w, xnn::kInvalidId}, {out});
    n.groups = 2;
    n.group_input_channels = 1;
    n.group_output_channels = 1;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 1, 2, 2}, {1, 2, 3, 4}), xnn_out({1, 1, 2, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{2, -2, 6, -4});
  }
  {
    XnnGraphBuilder g;
    // One input channel, multiplier 2, kernel 1x2 (no padding): filter [1, 1, 2, 2] = [[1, 10], [2, 20]]
    // (kx major, output channel minor). Input row [3, 5]: ch0 = 3*1 + 5*2 = 13, ch1 = 3*10 + 5*20 = 130.
    const uint32_t x = g.input({1, 1, 2, 1});
    const uint32_t w = g.constant<float>({1, 1, 2, 2}, {1, 10, 2, 20});
    const uint32_t out = g.output({1, 1, 1, 2});
    auto& n = g.node(T::kDepthwiseConv2d, {x, w, xnn::kInvalidId}, {out});
    n.window.kernel_h = 1;
    n.window.kernel_w = 2;
    n.groups = 1;
    n.group_input_channels = 1;
    n.group_output_channels = 2;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 1, 2, 1}, {3, 5}), xnn_out({1, 1, 1, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{13, 130});
  }
}

TEST_CASE("xnnpack: transposed convolution scatters each pixel through the kernel", "[xnnpack]") {
  XnnGraphBuilder g;
  // 1x2 input [1, 2], kernel 1x2 [1, 10], stride 2: out width (2-1)*2 + 2 = 4 = [1, 10, 2, 20].
  const uint32_t x = g.input({1, 1, 2, 1});
  const uint32_t w = g.constant<float>({1, 1, 2, 1}, {1, 10});
  const uint32_t out = g.output({1, 1, 4, 1});
  auto& n = g.node(T::kConvTranspose2d, {x, w, xnn::kInvalidId}, {out});
  n.window.kernel_w = 2;
  n.window.stride_w = 2;
  n.group_input_channels = n.group_output_channels = 1;
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 1, 2, 1}, {1, 2}), xnn_out({1, 1, 4, 1})};
  REQUIRE(run_xnn(payload, args).ok());
  CHECK(values_of(args[1]) == std::vector<float>{1, 10, 2, 20});
}

TEST_CASE("xnnpack: max and average pooling (padding excluded from averages) and global average pooling", "[xnnpack]") {
  const std::vector<float> image = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // 1x3x3x1
  auto pool = [&](T type) {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 3, 3, 1});
    const uint32_t out = g.output({1, 2, 2, 1});
    auto& n = g.node(type, {x}, {out});
    n.window = xnn::Window{1, 1, 1, 1, 2, 2, 2, 2, 1, 1};  // 2x2, stride 2, padding 1
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 3, 3, 1}, image), xnn_out({1, 2, 2, 1})};
    REQUIRE(run_xnn(payload, args).ok());
    return values_of(args[1]);
  };
  // Windows (padded by 1): {1}, {2,3}, {4,7}, {5,6,8,9}.
  CHECK(pool(T::kMaxPooling2d) == std::vector<float>{1, 3, 7, 9});
  CHECK(pool(T::kAvgPooling2d) == std::vector<float>{1, 2.5f, 5.5f, 7});

  XnnGraphBuilder g;
  const uint32_t x = g.input({1, 3, 3, 1});
  const uint32_t out = g.output({1, 1, 1, 1});
  g.node(T::kGlobalAvgPooling2d, {x}, {out});
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 3, 3, 1}, image), xnn_out({1, 1, 1, 1})};
  REQUIRE(run_xnn(payload, args).ok());
  CHECK(values_of(args[1]) == std::vector<float>{5});  // 45 / 9
}

TEST_CASE("xnnpack: data movement is exact: transpose, reshape, slice, pad, concatenate", "[xnnpack]") {
  const std::vector<float> x23 = {1, 2, 3, 4, 5, 6};  // [[1,2,3],[4,5,6]]
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2, 3});
    const uint32_t out = g.output({3, 2});
    g.node(T::kStaticTranspose, {x}, {out}).perm = {1, 0};
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 3}, x23), xnn_out({3, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{1, 4, 2, 5, 3, 6});
  }
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2, 3});
    const uint32_t out = g.output({1, 2});
    auto& n = g.node(T::kStaticSlice, {x}, {out});
    n.offsets = {1, 1};
    n.shape = {1, 2};
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 3}, x23), xnn_out({1, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{5, 6});
  }
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2, 3});
    const uint32_t out = g.output({3, 4});
    auto& n = g.node(T::kStaticConstantPad, {x}, {out});
    n.pre_paddings = {1, 0};
    n.post_paddings = {0, 1};
    n.scalar = -1;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 3}, x23), xnn_out({3, 4})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{-1, -1, -1, -1, 1, 2, 3, -1, 4, 5, 6, -1});
  }
  {
    XnnGraphBuilder g;
    const uint32_t a = g.input({2, 3});
    const uint32_t b = g.input({2, 1});
    const uint32_t mid = g.internal({2, 4});
    const uint32_t out = g.output({4, 2});
    g.node(T::kConcatenate2, {a, b}, {mid}).axis = 1;
    g.node(T::kStaticReshape, {mid}, {out}).shape = {0, 2};  // 0: inferred (8 / 2 = 4)
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 3}, x23), xnn_arg<float>({2, 1}, {7, 8}), xnn_out({4, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[2]) == std::vector<float>{1, 2, 3, 7, 4, 5, 6, 8});
  }
}

TEST_CASE("xnnpack: softmax, batch matrix multiply, bilinear resize", "[xnnpack]") {
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 2});
    const uint32_t out = g.output({1, 2});
    g.node(T::kSoftmax, {x}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 2}, {0, std::log(3.0f)}), xnn_out({1, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK_THAT(values_of(args[1]), Approx(std::vector<float>{0.25f, 0.75f}).epsilon(1e-6f));  // 1/(1+3), 3/(1+3)
  }
  {
    XnnGraphBuilder g;
    // Batch 2 of [1x2] x [2x1]: [1,2].[3,4] = 11; [5,6].[7,8] = 83.
    const uint32_t a = g.input({2, 1, 2});
    const uint32_t b = g.input({2, 2, 1});
    const uint32_t out = g.output({2, 1, 1});
    g.node(T::kBatchMatrixMultiply, {a, b}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 1, 2}, {1, 2, 5, 6}), xnn_arg<float>({2, 2, 1}, {3, 4, 7, 8}),
                                xnn_out({2, 1, 1})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[2]) == std::vector<float>{11, 83});
  }
  {
    XnnGraphBuilder g;
    // 1x1x2x1 [0, 10] -> width 4 with half-pixel centres: sources -0.25(->0), 0.25, 0.75, 1.25(->1 clamped).
    const uint32_t x = g.input({1, 1, 2, 1});
    const uint32_t out = g.output({1, 1, 4, 1});
    auto& n = g.node(T::kStaticResizeBilinear2D, {x}, {out});
    n.new_height = 1;
    n.new_width = 4;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 1, 2, 1}, {0, 10}), xnn_out({1, 1, 4, 1})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{0, 2.5f, 7.5f, 10});
  }
}

TEST_CASE("xnnpack: quantized values: per-tensor int8 add and per-channel int8 weights", "[xnnpack]") {
  {
    XnnGraphBuilder g;
    const uint32_t a = g.input({2}, xnn::Datatype::kQint8);
    const uint32_t b = g.input({2}, xnn::Datatype::kQint8);
    const uint32_t out = g.output({2}, xnn::Datatype::kQint8);
    for (uint32_t id : {a, b, out}) {
      g.value(id).quantized = true;
      g.value(id).quant.scheme = xnn::QuantScheme::kPerTensor;
    }
    g.value(a).quant.scale = 0.5f;   // a = (q - 0) * 0.5
    g.value(b).quant.scale = 0.25f;  // b = (q - 4) * 0.25
    g.value(b).quant.zero_point = 4;
    g.value(out).quant.scale = 1.0f;  // out = round(a + b) - 3
    g.value(out).quant.zero_point = -3;
    g.node(T::kAdd, {a, b}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<int8_t>({2}, {10, 127}, ScalarType::kChar),
                                xnn_arg<int8_t>({2}, {6, 127}, ScalarType::kChar), xnn_out({2}, ScalarType::kChar, 1)};
    REQUIRE(run_xnn(payload, args).ok());
    // 5 + 0.5 = 5.5 -> round half to even 6, then the zero point: 6 - 3 = 3 (XNNPACK's convert rounds
    // before adding it); 63.5 + 30.75 = 94.25 -> 94 - 3 = 91.
    CHECK(values_of<int8_t>(args[2]) == std::vector<int8_t>{3, 91});
  }
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 2});
    // Per-channel int8 filter [2, 2]: channel 0 scale 0.5 q [2, -4] -> [1, -2]; channel 1 scale 2 q [1, 1] -> [2, 2].
    const uint32_t w = g.constant<int8_t>({2, 2}, {2, -4, 1, 1}, xnn::Datatype::kQcint8);
    g.value(w).quantized = true;
    g.value(w).quant.scheme = xnn::QuantScheme::kPerChannel;
    g.value(w).quant.scales = {0.5f, 2.0f};
    g.value(w).quant.num_scales = 2;
    const uint32_t out = g.output({1, 2});
    g.node(T::kFullyConnected, {x, w, xnn::kInvalidId}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 2}, {3, 1}), xnn_out({1, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{1, 8});  // 3 - 2 = 1; 6 + 2 = 8
  }
}

TEST_CASE("xnnpack: dynamically quantized fully connected (convert to qdint8, then the product)", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t x = g.input({1, 4});
  const uint32_t q = g.internal({1, 4}, xnn::Datatype::kQdint8);
  g.value(q).quantized = true;
  g.value(q).quant.scheme = xnn::QuantScheme::kPerTokenDynamic;
  g.value(q).quant.num_nonbatch_dims = 1;
  const uint32_t w = g.constant<float>({1, 4}, {1, 1, 1, 1});
  const uint32_t out = g.output({1, 1});
  g.node(T::kConvert, {x}, {q});
  g.node(T::kFullyConnected, {q, w, xnn::kInvalidId}, {out});
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 4}, {1, -1, 0.5f, 0}), xnn_out({1, 1})};
  REQUIRE(run_xnn(payload, args).ok());
  // XNNPACK's row parameters for [1, -1, 0.5, 0]: range [-1, 1], inverse scale 255 / 2 = 127.5; the
  // zero point errors -128 - 127.5 and 127 + 127.5 sum to -1, not > 0, so zp = 127 - 127.5 = -0.5 -> 0.
  // q = round_half_even(x * 127.5) clamped to [-128, 127]: 127.5 -> 127, -127.5 -> -128, 63.75 -> 64, 0.
  // fp32 weights take the float path: (127 - 128 + 64) / 127.5 = 63 / 127.5 = 0.494117647, not the exact 0.5.
  CHECK_THAT(values_of(args[1]), Approx(std::vector<float>{63.0f / 127.5f}).epsilon(1e-6f));
}

namespace {

void per_tensor(XnnGraphBuilder& g, uint32_t id, float scale, int32_t zero_point) {
  g.value(id).quantized = true;
  g.value(id).quant.scheme = xnn::QuantScheme::kPerTensor;
  g.value(id).quant.scale = scale;
  g.value(id).quant.zero_point = zero_point;
}

}  // namespace

TEST_CASE("xnnpack: 8-bit fully connected in integers with XNNPACK's fp32 requantization", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t x = g.input({2, 2}, xnn::Datatype::kQint8);
  per_tensor(g, x, 0.5f, 1);
  const uint32_t w = g.constant<int8_t>({2, 2}, {1, 2, 3, -4}, xnn::Datatype::kQcint8);
  g.value(w).quantized = true;
  g.value(w).quant.scheme = xnn::QuantScheme::kPerChannel;
  g.value(w).quant.scales = {0.25f, 0.5f};
  const uint32_t b = g.constant<int32_t>({2}, {10, -4}, xnn::Datatype::kQcint32);
  g.value(b).quantized = true;
  g.value(b).quant.scheme = xnn::QuantScheme::kPerChannel;
  g.value(b).quant.scales = {0.125f, 0.25f};
  const uint32_t out = g.output({2, 2}, xnn::Datatype::kQint8);
  per_tensor(g, out, 1.0f, -5);
  auto& n = g.node(T::kFullyConnected, {x, w, b}, {out});
  n.has_output_min_max = true;
  n.output_min = -1.0f;  // bound: round(-1 / 1 + (-5)) = -6
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<int8_t>({2, 2}, {3, -1, 127, 127}, ScalarType::kChar),
                              xnn_out({2, 2}, ScalarType::kChar, 1)};
  REQUIRE(run_xnn(payload, args).ok());
  // Scales: 0.5 * 0.25 / 1 = 0.125 and 0.5 * 0.5 / 1 = 0.25. Row 0, x - 1 = (2, -2):
  //   acc0 = 2*1 - 2*2 + 10 = 8 -> 1.0 -> 1 - 5 = -4;
  //   acc1 = 2*3 + 2*4 - 4 = 10 -> 2.5 -> 2 (ties to even, before the zero point) - 5 = -3.
  // Row 1, x - 1 = (126, 126): acc0 = 126 + 252 + 10 = 388 -> 48.5 -> 48 - 5 = 43;
  //   acc1 = 378 - 504 - 4 = -130 -> -32.5, clamped to -6 - (-5) = -1 -> -6.
  CHECK(values_of<int8_t>(args[1]) == std::vector<int8_t>{-4, -3, 43, -6});
}

TEST_CASE("xnnpack: 8-bit convolutions pad with the input zero point", "[xnnpack]") {
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 1, 2, 1}, xnn::Datatype::kQint8);
    per_tensor(g, x, 0.5f, 10);
    const uint32_t w = g.constant<int8_t>({1, 1, 3, 1}, {1, 10, 100}, xnn::Datatype::kQint8);
    per_tensor(g, w, 0.1f, 0);
    const uint32_t out = g.output({1, 1, 2, 1}, xnn::Datatype::kQint8);
    per_tensor(g, out, 1.0f, 0);
    auto& n = g.node(T::kConv2d, {x, w, xnn::kInvalidId}, {out});
    n.window.kernel_w = 3;
    n.window.pad_left = n.window.pad_right = 1;
    n.group_input_channels = n.group_output_channels = 1;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<int8_t>({1, 1, 2, 1}, {12, 14}, ScalarType::kChar),
                                xnn_out({1, 1, 2, 1}, ScalarType::kChar, 1)};
    REQUIRE(run_xnn(payload, args).ok());
    // x - 10 = (2, 4); scale 0.5 * 0.1 = 0.05. Output 0: pad, 2, 4 under (1, 10, 100): 20 + 400 = 420
    // -> 21 (raw zeros in the padding would give 410 -> 20.5 -> 20); output 1: 2*1 + 4*10 = 42 -> 2.1 -> 2.
    CHECK(values_of<int8_t>(args[1]) == std::vector<int8_t>{21, 2});
  }
  {
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 1, 2, 1}, xnn::Datatype::kQuint8);
    per_tensor(g, x, 1.0f, 128);
    const uint32_t w = g.constant<uint8_t>({1, 1, 2, 1}, {3 + 7, 5 + 7}, xnn::Datatype::kQuint8);
    per_tensor(g, w, 1.0f, 7);  // a QU8 filter with its own zero point: (3, 5)
    const uint32_t out = g.output({1, 1, 1, 1}, xnn::Datatype::kQuint8);
    per_tensor(g, out, 2.0f, 100);
    auto& n = g.node(T::kDepthwiseConv2d, {x, w, xnn::kInvalidId}, {out});
    n.window.kernel_w = 2;
    n.group_input_channels = n.group_output_channels = 1;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1, 1, 2, 1}, {130, 126}, ScalarType::kByte),
                                xnn_out({1, 1, 1, 1}, ScalarType::kByte, 1)};
    REQUIRE(run_xnn(payload, args).ok());
    // (2, -2) . (3, 5) = -4; scale 1 * 1 / 2 = 0.5 -> -2 + 100 = 98.
    CHECK(values_of<uint8_t>(args[1]) == std::vector<uint8_t>{98});
  }
}

TEST_CASE("xnnpack: dynamically quantized rows times per-channel int8 weights, in integers", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t x = g.input({1, 4});
  const uint32_t q = g.internal({1, 4}, xnn::Datatype::kQdint8);
  g.value(q).quantized = true;
  g.value(q).quant.scheme = xnn::QuantScheme::kPerTokenDynamic;
  g.value(q).quant.num_nonbatch_dims = 1;
  const uint32_t w = g.constant<int8_t>({2, 4}, {1, 1, 1, 1, 2, 0, 0, -1}, xnn::Datatype::kQcint8);
  g.value(w).quantized = true;
  g.value(w).quant.scheme = xnn::QuantScheme::kPerChannel;
  g.value(w).quant.scales = {0.5f, 0.25f};
  const uint32_t b = g.constant<float>({2}, {0.25f, 0});
  const uint32_t out = g.output({1, 2});
  g.node(T::kConvert, {x}, {q});
  g.node(T::kFullyConnected, {q, w, b}, {out});
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 4}, {1, -1, 0.5f, 0}), xnn_out({1, 2})};
  REQUIRE(run_xnn(payload, args).ok());
  // Rows as in the test above: q = (127, -128, 64, 0), zero point 0, scale 1 / 127.5.
  // Channel 0: 127 - 128 + 64 = 63 -> 63 / 127.5 * 0.5 + 0.25 = 0.497058824.
  // Channel 1: 2 * 127 - 0 = 254 -> 254 / 127.5 * 0.25 = 0.498039216.
  CHECK_THAT(values_of(args[1]), Approx(std::vector<float>{0.497058824f, 0.498039216f}).epsilon(1e-6f));
}

TEST_CASE("xnnpack: sigmoid's own exp stays within 1e-6 of the exact value, NaN passes through", "[xnnpack]") {
  std::vector<float> x;
  for (int i = -400; i <= 400; ++i) x.push_back(float(i) * 0.05f);  // [-20, 20]
  x.push_back(-100.0f);
  x.push_back(100.0f);
  x.push_back(NAN);
  const auto y = run_unary(T::kSigmoid, x);
  for (size_t i = 0; i + 3 < x.size(); ++i) {
    const double exact = 1.0 / (1.0 + std::exp(-double(x[i])));
    CHECK(std::fabs(double(y[i]) - exact) <= 1e-6 * exact);
  }
  CHECK(y[x.size() - 3] < 1e-37f);  // e^-100 is below float's normal range: the result only has to be tiny
  CHECK(y[x.size() - 2] == 1.0f);
  CHECK(std::isnan(y.back()));
}

TEST_CASE("xnnpack: the remaining binary nodes and PReLU's per-channel slope", "[xnnpack]") {
  auto binary = [](T type, std::vector<float> a, std::vector<float> b, std::vector<uint32_t> b_dims) {
    XnnGraphBuilder g;
    const uint32_t x = g.input({2, 2});
    const uint32_t y = g.input(b_dims);
    const uint32_t out = g.output({2, 2});
    g.node(type, {x, y}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({2, 2}, a),
                                xnn_arg<float>(std::vector<int32_t>(b_dims.begin(), b_dims.end()), b), xnn_out({2, 2})};
    REQUIRE(run_xnn(payload, args).ok());
    return values_of(args[2]);
  };
  const std::vector<float> a = {1, -2, 3, -4};
  CHECK(binary(T::kSubtract, a, {1, 1, 1, 1}, {2, 2}) == std::vector<float>{0, -3, 2, -5});
  CHECK(binary(T::kDiv, a, {2, 4}, {2}) == std::vector<float>{0.5f, -0.5f, 1.5f, -1});
  CHECK(binary(T::kMinimum, a, {0}, {1}) == std::vector<float>{0, -2, 0, -4});
  CHECK(binary(T::kMaximum, a, {0}, {1}) == std::vector<float>{1, 0, 3, 0});
  // PReLU: negative values times the slope of their channel (the last dimension).
  CHECK(binary(T::kPReLU, a, {0.5f, 0.25f}, {2}) == std::vector<float>{1, -0.5f, 3, -1});
}

TEST_CASE("xnnpack: concatenation of 3, 4 and 5 inputs along the first and last axis", "[xnnpack]") {
  for (size_t count = 3; count <= 5; ++count) {
    for (uint32_t axis : {0u, 1u}) {
      XnnGraphBuilder g;
      std::vector<uint32_t> ins;
      std::vector<XnnArg> args;
      for (size_t i = 0; i < count; ++i) {
        ins.push_back(g.input({1, 2}));
        args.push_back(xnn_arg<float>({1, 2}, {float(10 * i), float(10 * i + 1)}));
      }
      const std::vector<uint32_t> out_dims = axis == 0 ? std::vector<uint32_t>{uint32_t(count), 2} : std::vector<uint32_t>{1, uint32_t(2 * count)};
      const uint32_t out = g.output(out_dims);
      const T type = count == 3 ? T::kConcatenate3 : count == 4 ? T::kConcatenate4 : T::kConcatenate5;
      g.node(type, ins, {out}).axis = axis;
      const auto payload = g.payload();
      args.push_back(xnn_out(std::vector<int32_t>(out_dims.begin(), out_dims.end())));
      REQUIRE(run_xnn(payload, args).ok());
      // Along either axis the [1, 2] rows follow each other: 0, 1, 10, 11, 20, 21, ...
      std::vector<float> expected;
      for (size_t i = 0; i < count; ++i) {
        expected.push_back(float(10 * i));
        expected.push_back(float(10 * i + 1));
      }
      CHECK(values_of(args.back()) == expected);
    }
  }
}

TEST_CASE("xnnpack: argmax pooling returns the window index of the first maximum", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t x = g.input({1, 2, 4, 1});
  const uint32_t values = g.output({1, 1, 2, 1});
  const uint32_t indices = g.output({1, 1, 2, 1}, xnn::Datatype::kInt32);
  auto& n = g.node(T::kArgMaxPooling2d, {x}, {values, indices});
  n.window.kernel_h = n.window.stride_h = 2;
  n.window.kernel_w = n.window.stride_w = 2;
  const auto payload = g.payload();
  // Windows (row-major ky, kx): [1, 5 / 2, 5] -> max 5 first at index 1; [0, -1 / 3, 2] -> 3 at index 2.
  std::vector<XnnArg> args = {xnn_arg<float>({1, 2, 4, 1}, {1, 5, 0, -1, 2, 5, 3, 2}), xnn_out({1, 1, 2, 1}),
                              xnn_out({1, 1, 2, 1}, ScalarType::kInt)};
  REQUIRE(run_xnn(payload, args).ok());
  CHECK(values_of(args[1]) == std::vector<float>{5, 3});
  CHECK(values_of<int32_t>(args[2]) == std::vector<int32_t>{1, 2});
}

TEST_CASE("xnnpack: scaled dot-product attention with a mask", "[xnnpack]") {
  XnnGraphBuilder g;
  // One head, 1 query, 2 keys, 1 channel: logits = q * scale * k = (2 * 0.5 * [0, ln 3]) + mask.
  const uint32_t q = g.input({1, 1, 1});
  const uint32_t k = g.input({1, 2, 1});
  const uint32_t v = g.input({1, 2, 1});
  const uint32_t scale = g.constant<float>({1}, {0.5f});
  const uint32_t mask = g.constant<float>({1, 2}, {0, 0});
  const uint32_t out = g.output({1, 1, 1});
  g.node(T::kScaledDotProductAttention, {q, k, v, scale, mask}, {out});
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({1, 1, 1}, {2}), xnn_arg<float>({1, 2, 1}, {0, std::log(3.0f)}),
                              xnn_arg<float>({1, 2, 1}, {4, 8}), xnn_out({1, 1, 1})};
  REQUIRE(run_xnn(payload, args).ok());
  // softmax([0, ln 3]) = [1/4, 3/4]; 4/4 + 8 * 3/4 = 7.
  CHECK_THAT(values_of(args[3]), Approx(std::vector<float>{7}).epsilon(1e-6f));
}

TEST_CASE("xnnpack: fp16 and bf16 values are computed in fp32 and rounded to nearest even", "[xnnpack]") {
  for (auto dt : {xnn::Datatype::kFp16, xnn::Datatype::kBf16}) {
    XnnGraphBuilder g;
    const uint32_t a = g.input({2}, dt);
    const uint32_t b = g.input({2}, dt);
    const uint32_t out = g.output({2}, dt);
    g.node(T::kAdd, {a, b}, {out});
    const auto payload = g.payload();
    const ScalarType st = dt == xnn::Datatype::kFp16 ? ScalarType::kHalf : ScalarType::kBFloat16;
    // fp16: 1.0 = 0x3C00, 0.5 = 0x3800, 2048 = 0x6800, 1.0; 2048 + 1 = 2049 is a tie between 2048 and
    //   2050 (spacing 2), rounding to even 2048 = 0x6800; 1 + 0.5 = 1.5 = 0x3E00.
    // bf16: 1.0 = 0x3F80, 0.5 = 0x3F00, 256 = 0x4380; 256 + 1 = 257 ties between 256 and 258 -> 256 = 0x4380;
    //   1.5 = 0x3FC0.
    const bool half = dt == xnn::Datatype::kFp16;
    std::vector<XnnArg> args = {xnn_arg<uint16_t>({2}, {uint16_t(half ? 0x3C00 : 0x3F80), uint16_t(half ? 0x6800 : 0x4380)}, st),
                                xnn_arg<uint16_t>({2}, {uint16_t(half ? 0x3800 : 0x3F00), uint16_t(half ? 0x3C00 : 0x3F80)}, st),
                                xnn_out({2}, st, 2)};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of<uint16_t>(args[2]) ==
          std::vector<uint16_t>{uint16_t(half ? 0x3E00 : 0x3FC0), uint16_t(half ? 0x6800 : 0x4380)});
  }
}

TEST_CASE("xnnpack: 4-bit per-channel and blockwise weights", "[xnnpack]") {
  {
    // qcint4, dynamic rows: x = [1, -1] quantizes to (127, -128) with zero point 0 and scale 2/255
    // (see the dynamic quantization test). Weights, two per byte low nibble first, less 8:
    // byte 0x7A -> (0xA - 8, 0x7 - 8) = (2, -1); channel scale 0.5. Sum 127*2 + (-128)*(-1) = 382
    // -> 382 / 127.5 * 0.5 = 1.498039216.
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 2});
    const uint32_t q = g.internal({1, 2}, xnn::Datatype::kQdint8);
    g.value(q).quantized = true;
    g.value(q).quant.scheme = xnn::QuantScheme::kPerTokenDynamic;
    g.value(q).quant.num_nonbatch_dims = 1;
    const uint32_t w = g.constant<uint8_t>({1, 2}, {0x7A}, xnn::Datatype::kQcint4);
    g.value(w).quantized = true;
    g.value(w).quant.scheme = xnn::QuantScheme::kPerChannel;
    g.value(w).quant.scales = {0.5f};
    const uint32_t out = g.output({1, 1});
    g.node(T::kConvert, {x}, {q});
    g.node(T::kFullyConnected, {q, w, xnn::kInvalidId}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 2}, {1, -1}), xnn_out({1, 1})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK_THAT(values_of(args[1]), Approx(std::vector<float>{382.0f / 127.5f * 0.5f}).epsilon(1e-6f));
  }
  {
    // qbint4, fp32 input: one output channel, 4 inputs in 2 blocks of 2 with scales 1 and 0.25 (exact
    // in bf16, also after the runtime's rounding-up factor). Bytes 0x9A, 0x6F -> nibbles (A, 9, F, 6)
    // - 8 = (2, 1, 7, -2); weights (2, 1, 1.75, -0.5). x = (1, 1, 1, 2): 2 + 1 + 1.75 - 1 = 3.75.
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 4});
    const uint32_t w = g.constant<uint8_t>({1, 4}, {0x9A, 0x6F}, xnn::Datatype::kQbint4);
    g.value(w).quantized = true;
    g.value(w).quant.scheme = xnn::QuantScheme::kPerChannelGroup;
    g.value(w).quant.group_size = 2;
    g.value(w).quant.scales = {1.0f, 0.25f};
    const uint32_t out = g.output({1, 1});
    g.node(T::kFullyConnected, {x, w, xnn::kInvalidId}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({1, 4}, {1, 1, 1, 2}), xnn_out({1, 1})};
    REQUIRE(run_xnn(payload, args).ok());
    CHECK(values_of(args[1]) == std::vector<float>{3.75f});
  }
}

TEST_CASE("xnnpack: channels-last tensors reach the graph in memory order and come back resized by dim order", "[xnnpack]") {
  XnnGraphBuilder g;
  const uint32_t x = g.input({1, 1, 2, 3});  // NHWC, as the program's channels-last tensor is stored
  const uint32_t w = g.constant<float>({1, 1, 1, 3}, {1, 10, 100});
  const uint32_t out = g.output({1, 1, 2, 1});
  auto& n = g.node(T::kConv2d, {x, w, xnn::kInvalidId}, {out});
  n.group_input_channels = 3;
  n.group_output_channels = 1;
  const auto payload = g.payload();
  // Sizes [N, C, H, W] = [1, 3, 1, 2] with dim order (0, 2, 3, 1): pixel 0 holds channels (1, 2, 3), pixel 1 (4, 5, 6).
  XnnArg in = xnn_arg<float>({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
  in.dim_order = {0, 2, 3, 1};
  XnnArg result = xnn_out({1, 1, 1, 2});
  result.dim_order = {0, 2, 3, 1};
  std::vector<XnnArg> args = {in, result};
  REQUIRE(run_xnn(payload, args).ok());
  CHECK(values_of(args[1]) == std::vector<float>{321, 654});  // 1 + 20 + 300, 4 + 50 + 600
}
