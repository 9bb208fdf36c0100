// The Cadence AOT flow's float helpers: _softmax_f32_f32, rope (both pair
// layouts), sdpa_bitwise_mask_gen, aten::rms_norm.out, the no-op copies and
// slice_scatter_, with values worked by hand or by a plain double loop here.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
using etkit::test::error_message;

namespace {

void check_close(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(double(got[i]) == Approx(want[i]).epsilon(1e-6).margin(1e-7));
}

}  // namespace

TEST_CASE("cadence::_softmax_f32_f32 over the last and a leading dim", "[cadence]") {
  KernelHarness h;
  const std::vector<float> v = {1, 2, 3, -1, 0, 4};
  const size_t x = h.tensor<float>(ScalarType::kFloat, {2, 3}, v);
  const size_t out = h.out(ScalarType::kFloat, {2, 3});
  // softmax along rows (dim -1) and columns (dim 0), in double.
  std::vector<double> rows(6), cols(6);
  for (int r = 0; r < 2; ++r) {
    double s = 0;
    for (int c = 0; c < 3; ++c) s += std::exp(double(v[r * 3 + c]));
    for (int c = 0; c < 3; ++c) rows[r * 3 + c] = std::exp(double(v[r * 3 + c])) / s;
  }
  for (int c = 0; c < 3; ++c) {
    const double s = std::exp(double(v[c])) + std::exp(double(v[3 + c]));
    for (int r = 0; r < 2; ++r) cols[r * 3 + c] = std::exp(double(v[r * 3 + c])) / s;
  }
  REQUIRE(h.call("cadence::_softmax_f32_f32.out", {x, h.integer(-1), h.none(), out, out}));
  check_close(h.data<float>(out), rows);
  REQUIRE(h.call("cadence::_softmax_f32_f32.out", {x, h.integer(0), h.boolean(false), out, out}));
  check_close(h.data<float>(out), cols);

  CHECK_THAT(error_message(h.call("cadence::_softmax_f32_f32.out", {x, h.integer(1), h.boolean(true), out, out})),
             Catch::Contains("half_to_float"));
  const size_t xi = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  CHECK_THAT(error_message(h.call("cadence::_softmax_f32_f32.out", {xi, h.integer(0), h.none(), out, out})),
             Catch::Contains("self must be FLOAT"));
  CHECK_THAT(error_message(h.call("cadence::_softmax_f32_f32.out", {x, h.integer(2), h.none(), out, out})),
             Catch::Contains("dim"));
}

TEST_CASE("cadence::rope and rope_rotate_stacked_halves rotate pairs by the token's sin and cos", "[cadence]") {
  KernelHarness h;
  // [1, seq 2, heads 1, hd 4]; tables of 3 rows of hd / 2 = 2.
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const size_t sn = h.tensor<float>(ScalarType::kFloat, {3, 2}, {0, 1, 0.5f, 0, 1, 0});
  const size_t cs = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 0, 0.5f, -1, 0, 1});
  const size_t out = h.out(ScalarType::kFloat, {1, 2, 1, 4});
  // Adjacent pairs, token s uses row s. s=0, row 0: (1, 2) by sin 0 cos 1 stays;
  // (3, 4) by sin 1 cos 0 -> (-4, 3). s=1, row 1: (5, 6) by sin .5 cos .5 ->
  // (2.5 - 3, 2.5 + 3); (7, 8) by sin 0 cos -1 -> (-7, -8).
  REQUIRE(h.call("cadence::rope.out", {x, sn, cs, h.none(), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, -4, 3, -0.5f, 5.5f, -7, -8});
  // pos [2, 0]: s=0 uses row 2: (1, 2) by sin 1 cos 0 -> (-2, 1); (3, 4) by sin 0 cos 1 stays.
  // s=1 uses row 0: (5, 6) stays; (7, 8) -> (-8, 7).
  const size_t pos = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 0});
  REQUIRE(h.call("cadence::rope.out", {x, sn, cs, pos, out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{-2, 1, 3, 4, 5, 6, -8, 7});
  const size_t pos32 = h.tensor<int32_t>(ScalarType::kInt, {2}, {2, 0});
  REQUIRE(h.call("cadence::rope.out", {x, sn, cs, pos32, out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{-2, 1, 3, 4, 5, 6, -8, 7});
  // The [1, seq, heads, hd / 2, 2] layout is the same memory.
  const size_t x5 = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const size_t out5 = h.out(ScalarType::kFloat, {1, 2, 1, 2, 2});
  REQUIRE(h.call("cadence::rope.out", {x5, sn, cs, h.none(), out5, out5}));
  CHECK(h.data<float>(out5) == std::vector<float>{1, 2, -4, 3, -0.5f, 5.5f, -7, -8});

  // Stacked halves pair element i with i + 2. s=0, row 0: (1, 3) by sin 0 cos 1
  // stays; (2, 4) by sin 1 cos 0 -> (-4, 2). s=1, row 1: (5, 7) by sin .5 cos .5
  // -> (-1, 6); (6, 8) by sin 0 cos -1 -> (-6, -8).
  REQUIRE(h.call("cadence::rope_rotate_stacked_halves.out", {x, sn, cs, h.none(), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{1, -4, 3, 2, -1, -6, 6, -8});

  const size_t far = h.tensor<int64_t>(ScalarType::kLong, {2}, {3, 0});
  CHECK_THAT(error_message(h.call("cadence::rope.out", {x, sn, cs, far, out, out})),
             Catch::Contains("pos[0] = 3 is past the 3 rows"));
  const size_t x3 = h.tensor<float>(ScalarType::kFloat, {2, 4, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  CHECK_THAT(error_message(h.call("cadence::rope.out", {x3, sn, cs, h.none(), out, out})),
             Catch::Contains("input must be [1, seq, heads, hd]"));
  const size_t short_cos = h.tensor<float>(ScalarType::kFloat, {2}, {1, 1});
  CHECK_THAT(error_message(h.call("cadence::rope.out", {x, sn, short_cos, h.none(), out, out})),
             Catch::Contains("cos_tensor"));
}

TEST_CASE("cadence::sdpa_bitwise_mask_gen packs blocked positions LSB first", "[cadence]") {
  KernelHarness h;
  // Bool: false (blocked) at positions 1, 4, 5 -> 2 + 16 + 32 = 50.
  const size_t b = h.tensor<bool>(ScalarType::kBool, {1, 8}, {true, false, true, true, false, false, true, true});
  const size_t ob = h.out(ScalarType::kByte, {1, 1});
  REQUIRE(h.call("cadence::sdpa_bitwise_mask_gen.out", {b, h.real(0.0), ob, ob}));
  CHECK(h.data<uint8_t>(ob) == std::vector<uint8_t>{50});
  // Float, threshold 0: below it at 0, 3, 5 -> 1 + 8 + 32 = 41; a row of -1s -> 255.
  const size_t f = h.tensor<float>(ScalarType::kFloat, {2, 8},
                                   {-1, 0, 1, -0.5f, 2, -3, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1});
  const size_t of = h.out(ScalarType::kByte, {2, 1});
  REQUIRE(h.call("cadence::sdpa_bitwise_mask_gen.out", {f, h.real(0.0), of, of}));
  CHECK(h.data<uint8_t>(of) == std::vector<uint8_t>{41, 255});

  const size_t odd = h.tensor<float>(ScalarType::kFloat, {1, 4}, {0, 0, 0, 0});
  CHECK_THAT(error_message(h.call("cadence::sdpa_bitwise_mask_gen.out", {odd, h.real(0.0), ob, ob})),
             Catch::Contains("not a multiple of 8"));
  const size_t of32 = h.out(ScalarType::kInt, {2, 1});
  CHECK_THAT(error_message(h.call("cadence::sdpa_bitwise_mask_gen.out", {f, h.real(0.0), of32, of32})),
             Catch::Contains("out must be BYTE"));
}

TEST_CASE("aten::rms_norm.out of the Cadence flow: x / rms * weight", "[cadence]") {
  KernelHarness h;
  const size_t x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {3, 4, 1, 1});
  const size_t w = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  const size_t out = h.out(ScalarType::kFloat, {2, 2});
  // eps 0.5: row 0 mean square 12.5 -> 1 / sqrt(13); row 1 mean square 1 -> 1 / sqrt(1.5).
  REQUIRE(h.call("aten::rms_norm.out", {x, h.int_list({2}), w, h.real(0.5), out, out}));
  check_close(h.data<float>(out), {3 / std::sqrt(13.0), 8 / std::sqrt(13.0), 1 / std::sqrt(1.5), 2 / std::sqrt(1.5)});
  // No weight; eps None is float32's epsilon.
  REQUIRE(h.call("aten::rms_norm.out", {x, h.int_list({2}), h.none(), h.none(), out, out}));
  const double e = FLT_EPSILON;
  check_close(h.data<float>(out), {3 / std::sqrt(12.5 + e), 4 / std::sqrt(12.5 + e), 1 / std::sqrt(1 + e),
                                   1 / std::sqrt(1 + e)});
  // Over both dims: mean square (9 + 16 + 1 + 1) / 4 = 6.75.
  REQUIRE(h.call("aten::rms_norm.out", {x, h.int_list({2, 2}), h.none(), h.real(0.0), out, out}));
  const double r = std::sqrt(6.75);
  check_close(h.data<float>(out), {3 / r, 4 / r, 1 / r, 1 / r});

  CHECK_THAT(error_message(h.call("aten::rms_norm.out", {x, h.int_list({3}), w, h.real(0.5), out, out})),
             Catch::Contains("normalized_shape [3] does not match"));
  const size_t w3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  CHECK_THAT(error_message(h.call("aten::rms_norm.out", {x, h.int_list({2}), w3, h.real(0.5), out, out})),
             Catch::Contains("weight [3] must have 2 elements"));
}

TEST_CASE("aten::_cat_nop, _select_copy_nop and _slice_copy_nop copy as cat, select and slice do", "[cadence]") {
  KernelHarness h;
  const size_t a = h.tensor<float>(ScalarType::kFloat, {1, 2}, {1, 2});
  const size_t b = h.tensor<float>(ScalarType::kFloat, {1, 1}, {3});
  const size_t cat = h.out(ScalarType::kFloat, {1, 3});
  REQUIRE(h.call("aten::_cat_nop.out", {h.tensor_list({a, b}), h.integer(1), cat, cat}));
  CHECK(h.data<float>(cat) == std::vector<float>{1, 2, 3});

  const size_t m = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  const size_t row = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::_select_copy_nop.int_out", {m, h.integer(0), h.integer(1), row, row}));
  CHECK(h.data<float>(row) == std::vector<float>{3, 4});

  const size_t v = h.tensor<float>(ScalarType::kFloat, {4}, {1, 2, 3, 4});
  const size_t mid = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::_slice_copy_nop.Tensor_out", {v, h.integer(0), h.integer(1), h.integer(3), h.integer(1), mid, mid}));
  CHECK(h.data<float>(mid) == std::vector<float>{2, 3});
}

TEST_CASE("cadence::slice_scatter_ writes src into self's window in place", "[cadence]") {
  KernelHarness h;
  // self [2, 5] = 0..9; columns 1 and 3 (start 1, end None, step 2) of both rows get 70 71 / 80 81.
  const size_t self = h.tensor<int32_t>(ScalarType::kInt, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const size_t src = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {70, 71, 80, 81});
  REQUIRE(h.call("cadence::slice_scatter_", {self, src, h.integer(-1), h.integer(1), h.none(), h.integer(2), self}));
  CHECK(h.data<int32_t>(self) == std::vector<int32_t>{0, 70, 2, 71, 4, 5, 80, 7, 81, 9});
  // A return slot with memory of its own receives the result as well.
  const size_t ret = h.out(ScalarType::kInt, {2, 5});
  const size_t one = h.tensor<int32_t>(ScalarType::kInt, {1, 5}, {-1, -2, -3, -4, -5});
  REQUIRE(h.call("cadence::slice_scatter_", {self, one, h.integer(0), h.integer(-1), h.integer(100), h.integer(1), ret}));
  const std::vector<int32_t> want{0, 70, 2, 71, 4, -1, -2, -3, -4, -5};
  CHECK(h.data<int32_t>(self) == want);
  CHECK(h.data<int32_t>(ret) == want);
  // src must have the window's shape and self's dtype; the step must be positive.
  CHECK(error_message(h.call("cadence::slice_scatter_", {self, src, h.integer(1), h.none(), h.none(), h.integer(1), self})) ==
        "cadence::slice_scatter_: src has shape [2, 2] but the window has shape [2, 5]");
  const size_t f = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  CHECK(error_message(h.call("cadence::slice_scatter_", {self, f, h.integer(1), h.integer(0), h.integer(2), h.integer(1), self})) ==
        "cadence::slice_scatter_: src has dtype FLOAT, expected INT");
  CHECK(error_message(h.call("cadence::slice_scatter_", {self, src, h.integer(1), h.none(), h.none(), h.integer(0), self})) ==
        "cadence::slice_scatter_: step must be positive, got 0");
}

namespace {

etkit::Status conv(KernelHarness& h, const std::string& op, size_t x, size_t w, size_t b, std::vector<int64_t> s,
                   std::vector<int64_t> p, std::vector<int64_t> d, int64_t groups, size_t out) {
  return h.call("cadence::" + op, {x, w, b, h.int_list(s), h.int_list(p), h.int_list(d), h.integer(groups), out, out});
}

}  // namespace

TEST_CASE("cadence::conv1d and conv3d worked by hand: padding, stride, dilation, groups", "[cadence]") {
  KernelHarness h;
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 1, 4}, {1, 2, 3, 4});
  const size_t w = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, -1});
  const size_t b = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  const size_t out = h.out(ScalarType::kFloat, {1, 1, 3}, true);
  // x[i] - x[i + 1] + 0.5 at each of 3 positions.
  REQUIRE(conv(h, "conv1d.out", x, w, b, {1}, {0}, {1}, 1, out));
  CHECK(h.data<float>(out) == std::vector<float>{-0.5f, -0.5f, -0.5f});
  // Padding 1, stride 2: windows at -1 (only -x[0]), 1 (x1 - x2), 3 (only x[3]).
  REQUIRE(conv(h, "conv1d.out", x, w, b, {2}, {1}, {1}, 1, out));
  CHECK(h.data<float>(out) == std::vector<float>{-0.5f, -0.5f, 4.5f});
  // Dilation 2: x0 - x2 and x1 - x3; 2 outputs.
  REQUIRE(conv(h, "conv1d.out", x, w, b, {1}, {0}, {2}, 1, out));
  CHECK(h.sizes(out) == std::vector<int32_t>{1, 1, 2});
  CHECK(h.data<float>(out) == std::vector<float>{-1.5f, -1.5f});

  // 3-D: a 2x2x2 box of ones over 1..8 sums to 36.
  std::vector<float> ramp(8), ones(8, 1.0f);
  for (int i = 0; i < 8; ++i) ramp[i] = float(i + 1);
  const size_t x3 = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2, 2}, ramp);
  const size_t w3 = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2, 2}, ones);
  const size_t b0 = h.tensor<float>(ScalarType::kFloat, {1}, {0});
  const size_t o3 = h.out(ScalarType::kFloat, {1, 1, 1, 1, 1});
  REQUIRE(conv(h, "conv3d.out", x3, w3, b0, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, o3));
  CHECK(h.data<float>(o3) == std::vector<float>{36});
  // Two groups of one channel: 3 * 2 + 1 and 5 * 10 + 1.
  const size_t xg = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 1, 1}, {3, 5});
  const size_t wg = h.tensor<float>(ScalarType::kFloat, {2, 1, 1, 1, 1}, {2, 10});
  const size_t bg = h.tensor<float>(ScalarType::kFloat, {2}, {1, 1});
  const size_t og = h.out(ScalarType::kFloat, {1, 2, 1, 1, 1});
  REQUIRE(conv(h, "conv3d.out", xg, wg, bg, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 2, og));
  CHECK(h.data<float>(og) == std::vector<float>{7, 51});

  CHECK_THAT(error_message(conv(h, "conv3d.out", xg, wg, bg, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 3, og)),
             Catch::Contains("groups 3 must divide"));
  CHECK_THAT(error_message(conv(h, "conv3d.out", xg, wg, bg, {1, 1}, {0, 0, 0}, {1, 1, 1}, 2, og)),
             Catch::Contains("stride must have 3 entries"));
  CHECK_THAT(error_message(conv(h, "conv3d.out", xg, wg, bg, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1, og)),
             Catch::Contains("weight [2, 1, 1, 1, 1] must have 2 input channels per group"));
  CHECK_THAT(error_message(conv(h, "conv1d.out", x, w, b, {0}, {0}, {1}, 1, out)), Catch::Contains("stride"));
  CHECK_THAT(error_message(conv(h, "conv1d.out", x, w, bg, {1}, {0}, {1}, 1, out)),
             Catch::Contains("bias [2] must have 1 elements"));
}

TEST_CASE("cadence::conv2d against a plain double loop (groups, stride, padding, dilation)", "[cadence]") {
  KernelHarness h;
  const int N = 2, C = 4, H = 5, W = 6, OC = 4, G = 2, KH = 3, KW = 2;
  const int SH = 2, SW = 1, PH = 1, PW = 0, DH = 1, DW = 2;
  const int OH = (H + 2 * PH - DH * (KH - 1) - 1) / SH + 1, OW = (W + 2 * PW - DW * (KW - 1) - 1) / SW + 1;
  std::vector<float> xv(N * C * H * W), wv(OC * (C / G) * KH * KW), bv(OC);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = float(int(i * 7 % 11) - 5) / 4;
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = float(int(i * 5 % 9) - 4) / 8;
  for (size_t i = 0; i < bv.size(); ++i) bv[i] = float(i) - 1.5f;
  std::vector<double> want(N * OC * OH * OW);
  for (int n = 0; n < N; ++n)
    for (int oc = 0; oc < OC; ++oc)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow) {
          double acc = bv[oc];
          const int g = oc / (OC / G);
          for (int ic = 0; ic < C / G; ++ic)
            for (int kh = 0; kh < KH; ++kh)
              for (int kw = 0; kw < KW; ++kw) {
                const int ih = oh * SH - PH + kh * DH, iw = ow * SW - PW + kw * DW;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += double(xv[((n * C + g * (C / G) + ic) * H + ih) * W + iw]) *
                       double(wv[((oc * (C / G) + ic) * KH + kh) * KW + kw]);
              }
          want[((n * OC + oc) * OH + oh) * OW + ow] = acc;
        }
  const size_t x = h.tensor<float>(ScalarType::kFloat, {N, C, H, W}, xv);
  const size_t w = h.tensor<float>(ScalarType::kFloat, {OC, C / G, KH, KW}, wv);
  const size_t b = h.tensor<float>(ScalarType::kFloat, {OC}, bv);
  const size_t out = h.out(ScalarType::kFloat, {N, OC, OH, OW});
  REQUIRE(conv(h, "conv2d.out", x, w, b, {SH, SW}, {PH, PW}, {DH, DW}, G, out));
  CHECK(h.sizes(out) == std::vector<int32_t>{N, OC, OH, OW});
  const auto got = h.data<float>(out);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) CHECK(double(got[i]) == Approx(want[i]).margin(1e-5));
}

TEST_CASE("cadence::fully_connected: bias then the inner products, over leading dims", "[cadence]") {
  KernelHarness h;
  const size_t x = h.tensor<float>(ScalarType::kFloat, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const size_t w = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  const size_t b = h.tensor<float>(ScalarType::kFloat, {2}, {10, 0});
  const size_t out = h.out(ScalarType::kFloat, {1, 2, 2});
  // Row [1, 2, 3]: 1 - 3 + 10 = 8, (1 + 2 + 3) / 2 = 3; row [4, 5, 6]: 4 - 6 + 10 = 8, 7.5.
  REQUIRE(h.call("cadence::fully_connected.out", {x, w, b, out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{8, 3, 8, 7.5f});
  REQUIRE(h.call("cadence::fully_connected.out", {x, w, h.none(), out, out}));
  CHECK(h.data<float>(out) == std::vector<float>{-2, 3, -2, 7.5f});

  const size_t wt = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  CHECK_THAT(error_message(h.call("cadence::fully_connected.out", {x, wt, h.none(), out, out})),
             Catch::Contains("must end in weight's inner dim 2"));
  const size_t b3 = h.tensor<float>(ScalarType::kFloat, {3}, {0, 0, 0});
  CHECK_THAT(error_message(h.call("cadence::fully_connected.out", {x, w, b3, out, out})),
             Catch::Contains("bias [3] must have 2 elements"));
}

TEST_CASE("cadence::quantized_transposed_conv: uint8, per-tensor and per-channel bias_scale, both layouts", "[cadence]") {
  KernelHarness h;
  // Input [12, 14] - 10 = [2, 4]. Weight rows [5, 7] and [3, 13] minus zero point 3:
  // [2, 4] and [0, 10]. With stride 1 the reference's output position o reads
  // input o - 1 + k at kernel tap k:
  //   channel 0: o0 = 2 * 4 = 8, o1 = 2 * 2 + 4 * 4 = 20, o2 = 4 * 2 = 8; + bias 1 -> 9, 21, 9;
  //   channel 1: o0 = 2 * 10 = 20, o1 = 0 + 4 * 10 = 40, o2 = 0; + bias -20 -> 0, 20, -20.
  // bias_scale [0.25, 1], out_scale 0.5 (times 2): 4.5, 10.5, 4.5 (ties to even: 4, 10, 4)
  // and 0, 40, -40; + out_zero_point 100.
  const size_t w = h.tensor<uint8_t>(ScalarType::kByte, {2, 1, 2}, {5, 7, 3, 13});
  const size_t bias = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, -20});
  const size_t wzp = h.tensor<int32_t>(ScalarType::kInt, {1}, {3});
  const size_t scales = h.tensor<float>(ScalarType::kFloat, {2}, {0.25f, 1.0f});
  const size_t unused = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto call = [&](size_t x, size_t weight, size_t bs, bool channel_last, size_t out) {
    return h.call("cadence::quantized_transposed_conv.out",
                  {x, weight, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.int_list({0}), h.integer(1),
                   h.integer(10), wzp, bs, h.real(0.5), h.integer(100), unused, unused, h.boolean(channel_last), out, out});
  };
  const size_t x = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 2}, {12, 14});
  const size_t out = h.out(ScalarType::kByte, {1, 2, 3});
  REQUIRE(call(x, w, scales, false, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{104, 110, 104, 100, 140, 60});
  // Channels last: input [N, W, C], weight [OC, K, C], out [N, W, OC].
  const size_t xl = h.tensor<uint8_t>(ScalarType::kByte, {1, 2, 1}, {12, 14});
  const size_t ol = h.out(ScalarType::kByte, {1, 3, 2});
  const size_t wl = h.tensor<uint8_t>(ScalarType::kByte, {2, 2, 1}, {5, 7, 3, 13});
  REQUIRE(call(xl, wl, scales, true, ol));
  CHECK(h.data<uint8_t>(ol) == std::vector<uint8_t>{104, 100, 110, 140, 104, 60});
  // One bias_scale of 0.25 for both channels: channel 1 becomes 0, 10, -10 -> 100, 110, 90.
  const size_t one = h.tensor<float>(ScalarType::kFloat, {1}, {0.25f});
  REQUIRE(call(x, w, one, false, out));
  CHECK(h.data<uint8_t>(out) == std::vector<uint8_t>{104, 110, 104, 100, 110, 90});

  const size_t three = h.tensor<float>(ScalarType::kFloat, {3}, {1, 1, 1});
  CHECK_THAT(error_message(call(x, w, three, false, out)), Catch::Contains("bias_scale must have 1 or 2 elements"));
  const size_t xs = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2}, {12, 14});
  CHECK_THAT(error_message(call(xs, w, scales, false, out)), Catch::Contains("input must be BYTE"));
}
