// The integer product paths of the 8-bit and 4-bit fully connected and
// convolution nodes (int16 panels, four channels per pass, chunked int32
// sums) on sizes that leave vector and panel tails, more rows than one row
// tile, and zero points at the ends of their ranges. Expectations come from
// plain loops written here: int64 sums of (x - x_zp) * (w - w_zp) plus the
// bias, wrapped to int32, then XNNPACK's fp32 requantization.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <deque>

#include "runner/backends/xnnpack/xnn_qdot.h"
#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::test;
using T = xnn::NodeType;
using D = xnn::Datatype;

namespace {

// Deterministic bytes covering the whole range (a 32-bit LCG's high byte).
std::vector<uint8_t> bytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) {
    seed = seed * 1664525u + 1013904223u;
    b = uint8_t(seed >> 24);
  }
  return v;
}

// XNNPACK's fp32 requantization of a wrapped int32 sum.
uint8_t requantize(int64_t sum, float scale, int32_t zp, D out) {
  const int32_t acc = int32_t(uint32_t(uint64_t(sum)));
  float v = float(acc) * scale;
  v = std::fmax(v, float(lo_of(out) - zp));
  v = std::fmin(v, float(lo_of(out) + 255 - zp));
  return uint8_t(int32_t(std::nearbyint(v)) + zp);
}

struct FcCase {
  D xd;
  QP xq, wq, oq;
  uint32_t rows, in, out;
  bool transposed;
};

void check_fully_connected(const FcCase& c) {
  const auto x = bytes(size_t(c.rows) * c.in, 1), w = bytes(size_t(c.in) * c.out, 2);
  std::vector<int32_t> bias(c.out);
  for (uint32_t o = 0; o < c.out; ++o) bias[o] = int32_t(o * 37) - 100;
  XnnGraphBuilder g;
  const uint32_t xi = g.input({c.rows, c.in}, c.xd);
  set_q(g, xi, c.xq);
  const uint32_t wi = g.constant<uint8_t>(c.transposed ? std::vector<uint32_t>{c.in, c.out} : std::vector<uint32_t>{c.out, c.in}, w, c.xd);
  set_q(g, wi, c.wq);
  const uint32_t bi = g.constant<int32_t>({c.out}, bias, D::kQint32);
  set_q(g, bi, {c.xq.scale * c.wq.scale, 0});
  const uint32_t oi = g.output({c.rows, c.out}, c.xd);
  set_q(g, oi, c.oq);
  auto& n = g.node(T::kFullyConnected, {xi, wi, bi}, {oi});
  if (c.transposed) n.flags = xnn::kTransposeWeights;
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<uint8_t>({int32_t(c.rows), int32_t(c.in)}, x, st_of(c.xd)),
                              xnn_out({int32_t(c.rows), int32_t(c.out)}, st_of(c.xd), 1)};
  REQUIRE(run_xnn(payload, args).ok());
  const float scale = c.xq.scale * c.wq.scale / c.oq.scale;
  std::vector<uint8_t> expected;
  for (uint32_t r = 0; r < c.rows; ++r) {
    for (uint32_t o = 0; o < c.out; ++o) {
      int64_t sum = bias[o];
      for (uint32_t i = 0; i < c.in; ++i) {
        const size_t wi_ = c.transposed ? size_t(i) * c.out + o : size_t(o) * c.in + i;
        sum += int64_t(value_of(c.xd, x[size_t(r) * c.in + i]) - c.xq.zp) * (value_of(c.xd, w[wi_]) - c.wq.zp);
      }
      expected.push_back(requantize(sum, scale, c.oq.zp, c.xd));
    }
  }
  CHECK(values_of<uint8_t>(args[1]) == expected);
}

}  // namespace

TEST_CASE("xnnpack: 8-bit fully connected over panel and vector tails, extreme zero points", "[xnnpack][qdot]") {
  // 37 inputs: not a multiple of any vector width; 7 outputs: one 4-channel panel and 3 left over.
  check_fully_connected({D::kQint8, {0.5f, -128}, {0.25f, 127}, {2.0f, 127}, 3, 37, 7, false});
  check_fully_connected({D::kQint8, {0.5f, 127}, {0.25f, -128}, {4.0f, -128}, 2, 37, 7, true});
  check_fully_connected({D::kQuint8, {0.5f, 255}, {0.25f, 0}, {2.0f, 0}, 3, 19, 5, false});
  check_fully_connected({D::kQuint8, {0.5f, 0}, {0.25f, 255}, {8.0f, 255}, 1, 19, 5, true});
  // 70 rows: more than one 64-row tile.
  check_fully_connected({D::kQint8, {0.5f, 3}, {0.25f, -7}, {2.0f, 1}, 70, 13, 9, false});
}

TEST_CASE("xnnpack: 8-bit fully connected sums past one int32 chunk exactly", "[xnnpack][qdot]") {
  // 16389 inputs: the kernel sums in int32 chunks of 16384 terms. With these zero points the terms
  // average about -127.5 * 127.5, so sums near -2.7e8; a scale of 2^-22 keeps them inside the output
  // range (about -63), where a lost or doubled chunk (about 2^28) shows.
  check_fully_connected({D::kQint8, {0x1.0p-10f, -128}, {0x1.0p-10f, 127}, {4.0f, 0}, 2, 16389, 5, false});
  check_fully_connected({D::kQuint8, {0x1.0p-10f, 0}, {0x1.0p-10f, 255}, {4.0f, 128}, 1, 16389, 3, false});
}

TEST_CASE("xnnpack: 8-bit grouped convolution and depthwise with a multiplier, against plain loops", "[xnnpack][qdot]") {
  // Conv 3x3, stride 1, pad 1, 2 groups of 3 -> 5 channels on 12 x 13 pixels (156: more than one tile).
  for (D d : {D::kQint8, D::kQuint8}) {
    const QP xq{0.5f, d == D::kQint8 ? -128 : 255}, wq{0.25f, d == D::kQint8 ? 127 : 0}, oq{2.0f, d == D::kQint8 ? 5 : 130};
    const uint32_t H = 12, W = 13, G = 2, GI = 3, GO = 5, IC = G * GI, OC = G * GO;
    const auto x = bytes(H * W * IC, 3), w = bytes(OC * 9 * GI, 4);
    XnnGraphBuilder g;
    const uint32_t xi = g.input({1, H, W, IC}, d);
    set_q(g, xi, xq);
    const uint32_t wi = g.constant<uint8_t>({OC, 3, 3, GI}, w, d);
    set_q(g, wi, wq);
    const uint32_t oi = g.output({1, H, W, OC}, d);
    set_q(g, oi, oq);
    auto& n = g.node(T::kConv2d, {xi, wi, xnn::kInvalidId}, {oi});
    n.window = xnn::Window{1, 1, 1, 1, 3, 3, 1, 1, 1, 1};
    n.groups = G;
    n.group_input_channels = GI;
    n.group_output_channels = GO;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1, int32_t(H), int32_t(W), int32_t(IC)}, x, st_of(d)),
                                xnn_out({1, int32_t(H), int32_t(W), int32_t(OC)}, st_of(d), 1)};
    REQUIRE(run_xnn(payload, args).ok());
    std::vector<uint8_t> expected;
    for (int y = 0; y < int(H); ++y) {
      for (int xo = 0; xo < int(W); ++xo) {
        for (uint32_t oc = 0; oc < OC; ++oc) {
          const uint32_t grp = oc / GO;
          int64_t sum = 0;
          for (int ky = 0; ky < 3; ++ky) {
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = y + ky - 1, ix = xo + kx - 1;
              if (iy < 0 || ix < 0 || iy >= int(H) || ix >= int(W)) continue;  // the zero point: contributes 0
              for (uint32_t c = 0; c < GI; ++c) {
                const int32_t xv = value_of(d, x[(size_t(iy) * W + size_t(ix)) * IC + grp * GI + c]) - xq.zp;
                const int32_t wv = value_of(d, w[((size_t(oc) * 3 + size_t(ky)) * 3 + size_t(kx)) * GI + c]) - wq.zp;
                sum += int64_t(xv) * wv;
              }
            }
          }
          expected.push_back(requantize(sum, xq.scale * wq.scale / oq.scale, oq.zp, d));
        }
      }
    }
    CHECK(values_of<uint8_t>(args[1]) == expected);
  }
  // Depthwise 3x3, stride 2, pad 1, 3 channels times multiplier 2 = 6 (not a vector width) on 7 x 6.
  for (D d : {D::kQint8, D::kQuint8}) {
    const QP xq{0.5f, d == D::kQint8 ? 127 : 0}, wq{0.25f, d == D::kQint8 ? -128 : 255}, oq{1.0f, d == D::kQint8 ? -3 : 7};
    const uint32_t H = 7, W = 6, IC = 3, M = 2, OC = IC * M, OH = 4, OW = 3;
    const auto x = bytes(H * W * IC, 5), w = bytes(9 * OC, 6);
    XnnGraphBuilder g;
    const uint32_t xi = g.input({1, H, W, IC}, d);
    set_q(g, xi, xq);
    const uint32_t wi = g.constant<uint8_t>({1, 3, 3, OC}, w, d);
    set_q(g, wi, wq);
    const uint32_t oi = g.output({1, OH, OW, OC}, d);
    set_q(g, oi, oq);
    auto& n = g.node(T::kDepthwiseConv2d, {xi, wi, xnn::kInvalidId}, {oi});
    n.window = xnn::Window{1, 1, 1, 1, 3, 3, 2, 2, 1, 1};
    n.groups = IC;
    n.group_input_channels = 1;
    n.group_output_channels = M;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1, int32_t(H), int32_t(W), int32_t(IC)}, x, st_of(d)),
                                xnn_out({1, int32_t(OH), int32_t(OW), int32_t(OC)}, st_of(d), 1)};
    REQUIRE(run_xnn(payload, args).ok());
    std::vector<uint8_t> expected;
    for (int y = 0; y < int(OH); ++y) {
      for (int xo = 0; xo < int(OW); ++xo) {
        for (uint32_t oc = 0; oc < OC; ++oc) {
          int64_t sum = 0;
          for (int ky = 0; ky < 3; ++ky) {
            for (int kx = 0; kx < 3; ++kx) {
              const int iy = 2 * y + ky - 1, ix = 2 * xo + kx - 1;
              if (iy < 0 || ix < 0 || iy >= int(H) || ix >= int(W)) continue;
              const int32_t xv = value_of(d, x[(size_t(iy) * W + size_t(ix)) * IC + oc / M]) - xq.zp;
              const int32_t wv = value_of(d, w[(size_t(ky) * 3 + size_t(kx)) * OC + oc]) - wq.zp;
              sum += int64_t(xv) * wv;
            }
          }
          expected.push_back(requantize(sum, xq.scale * wq.scale / oq.scale, oq.zp, d));
        }
      }
    }
    CHECK(values_of<uint8_t>(args[1]) == expected);
  }
}

TEST_CASE("xnnpack: dynamically quantized rows times 8-bit and odd-length 4-bit weights, against a plain loop", "[xnnpack][qdot]") {
  // Each row holds 1 and -1 (so XNNPACK's row parameters are scale 2/255, zero point 0; see the
  // dynamic quantization test in test_xnnpack_nodes.cpp), which quantize to 127 and -128, and q / 127.5
  // for |q| <= 100, which quantize back to q. 2 rows of 21 inputs, 6 outputs; 4-bit weights: nibbles
  // low first, less 8, 21 per row so rows start mid-byte.
  const uint32_t R = 2, K = 21, O = 6;
  std::vector<float> x;
  std::vector<int32_t> q;
  const auto raw = bytes(R * K, 7);
  for (uint32_t r = 0; r < R; ++r) {
    for (uint32_t i = 0; i < K; ++i) {
      const int32_t v = i == 0 ? 127 : i == 1 ? -128 : int32_t(raw[r * K + i] % 201) - 100;
      q.push_back(v);
      x.push_back(i == 0 ? 1.0f : i == 1 ? -1.0f : float(v) / 127.5f);
    }
  }
  for (D wd : {D::kQcint8, D::kQcint4}) {
    const bool four = wd == D::kQcint4;
    const auto w = bytes(four ? (O * K + 1) / 2 : O * K, 8);
    std::vector<float> scales(O);
    for (uint32_t o = 0; o < O; ++o) scales[o] = 0.125f * float(o + 1);
    XnnGraphBuilder g;
    const uint32_t xi = g.input({R, K});
    const uint32_t qi = g.internal({R, K}, D::kQdint8);
    g.value(qi).quantized = true;
    g.value(qi).quant.scheme = xnn::QuantScheme::kPerTokenDynamic;
    g.value(qi).quant.num_nonbatch_dims = 1;
    const uint32_t wi = g.constant<uint8_t>({O, K}, w, wd);
    g.value(wi).quantized = true;
    g.value(wi).quant.scheme = xnn::QuantScheme::kPerChannel;
    g.value(wi).quant.scales = scales;
    const uint32_t oi = g.output({R, O});
    g.node(T::kConvert, {xi}, {qi});
    g.node(T::kFullyConnected, {qi, wi, xnn::kInvalidId}, {oi});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<float>({int32_t(R), int32_t(K)}, x), xnn_out({int32_t(R), int32_t(O)})};
    REQUIRE(run_xnn(payload, args).ok());
    std::vector<float> expected;
    for (uint32_t r = 0; r < R; ++r) {
      for (uint32_t o = 0; o < O; ++o) {
        int64_t sum = 0;
        for (uint32_t i = 0; i < K; ++i) {
          const size_t index = size_t(o) * K + i;
          const int32_t wv = four ? int32_t(index % 2 == 0 ? w[index / 2] & 0xF : w[index / 2] >> 4) - 8 : int32_t(int8_t(w[index]));
          sum += int64_t(q[r * K + i]) * wv;
        }
        expected.push_back(float(double(sum) * 2.0 / 255.0 * double(scales[o])));
      }
    }
    // A sum off by one changes the value by about 1e-4 of its size; float rounding stays below 1e-6.
    CHECK_THAT(values_of(args[1]), Catch::Matchers::Approx(expected).epsilon(1e-6f).margin(1e-6f));
  }
}

TEST_CASE("xnnpack: packed constant filters are reused across calls of one runtime", "[xnnpack][qdot]") {
  // One runtime, two calls with different inputs: the second reads the packings the first made
  // (int16 panels for the 8-bit product, floats for the blockwise 4-bit one) and must still be right.
  XnnGraphBuilder g;
  const uint32_t x8 = g.input({1, 5}, D::kQint8);
  set_q(g, x8, {0.5f, -2});
  const auto w8 = bytes(3 * 5, 9);
  const uint32_t w8i = g.constant<uint8_t>({3, 5}, w8, D::kQint8);
  set_q(g, w8i, {0.25f, 4});
  const uint32_t o8 = g.output({1, 3}, D::kQint8);
  set_q(g, o8, {4.0f, 1});
  g.node(T::kFullyConnected, {x8, w8i, xnn::kInvalidId}, {o8});
  // qbint4, fp32 input, blocks of 2 with scales 1 and 0.5: bytes 0x9A, 0x6F -> (2, 1, 7, -2) * (1, 1, 0.5, 0.5).
  const uint32_t xf = g.input({1, 4});
  const uint32_t wb = g.constant<uint8_t>({1, 4}, {0x9A, 0x6F}, D::kQbint4);
  g.value(wb).quantized = true;
  g.value(wb).quant.scheme = xnn::QuantScheme::kPerChannelGroup;
  g.value(wb).quant.group_size = 2;
  g.value(wb).quant.scales = {1.0f, 0.5f};
  const uint32_t of = g.output({1, 1});
  g.node(T::kFullyConnected, {xf, wb, xnn::kInvalidId}, {of});
  const auto payload = g.payload();
  auto graph = xnn::read_xnn_payload(ByteSpan(payload));
  REQUIRE(graph.ok());
  auto runtime = rt::xnnpack::Runtime::compile(std::move(graph).value(), nullptr, {});
  REQUIRE(runtime.ok());
  for (int call = 0; call < 2; ++call) {
    const auto x = bytes(5, uint32_t(10 + call));
    std::vector<uint8_t> y8(3);
    std::vector<float> xfv = {1, 2, float(call), 1}, yf(1);
    std::deque<rt::Tensor> tensors;  // in the order the externals were added
    tensors.emplace_back(ScalarType::kChar, std::vector<int32_t>{1, 5}, std::vector<uint8_t>{}, const_cast<uint8_t*>(x.data()));
    tensors.emplace_back(ScalarType::kChar, std::vector<int32_t>{1, 3}, std::vector<uint8_t>{}, y8.data());
    tensors.emplace_back(ScalarType::kFloat, std::vector<int32_t>{1, 4}, std::vector<uint8_t>{}, xfv.data());
    tensors.emplace_back(ScalarType::kFloat, std::vector<int32_t>{1, 1}, std::vector<uint8_t>{}, yf.data());
    std::vector<rt::EValue> values(4);
    std::vector<rt::EValue*> pointers;
    for (size_t i = 0; i < 4; ++i) {
      values[i].tag = rt::Tag::kTensor;
      values[i].tensor = &tensors[i];
      pointers.push_back(&values[i]);
    }
    const auto status = (*runtime)->run(pointers, rt::DelegateCallContext{nullptr, 0, 0});
    INFO((status.ok() ? std::string() : status.error().describe()));
    REQUIRE(status.ok());
    std::vector<uint8_t> expected;
    for (size_t o = 0; o < 3; ++o) {
      int64_t sum = 0;
      for (size_t i = 0; i < 5; ++i) sum += int64_t(int8_t(x[i]) + 2) * (int8_t(w8[o * 5 + i]) - 4);
      expected.push_back(requantize(sum, 0.5f * 0.25f / 4.0f, 1, D::kQint8));
    }
    CHECK(y8 == expected);
    // 2 * 1 + 1 * 2 + 3.5 * call - 1 * 1 = 3 + 3.5 * call.
    CHECK(yf[0] == 3.0f + 3.5f * float(call));
  }
}

TEST_CASE("xnnpack: an 8-bit filter that is a delegate input is packed per call", "[xnnpack][qdot]") {
  // A quint8 filter (zero point 200) passed in at run time: no cache, packed into scratch.
  const uint32_t R = 2, K = 11, O = 6;
  const auto x = bytes(R * K, 12), w = bytes(O * K, 13);
  XnnGraphBuilder g;
  const uint32_t xi = g.input({R, K}, D::kQuint8);
  set_q(g, xi, {0.5f, 9});
  const uint32_t wi = g.input({O, K}, D::kQuint8);
  set_q(g, wi, {0.25f, 200});
  const uint32_t oi = g.output({R, O}, D::kQuint8);
  set_q(g, oi, {8.0f, 100});
  g.node(T::kFullyConnected, {xi, wi, xnn::kInvalidId}, {oi});
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<uint8_t>({int32_t(R), int32_t(K)}, x, ScalarType::kByte),
                              xnn_arg<uint8_t>({int32_t(O), int32_t(K)}, w, ScalarType::kByte),
                              xnn_out({int32_t(R), int32_t(O)}, ScalarType::kByte, 1)};
  const auto status = run_xnn(payload, args);
  INFO((status.ok() ? std::string() : status.error().describe()));
  REQUIRE(status.ok());
  std::vector<uint8_t> expected;
  for (uint32_t r = 0; r < R; ++r) {
    for (uint32_t o = 0; o < O; ++o) {
      int64_t sum = 0;
      for (uint32_t i = 0; i < K; ++i) sum += int64_t(int32_t(x[r * K + i]) - 9) * (int32_t(w[o * K + i]) - 200);
      expected.push_back(requantize(sum, 0.5f * 0.25f / 8.0f, 100, D::kQuint8));
    }
  }
  CHECK(values_of<uint8_t>(args[2]) == expected);
}

namespace {

// One convolution (groups 1) or depthwise convolution (multiplier 1) node
// against a plain loop: int64 sums of (x - x_zp) * (w - w_zp) over the
// taps inside the image, plus the bias, then the fp32 requantization.
struct ConvCase {
  D d;
  QP xq, wq, oq;
  uint32_t n, h, w, ic, oc;
  uint32_t kernel, stride, pad, dilation;
  bool depthwise;
};

void check_conv(const ConvCase& c) {
  const uint32_t span = c.dilation * (c.kernel - 1) + 1;
  const uint32_t oh = (c.h + 2 * c.pad - span) / c.stride + 1, ow = (c.w + 2 * c.pad - span) / c.stride + 1;
  const uint32_t ic = c.depthwise ? c.oc : c.ic;
  const auto x = bytes(size_t(c.n) * c.h * c.w * ic, 11), w = bytes(size_t(c.oc) * c.kernel * c.kernel * (c.depthwise ? 1 : ic), 12);
  std::vector<int32_t> bias(c.oc);
  for (uint32_t o = 0; o < c.oc; ++o) bias[o] = int32_t(o * 977) - 5000;
  XnnGraphBuilder g;
  const uint32_t xi = g.input({c.n, c.h, c.w, ic}, c.d);
  set_q(g, xi, c.xq);
  const uint32_t wi = g.constant<uint8_t>(c.depthwise ? std::vector<uint32_t>{1, c.kernel, c.kernel, c.oc}
                                                      : std::vector<uint32_t>{c.oc, c.kernel, c.kernel, ic},
                                          w, c.d);
  set_q(g, wi, c.wq);
  const uint32_t bi = g.constant<int32_t>({c.oc}, bias, D::kQint32);
  set_q(g, bi, {c.xq.scale * c.wq.scale, 0});
  const uint32_t oi = g.output({c.n, oh, ow, c.oc}, c.d);
  set_q(g, oi, c.oq);
  auto& node = g.node(c.depthwise ? T::kDepthwiseConv2d : T::kConv2d, {xi, wi, bi}, {oi});
  node.window = xnn::Window{c.pad, c.pad, c.pad, c.pad, c.kernel, c.kernel, c.stride, c.stride, c.dilation, c.dilation};
  node.groups = c.depthwise ? c.oc : 1;
  node.group_input_channels = c.depthwise ? 1 : ic;
  node.group_output_channels = c.depthwise ? 1 : c.oc;
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<uint8_t>({int32_t(c.n), int32_t(c.h), int32_t(c.w), int32_t(ic)}, x, st_of(c.d)),
                              xnn_out({int32_t(c.n), int32_t(oh), int32_t(ow), int32_t(c.oc)}, st_of(c.d), 1)};
  REQUIRE(run_xnn(payload, args).ok());
  const float scale = c.xq.scale * c.wq.scale / c.oq.scale;
  std::vector<uint8_t> expected;
  for (uint32_t b = 0; b < c.n; ++b) {
    for (uint32_t y = 0; y < oh; ++y) {
      for (uint32_t xo = 0; xo < ow; ++xo) {
        for (uint32_t o = 0; o < c.oc; ++o) {
          int64_t sum = bias[o];
          for (uint32_t ky = 0; ky < c.kernel; ++ky) {
            for (uint32_t kx = 0; kx < c.kernel; ++kx) {
              const int iy = int(y * c.stride + ky * c.dilation) - int(c.pad), ix = int(xo * c.stride + kx * c.dilation) - int(c.pad);
              if (iy < 0 || ix < 0 || iy >= int(c.h) || ix >= int(c.w)) continue;  // the zero point: contributes 0
              const size_t pixel = (size_t(b) * c.h + size_t(iy)) * c.w + size_t(ix);
              if (c.depthwise) {
                sum += int64_t(value_of(c.d, x[pixel * ic + o]) - c.xq.zp) *
                       (value_of(c.d, w[(size_t(ky) * c.kernel + kx) * c.oc + o]) - c.wq.zp);
                continue;
              }
              for (uint32_t i = 0; i < ic; ++i) {
                sum += int64_t(value_of(c.d, x[pixel * ic + i]) - c.xq.zp) *
                       (value_of(c.d, w[((size_t(o) * c.kernel + ky) * c.kernel + kx) * ic + i]) - c.wq.zp);
              }
            }
          }
          expected.push_back(requantize(sum, scale, c.oq.zp, c.d));
        }
      }
    }
  }
  CHECK(values_of<uint8_t>(args[1]) == expected);
}

}  // namespace

TEST_CASE("xnnpack: 8-bit 1x1 convolution read in place, 4-pixel x 8-channel tiles with tails", "[xnnpack][qdot]") {
  // 2 images of 5 x 7 pixels (35 each: 8 tiles of 4 and 3 left over), 13 inputs (odd: a lone last
  // value), 19 outputs (two blocks of 8 and 3 left over); zero points at the ends of their ranges.
  check_conv({D::kQint8, {0.5f, -128}, {0.25f, 127}, {2.0f, 127}, 2, 5, 7, 13, 19, 1, 1, 0, 1, false});
  check_conv({D::kQint8, {0.5f, 127}, {0.25f, -128}, {4.0f, -128}, 1, 5, 7, 13, 19, 1, 1, 0, 1, false});
  check_conv({D::kQuint8, {0.5f, 255}, {0.25f, 0}, {2.0f, 0}, 1, 6, 6, 24, 8, 1, 1, 0, 1, false});
  check_conv({D::kQuint8, {0.5f, 0}, {0.25f, 255}, {8.0f, 255}, 1, 3, 3, 5, 3, 1, 1, 0, 1, false});
  // Saturation: a large scale sends most outputs to the ends of the range.
  check_conv({D::kQint8, {1.0f, 3}, {1.0f, -7}, {1.0f, 1}, 1, 4, 9, 24, 17, 1, 1, 0, 1, false});
  // 70 inputs: past the short-patch limit, rows read in place by the row product.
  check_conv({D::kQint8, {0.5f, -128}, {0.25f, 127}, {4.0f, 2}, 1, 3, 5, 70, 9, 1, 1, 0, 1, false});
  check_conv({D::kQuint8, {0.5f, 255}, {0.25f, 0}, {4.0f, 128}, 1, 3, 5, 70, 9, 1, 1, 0, 1, false});
  // 1x1 with stride 2 or padding: gathered, not in place.
  check_conv({D::kQint8, {0.5f, 3}, {0.25f, -7}, {2.0f, 1}, 1, 7, 6, 11, 9, 1, 2, 0, 1, false});
  check_conv({D::kQuint8, {0.5f, 200}, {0.25f, 30}, {2.0f, 100}, 1, 4, 5, 11, 9, 1, 1, 1, 1, false});
}

TEST_CASE("xnnpack: 8-bit stem-like convolutions gathered into short patches", "[xnnpack][qdot]") {
  // 3x3 stride 2 pad 1 on 3 channels (patch 27: odd) to 11 outputs, rows cut by both edges.
  check_conv({D::kQint8, {0.5f, -128}, {0.25f, 127}, {2.0f, -3}, 1, 9, 10, 3, 11, 3, 2, 1, 1, false});
  check_conv({D::kQuint8, {0.5f, 255}, {0.25f, 0}, {2.0f, 250}, 2, 10, 9, 3, 32, 3, 2, 1, 1, false});
  // Dilation 2: a kernel row is not one run of the input.
  check_conv({D::kQint8, {0.5f, 5}, {0.25f, -2}, {2.0f, 0}, 1, 8, 9, 2, 10, 3, 1, 2, 2, false});
  // Saturation at both ends.
  check_conv({D::kQint8, {1.0f, 127}, {1.0f, -128}, {1.0f, 0}, 1, 6, 6, 3, 8, 3, 2, 1, 1, false});
  // Patch 5 x 5 x 3 = 75: past the short-patch limit, the row-product path.
  check_conv({D::kQint8, {0.5f, 3}, {0.25f, -7}, {2.0f, 1}, 1, 7, 8, 3, 6, 5, 2, 2, 1, false});
}

TEST_CASE("xnnpack: 8-bit depthwise over blocks of 8 channels and 4 pixels with tails, padding, stride 2, 25 taps", "[xnnpack][qdot]") {
  // 19 channels: two blocks of 8 and 3 left over; 9 taps (odd: the last pairs with zeros).
  check_conv({D::kQint8, {0.5f, -128}, {0.25f, 127}, {1.0f, -3}, 2, 6, 7, 0, 19, 3, 1, 1, 1, true});
  check_conv({D::kQuint8, {0.5f, 255}, {0.25f, 0}, {1.0f, 7}, 1, 6, 7, 0, 19, 3, 2, 1, 1, true});
  check_conv({D::kQuint8, {0.5f, 0}, {0.25f, 255}, {1.0f, 255}, 1, 5, 5, 0, 16, 3, 1, 1, 1, true});
  // Rows of 6, 7 and 5 pixels: passes of 4 pixels with 2, 3 and 1 left over.
  check_conv({D::kQint8, {0.5f, 3}, {0.25f, -7}, {2.0f, 1}, 1, 5, 6, 0, 11, 3, 1, 1, 1, true});
  // 5x5 (25 taps), stride 2, pad 2, dilation 1; then dilation 2.
  check_conv({D::kQint8, {0.5f, 3}, {0.25f, -7}, {2.0f, 1}, 1, 9, 8, 0, 13, 5, 2, 2, 1, true});
  check_conv({D::kQint8, {0.5f, 3}, {0.25f, -7}, {2.0f, 1}, 1, 9, 8, 0, 5, 3, 1, 2, 2, true});
  // Saturation at both ends.
  check_conv({D::kQint8, {1.0f, 127}, {1.0f, -128}, {0.5f, 0}, 1, 4, 4, 0, 24, 3, 1, 1, 1, true});
}

TEST_CASE("xnnpack: requantize_row four at a time matches the fp32 requantization on ties, wraps and bounds", "[xnnpack][qdot]") {
  // Odd sums times 0.5 are ties (nearest even); sums near the int32 ends wrap with the bias; 11
  // channels leave 3 for the scalar tail.
  const std::vector<int32_t> acc = {1, 3, 5, -1, -3, -5, INT32_MAX, INT32_MIN, 1000, -1000, 255};
  const std::vector<int32_t> bias = {0, 0, 0, 0, 0, 0, 1, -1, 0, 0, 2};
  const std::vector<float> scale = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0x1.0p-24f, 0x1.0p-24f, 1.0f, 1.0f, 0.5f};
  for (D d : {D::kQint8, D::kQuint8}) {
    for (int32_t zp : {lo_of(d), lo_of(d) + 255, lo_of(d) + 128}) {
      std::vector<uint8_t> out(acc.size());
      rt::xnnpack::requantize_row(acc.data(), acc.size(), bias.data(), scale.data(), zp, lo_of(d), lo_of(d) + 255,
                                  d == D::kQint8, out.data());
      for (size_t i = 0; i < acc.size(); ++i) {
        INFO("channel " << i << " zero point " << zp);
        CHECK(out[i] == requantize(int64_t(acc[i]) + bias[i], scale[i], zp, d));
      }
    }
  }
}
