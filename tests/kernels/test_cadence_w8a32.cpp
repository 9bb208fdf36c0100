// cadence::quantized_w8a32_linear, _conv and _gru (int8 weights, float
// activations, as ref_implementations.py defines them), worked by hand or
// against a plain double loop written here.
#include <cmath>
#include <cstdint>
#include <vector>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
using etkit::test::error_message;

TEST_CASE("cadence::quantized_w8a32_linear: weight [in, out], one row per leading index", "[cadence]") {
  KernelHarness h;
  // x [2, -1, 4]; weight columns [1, 2, 0] and [3, -2, 1] times 0.25; bias [4, -8] times 0.5:
  // (2 - 2 + 0) / 4 + 2 = 2 and (6 + 2 + 4) / 4 - 4 = -1. Row [1, 1, 1]: 3 / 4 + 2, 2 / 4 - 4.
  const size_t x = h.tensor<float>(ScalarType::kFloat, {2, 1, 3}, {2, -1, 4, 1, 1, 1});
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {3, 2}, {1, 3, 2, -2, 0, 1});
  const size_t b = h.tensor<int8_t>(ScalarType::kChar, {2}, {4, -8});
  const size_t out = h.out(ScalarType::kFloat, {2, 1, 2});
  REQUIRE(h.call("cadence::quantized_w8a32_linear.out", {x, w, h.real(0.25), b, h.real(0.5), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{2, -1, 2.75f, -3.5f});

  const size_t rows = h.tensor<float>(ScalarType::kFloat, {1, 2, 3}, {2, -1, 4, 1, 1, 1});
  CHECK_THAT(error_message(h.call("cadence::quantized_w8a32_linear.out", {rows, w, h.real(0.25), b, h.real(0.5), out, out})),
             Catch::Contains("must have 1 row"));
  const size_t wt = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 3, 2, -2, 0, 1});
  CHECK_THAT(error_message(h.call("cadence::quantized_w8a32_linear.out", {x, wt, h.real(0.25), b, h.real(0.5), out, out})),
             Catch::Contains("weight [2, 3] must be [in, out] with in = 3"));
  const size_t bf = h.tensor<float>(ScalarType::kFloat, {2}, {4, -8});
  CHECK_THAT(error_message(h.call("cadence::quantized_w8a32_linear.out", {x, w, h.real(0.25), bf, h.real(0.5), out, out})),
             Catch::Contains("bias must be CHAR"));
}

TEST_CASE("cadence::quantized_w8a32_conv: channels-last input, [3, OC, C] weight, NCL output", "[cadence]") {
  KernelHarness h;
  // By hand: L = 3 gives one output; every weight of output channel o is o + 1
  // (times 0.5), x holds 0..11, so o gets 0.5 * (o + 1) * 66 plus bias 2 * o.
  std::vector<float> xv(12);
  for (int i = 0; i < 12; ++i) xv[i] = float(i);
  std::vector<int8_t> wv(3 * 4 * 4);
  for (int t = 0; t < 3; ++t)
    for (int o = 0; o < 4; ++o)
      for (int c = 0; c < 4; ++c) wv[(t * 4 + o) * 4 + c] = int8_t(o + 1);
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 3, 4}, xv);
  const size_t w = h.tensor<int8_t>(ScalarType::kChar, {3, 4, 4}, wv);
  const size_t b = h.tensor<int8_t>(ScalarType::kChar, {4}, {0, 1, 2, 3});
  const size_t out = h.out(ScalarType::kFloat, {1, 4, 1});
  REQUIRE(h.call("cadence::quantized_w8a32_conv.out", {x, w, h.real(0.5), b, h.real(2.0), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{33, 68, 103, 138});

  // Distinct weights against a double loop: N 2, L 5, C 4, OC 4.
  const int N = 2, L = 5, C = 4, OC = 4, OL = L - 2;
  std::vector<float> x2(N * L * C);
  std::vector<int8_t> w2(3 * OC * C), b2(OC);
  for (size_t i = 0; i < x2.size(); ++i) x2[i] = float(int(i * 7 % 13) - 6) / 2;
  for (size_t i = 0; i < w2.size(); ++i) w2[i] = int8_t(int(i * 5 % 11) - 5);
  for (int i = 0; i < OC; ++i) b2[i] = int8_t(3 * i - 4);
  const double ws = 0.125, bs = 0.25;
  std::vector<double> want(N * OC * OL);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o)
      for (int l = 0; l < OL; ++l) {
        double acc = b2[o] * bs;
        for (int t = 0; t < 3; ++t)
          for (int c = 0; c < C; ++c) acc += double(x2[(n * L + l + t) * C + c]) * w2[(t * OC + o) * C + c] * ws;
        want[(n * OC + o) * OL + l] = acc;
      }
  const size_t xt = h.tensor<float>(ScalarType::kFloat, {N, L, C}, x2);
  const size_t wt = h.tensor<int8_t>(ScalarType::kChar, {3, OC, C}, w2);
  const size_t bt = h.tensor<int8_t>(ScalarType::kChar, {OC}, b2);
  const size_t ot = h.out(ScalarType::kFloat, {N, OC, OL});
  REQUIRE(h.call("cadence::quantized_w8a32_conv.out", {xt, wt, h.real(ws), bt, h.real(bs), ot, ot}));
  const auto got = h.data<float>(ot);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(double(got[i]) == Approx(want[i]).margin(1e-5));

  const size_t w2k = h.tensor<int8_t>(ScalarType::kChar, {2, 4, 4}, std::vector<int8_t>(32, 1));
  CHECK_THAT(error_message(h.call("cadence::quantized_w8a32_conv.out", {x, w2k, h.real(0.5), b, h.real(2.0), out, out})),
             Catch::Contains("kernel size 3"));
}

TEST_CASE("cadence::quantized_w8a32_gru: one cell step, h' stacked twice", "[cadence]") {
  KernelHarness h;
  const int I = 2, H = 4;
  // Zero weights and biases: r = z = sigmoid(0) = 1/2, n = tanh(0) = 0, so h' = h / 2.
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 1, I}, {1, -2});
  const size_t hid = h.tensor<float>(ScalarType::kFloat, {1, H}, {2, -4, 6, 1});
  const size_t wi0 = h.tensor<int8_t>(ScalarType::kChar, {3 * H, I}, std::vector<int8_t>(3 * H * I, 0));
  const size_t wh0 = h.tensor<int8_t>(ScalarType::kChar, {3 * H, H}, std::vector<int8_t>(3 * H * H, 0));
  const size_t b0 = h.tensor<int8_t>(ScalarType::kChar, {3 * H}, std::vector<int8_t>(3 * H, 0));
  const size_t out = h.out(ScalarType::kFloat, {2, 1, 1, H});
  REQUIRE(h.call("cadence::quantized_w8a32_gru.out", {x, hid, wi0, h.real(0.5), wh0, h.real(0.5), b0, h.real(1.0), b0, out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{1, -2, 3, 0.5f, 1, -2, 3, 0.5f});

  // Distinct values against the GRU equations in double.
  std::vector<int8_t> wi(3 * H * I), wh(3 * H * H), bi(3 * H), bh(3 * H);
  for (size_t i = 0; i < wi.size(); ++i) wi[i] = int8_t(int(i * 3 % 7) - 3);
  for (size_t i = 0; i < wh.size(); ++i) wh[i] = int8_t(int(i * 5 % 9) - 4);
  for (size_t i = 0; i < bi.size(); ++i) bi[i] = int8_t(int(i % 5) - 2);
  for (size_t i = 0; i < bh.size(); ++i) bh[i] = int8_t(int(i % 3) - 1);
  const double wis = 0.25, whs = 0.125, bs = 0.5;
  const std::vector<double> xv = {1, -2}, hv = {2, -4, 6, 1};
  std::vector<double> gi(3 * H), gh(3 * H);
  for (int j = 0; j < 3 * H; ++j) {
    gi[j] = bi[j] * bs;
    for (int i = 0; i < I; ++i) gi[j] += xv[i] * wi[j * I + i] * wis;
    gh[j] = bh[j] * bs;
    for (int i = 0; i < H; ++i) gh[j] += hv[i] * wh[j * H + i] * whs;
  }
  auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
  std::vector<double> want(2 * H);
  for (int j = 0; j < H; ++j) {
    const double r = sig(gi[j] + gh[j]), z = sig(gi[H + j] + gh[H + j]);
    const double n = std::tanh(gi[2 * H + j] + r * gh[2 * H + j]);
    want[j] = want[H + j] = (1 - z) * n + z * hv[j];
  }
  const size_t wit = h.tensor<int8_t>(ScalarType::kChar, {3 * H, I}, wi);
  const size_t wht = h.tensor<int8_t>(ScalarType::kChar, {3 * H, H}, wh);
  const size_t bit = h.tensor<int8_t>(ScalarType::kChar, {3 * H}, bi);
  const size_t bht = h.tensor<int8_t>(ScalarType::kChar, {3 * H}, bh);
  REQUIRE(h.call("cadence::quantized_w8a32_gru.out", {x, hid, wit, h.real(wis), wht, h.real(whs), bit, h.real(bs), bht, out, out}));
  const auto got = h.data<float>(out);
  for (size_t i = 0; i < got.size(); ++i) CHECK(double(got[i]) == Approx(want[i]).margin(1e-5));

  const size_t h2 = h.tensor<float>(ScalarType::kFloat, {2, H}, std::vector<float>(2 * H, 0));
  CHECK_THAT(error_message(h.call("cadence::quantized_w8a32_gru.out", {x, h2, wit, h.real(wis), wht, h.real(whs), bit, h.real(bs), bht, out, out})),
             Catch::Contains("hidden [2, 4] must have leading dimensions of 1"));
  CHECK_THAT(error_message(h.call("cadence::quantized_w8a32_gru.out", {x, hid, wht, h.real(wis), wht, h.real(whs), bit, h.real(bs), bht, out, out})),
             Catch::Contains("weights_inputs [12, 4] must be [3 * 4, 2]"));
}
