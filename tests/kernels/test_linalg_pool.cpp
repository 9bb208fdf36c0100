// aten::max_pool2d_with_indices.out, aten::avg_pool2d.out and
// aten::_adaptive_avg_pool2d.out on tiny literal images, results by hand.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::vector<float> iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[size_t(i)] = float(i);
  return v;
}

etkit::Status max_pool(KernelHarness& h, size_t in, std::vector<int64_t> k, std::vector<int64_t> s,
                       std::vector<int64_t> p, std::vector<int64_t> d, bool ceil, size_t out, size_t indices) {
  return h.call("aten::max_pool2d_with_indices.out", {in, h.int_list(k), h.int_list(s), h.int_list(p), h.int_list(d),
                                                      h.boolean(ceil), out, indices, h.tensor_list({out, indices})});
}

etkit::Status avg_pool(KernelHarness& h, size_t in, std::vector<int64_t> k, std::vector<int64_t> s,
                       std::vector<int64_t> p, bool ceil, bool include_pad, size_t divisor, size_t out) {
  return h.call("aten::avg_pool2d.out", {in, h.int_list(k), h.int_list(s), h.int_list(p), h.boolean(ceil),
                                         h.boolean(include_pad), divisor, out, out});
}

}  // namespace

TEST_CASE("max_pool2d_with_indices: values and flat indices per plane", "[kernels][linalg][pool]") {
  KernelHarness h;
  // 4x4 image 0..15, 2x2 windows with stride 2: maxima 5, 7, 13, 15, whose
  // flat positions in the plane are the same numbers.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 4, 4}, iota(16));
  auto out = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto idx = h.out(ScalarType::kLong, {1, 1, 2, 2});
  REQUIRE(max_pool(h, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out, idx).ok());
  CHECK(h.data<float>(out) == std::vector<float>{5, 7, 13, 15});
  CHECK(h.data<int64_t>(idx) == std::vector<int64_t>{5, 7, 13, 15});
  // Dilation 2: the window at (0, 0) reads 0, 2, 8, 10 -> 10, and so on.
  auto od = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto id = h.out(ScalarType::kLong, {1, 1, 2, 2});
  REQUIRE(max_pool(h, x, {2, 2}, {1, 1}, {0, 0}, {2, 2}, false, od, id).ok());
  CHECK(h.data<float>(od) == std::vector<float>{10, 11, 14, 15});
  CHECK(h.data<int64_t>(id) == std::vector<int64_t>{10, 11, 14, 15});
  // Batch 2 x channels 2 of 2x2 planes: indices restart in every plane.
  auto b = h.tensor<float>(ScalarType::kFloat, {2, 2, 2, 2}, {4, 1, 2, 3, 1, 9, 2, 3, 0, 0, 7, 0, 1, 2, 3, 8});
  auto ob = h.out(ScalarType::kFloat, {2, 2, 1, 1});
  auto ib = h.out(ScalarType::kLong, {2, 2, 1, 1});
  REQUIRE(max_pool(h, b, {2, 2}, {}, {0, 0}, {1, 1}, false, ob, ib).ok());  // stride [] = kernel
  CHECK(h.data<float>(ob) == std::vector<float>{4, 9, 7, 8});
  CHECK(h.data<int64_t>(ib) == std::vector<int64_t>{0, 1, 2, 3});
  // A 3-D [C, H, W] input, int32.
  auto c = h.tensor<int32_t>(ScalarType::kInt, {1, 2, 2}, {-3, -1, -4, -2});
  auto oc = h.out(ScalarType::kInt, {1, 1, 1});
  auto ic = h.out(ScalarType::kLong, {1, 1, 1});
  REQUIRE(max_pool(h, c, {2}, {2}, {0}, {1}, false, oc, ic).ok());
  CHECK(h.data<int32_t>(oc) == std::vector<int32_t>{-1});
  CHECK(h.data<int64_t>(ic) == std::vector<int64_t>{1});
}

TEST_CASE("max_pool2d_with_indices: padding is -inf, ceil_mode, NaN", "[kernels][linalg][pool]") {
  KernelHarness h;
  // All-negative 2x2 image, 2x2 windows, stride 1, padding 1: 3x3 outputs,
  // each the max of the image elements it covers (padding never wins).
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {-5, -6, -7, -8});
  auto out = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  auto idx = h.out(ScalarType::kLong, {1, 1, 3, 3});
  REQUIRE(max_pool(h, x, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false, out, idx).ok());
  CHECK(h.data<float>(out) == std::vector<float>{-5, -5, -6, -5, -5, -6, -7, -7, -8});
  CHECK(h.data<int64_t>(idx) == std::vector<int64_t>{0, 0, 1, 0, 0, 1, 2, 2, 3});
  // 3x3 image 0..8, 2x2 windows, stride 2: floor mode gives 1x1, ceil mode
  // 2x2 with the last windows clipped: {0,1,3,4} -> 4, {2,5} -> 5,
  // {6,7} -> 7, {8} -> 8.
  auto x3 = h.tensor<float>(ScalarType::kFloat, {1, 1, 3, 3}, iota(9));
  auto of = h.out(ScalarType::kFloat, {1, 1, 2, 2}, true);
  auto iff = h.out(ScalarType::kLong, {1, 1, 2, 2}, true);
  REQUIRE(max_pool(h, x3, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, of, iff).ok());
  CHECK(h.sizes(of) == std::vector<int32_t>{1, 1, 1, 1});
  CHECK(h.data<float>(of) == std::vector<float>{4});
  auto oc = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  auto ic = h.out(ScalarType::kLong, {1, 1, 2, 2});
  REQUIRE(max_pool(h, x3, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true, oc, ic).ok());
  CHECK(h.data<float>(oc) == std::vector<float>{4, 5, 7, 8});
  CHECK(h.data<int64_t>(ic) == std::vector<int64_t>{4, 5, 7, 8});
  // ceil_mode drops a last window that would start in the right padding:
  // 5 wide, kernel 2, stride 2, padding 1 gives 3 columns, not 4.
  auto x5 = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 5}, {1, 2, 3, 4, 5});
  auto o5 = h.out(ScalarType::kFloat, {1, 1, 1, 3});
  auto i5 = h.out(ScalarType::kLong, {1, 1, 1, 3});
  REQUIRE(max_pool(h, x5, {1, 2}, {1, 2}, {0, 1}, {1, 1}, true, o5, i5).ok());
  CHECK(h.data<float>(o5) == std::vector<float>{1, 3, 5});
  CHECK(h.data<int64_t>(i5) == std::vector<int64_t>{0, 2, 4});
  // ExecuTorch's rule, not ATen's: a later NaN is never taken (NaN > x is
  // false), so the window {1, NaN, 3, 2} gives 3 at position 2.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto xn = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, nan, 3, 2});
  auto on = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  auto in = h.out(ScalarType::kLong, {1, 1, 1, 1});
  REQUIRE(max_pool(h, xn, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, on, in).ok());
  CHECK(h.data<float>(on) == std::vector<float>{3});
  CHECK(h.data<int64_t>(in) == std::vector<int64_t>{2});
}

TEST_CASE("max_pool2d_with_indices: a window without taps in the input gives 0 at index 0", "[kernels][linalg][pool]") {
  // Kernel 2, dilation 2, padding 1 over a size-1 dim: one output (1 + 2 -
  // 2 - 1 = 0, / stride + 1), whose taps -1 and 1 both miss [0, 1). The
  // official loop never sets its accumulator: value 0, index 0 (ATen would
  // give -inf). 1x1 input {5} with that window in both dims:
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 1}, {5});
  auto out = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  auto idx = h.out(ScalarType::kLong, {1, 1, 1, 1});
  REQUIRE(max_pool(h, x, {2, 2}, {1, 1}, {1, 1}, {2, 2}, false, out, idx).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0});
  CHECK(h.data<int64_t>(idx) == std::vector<int64_t>{0});
  // The window in H only, over a 1x24 row of -1 .. -24 (kernel 2x1): each
  // of the 24 outputs has no tap, so 0 at index 0 (rows wide enough for
  // the vector kernels), contiguous and as int32.
  std::vector<float> row;
  for (int j = 1; j <= 24; ++j) row.push_back(float(-j));
  auto xr = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 24}, row);
  auto orow = h.out(ScalarType::kFloat, {1, 1, 1, 24});
  auto irow = h.out(ScalarType::kLong, {1, 1, 1, 24});
  REQUIRE(max_pool(h, xr, {2, 1}, {1, 1}, {1, 0}, {2, 1}, false, orow, irow).ok());
  CHECK(h.data<float>(orow) == std::vector<float>(24, 0.0f));
  CHECK(h.data<int64_t>(irow) == std::vector<int64_t>(24, 0));
  std::vector<int32_t> row_i;
  for (int j = 1; j <= 24; ++j) row_i.push_back(-j);
  auto xi = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 1, 24}, row_i);
  auto oi = h.out(ScalarType::kInt, {1, 1, 1, 24});
  auto ii = h.out(ScalarType::kLong, {1, 1, 1, 24});
  REQUIRE(max_pool(h, xi, {2, 1}, {1, 1}, {1, 0}, {2, 1}, false, oi, ii).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>(24, 0));
  CHECK(h.data<int64_t>(ii) == std::vector<int64_t>(24, 0));
}

TEST_CASE("max_pool2d_with_indices: NaN as ExecuTorch's portable kernel treats it", "[kernels][linalg][pool]") {
  // The official loop starts at a window's first in-bounds tap and takes a
  // later tap only when in_val > accum: a NaN first tap stays (nothing is
  // greater than NaN), a later NaN is never taken, an all-NaN window keeps
  // its first NaN. Values and indices by hand.
  KernelHarness h;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 2x4 image, 2x2 windows, stride 2: windows {NaN, 5, 1, 9} and
  // {2, NaN, NaN, NaN}.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 4}, {nan, 5, 2, nan, 1, 9, nan, nan});
  auto out = h.out(ScalarType::kFloat, {1, 1, 1, 2});
  auto idx = h.out(ScalarType::kLong, {1, 1, 1, 2});
  REQUIRE(max_pool(h, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out, idx).ok());
  // NaN first: NaN at position 0, although 9 is larger.
  CHECK(std::isnan(h.data<float>(out)[0]));
  CHECK(h.data<int64_t>(idx)[0] == 0);
  // NaNs later: ignored, 2 at position 2.
  CHECK(h.data<float>(out)[1] == 2);
  CHECK(h.data<int64_t>(idx)[1] == 2);
  // All-NaN 2x2 window: its first NaN, position 0.
  auto xa = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {nan, nan, nan, nan});
  auto oa = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  auto ia = h.out(ScalarType::kLong, {1, 1, 1, 1});
  REQUIRE(max_pool(h, xa, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, oa, ia).ok());
  CHECK(std::isnan(h.data<float>(oa)[0]));
  CHECK(h.data<int64_t>(ia) == std::vector<int64_t>{0});
  // Padding-clipped windows: 1x3 row {NaN, 4, NaN}, kernel 1x3, stride 1,
  // padding 1: windows (pad, NaN, 4) -> first in-bounds tap NaN at 0;
  // (NaN, 4, NaN) -> NaN at 0; (4, NaN, pad) -> 4 at 1, the NaN ignored.
  auto xp = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {nan, 4, nan});
  auto op = h.out(ScalarType::kFloat, {1, 1, 1, 3});
  auto ip = h.out(ScalarType::kLong, {1, 1, 1, 3});
  REQUIRE(max_pool(h, xp, {1, 3}, {1, 1}, {0, 1}, {1, 1}, false, op, ip).ok());
  const auto vp = h.data<float>(op);
  CHECK(std::isnan(vp[0]));
  CHECK(std::isnan(vp[1]));
  CHECK(vp[2] == 4);
  CHECK(h.data<int64_t>(ip) == std::vector<int64_t>{0, 0, 1});
  // The same row, -inf where the NaN was in the middle window's first tap,
  // shows -inf is an ordinary value: (pad, -inf, 4) -> 4 at 1.
  auto xi = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {-std::numeric_limits<float>::infinity(), 4, nan});
  auto oi = h.out(ScalarType::kFloat, {1, 1, 1, 3});
  auto ii = h.out(ScalarType::kLong, {1, 1, 1, 3});
  REQUIRE(max_pool(h, xi, {1, 3}, {1, 1}, {0, 1}, {1, 1}, false, oi, ii).ok());
  CHECK(h.data<float>(oi) == std::vector<float>{4, 4, 4});
  CHECK(h.data<int64_t>(ii) == std::vector<int64_t>{1, 1, 1});
  // Wide rows take the vector kernels: 1x40 row, kernel 1x2 stride 2, a
  // NaN at every even column, each window's first tap: all 20 outputs are
  // NaN at 2j.
  std::vector<float> row(40);
  for (int j = 0; j < 40; ++j) row[size_t(j)] = j % 2 == 0 ? nan : float(j);
  auto xw = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 40}, row);
  auto ow = h.out(ScalarType::kFloat, {1, 1, 1, 20});
  auto iw = h.out(ScalarType::kLong, {1, 1, 1, 20});
  REQUIRE(max_pool(h, xw, {1, 2}, {1, 2}, {0, 0}, {1, 1}, false, ow, iw).ok());
  for (int j = 0; j < 20; ++j) {
    CHECK(std::isnan(h.data<float>(ow)[size_t(j)]));
    CHECK(h.data<int64_t>(iw)[size_t(j)] == 2 * j);
  }
  // And NaN at every odd column (second taps): all ignored, x[2j] = 2j.
  for (int j = 0; j < 40; ++j) row[size_t(j)] = j % 2 == 1 ? nan : float(j);
  auto xo = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 40}, row);
  auto oo = h.out(ScalarType::kFloat, {1, 1, 1, 20});
  auto io = h.out(ScalarType::kLong, {1, 1, 1, 20});
  REQUIRE(max_pool(h, xo, {1, 2}, {1, 2}, {0, 0}, {1, 1}, false, oo, io).ok());
  for (int j = 0; j < 20; ++j) {
    CHECK(h.data<float>(oo)[size_t(j)] == float(2 * j));
    CHECK(h.data<int64_t>(io)[size_t(j)] == 2 * j);
  }
}

TEST_CASE("max_pool2d_with_indices: channels-last, double, empty batch", "[kernels][linalg][pool]") {
  KernelHarness h;
  // Channels c0 = 0..15 and c1 = 15..0 as a 4x4 image each, stored NHWC.
  std::vector<float> nhwc;
  for (int i = 0; i < 16; ++i) {
    nhwc.push_back(float(i));
    nhwc.push_back(float(15 - i));
  }
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 4, 4}, nhwc, {0, 2, 3, 1});
  auto out = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  auto idx = h.out(ScalarType::kLong, {1, 2, 2, 2});
  REQUIRE(max_pool(h, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out, idx).ok());
  CHECK(h.data<float>(out) == std::vector<float>{5, 7, 13, 15, 15, 13, 7, 5});
  CHECK(h.data<int64_t>(idx) == std::vector<int64_t>{5, 7, 13, 15, 0, 2, 8, 10});
  // Channels-last out and indices get the same values interleaved.
  auto out_cl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  auto idx_cl = h.out(ScalarType::kLong, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(max_pool(h, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, out_cl, idx_cl).ok());
  CHECK(h.data<float>(out_cl) == std::vector<float>{5, 15, 7, 13, 13, 7, 15, 5});
  CHECK(h.data<int64_t>(idx_cl) == std::vector<int64_t>{5, 0, 7, 2, 13, 8, 15, 10});
  auto d = h.tensor<double>(ScalarType::kDouble, {1, 1, 1, 2}, {0.25, -0.5});
  auto od = h.out(ScalarType::kDouble, {1, 1, 1, 1});
  auto id = h.out(ScalarType::kLong, {1, 1, 1, 1});
  REQUIRE(max_pool(h, d, {1, 2}, {1, 2}, {0, 0}, {1, 1}, false, od, id).ok());
  CHECK(h.data<double>(od) == std::vector<double>{0.25});
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 3, 4, 4}, {});
  auto oe = h.out(ScalarType::kFloat, {1, 3, 2, 2}, true);
  auto ie = h.out(ScalarType::kLong, {1, 3, 2, 2}, true);
  REQUIRE(max_pool(h, e, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, oe, ie).ok());
  CHECK(h.sizes(oe) == std::vector<int32_t>{0, 3, 2, 2});
  CHECK(h.sizes(ie) == std::vector<int32_t>{0, 3, 2, 2});
}

TEST_CASE("max_pool2d_with_indices errors", "[kernels][linalg][pool]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  auto idx = h.out(ScalarType::kLong, {1, 1, 1, 1});
  const std::string op = "aten::max_pool2d_with_indices.out: ";
  auto fail = [&](size_t in, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                  std::vector<int64_t> d, size_t o, size_t i) {
    auto st = max_pool(h, in, k, s, p, d, false, o, i);
    REQUIRE_FALSE(st.ok());
    return st.error().message;
  };
  auto flat = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  CHECK(fail(flat, {2, 2}, {2, 2}, {0, 0}, {1, 1}, out, idx) ==
        op + "input must be 3-D (C, H, W) or 4-D (N, C, H, W), got [2, 2]");
  CHECK(fail(x, {0, 2}, {2, 2}, {0, 0}, {1, 1}, out, idx) == op + "kernel_size [0, 2] must be positive");
  CHECK(fail(x, {2, 2, 2}, {2, 2}, {0, 0}, {1, 1}, out, idx) == op + "kernel_size must have 1 or 2 entries, got [2, 2, 2]");
  CHECK(fail(x, {2, 2}, {-1, 2}, {0, 0}, {1, 1}, out, idx) == op + "stride [-1, 2] must be positive");
  CHECK(fail(x, {2, 2}, {2, 2}, {0, 0}, {0, 1}, out, idx) == op + "dilation [0, 1] must be positive");
  CHECK(fail(x, {3, 3}, {1, 1}, {2, 2}, {1, 1}, out, idx) ==
        op + "padding [2, 2] must be non-negative and at most half of kernel_size [3, 3]");
  CHECK(fail(x, {3, 3}, {1, 1}, {0, 0}, {1, 1}, out, idx) ==
        op + "kernel [3, 3] with dilation [1, 1] does not fit the padded input [2, 2]");
  auto iidx = h.out(ScalarType::kInt, {1, 1, 1, 1});
  CHECK(fail(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, out, iidx) == op + "indices must be LONG, not INT");
  auto dout = h.out(ScalarType::kDouble, {1, 1, 1, 1});
  CHECK(fail(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, dout, idx) == op + "out dtype DOUBLE does not match input dtype FLOAT");
  auto small_idx = h.out(ScalarType::kLong, {1, 1, 2, 2});
  CHECK(fail(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, out, small_idx) == op + "indices: cannot resize a static tensor");
  auto bools = h.tensor<bool>(ScalarType::kBool, {1, 1, 1, 1}, {true});
  auto bout = h.out(ScalarType::kBool, {1, 1, 1, 1});
  CHECK(fail(bools, {1, 1}, {1, 1}, {0, 0}, {1, 1}, bout, idx) == op + "unsupported dtype BOOL");
  // Only the batch may be empty (a window over no pixels has no maximum).
  auto no_width = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 0}, {});
  CHECK(fail(no_width, {1, 1}, {1, 1}, {0, 0}, {1, 1}, out, idx) ==
        op + "input [1, 1, 2, 0] must have non-zero size in its non-batch dimensions");
  auto no_channels = h.tensor<float>(ScalarType::kFloat, {0, 2, 2}, {});
  CHECK(fail(no_channels, {1, 1}, {1, 1}, {0, 0}, {1, 1}, out, idx) ==
        op + "input [0, 2, 2] must have non-zero size in its non-batch dimensions");
  // Window parameters beyond int32 are refused before any size arithmetic.
  CHECK(fail(x, {2, 2}, {2, 2}, {0, 0}, {1, int64_t(1) << 40}, out, idx) ==
        op + "dilation [1, 1099511627776] has an entry out of the int32 range");
}

TEST_CASE("avg_pool2d: count_include_pad, divisor_override, ceil_mode", "[kernels][linalg][pool]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  // 3x3 windows, stride 2, padding 1, ceil_mode: 2x2 outputs. Window rows
  // [-1, 2) and [1, 3) (clipped to the padded 4 rows), likewise columns, so
  // the padded window sizes are 9, 6, 6, 4 and they hold the input elements
  // {1,2,3,4}, {2,4}, {3,4}, {4}.
  auto inc = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(avg_pool(h, x, {3, 3}, {2, 2}, {1, 1}, true, true, h.none(), inc).ok());
  const auto got = h.data<float>(inc);
  CHECK(got[0] == Approx(10.0 / 9));
  CHECK(got[1] == Approx(1.0));
  CHECK(got[2] == Approx(7.0 / 6));
  CHECK(got[3] == Approx(1.0));
  auto exc = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(avg_pool(h, x, {3, 3}, {2, 2}, {1, 1}, true, false, h.none(), exc).ok());
  CHECK(h.data<float>(exc) == std::vector<float>{2.5f, 3, 3.5f, 4});
  auto div = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(avg_pool(h, x, {3, 3}, {2, 2}, {1, 1}, true, true, h.integer(2), div).ok());
  CHECK(h.data<float>(div) == std::vector<float>{5, 3, 3.5f, 2});
  // Floor mode: one 3x3 window at (-1, -1) only.
  auto fl = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(avg_pool(h, x, {3, 3}, {2, 2}, {1, 1}, false, false, h.none(), fl).ok());
  CHECK(h.data<float>(fl) == std::vector<float>{2.5f});
  // Plain 2x2 average of 0..15 with the default stride (the kernel).
  auto y = h.tensor<float>(ScalarType::kFloat, {1, 4, 4}, iota(16));
  auto oy = h.out(ScalarType::kFloat, {1, 2, 2});
  REQUIRE(avg_pool(h, y, {2}, {}, {0}, false, true, h.none(), oy).ok());
  CHECK(h.data<float>(oy) == std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f});
}

TEST_CASE("avg_pool2d: channels-last, integer and double dtypes, errors", "[kernels][linalg][pool]") {
  KernelHarness h;
  // c0 = [[1, 2], [3, 4]], c1 = [[10, 20], [30, 40]] stored NHWC.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40}, {0, 2, 3, 1});
  auto out = h.out(ScalarType::kFloat, {1, 2, 1, 2});
  REQUIRE(avg_pool(h, x, {2, 1}, {2, 1}, {0, 0}, false, true, h.none(), out).ok());
  CHECK(h.data<float>(out) == std::vector<float>{2, 3, 20, 30});
  auto out_cl = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  REQUIRE(avg_pool(h, x, {2, 1}, {2, 1}, {0, 0}, false, true, h.none(), out_cl).ok());
  CHECK(h.data<float>(out_cl) == std::vector<float>{2, 20, 3, 30});
  // int64 means truncate: (1 + 2) / 2 = 1, (-1 + -2) / 2 = -1.
  auto l = h.tensor<int64_t>(ScalarType::kLong, {1, 1, 2, 2}, {1, 2, -1, -2});
  auto lo = h.out(ScalarType::kLong, {1, 1, 2, 1});
  REQUIRE(avg_pool(h, l, {1, 2}, {1, 2}, {0, 0}, false, true, h.none(), lo).ok());
  CHECK(h.data<int64_t>(lo) == std::vector<int64_t>{1, -1});
  auto d = h.tensor<double>(ScalarType::kDouble, {1, 1, 1, 2}, {0.5, 0.25});
  auto od = h.out(ScalarType::kDouble, {1, 1, 1, 1});
  REQUIRE(avg_pool(h, d, {1, 2}, {1, 2}, {0, 0}, false, true, h.none(), od).ok());
  CHECK(h.data<double>(od) == std::vector<double>{0.375});

  const std::string op = "aten::avg_pool2d.out: ";
  auto s = avg_pool(h, x, {2, 2}, {2, 2}, {0, 0}, false, true, h.integer(0), out);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "divisor_override must not be 0");
  s = avg_pool(h, x, {2, 2}, {2, 2}, {2, 0}, false, true, h.none(), out);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "padding [2, 0] must be non-negative and at most half of kernel_size [2, 2]");
  auto lout = h.out(ScalarType::kLong, {1, 2, 1, 1});
  s = avg_pool(h, x, {2, 2}, {2, 2}, {0, 0}, false, true, h.none(), lout);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "out dtype LONG does not match input dtype FLOAT");
  auto b = h.tensor<bool>(ScalarType::kBool, {1, 1, 1, 1}, {true});
  auto bout = h.out(ScalarType::kBool, {1, 1, 1, 1});
  s = avg_pool(h, b, {1, 1}, {1, 1}, {0, 0}, false, true, h.none(), bout);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "unsupported dtype BOOL");
  auto r5 = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 1, 1}, {1});
  s = avg_pool(h, r5, {1, 1}, {1, 1}, {0, 0}, false, true, h.none(), out);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == op + "input must be 3-D (C, H, W) or 4-D (N, C, H, W), got [1, 1, 1, 1, 1]");
}

TEST_CASE("_adaptive_avg_pool2d: overlapping bins, global pooling, errors", "[kernels][linalg][pool]") {
  KernelHarness h;
  // 3x3 image 1..9 to 2x2: bins rows/cols [0, 2) and [1, 3) overlap.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto out = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {x, h.int_list({2, 2}), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{3, 4, 6, 7});
  // 5 rows to 3: bins [0, 2), [1, 4), [3, 5) of 1..5.
  auto col = h.tensor<double>(ScalarType::kDouble, {1, 5, 1}, {1, 2, 3, 4, 5});
  auto oc = h.out(ScalarType::kDouble, {1, 3, 1});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {col, h.int_list({3, 1}), oc, oc}).ok());
  CHECK(h.data<double>(oc) == std::vector<double>{1.5, 3, 4.5});
  // Global average of channels-last data: c0 = 1..4 -> 2.5, c1 = 10..40 -> 25.
  auto cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40}, {0, 2, 3, 1});
  auto og = h.out(ScalarType::kFloat, {1, 2, 1, 1});
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {cl, h.int_list({1, 1}), og, og}).ok());
  CHECK(h.data<float>(og) == std::vector<float>{2.5f, 25});
  // An empty batch.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 2, 3, 3}, {});
  auto oe = h.out(ScalarType::kFloat, {1, 2, 1, 1}, true);
  REQUIRE(h.call("aten::_adaptive_avg_pool2d.out", {e, h.int_list({1, 1}), oe, oe}).ok());
  CHECK(h.sizes(oe) == std::vector<int32_t>{0, 2, 1, 1});

  const std::string op = "aten::_adaptive_avg_pool2d.out: ";
  auto fail = [&](size_t in, std::vector<int64_t> size, size_t o) {
    auto s = h.call("aten::_adaptive_avg_pool2d.out", {in, h.int_list(size), o, o});
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail(x, {2}, out) == op + "output_size must be two non-negative sizes, got [2]");
  auto zero_h = h.tensor<float>(ScalarType::kFloat, {1, 1, 0, 2}, {});
  CHECK(fail(zero_h, {1, 1}, out) == op + "input [1, 1, 0, 2] must have non-zero size in its non-batch dimensions");
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 1, 1}, {1});
  auto iout = h.out(ScalarType::kInt, {1, 1, 1, 1});
  CHECK(fail(ints, {1, 1}, iout) == op + "unsupported dtype INT");
  auto dout = h.out(ScalarType::kDouble, {1, 1, 2, 2});
  CHECK(fail(x, {2, 2}, dout) == op + "out dtype DOUBLE does not match input dtype FLOAT");
}

namespace {

// Pooling with separate row and column parameters, a transcription of
// ExecuTorch's portable loop (kernel_reduction_then_map_2d with
// max_pool2d_with_indices' reduce_fn): taps in row-major order, padding
// skipped, the first in-bounds tap initialises the maximum and its index,
// a later tap replaces them only when in_val > accum (ordered: a NaN first
// tap stays, later NaNs are never taken, ties keep the first). A window
// with no tap inside the input leaves the accumulator as initialised: 0 at
// index 0.
struct Pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil;
};

int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  if (span < 0) return 0;  // the window does not fit
  int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

template <typename T>
void reference_pool2d(const std::vector<T>& x, int64_t planes, int64_t h, int64_t w, const Pool2d& g,
                      std::vector<T>& out, std::vector<int64_t>& idx) {
  const int64_t oh = pooled(h, g.kh, g.sh, g.ph, g.dh, g.ceil), ow = pooled(w, g.kw, g.sw, g.pw, g.dw, g.ceil);
  for (int64_t pl = 0; pl < planes; ++pl) {
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        bool initialized = false;
        T best = 0;
        int64_t where = 0;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const int64_t y = oy * g.sh - g.ph + ky * g.dh, xx = ox * g.sw - g.pw + kx * g.dw;
            if (y < 0 || y >= h || xx < 0 || xx >= w) continue;
            const T v = x[size_t(pl * h * w + y * w + xx)];
            if (!initialized) {
              best = v;
              where = y * w + xx;
              initialized = true;
            } else if (v > best) {
              best = v;
              where = y * w + xx;
            }
          }
        }
        out.push_back(best);
        idx.push_back(where);
      }
    }
  }
}

}  // namespace

TEST_CASE("max_pool2d_with_indices: clipped windows match the definition on odd sizes", "[kernels][linalg][pool]") {
  // 2 planes of 7x9 with ties, negatives and (float) NaNs, under every
  // mix of kernel 3/2, stride 1/2, padding 0/1, dilation 1/2, contiguous and
  // channels-last input; expected from reference_pool2d above.
  const int64_t H = 7, W = 9;
  std::vector<float> xf;
  std::vector<int32_t> xi;
  for (int i = 0; i < 2 * H * W; ++i) {
    const int v = (i * 37) % 23 - 11;
    xi.push_back(v);
    xf.push_back(i % 17 == 5 ? std::nanf("") : float(v) * 0.5f);
  }
  // The same values laid out NHWC, for the channels-last input.
  std::vector<float> xf_cl;
  for (int64_t y = 0; y < H; ++y) {
    for (int64_t x = 0; x < W; ++x) {
      for (int64_t c = 0; c < 2; ++c) xf_cl.push_back(xf[size_t(c * H * W + y * W + x)]);
    }
  }
  for (int64_t k : {2, 3}) {
    for (int64_t s : {1, 2}) {
      for (int64_t p : {0, 1}) {
        for (int64_t d : {1, 2}) {
          if (p * 2 > k) continue;
          const int64_t oh = (H + 2 * p - d * (k - 1) - 1) / s + 1, ow = (W + 2 * p - d * (k - 1) - 1) / s + 1;
          KernelHarness h;  // one per configuration: the harness holds a bounded number of values
          INFO("k=" << k << " s=" << s << " p=" << p << " d=" << d);
          std::vector<float> want;
          std::vector<int64_t> want_idx;
          reference_pool2d<float>(xf, 2, H, W, Pool2d{k, k, s, s, p, p, d, d, false}, want, want_idx);
          for (bool channels_last : {false, true}) {
            auto x = channels_last ? h.tensor<float>(ScalarType::kFloat, {1, 2, int(H), int(W)}, xf_cl, {0, 2, 3, 1})
                                   : h.tensor<float>(ScalarType::kFloat, {1, 2, int(H), int(W)}, xf);
            auto out = h.out(ScalarType::kFloat, {1, 2, int(oh), int(ow)});
            auto idx = h.out(ScalarType::kLong, {1, 2, int(oh), int(ow)});
            REQUIRE(max_pool(h, x, {k, k}, {s, s}, {p, p}, {d, d}, false, out, idx).ok());
            const auto got = h.data<float>(out);
            REQUIRE(got.size() == want.size());
            for (size_t i = 0; i < got.size(); ++i) {
              INFO("channels_last=" << channels_last << " element " << i);
              if (std::isnan(want[i])) CHECK(std::isnan(got[i]));
              else CHECK(got[i] == want[i]);
            }
            CHECK(h.data<int64_t>(idx) == want_idx);
          }
          std::vector<int32_t> want_i;
          std::vector<int64_t> want_i_idx;
          reference_pool2d<int32_t>(xi, 2, H, W, Pool2d{k, k, s, s, p, p, d, d, false}, want_i, want_i_idx);
          auto x = h.tensor<int32_t>(ScalarType::kInt, {2, int(H), int(W)}, xi);  // 3-D, int32
          auto out = h.out(ScalarType::kInt, {2, int(oh), int(ow)});
          auto idx = h.out(ScalarType::kLong, {2, int(oh), int(ow)});
          REQUIRE(max_pool(h, x, {k, k}, {s, s}, {p, p}, {d, d}, false, out, idx).ok());
          CHECK(h.data<int32_t>(out) == want_i);
          CHECK(h.data<int64_t>(idx) == want_i_idx);
        }
      }
    }
  }
}


TEST_CASE("max_pool2d_with_indices: float rows of every width match the definition", "[kernels][linalg][pool]") {
  // The float path with unit column strides (vectorised where the CPU has
  // AVX2; the scalar path under ETKIT_NO_AVX2=1, ctest kernels.baseline-isa)
  // over widths 1..40, so that every split of a row into vector blocks and
  // clipped edges occurs. Values: few distinct ones (ties), NaNs and -inf;
  // and a plane of equal values.
  uint32_t seed = 12345;
  const auto next = [&seed] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  const std::vector<Pool2d> windows = {
      {3, 3, 2, 2, 1, 1, 1, 1, false}, {3, 3, 1, 1, 0, 0, 1, 1, false}, {2, 3, 1, 3, 1, 1, 2, 1, true},
      {3, 2, 3, 2, 0, 1, 1, 2, false}, {1, 1, 2, 2, 0, 0, 1, 1, true},  {3, 3, 2, 1, 1, 0, 2, 2, true},
      {2, 2, 2, 2, 0, 0, 1, 1, false}, {3, 3, 3, 3, 1, 1, 1, 1, true},  {3, 3, 2, 2, 0, 1, 1, 2, true},
      {5, 4, 2, 2, 2, 2, 1, 1, false}, {2, 3, 3, 3, 0, 1, 1, 2, true},
  };
  for (int64_t W = 1; W <= 40; ++W) {
    const int64_t H = 3 + W % 5, planes = 2;
    std::vector<float> random, equal(size_t(planes * H * W), 1.5f);
    for (int64_t i = 0; i < planes * H * W; ++i) {
      const uint32_t r = next() % 64;
      random.push_back(r == 0 ? std::nanf("") : r == 1 ? -std::numeric_limits<float>::infinity() : float(r % 7) - 3);
    }
    for (const Pool2d& g : windows) {
      if (pooled(H, g.kh, g.sh, g.ph, g.dh, g.ceil) < 1 || pooled(W, g.kw, g.sw, g.pw, g.dw, g.ceil) < 1) continue;
      const int oh = int(pooled(H, g.kh, g.sh, g.ph, g.dh, g.ceil)), ow = int(pooled(W, g.kw, g.sw, g.pw, g.dw, g.ceil));
      for (const auto* values : {&random, &equal}) {
        INFO("W=" << W << " H=" << H << " k=" << g.kh << "x" << g.kw << " s=" << g.sh << "," << g.sw << " p=" << g.ph
                  << "," << g.pw << " d=" << g.dh << "," << g.dw << " ceil=" << g.ceil
                  << (values == &equal ? " equal" : " random"));
        std::vector<float> want;
        std::vector<int64_t> want_idx;
        reference_pool2d(*values, planes, H, W, g, want, want_idx);
        KernelHarness h;
        auto x = h.tensor<float>(ScalarType::kFloat, {1, int(planes), int(H), int(W)}, *values);
        auto out = h.out(ScalarType::kFloat, {1, int(planes), oh, ow});
        auto idx = h.out(ScalarType::kLong, {1, int(planes), oh, ow});
        REQUIRE(max_pool(h, x, {g.kh, g.kw}, {g.sh, g.sw}, {g.ph, g.pw}, {g.dh, g.dw}, g.ceil, out, idx).ok());
        const auto got = h.data<float>(out);
        REQUIRE(got.size() == want.size());
        size_t mismatches = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          const bool same = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
          mismatches += same ? 0 : 1;
        }
        CHECK(mismatches == 0);
        CHECK(h.data<int64_t>(idx) == want_idx);
      }
    }
  }
}

namespace {

uint32_t bits_of(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Runs max pooling of `planes` H x W float planes under window g (the
// input stored channels-last when asked) and compares bit for bit (NaN
// payloads and the sign of zeros included) with reference_pool2d; the
// number of values or indices that differ.
size_t pool_mismatches(const std::vector<float>& x, int64_t planes, int64_t H, int64_t W, const Pool2d& g,
                       bool channels_last = false) {
  std::vector<float> want;
  std::vector<int64_t> want_idx;
  reference_pool2d(x, planes, H, W, g, want, want_idx);
  const int oh = int(pooled(H, g.kh, g.sh, g.ph, g.dh, g.ceil)), ow = int(pooled(W, g.kw, g.sw, g.pw, g.dw, g.ceil));
  KernelHarness h;
  std::vector<float> nhwc;
  for (int64_t i = 0; i < H * W; ++i) {
    for (int64_t c = 0; c < planes; ++c) nhwc.push_back(x[size_t(c * H * W + i)]);
  }
  auto in = channels_last ? h.tensor<float>(ScalarType::kFloat, {1, int(planes), int(H), int(W)}, nhwc, {0, 2, 3, 1})
                          : h.tensor<float>(ScalarType::kFloat, {1, int(planes), int(H), int(W)}, x);
  auto out = h.out(ScalarType::kFloat, {1, int(planes), oh, ow});
  auto idx = h.out(ScalarType::kLong, {1, int(planes), oh, ow});
  REQUIRE(max_pool(h, in, {g.kh, g.kw}, {g.sh, g.sw}, {g.ph, g.pw}, {g.dh, g.dw}, g.ceil, out, idx).ok());
  const auto got = h.data<float>(out);
  const auto got_idx = h.data<int64_t>(idx);
  REQUIRE(got.size() == want.size());
  REQUIRE(got_idx.size() == want_idx.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    mismatches += bits_of(got[i]) != bits_of(want[i]) || got_idx[i] != want_idx[i];
  }
  return mismatches;
}

float nan_with_payload(uint32_t payload) {
  const uint32_t b = 0x7fc00000u | (payload & 0x3fffffu);
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace

TEST_CASE("max_pool2d_with_indices: a NaN at every position of tiny planes", "[kernels][linalg][pool]") {
  // Widths 1 to 9 (rows narrower than one vector, one vector and a tail,
  // blocks in pairs), 6 planes (a group of four and one of two), contiguous
  // and channels-last; one NaN, then two NaNs of different
  // payloads, moved over every position of plane 1: a window reports a NaN
  // (with its payload and index) only when it is the window's first
  // in-bounds tap, and ignores it elsewhere. Planes 0 and 2-5 keep plain
  // values.
  const std::vector<Pool2d> windows = {
      {2, 2, 2, 2, 0, 0, 1, 1, false}, {3, 3, 2, 2, 1, 1, 1, 1, false}, {3, 3, 1, 1, 0, 0, 1, 1, false},
      {2, 3, 1, 3, 0, 1, 1, 1, true},  {3, 2, 2, 1, 1, 1, 2, 1, false},
  };
  for (int64_t W = 1; W <= 9; ++W) {
    const int64_t H = 4, planes = 6, n = planes * H * W;
    std::vector<float> base;
    for (int64_t i = 0; i < n; ++i) base.push_back(float((i * 29) % 13) - 6.0f);
    for (const Pool2d& g : windows) {
      if (pooled(H, g.kh, g.sh, g.ph, g.dh, g.ceil) < 1 || pooled(W, g.kw, g.sw, g.pw, g.dw, g.ceil) < 1) continue;
      for (int64_t at = H * W; at < 2 * H * W; ++at) {
        INFO("W=" << W << " k=" << g.kh << "x" << g.kw << " s=" << g.sh << "," << g.sw << " NaN at " << at - H * W);
        std::vector<float> one = base;
        one[size_t(at)] = nan_with_payload(1);
        std::vector<float> two = one;
        two[size_t(H * W + (at - H * W + 1) % (H * W))] = nan_with_payload(2);
        for (bool channels_last : {false, true}) {
          INFO("channels_last=" << channels_last);
          CHECK(pool_mismatches(one, planes, H, W, g, channels_last) == 0);
          CHECK(pool_mismatches(two, planes, H, W, g, channels_last) == 0);
        }
      }
    }
  }
}

TEST_CASE("max_pool2d_with_indices: ties, signed zeros and -inf keep the first position", "[kernels][linalg][pool]") {
  // Values from {-inf, -0.0, +0.0, 1}: most windows hold ties, and +0.0 and
  // -0.0 compare equal, so the first of them in the window decides the bits
  // of the value as well as the index. Widths 1 to 20, 4 planes, kernels
  // 2 and 3 at strides 1 and 2 (rows of blocks, tails and clipped edges),
  // contiguous and channels-last.
  const float inf = std::numeric_limits<float>::infinity();
  const float choices[4] = {-inf, -0.0f, 0.0f, 1.0f};
  uint32_t seed = 99;
  for (int64_t W = 1; W <= 20; ++W) {
    const int64_t H = 5, planes = 4;
    for (int variant = 0; variant < 3; ++variant) {
      std::vector<float> x;
      for (int64_t i = 0; i < planes * H * W; ++i) {
        seed = seed * 1664525u + 1013904223u;
        // variant 0: all four values; 1: zeros of both signs only; 2: -inf
        // and zeros.
        const uint32_t r = seed >> 28;
        x.push_back(variant == 0 ? choices[r % 4] : variant == 1 ? choices[1 + r % 2] : choices[r % 3]);
      }
      for (int64_t k : {2, 3}) {
        for (int64_t s : {1, 2}) {
          for (int64_t p : {int64_t(0), k / 2}) {
            const Pool2d g{k, k, s, s, p, p, 1, 1, false};
            if (pooled(W, k, s, p, 1, false) < 1) continue;
            INFO("W=" << W << " variant=" << variant << " k=" << k << " s=" << s << " p=" << p);
            CHECK(pool_mismatches(x, planes, H, W, g) == 0);
            CHECK(pool_mismatches(x, planes, H, W, g, true) == 0);
          }
        }
      }
    }
  }
}
