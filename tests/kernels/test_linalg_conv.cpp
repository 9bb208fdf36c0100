// aten::convolution.out: hand-worked tiny cases, a sweep against a direct
// six-loop reference written here (stride, padding, dilation, groups, bias,
// 1-D, batches, channels-last input and out), and every error message.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "runner/kernels/linalg/copy_stride2.h"
#include "runner/kernels/linalg/depthwise.h"
#include "runner/kernels/linalg/direct_conv.h"
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
using etkit::test::count_outside_rounding;
using etkit::test::random_floats;

namespace {

// convolution.out with 2-D stride/padding/dilation lists.
etkit::Status conv2d(KernelHarness& h, size_t in, size_t w, size_t bias, std::vector<int64_t> stride,
                     std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, size_t out) {
  return h.call("aten::convolution.out", {in, w, bias, h.int_list(stride), h.int_list(padding), h.int_list(dilation),
                                          h.boolean(false), h.int_list({0, 0}), h.integer(groups), out, out});
}

std::string conv2d_error(KernelHarness& h, size_t in, size_t w, size_t bias, std::vector<int64_t> stride,
                         std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, size_t out) {
  auto s = conv2d(h, in, w, bias, stride, padding, dilation, groups, out);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

struct ConvCase {
  int n, cin, h, w, cout, kh, kw, sh, sw, ph, pw, dh, dw, groups;
  bool bias, one_d, channels_last_in, channels_last_out;
};

int out_size(int in, int k, int s, int p, int d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

// The definition, over logical NCHW indices, in double; `magnitude` gets
// the sum of the terms' absolute values (the scale of float rounding).
std::vector<double> reference(const ConvCase& c, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b, std::vector<double>& magnitude) {
  const int oh = out_size(c.h, c.kh, c.sh, c.ph, c.dh), ow = out_size(c.w, c.kw, c.sw, c.pw, c.dw);
  const int cin_g = c.cin / c.groups, cout_g = c.cout / c.groups;
  std::vector<double> out(size_t(c.n * c.cout * oh * ow));
  magnitude.assign(out.size(), 0.0);
  for (int n = 0; n < c.n; ++n) {
    for (int co = 0; co < c.cout; ++co) {
      for (int oy = 0; oy < oh; ++oy) {
        for (int ox = 0; ox < ow; ++ox) {
          double acc = c.bias ? b[size_t(co)] : 0.0, mag = std::fabs(acc);
          for (int ci = 0; ci < cin_g; ++ci) {
            for (int ky = 0; ky < c.kh; ++ky) {
              for (int kx = 0; kx < c.kw; ++kx) {
                const int y = oy * c.sh - c.ph + ky * c.dh, xx = ox * c.sw - c.pw + kx * c.dw;
                if (y < 0 || y >= c.h || xx < 0 || xx >= c.w) continue;
                const int channel = (co / cout_g) * cin_g + ci;
                const double t = double(x[size_t(((n * c.cin + channel) * c.h + y) * c.w + xx)]) *
                                 double(w[size_t(((co * cin_g + ci) * c.kh + ky) * c.kw + kx)]);
                acc += t;
                mag += std::fabs(t);
              }
            }
          }
          out[size_t(((n * c.cout + co) * oh + oy) * ow + ox)] = acc;
          magnitude[size_t(((n * c.cout + co) * oh + oy) * ow + ox)] = mag;
        }
      }
    }
  }
  return out;
}

// NCHW data reordered as NHWC storage, and back.
std::vector<float> to_nhwc(const std::vector<float>& v, int n, int c, int h, int w) {
  std::vector<float> out(v.size());
  for (int in = 0; in < n; ++in)
    for (int ic = 0; ic < c; ++ic)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out[size_t(((in * h + y) * w + x) * c + ic)] = v[size_t(((in * c + ic) * h + y) * w + x)];
  return out;
}
std::vector<float> from_nhwc(const std::vector<float>& v, int n, int c, int h, int w) {
  std::vector<float> out(v.size());
  for (int in = 0; in < n; ++in)
    for (int ic = 0; ic < c; ++ic)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out[size_t(((in * c + ic) * h + y) * w + x)] = v[size_t(((in * h + y) * w + x) * c + ic)];
  return out;
}

void run_case(const ConvCase& c) {
  INFO("n " << c.n << " cin " << c.cin << " h " << c.h << " w " << c.w << " cout " << c.cout << " k " << c.kh << "x"
            << c.kw << " s " << c.sh << "," << c.sw << " p " << c.ph << "," << c.pw << " d " << c.dh << "," << c.dw
            << " groups " << c.groups << " bias " << c.bias << " 1-D " << c.one_d << " NHWC in/out "
            << c.channels_last_in << "/" << c.channels_last_out);
  const int oh = out_size(c.h, c.kh, c.sh, c.ph, c.dh), ow = out_size(c.w, c.kw, c.sw, c.pw, c.dw);
  const auto x = random_floats(size_t(c.n * c.cin * c.h * c.w), 11);
  const auto w = random_floats(size_t(c.cout * (c.cin / c.groups) * c.kh * c.kw), 12);
  const auto b = random_floats(size_t(c.cout), 13);
  std::vector<double> magnitude;
  const auto ref = reference(c, x, w, b, magnitude);
  KernelHarness h;
  size_t in, wt, out;
  const std::vector<uint8_t> nhwc{0, 2, 3, 1};
  if (c.one_d) {
    in = h.tensor<float>(ScalarType::kFloat, {c.n, c.cin, c.w}, x);
    wt = h.tensor<float>(ScalarType::kFloat, {c.cout, c.cin / c.groups, c.kw}, w);
    out = h.out(ScalarType::kFloat, {c.n, c.cout, ow});
  } else {
    in = c.channels_last_in ? h.tensor<float>(ScalarType::kFloat, {c.n, c.cin, c.h, c.w}, to_nhwc(x, c.n, c.cin, c.h, c.w), nhwc)
                            : h.tensor<float>(ScalarType::kFloat, {c.n, c.cin, c.h, c.w}, x);
    wt = h.tensor<float>(ScalarType::kFloat, {c.cout, c.cin / c.groups, c.kh, c.kw}, w);
    out = h.out(ScalarType::kFloat, {c.n, c.cout, oh, ow}, false, c.channels_last_out ? nhwc : std::vector<uint8_t>{});
  }
  const size_t bias = c.bias ? h.tensor<float>(ScalarType::kFloat, {c.cout}, b) : h.none();
  etkit::Status s;
  if (c.one_d) {
    s = h.call("aten::convolution.out", {in, wt, bias, h.int_list({c.sw}), h.int_list({c.pw}), h.int_list({c.dw}),
                                         h.boolean(false), h.int_list({0}), h.integer(c.groups), out, out});
  } else {
    s = conv2d(h, in, wt, bias, {c.sh, c.sw}, {c.ph, c.pw}, {c.dh, c.dw}, c.groups, out);
  }
  if (!s.ok()) FAIL(s.error().message);
  auto got = h.data<float>(out);
  if (c.channels_last_out) got = from_nhwc(got, c.n, c.cout, oh, ow);
  REQUIRE(got.size() == ref.size());
  CHECK(count_outside_rounding(got, ref, magnitude) == 0);
}

}  // namespace

TEST_CASE("convolution.out: hand-worked 2-D cases", "[kernels][linalg][conv]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto ones = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 1, 1, 1});
  // 2x2 window sums 1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9, then bias 10 or none.
  auto bias = h.tensor<float>(ScalarType::kFloat, {1}, {10});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv2d(h, x, ones, bias, {1, 1}, {0, 0}, {1, 1}, 1, o1).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{22, 26, 34, 38});
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv2d(h, x, ones, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{12, 16, 24, 28});
  // Stride 2 with padding 1: windows at rows/cols -1 and 1 see {1}, {2,3},
  // {4,7} and {5,6,8,9}.
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv2d(h, x, ones, h.none(), {2, 2}, {1, 1}, {1, 1}, 1, o3).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{1, 5, 11, 28});
  // Dilation 2 spreads the 2x2 kernel over the corners: 1 + 3 + 7 + 9.
  auto o4 = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(conv2d(h, x, ones, h.none(), {1, 1}, {0, 0}, {2, 2}, 1, o4).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{20});
  // Asymmetric stride and padding: stride (1, 2), padding (0, 1) with a 1x3
  // kernel [1, 0, -1]: out[y][j] = x[y][2j-1] - x[y][2j+1] (0 outside).
  auto k13 = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {1, 0, -1});
  auto o5 = h.out(ScalarType::kFloat, {1, 1, 3, 2});
  REQUIRE(conv2d(h, x, k13, h.none(), {1, 2}, {0, 1}, {1, 1}, 1, o5).ok());
  CHECK(h.data<float>(o5) == std::vector<float>{-2, 2, -5, 5, -8, 8});
  // A one-entry list applies to both dims.
  auto o6 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv2d(h, x, ones, h.none(), {2}, {1}, {1}, 1, o6).ok());
  CHECK(h.data<float>(o6) == std::vector<float>{1, 5, 11, 28});
}

TEST_CASE("convolution.out: groups, depthwise, batches, 1-D", "[kernels][linalg][conv]") {
  KernelHarness h;
  // Groups 2 with two output channels each, 1x1 kernels on 4 channels
  // [1, 2, 3, 4]: group 0 sees (1, 2), group 1 sees (3, 4).
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 4, 1, 1}, {1, 2, 3, 4});
  auto w = h.tensor<float>(ScalarType::kFloat, {4, 2, 1, 1}, {1, 1, 1, -1, 2, 0, 0, 3});
  auto o1 = h.out(ScalarType::kFloat, {1, 4, 1, 1});
  REQUIRE(conv2d(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 2, o1).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{3, -1, 6, 12});
  // Depthwise: channel 0 [[1, 2], [3, 4]] with ones (10), channel 1
  // [[5, 6], [7, 8]] with [[1, 0], [0, -1]] (5 - 8), bias (1, 2).
  auto dx = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto dw = h.tensor<float>(ScalarType::kFloat, {2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1});
  auto db = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto o2 = h.out(ScalarType::kFloat, {1, 2, 1, 1});
  REQUIRE(conv2d(h, dx, dw, db, {1, 1}, {0, 0}, {1, 1}, 2, o2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{11, -1});
  // The same depthwise convolution on channels-last input and out.
  auto dx_cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}, {0, 2, 3, 1});
  auto o3 = h.out(ScalarType::kFloat, {1, 2, 1, 1}, false, {0, 2, 3, 1});
  REQUIRE(conv2d(h, dx_cl, dw, db, {1, 1}, {0, 0}, {1, 1}, 2, o3).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{11, -1});
  // Batch of 2 with a 1x1 kernel of 2 and bias 1.
  auto bx = h.tensor<float>(ScalarType::kFloat, {2, 1, 1, 2}, {1, 2, 3, 4});
  auto two = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 1}, {2});
  auto one = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  auto o4 = h.out(ScalarType::kFloat, {2, 1, 1, 2});
  REQUIRE(conv2d(h, bx, two, one, {1, 1}, {0, 0}, {1, 1}, 1, o4).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{3, 5, 7, 9});
  // 1-D: [1, 2, 3, 4, 5] padded to [0, 1, 2, 3, 4, 5, 0]; kernel [1, 1] with
  // dilation 2 and stride 2 adds positions (0, 2), (2, 4), (4, 6): 2, 6, 4.
  auto s = h.tensor<float>(ScalarType::kFloat, {1, 1, 5}, {1, 2, 3, 4, 5});
  auto k = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, 1});
  auto o5 = h.out(ScalarType::kFloat, {1, 1, 3});
  REQUIRE(h.call("aten::convolution.out", {s, k, h.none(), h.int_list({2}), h.int_list({1}), h.int_list({2}),
                                           h.boolean(false), h.int_list({0}), h.integer(1), o5, o5}).ok());
  CHECK(h.data<float>(o5) == std::vector<float>{2, 6, 4});
}

TEST_CASE("convolution.out: channels-last input and out, double, int, empty", "[kernels][linalg][conv]") {
  KernelHarness h;
  // Logical channels c0 = [1, 2], c1 = [3, 4] stored NHWC as 1, 3, 2, 4;
  // weights (1, 10) give [31, 42].
  auto nhwc = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 2}, {1, 3, 2, 4}, {0, 2, 3, 1});
  auto w = h.tensor<float>(ScalarType::kFloat, {1, 2, 1, 1}, {1, 10});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 1, 2});
  REQUIRE(conv2d(h, nhwc, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o1).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{31, 42});
  // Two output channels into a channels-last out: weights (1, 10) and
  // (1, -1) give pixel 0 = (31, -2), pixel 1 = (42, -2), interleaved.
  auto w2 = h.tensor<float>(ScalarType::kFloat, {2, 2, 1, 1}, {1, 10, 1, -1});
  auto o2 = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  REQUIRE(conv2d(h, nhwc, w2, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{31, -2, 42, -2});
  // float64 and int32 run the direct loop (window sums of 1..9 as above).
  auto dx = h.tensor<double>(ScalarType::kDouble, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto dw = h.tensor<double>(ScalarType::kDouble, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto db = h.tensor<double>(ScalarType::kDouble, {1}, {0.5});
  auto o3 = h.out(ScalarType::kDouble, {1, 1, 2, 2});
  REQUIRE(conv2d(h, dx, dw, db, {1, 1}, {0, 0}, {1, 1}, 1, o3).ok());
  CHECK(h.data<double>(o3) == std::vector<double>{12.5, 16.5, 24.5, 28.5});
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto iw = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto o4 = h.out(ScalarType::kInt, {1, 1, 2, 2});
  REQUIRE(conv2d(h, ix, iw, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o4).ok());
  CHECK(h.data<int32_t>(o4) == std::vector<int32_t>{12, 16, 24, 28});
  // An empty batch gives an empty out.
  auto ex = h.tensor<float>(ScalarType::kFloat, {0, 1, 3, 3}, {});
  auto ones = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto o5 = h.out(ScalarType::kFloat, {2, 1, 2, 2}, true);
  REQUIRE(conv2d(h, ex, ones, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, o5).ok());
  CHECK(h.sizes(o5) == std::vector<int32_t>{0, 1, 2, 2});
  // No input channels: the bias alone.
  auto cx = h.tensor<float>(ScalarType::kFloat, {1, 0, 2, 2}, {});
  auto cw = h.tensor<float>(ScalarType::kFloat, {1, 0, 1, 1}, {});
  auto cb = h.tensor<float>(ScalarType::kFloat, {1}, {7});
  auto o6 = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(conv2d(h, cx, cw, cb, {1, 1}, {0, 0}, {1, 1}, 1, o6).ok());
  CHECK(h.data<float>(o6) == std::vector<float>{7, 7, 7, 7});
}

TEST_CASE("convolution.out matches the direct definition across parameters", "[kernels][linalg][conv]") {
  //            n cin  h  w cout kh kw sh sw ph pw dh dw grp  bias   1-D    NHWC in/out
  const ConvCase cases[] = {
      {1, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, false, false},
      {2, 4, 9, 8, 6, 3, 2, 2, 1, 0, 1, 1, 2, 2, false, false, false, false},
      {1, 6, 8, 8, 6, 3, 3, 2, 2, 1, 1, 2, 2, 3, true, false, false, false},
      {2, 8, 10, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, true, false, false, false},   // depthwise
      {1, 4, 9, 7, 8, 3, 3, 2, 1, 2, 1, 1, 1, 4, false, false, false, false},  // depthwise x2
      {2, 5, 6, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, true, false, false, false},   // 1x1
      {1, 5, 6, 6, 7, 1, 1, 2, 2, 0, 0, 1, 1, 1, true, false, false, false},   // 1x1 strided
      {1, 3, 11, 13, 17, 5, 5, 2, 3, 2, 1, 1, 1, 1, true, false, false, false},
      {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, true, false},
      {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, true, true},
      {2, 3, 7, 6, 4, 3, 3, 2, 1, 0, 1, 1, 2, 1, false, false, false, true},
      {1, 6, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6, true, false, true, true},      // depthwise NHWC
      {1, 6, 8, 8, 12, 3, 3, 1, 1, 1, 1, 1, 1, 6, true, false, true, true},     // depthwise x2 NHWC
      {1, 6, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6, true, false, false, true},     // depthwise, NHWC out
      {2, 5, 6, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, true, false, true, true},      // 1x1 NHWC
      {2, 4, 1, 20, 6, 1, 5, 1, 3, 0, 2, 1, 2, 2, true, true, false, false},    // 1-D
      {1, 3, 1, 9, 2, 1, 1, 1, 1, 0, 0, 1, 1, 1, false, true, false, false},    // 1-D 1x1
      {1, 40, 12, 12, 70, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, false, false}, // > one GEMM tile
      // One input channel, one group (LeNet's first layer): the direct
      // plane loop with a multiplier; rows of 28 (one block of overlapping
      // vectors) and 15.
      {1, 1, 32, 32, 6, 5, 5, 1, 1, 0, 0, 1, 1, 1, true, false, false, false},
      {2, 1, 12, 30, 4, 3, 3, 2, 1, 1, 2, 1, 2, 1, false, false, false, true},
      // Stride-2 im2col rows long enough for its vector copy (21 and 25
      // wide); more than 32 output channels, so im2col + GEMM.
      {1, 3, 9, 41, 36, 3, 3, 2, 2, 1, 1, 1, 1, 1, true, false, false, false},
      {1, 2, 7, 50, 34, 3, 3, 1, 2, 0, 2, 1, 2, 1, false, false, false, false},
      // Depthwise rows long enough for the vector loops, with odd tails:
      // widths 45 (32 + 8 + 5), 38 and 41 under stride, padding, dilation.
      {1, 5, 9, 45, 5, 3, 3, 1, 1, 1, 1, 1, 1, 5, true, false, false, false},
      {2, 4, 15, 75, 4, 3, 3, 2, 2, 1, 1, 1, 1, 4, false, false, false, false},
      {1, 3, 20, 41, 3, 5, 5, 1, 3, 2, 2, 2, 1, 3, true, false, false, false},
      {1, 3, 8, 40, 6, 3, 3, 1, 1, 1, 1, 1, 1, 3, true, false, false, false},    // depthwise x2, wide
      {1, 6, 8, 20, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6, true, false, false, true},     // NCHW in, NHWC out
      {1, 6, 8, 20, 6, 3, 3, 2, 2, 1, 1, 1, 1, 6, true, false, true, false},     // NHWC in, NCHW out
      {1, 4, 1, 50, 4, 1, 3, 1, 2, 0, 1, 1, 1, 4, true, true, false, false},     // 1-D depthwise
      // Depthwise with padding and dilation far beyond the plane (the taps
      // inside the input only: a padded copy would be 2e6 x 2e6 floats).
      {1, 2, 5, 6, 2, 3, 3, 1, 1, 1000000, 1000000, 1000000, 1000000, 2, true, false, false, false},
      {1, 2, 5, 6, 2, 3, 3, 1, 1, 1000000, 1000000, 1000000, 1000000, 2, true, false, true, true},
      // Depthwise NHWC: 37 and 45 channels (vector blocks of 32 and 8, tail 5).
      {1, 37, 7, 9, 37, 3, 3, 2, 1, 1, 1, 1, 1, 37, false, false, true, true},
      {2, 45, 8, 8, 45, 3, 3, 1, 1, 2, 2, 2, 2, 45, true, false, true, true},
      // Depthwise planes, the row loop's paths: stride-2 rows split straight
      // from the input (padding 0, 1, 2; odd and even input extents), pairs
      // of output rows at stride 2 (even and odd output heights, 3x3 and
      // 5x5) and at stride 1, a row's last block shifted back over one to
      // four vectors' remainder (output widths 33, 41, 51, 61, 38, 56), rows
      // of overlapping vectors (13) and rows narrower than a vector (6, 5).
      {1, 3, 17, 67, 3, 3, 3, 2, 2, 0, 0, 1, 1, 3, true, false, false, false},
      {1, 3, 18, 81, 3, 3, 3, 2, 2, 1, 1, 1, 1, 3, false, false, false, false},
      {1, 3, 21, 100, 3, 3, 3, 2, 2, 2, 2, 1, 1, 3, true, false, false, false},
      {1, 3, 9, 127, 3, 5, 5, 2, 2, 2, 2, 1, 1, 3, true, false, false, false},
      {1, 3, 16, 30, 3, 5, 5, 3, 1, 2, 2, 1, 1, 3, true, false, false, false},  // pairs at stride 3
      {1, 3, 7, 25, 3, 3, 3, 2, 2, 1, 1, 1, 1, 3, true, false, false, false},
      {1, 3, 5, 9, 3, 3, 3, 2, 2, 2, 2, 1, 1, 3, false, false, false, false},
      {1, 3, 13, 45, 3, 3, 3, 2, 2, 2, 2, 2, 2, 3, true, false, false, false},  // dilated: no pairs
      {1, 3, 10, 71, 3, 3, 3, 1, 2, 1, 0, 1, 1, 3, true, false, false, false},
      {1, 3, 11, 37, 6, 3, 3, 2, 2, 1, 1, 1, 1, 3, true, false, false, false},  // x2, stride 2
      {1, 3, 11, 37, 3, 3, 3, 2, 2, 1, 1, 1, 1, 3, true, false, true, false},   // strided input rows
      {1, 3, 9, 56, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, true, false, false, false},
      {1, 3, 6, 63, 3, 3, 3, 1, 1, 0, 0, 1, 1, 3, false, false, false, false},
      {1, 3, 11, 36, 3, 3, 3, 1, 1, 2, 2, 1, 1, 3, true, false, false, false},
      {1, 3, 5, 3, 3, 3, 3, 1, 1, 2, 2, 1, 1, 3, true, false, false, false},
      // im2col beyond its 4 Mi-float budget (144 x 32400), done in row chunks
      {1, 16, 180, 180, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, false, false},
      {1, 16, 180, 180, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, true, true},
      // At most 32 output channels and one group: the direct kernel
      // (direct_conv.h). LeNet's second layer (100 pixels: tiles of 6 and a
      // short last one); simpletm's 8 -> 16 3x3 with NHWC input and out;
      // channel counts that leave padding lanes in the last vector (6, 13,
      // 20, 27) or fill them (32); padding (border tiles gathered),
      // asymmetric windows, stride 2, dilation, 1-D, batches.
      {1, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 1, 1, 1, true, false, false, false},
      {2, 8, 12, 19, 16, 3, 3, 1, 1, 0, 0, 1, 1, 1, true, false, true, true},
      {1, 5, 9, 11, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, false, false, false, false},
      {1, 3, 13, 10, 20, 3, 3, 2, 2, 1, 1, 1, 1, 1, true, false, false, false},
      {1, 4, 11, 9, 32, 3, 3, 1, 2, 2, 1, 2, 1, 1, true, false, false, true},
      {1, 2, 10, 13, 27, 5, 3, 2, 1, 0, 2, 1, 2, 1, true, false, true, false},
      {2, 7, 6, 5, 13, 2, 2, 1, 1, 0, 0, 1, 1, 1, true, false, false, false},
      {2, 3, 1, 23, 9, 1, 4, 1, 2, 0, 1, 1, 1, 1, true, true, false, false},
      // Padding: from zero-padded bands of input rows (three bands here;
      // rows wholly in the padding), or from gathered patches of the border
      // tiles when the border is thin (a stem-like 120x120 stride 2) or the
      // padding dwarfs the input.
      {1, 64, 64, 130, 8, 3, 3, 2, 1, 1, 1, 1, 1, 1, true, false, false, false},
      {1, 3, 6, 7, 5, 3, 3, 1, 1, 4, 3, 1, 1, 1, true, false, true, true},
      {1, 3, 120, 120, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, true, false, false, false},
      {1, 2, 5, 6, 3, 3, 3, 1, 1, 1000000, 1000000, 1000000, 1000000, 1, true, false, false, false},
      // Few output channels but two groups, and 33 channels: im2col + GEMM.
      {1, 8, 9, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 2, true, false, false, false},
      {1, 4, 7, 7, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, true, false, false, false},
  };
  for (const auto& c : cases) run_case(c);
}

TEST_CASE("convolution.out with few output channels gives the same bits on every call", "[kernels][linalg][conv]") {
  // LeNet's second layer, padded so some tiles read the input in place and
  // others gathered patches.
  const auto x = random_floats(6 * 14 * 14, 31), w = random_floats(16 * 6 * 25, 32), b = random_floats(16, 33);
  KernelHarness h;
  const size_t in = h.tensor<float>(ScalarType::kFloat, {1, 6, 14, 14}, x);
  const size_t wt = h.tensor<float>(ScalarType::kFloat, {16, 6, 5, 5}, w);
  const size_t bias = h.tensor<float>(ScalarType::kFloat, {16}, b);
  const size_t out = h.out(ScalarType::kFloat, {1, 16, 12, 12});
  REQUIRE(conv2d(h, in, wt, bias, {1, 1}, {1, 1}, {1, 1}, 1, out).ok());
  const auto first = h.data<float>(out);
  REQUIRE(conv2d(h, in, wt, bias, {1, 1}, {1, 1}, {1, 1}, 1, out).ok());
  const auto second = h.data<float>(out);
  REQUIRE(first.size() == second.size());
  CHECK(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)) == 0);
}

// Depthwise planes read straight from the input at column stride 1 and 2:
// rows of one vector or less, of several with a partial last one, with the
// padding, the kernel's reach or both falling in the first and the last
// vector (masked loads), taps in pairs at stride 2 (odd and even kernel
// widths), odd and even input extents, blocks of three and two output rows
// and a lone last row; 3x3 at stride 2 (its own loops) with output rows
// that share input rows (chains down the plane) and pairs that share
// none, and rows of one block or several.
TEST_CASE("convolution.out depthwise planes across widths, strides, padding and kernels", "[kernels][linalg][conv]") {
  const int widths[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 23, 31, 33, 55, 56, 57, 65, 112, 113};
  // Whether a kernel of k taps (dilation d) fits the padded extent.
  auto fits = [](int in, int k, int pad, int d) { return in + 2 * pad >= d * (k - 1) + 1; };
  for (int w : widths) {
    for (int s = 1; s <= 2; ++s) {
      for (int pad = 0; pad <= 2; ++pad) {
        for (int k : {1, 2, 3, 5}) {
          if (!fits(w, k, pad, 1)) continue;
          // 7 rows: at stride 1 three row pairs and a lone row, at stride 2
          // (7 + 2 pad - k) / 2 + 1 rows, even or odd.
          run_case({1, 2, 7, w, 2, k, k, s, s, pad, pad, 1, 1, 2, pad != 1, false, false, false});
        }
      }
    }
    // Dilation at stride 1 (no row pairs), a multiplier of 2 and 3, and
    // unequal strides (stride 2 along rows only keeps the direct loop).
    if (fits(w, 3, 2, 2)) run_case({1, 2, 9, w, 2, 3, 3, 1, 1, 2, 2, 2, 2, 2, true, false, false, false});
    run_case({1, 2, 9, w, 4, 3, 3, 1, 2, 1, 1, 1, 1, 2, true, false, false, false});
    run_case({1, 1, 8, w, 3, 3, 3, 2, 1, 1, 1, 1, 1, 1, false, false, false, false});
    // 5x5 at row stride 2: blocks of three output rows sharing one row.
    if (fits(w, 5, 2, 1)) run_case({1, 2, 13, w, 2, 5, 5, 2, 1, 2, 2, 1, 1, 2, true, false, false, false});
    // 3x3 at column stride 2 whose output-row pairs share no input row (row
    // stride 3, row dilation 2: two rows and a lone one), with padding 0 to
    // 3 (3: the first vector's column after its pair can be padding).
    for (int pad = 0; pad <= 3; ++pad) {
      if (fits(w, 3, pad, 1)) run_case({1, 2, 11, w, 2, 3, 3, 3, 2, 1, pad, 2, 1, 2, pad % 2 == 0, false, false, false});
    }
  }
  // 3x3 at stride 2 with rows of eight vectors and more (up to eight:
  // whole rows, a chain down the plane at row stride 2; more: pairs of
  // rows in blocks of four vectors), the last vector full or partial,
  // output rows sharing a row or not.
  for (int w : {129, 131, 150}) {
    for (int pad = 0; pad <= 2; ++pad) {
      run_case({1, 2, 7, w, 2, 3, 3, 2, 2, pad, pad, 1, 1, 2, pad != 1, false, false, false});
      run_case({1, 2, 11, w, 2, 3, 3, 3, 2, 1, pad, 2, 1, 2, pad == 1, false, false, false});
    }
  }
}

// The 3x3 stride-2 plane loop starts its loads one column on when that
// puts them on 32-byte boundaries, so where a plane lies in memory picks
// the path: each plane here runs at every float offset from a 64-byte
// boundary (both paths, at every padding), rows of up to eight vectors
// (one chain of whole rows down the plane, of one to eight output rows,
// ending after an even or an odd count; a row of one vector or less is
// only the last vector, masked) and of more, against a double-precision
// reference of the taps inside the input.
TEST_CASE("depthwise planes, 3x3 at stride 2, at every offset from a 64-byte boundary", "[kernels][linalg][conv]") {
  using etkit::rt::kernels::linalg::DepthwiseWindow;
  std::vector<float> buffer(150 * 150 + 64), scratch;
  float* base = buffer.data();
  while (reinterpret_cast<uintptr_t>(base) % 64 != 0) ++base;
  const auto x = random_floats(150 * 150, 21);
  const auto wt = random_floats(9, 22);
  const float bias = 0.375f;
  for (int w : {1, 2, 5, 15, 16, 17, 33, 66, 67, 80, 112, 113, 114, 128, 129, 150}) {
    for (int h : {3, 7, 8, 13, 14}) {
      for (int pad = 0; pad <= 3; ++pad) {
        if (w + 2 * pad < 3) continue;
        const DepthwiseWindow g{h, w, (h + 2 * pad - 3) / 2 + 1, (w + 2 * pad - 3) / 2 + 1, 3, 3, 2, 2, pad, pad, 1, 1};
        std::vector<double> ref(size_t(g.oh * g.ow)), magnitude(ref.size());
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            double sum = bias, mag = std::fabs(bias);
            for (int ky = 0; ky < 3; ++ky) {
              for (int kx = 0; kx < 3; ++kx) {
                const int64_t y = oy * 2 - pad + ky, c = ox * 2 - pad + kx;
                if (y < 0 || y >= h || c < 0 || c >= w) continue;
                const double t = double(wt[size_t(ky * 3 + kx)]) * x[size_t(y * w + c)];
                sum += t;
                mag += std::fabs(t);
              }
            }
            ref[size_t(oy * g.ow + ox)] = sum;
            magnitude[size_t(oy * g.ow + ox)] = mag;
          }
        }
        for (int off = 0; off < 8; ++off) {
          INFO("w " << w << " h " << h << " pad " << pad << " offset " << off);
          // Columns around the plane hold NaN: a read outside the input
          // row that is not masked shows in the outputs.
          std::fill(buffer.begin(), buffer.end(), std::nanf(""));
          std::copy(x.begin(), x.begin() + h * w, base + off);
          std::vector<float> got(ref.size() + 8, -7.0f);
          etkit::rt::kernels::linalg::depthwise_plane(g, base + off, w, 1, wt.data(), bias, got.data(), g.ow, 1, scratch);
          // Nothing written past the plane's last output.
          CHECK(std::all_of(got.end() - 8, got.end(), [](float v) { return v == -7.0f; }));
          got.resize(ref.size());
          CHECK(count_outside_rounding(got, ref, magnitude) == 0);
        }
      }
    }
  }
}

// The direct kernel keeps its tap-offset table from one call to the next
// while the input's geometry stays the same: one thread here runs inputs
// of the same extents with other strides (a wider row stride, channels
// interleaved), other extents, padding (read through padded bands, whose
// strides are the band's), an image too small for in-place windows, and
// then the first geometry again, each against the double-precision
// definition. Gaps between rows and channels hold NaN, so a stale offset
// that reads them (or another pixel) shows.
TEST_CASE("direct convolution: outputs stay right when the input's strides or extents change between calls",
          "[kernels][linalg][conv]") {
  namespace la = etkit::rt::kernels::linalg;
  struct Geometry {
    int64_t h, w, pad, in_c, in_y, in_x;
  };
  const int64_t cin = 3, cout = 5, k = 3, patch = cin * k * k;
  const auto filter = random_floats(size_t(cout * patch), 31);
  const auto bias = random_floats(size_t(cout), 32);
  std::vector<float> packed(size_t(la::direct_conv_packed_floats(cout, patch)));
  la::pack_direct_conv_filter(filter.data(), cout, patch, packed.data());
  const Geometry runs[] = {
      {8, 9, 0, 72, 9, 1},     // contiguous planes
      {8, 9, 0, 99, 11, 1},    // the same extents, rows 11 apart
      {8, 9, 0, 1, 27, 3},     // the same extents, channels interleaved
      {8, 9, 0, 110, 11, 1},   // rows 11 apart, planes 110 apart
      {6, 7, 0, 42, 7, 1},     // other extents
      {8, 9, 1, 72, 9, 1},     // padding: padded bands
      {2, 2, 1, 4, 2, 1},      // windows wider than the input: all gathered
      {8, 9, 0, 72, 9, 1},     // the first again
  };
  int run = 0;
  for (const Geometry& r : runs) {
    INFO("run " << run++);
    const int64_t oh = r.h + 2 * r.pad - k + 1, ow = r.w + 2 * r.pad - k + 1;
    const int64_t span = (cin - 1) * r.in_c + (r.h - 1) * r.in_y + (r.w - 1) * r.in_x + 1;
    std::vector<float> in(size_t(span), std::nanf(""));
    const auto x = random_floats(size_t(cin * r.h * r.w), uint32_t(40 + run));
    for (int64_t c = 0; c < cin; ++c) {
      for (int64_t y = 0; y < r.h; ++y) {
        for (int64_t xx = 0; xx < r.w; ++xx) {
          in[size_t(c * r.in_c + y * r.in_y + xx * r.in_x)] = x[size_t((c * r.h + y) * r.w + xx)];
        }
      }
    }
    std::vector<double> ref(size_t(cout * oh * ow)), magnitude(ref.size());
    for (int64_t co = 0; co < cout; ++co) {
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double sum = bias[size_t(co)], mag = std::fabs(sum);
          for (int64_t c = 0; c < cin; ++c) {
            for (int64_t ky = 0; ky < k; ++ky) {
              for (int64_t kx = 0; kx < k; ++kx) {
                const int64_t y = oy - r.pad + ky, xx = ox - r.pad + kx;
                if (y < 0 || y >= r.h || xx < 0 || xx >= r.w) continue;
                const double t = double(filter[size_t(co * patch + (c * k + ky) * k + kx)]) *
                                 x[size_t((c * r.h + y) * r.w + xx)];
                sum += t;
                mag += std::fabs(t);
              }
            }
          }
          ref[size_t((co * oh + oy) * ow + ox)] = sum;
          magnitude[size_t((co * oh + oy) * ow + ox)] = mag;
        }
      }
    }
    const la::DirectConv g{r.h, r.w, oh, ow, k, k, 1, 1, r.pad, r.pad, 1, 1, cin, cout, r.in_c, r.in_y, r.in_x, false};
    std::vector<float> got(ref.size(), -7.0f);
    la::direct_conv(g, in.data(), packed.data(), bias.data(), false, 0.0f, 0.0f, got.data(), 1, oh * ow);
    CHECK(count_outside_rounding(got, ref, magnitude) == 0);
  }
}

TEST_CASE("convolution.out errors name the problem", "[kernels][linalg][conv]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 3, 3}, std::vector<float>(18, 1.0f));
  auto w = h.tensor<float>(ScalarType::kFloat, {4, 2, 2, 2}, std::vector<float>(32, 1.0f));
  auto out = h.out(ScalarType::kFloat, {1, 4, 2, 2});
  const std::string op = "aten::convolution.out: ";
  auto flat = h.tensor<float>(ScalarType::kFloat, {3, 3}, std::vector<float>(9, 1.0f));
  CHECK(conv2d_error(h, flat, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, out) ==
        op + "input must be 3-D (N, C, W) or 4-D (N, C, H, W), got [3, 3]");
  auto w3 = h.tensor<float>(ScalarType::kFloat, {4, 2, 2}, std::vector<float>(16, 1.0f));
  CHECK(conv2d_error(h, x, w3, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, out) ==
        op + "weight [4, 2, 2] must have the rank of input [1, 2, 3, 3]");
  CHECK(conv2d_error(h, x, w, h.none(), {0, 1}, {0, 0}, {1, 1}, 1, out) == op + "stride [0, 1] must be positive");
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {-1, 0}, {1, 1}, 1, out) == op + "padding [-1, 0] must be non-negative");
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 0}, 1, out) == op + "dilation [1, 0] must be positive");
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1, 1}, {0, 0}, {1, 1}, 1, out) ==
        op + "stride must have 1 or 2 entries, got [1, 1, 1]");
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 0, out) == op + "groups must be positive, got 0");
  CHECK(conv2d_error(h, x, w, h.none(), {int64_t(1) << 62, 1}, {0, 0}, {1, 1}, 1, out) ==
        op + "stride [4611686018427387904, 1] has an entry out of the int32 range");
  auto w_empty = h.tensor<float>(ScalarType::kFloat, {4, 2, 0, 2}, {});
  CHECK(conv2d_error(h, x, w_empty, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, out) == op + "weight [4, 2, 0, 2] has an empty kernel");
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 2, out) ==
        op + "weight [4, 2, 2, 2] and groups 2 do not fit 2 input channels");
  auto w_odd = h.tensor<float>(ScalarType::kFloat, {3, 1, 2, 2}, std::vector<float>(12, 1.0f));
  CHECK(conv2d_error(h, x, w_odd, h.none(), {1, 1}, {0, 0}, {1, 1}, 2, out) ==
        op + "weight [3, 1, 2, 2]: 3 output channels are not divisible by groups 2");
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {3, 3}, 1, out) ==
        op + "kernel [2, 2] with dilation [3, 3] does not fit the padded input [3, 3]");
  auto bias3 = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(conv2d_error(h, x, w, bias3, {1, 1}, {0, 0}, {1, 1}, 1, out) ==
        op + "bias [3] must be 1-D of size 4 (one per output channel)");
  auto wd = h.tensor<double>(ScalarType::kDouble, {4, 2, 2, 2}, std::vector<double>(32, 1.0));
  CHECK(conv2d_error(h, x, wd, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, out) ==
        op + "weight dtype DOUBLE does not match input dtype FLOAT");
  auto bd = h.tensor<double>(ScalarType::kDouble, {4}, {1, 2, 3, 4});
  CHECK(conv2d_error(h, x, w, bd, {1, 1}, {0, 0}, {1, 1}, 1, out) == op + "bias dtype DOUBLE does not match input dtype FLOAT");
  auto iout = h.out(ScalarType::kInt, {1, 4, 2, 2});
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, iout) == op + "out dtype INT does not match input dtype FLOAT");
  auto small = h.out(ScalarType::kFloat, {1, 4, 1, 1});
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, small) == op + "out: cannot resize a static tensor");
  auto odd_order = h.out(ScalarType::kFloat, {1, 4, 2, 2}, false, {0, 1, 3, 2});
  CHECK(conv2d_error(h, x, w, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, odd_order) ==
        op + "out with dim order [0, 1, 3, 2] is not supported (contiguous or channels-last only)");
  auto hx = h.tensor<uint16_t>(ScalarType::kHalf, {1, 1, 1, 1}, {0x3c00});
  auto hout = h.out(ScalarType::kHalf, {1, 1, 1, 1});
  CHECK(conv2d_error(h, hx, hx, h.none(), {1, 1}, {0, 0}, {1, 1}, 1, hout) == op + "unsupported dtype HALF");
  // A 1-D convolution takes one-entry lists.
  auto s = h.tensor<float>(ScalarType::kFloat, {1, 1, 4}, {1, 2, 3, 4});
  auto k = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, 1});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 3});
  auto bad = h.call("aten::convolution.out", {s, k, h.none(), h.int_list({1, 1}), h.int_list({0}), h.int_list({1}),
                                              h.boolean(false), h.int_list({0}), h.integer(1), o1, o1});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == op + "stride must have 1 entry for a 1-D convolution, got [1, 1]");
  bad = h.call("aten::convolution.out", {s, k, h.none(), h.int_list({1}), h.int_list({-(int64_t(1) << 40)}),
                                         h.int_list({1}), h.boolean(false), h.int_list({0}), h.integer(1), o1, o1});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == op + "padding [-1099511627776] has an entry out of the int32 range");
}

namespace {

etkit::Status conv_transpose2d(KernelHarness& h, size_t in, size_t w, size_t bias, std::vector<int64_t> stride,
                               std::vector<int64_t> padding, std::vector<int64_t> dilation,
                               std::vector<int64_t> output_padding, int64_t groups, size_t out) {
  return h.call("aten::convolution.out", {in, w, bias, h.int_list(stride), h.int_list(padding), h.int_list(dilation),
                                          h.boolean(true), h.int_list(output_padding), h.integer(groups), out, out});
}

struct TransposedCase {
  int n, cin, h, w, cout_g, kh, kw, sh, sw, ph, pw, dh, dw, oph, opw, groups;
  bool bias, channels_last;
};

// The scatter definition: every input element adds input * weight to the
// outputs its kernel taps land on.
void run_transposed(const TransposedCase& c) {
  INFO("n " << c.n << " cin " << c.cin << " h " << c.h << " w " << c.w << " cout/g " << c.cout_g << " k " << c.kh
            << "x" << c.kw << " s " << c.sh << "," << c.sw << " p " << c.ph << "," << c.pw << " d " << c.dh << ","
            << c.dw << " op " << c.oph << "," << c.opw << " groups " << c.groups << " NHWC " << c.channels_last);
  const int cout = c.cout_g * c.groups, cin_g = c.cin / c.groups;
  const int oh = (c.h - 1) * c.sh - 2 * c.ph + c.dh * (c.kh - 1) + c.oph + 1;
  const int ow = (c.w - 1) * c.sw - 2 * c.pw + c.dw * (c.kw - 1) + c.opw + 1;
  const auto x = random_floats(size_t(c.n * c.cin * c.h * c.w), 21);
  const auto w = random_floats(size_t(c.cin * c.cout_g * c.kh * c.kw), 22);
  const auto b = random_floats(size_t(cout), 23);
  std::vector<double> ref(size_t(c.n * cout * oh * ow)), magnitude(ref.size());
  for (int n = 0; n < c.n; ++n) {
    for (int co = 0; co < cout; ++co) {
      for (int i = 0; i < oh * ow; ++i) {
        ref[size_t((n * cout + co) * oh * ow + i)] = c.bias ? b[size_t(co)] : 0.0;
        magnitude[size_t((n * cout + co) * oh * ow + i)] = c.bias ? std::fabs(b[size_t(co)]) : 0.0;
      }
    }
    for (int ci = 0; ci < c.cin; ++ci) {
      const int grp = ci / cin_g;
      for (int iy = 0; iy < c.h; ++iy) {
        for (int ix = 0; ix < c.w; ++ix) {
          for (int cg = 0; cg < c.cout_g; ++cg) {
            for (int ky = 0; ky < c.kh; ++ky) {
              for (int kx = 0; kx < c.kw; ++kx) {
                const int oy = iy * c.sh - c.ph + ky * c.dh, ox = ix * c.sw - c.pw + kx * c.dw;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                const double t = double(x[size_t(((n * c.cin + ci) * c.h + iy) * c.w + ix)]) *
                                 double(w[size_t(((ci * c.cout_g + cg) * c.kh + ky) * c.kw + kx)]);
                const size_t o = size_t(((n * cout + grp * c.cout_g + cg) * oh + oy) * ow + ox);
                ref[o] += t;
                magnitude[o] += std::fabs(t);
              }
            }
          }
        }
      }
    }
  }
  KernelHarness h;
  const std::vector<uint8_t> nhwc{0, 2, 3, 1};
  const size_t in = c.channels_last
                        ? h.tensor<float>(ScalarType::kFloat, {c.n, c.cin, c.h, c.w}, to_nhwc(x, c.n, c.cin, c.h, c.w), nhwc)
                        : h.tensor<float>(ScalarType::kFloat, {c.n, c.cin, c.h, c.w}, x);
  const size_t wt = h.tensor<float>(ScalarType::kFloat, {c.cin, c.cout_g, c.kh, c.kw}, w);
  const size_t bias = c.bias ? h.tensor<float>(ScalarType::kFloat, {cout}, b) : h.none();
  const size_t out = h.out(ScalarType::kFloat, {c.n, cout, oh, ow}, false, c.channels_last ? nhwc : std::vector<uint8_t>{});
  auto s = conv_transpose2d(h, in, wt, bias, {c.sh, c.sw}, {c.ph, c.pw}, {c.dh, c.dw}, {c.oph, c.opw}, c.groups, out);
  if (!s.ok()) FAIL(s.error().message);
  auto got = h.data<float>(out);
  if (c.channels_last) got = from_nhwc(got, c.n, cout, oh, ow);
  CHECK(count_outside_rounding(got, ref, magnitude) == 0);
}

}  // namespace

TEST_CASE("convolution.out transposed: hand-worked cases", "[kernels][linalg][conv]") {
  KernelHarness h;
  // 1-D, stride 2: [1, 2] with kernel [1, 1, 1] spreads 1 over outputs
  // 0..2 and 2 over outputs 2..4: [1, 1, 3, 2, 2].
  auto s = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, 2});
  auto k = h.tensor<float>(ScalarType::kFloat, {1, 1, 3}, {1, 1, 1});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 5});
  REQUIRE(h.call("aten::convolution.out", {s, k, h.none(), h.int_list({2}), h.int_list({0}), h.int_list({1}),
                                           h.boolean(true), h.int_list({0}), h.integer(1), o1, o1}).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{1, 1, 3, 2, 2});
  // 2-D, stride 1: every input element adds itself to a 2x2 block of the
  // 3x3 out; bias 1.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto ones = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto bias = h.tensor<float>(ScalarType::kFloat, {1}, {1});
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  REQUIRE(conv_transpose2d(h, x, ones, bias, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, o2).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{2, 4, 3, 5, 11, 7, 4, 8, 5});
  // Padding 1 crops that 3x3 to its centre; output_padding 1 with stride 2
  // adds a last row and column: stride 2 places the four 2x2 blocks apart
  // in a 4x4 grid ([[1,1,2,2],[1,1,2,2],[3,3,4,4],[3,3,4,4]]), plus one
  // zero row and column.
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(conv_transpose2d(h, x, ones, h.none(), {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, o3).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{10});
  auto o4 = h.out(ScalarType::kFloat, {1, 1, 5, 5});
  REQUIRE(conv_transpose2d(h, x, ones, h.none(), {2, 2}, {0, 0}, {1, 1}, {1, 1}, 1, o4).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{1, 1, 2, 2, 0, 1, 1, 2, 2, 0, 3, 3, 4, 4, 0, 3, 3, 4, 4, 0, 0, 0, 0, 0, 0});
  // float64 and int32 gather directly: the stride-1 case above.
  auto dx = h.tensor<double>(ScalarType::kDouble, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto dw = h.tensor<double>(ScalarType::kDouble, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto o5 = h.out(ScalarType::kDouble, {1, 1, 3, 3});
  REQUIRE(conv_transpose2d(h, dx, dw, h.none(), {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, o5).ok());
  CHECK(h.data<double>(o5) == std::vector<double>{1, 3, 2, 4, 10, 6, 3, 7, 4});
  // The same input stored with W outside H (dim order 0, 1, 3, 2): its
  // pixels are not evenly spaced, so they are gathered first.
  auto xt = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 3, 2, 4}, {0, 1, 3, 2});
  auto o7 = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  REQUIRE(conv_transpose2d(h, xt, ones, h.none(), {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, o7).ok());
  CHECK(h.data<float>(o7) == std::vector<float>{1, 3, 2, 4, 10, 6, 3, 7, 4});
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto iw = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto o6 = h.out(ScalarType::kInt, {1, 1, 5, 5});
  REQUIRE(conv_transpose2d(h, ix, iw, h.none(), {2, 2}, {0, 0}, {1, 1}, {1, 1}, 1, o6).ok());
  CHECK(h.data<int32_t>(o6) == std::vector<int32_t>{1, 1, 2, 2, 0, 1, 1, 2, 2, 0, 3, 3, 4, 4, 0, 3, 3, 4, 4, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("convolution.out transposed matches the scatter definition", "[kernels][linalg][conv]") {
  //                  n cin h  w  cout/g kh kw sh sw ph pw dh dw oph opw grp bias  NHWC
  const TransposedCase cases[] = {
      {1, 3, 4, 5, 2, 3, 3, 1, 1, 0, 0, 1, 1, 0, 0, 1, true, false},
      {2, 4, 5, 4, 3, 3, 2, 2, 2, 1, 0, 1, 1, 1, 1, 2, true, false},
      {1, 6, 3, 3, 1, 3, 3, 2, 1, 1, 1, 2, 1, 1, 0, 6, false, false},  // depthwise, dilated
      {2, 4, 5, 4, 3, 4, 4, 2, 2, 1, 1, 1, 1, 0, 0, 2, true, true},
      {1, 8, 6, 6, 5, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, false, true},
      {1, 20, 7, 7, 30, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true, false},
      {1, 4, 100, 90, 8, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 2, false, true},
      // columns beyond the 4 Mi-float budget (144 x 32400): input row chunks
      {1, 2, 180, 180, 16, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, true, false},
  };
  for (const auto& c : cases) run_transposed(c);
}

TEST_CASE("convolution.out transposed errors", "[kernels][linalg][conv]") {
  KernelHarness h;
  const std::string op = "aten::convolution.out: ";
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  auto w = h.tensor<float>(ScalarType::kFloat, {3, 1, 2, 2}, std::vector<float>(12, 1.0f));
  auto out = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  auto fail = [&](size_t in, size_t wt, std::vector<int64_t> stride, std::vector<int64_t> padding,
                  std::vector<int64_t> output_padding) {
    auto s = conv_transpose2d(h, in, wt, h.none(), stride, padding, {1, 1}, output_padding, 1, out);
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail(x, w, {1, 1}, {0, 0}, {0, 0}) ==
        op + "weight [3, 1, 2, 2] and groups 1 do not fit 2 input channels of a transposed convolution");
  auto w2 = h.tensor<float>(ScalarType::kFloat, {2, 1, 2, 2}, std::vector<float>(8, 1.0f));
  CHECK(fail(x, w2, {1, 1}, {0, 0}, {1, 0}) ==
        op + "output_padding [1, 0] must be non-negative and smaller than stride [1, 1] or dilation [1, 1]");
  CHECK(fail(x, w2, {2, 2}, {0, 0}, {0, 0, 0}) == op + "output_padding must have 1 or 2 entries, got [0, 0, 0]");
  CHECK(fail(x, w2, {1, 1}, {2, 2}, {0, 0}) ==
        op + "transposed convolution of input [1, 2, 2, 2] gives an empty output [-1, -1]");
  auto small = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto s = conv_transpose2d(h, x, w2, h.none(), {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, small);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "out: cannot resize a static tensor");
  // Three input channels cannot split into two groups.
  auto x3 = h.tensor<float>(ScalarType::kFloat, {1, 3, 2, 2}, std::vector<float>(12, 1.0f));
  s = conv_transpose2d(h, x3, w, h.none(), {1, 1}, {0, 0}, {1, 1}, {0, 0}, 2, out);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "weight [3, 1, 2, 2] and groups 2 do not fit 3 input channels of a transposed convolution");
  // The bias has one entry per output channel (groups * weight.size(1)).
  auto bias2 = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  s = conv_transpose2d(h, x, w2, bias2, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, out);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "bias [2] must be 1-D of size 1 (one per output channel)");
  // 1-D: output_padding takes one entry.
  auto s1 = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, 2});
  auto k1 = h.tensor<float>(ScalarType::kFloat, {1, 1, 3}, {1, 1, 1});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 5});
  s = h.call("aten::convolution.out", {s1, k1, h.none(), h.int_list({2}), h.int_list({0}), h.int_list({1}),
                                       h.boolean(true), h.int_list({1, 1}), h.integer(1), o1, o1});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "output_padding must have 1 entry for a 1-D convolution, got [1, 1]");
}

TEST_CASE("convolution.out transposed: empty batch, groups on a 1-D signal", "[kernels][linalg][conv]") {
  KernelHarness h;
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 2, 3, 3}, {});
  auto w = h.tensor<float>(ScalarType::kFloat, {2, 1, 2, 2}, std::vector<float>(8, 1.0f));
  auto oe = h.out(ScalarType::kFloat, {1, 1, 4, 4}, true);
  REQUIRE(conv_transpose2d(h, e, w, h.none(), {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, oe).ok());
  CHECK(h.sizes(oe) == std::vector<int32_t>{0, 1, 4, 4});
  // Two groups on a 1-D signal: channel 0 [1, 2] spreads with kernel [1, 1]
  // into output channel 0 ([1, 3, 2]); channel 1 [3, 4] with [1, -1] into
  // output channel 1 ([3, 1, -4]); bias (0, 10).
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2}, {1, 2, 3, 4});
  auto k = h.tensor<float>(ScalarType::kFloat, {2, 1, 2}, {1, 1, 1, -1});
  auto b = h.tensor<float>(ScalarType::kFloat, {2}, {0, 10});
  auto o = h.out(ScalarType::kFloat, {1, 2, 3});
  REQUIRE(h.call("aten::convolution.out", {x, k, b, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.boolean(true),
                                           h.int_list({0}), h.integer(2), o, o}).ok());
  CHECK(h.data<float>(o) == std::vector<float>{1, 3, 2, 13, 11, 6});
}

TEST_CASE("copy_stride2 takes every second float and reads no further than the last one", "[kernels][linalg][conv]") {
  for (int64_t n = 0; n <= 40; ++n) {
    // Exactly 2n - 1 floats: a read past the last would leave the
    // allocation (caught under ASan).
    std::vector<float> src(size_t(std::max<int64_t>(0, 2 * n - 1)));
    for (size_t i = 0; i < src.size(); ++i) src[i] = float(i) * 0.5f;
    std::vector<float> dst(size_t(n), -1.0f);
    etkit::rt::kernels::linalg::copy_stride2(src.data(), dst.data(), n);
    for (int64_t j = 0; j < n; ++j) CHECK(dst[size_t(j)] == float(2 * j) * 0.5f);
  }
}
