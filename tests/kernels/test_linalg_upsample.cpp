// aten::upsample_nearest2d.vec_out (output sizes from output_size or
// scale_factors, source rows floor(dst * in / out), any dtype and dim order)
// and aten::upsample_bilinear2d.vec_out (hand-worked values on linear
// ramps, where bilinear interpolation is exact, and a plain reference of
// PyTorch's source-index rule written here).
#include <algorithm>
#include <cmath>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("upsample_nearest2d.vec: scale factors and output sizes", "[kernels][linalg][upsample]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  // Scale 2: every element becomes a 2x2 block.
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 4, 4});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.double_list({2.0, 2.0}), o1, o1}).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // Output 3x3: source index floor(i * 2/3) = 0, 0, 1.
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.int_list({3, 3}), h.none(), o2, o2}).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4});
  // Scale 1.5 gives the same 3x3 (3 = floor(2 * 1.5), source floor(i / 1.5)).
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.double_list({1.5, 1.5}), o3, o3}).ok());
  CHECK(h.data<float>(o3) == std::vector<float>{1, 1, 2, 1, 1, 2, 3, 3, 4});
  // Different factors per dim (1 row, 3 columns) and a downscale to 1x1.
  auto o4 = h.out(ScalarType::kFloat, {1, 1, 2, 6});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.double_list({1.0, 3.0}), o4, o4}).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
  auto o5 = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.int_list({1, 1}), h.none(), o5, o5}).ok());
  CHECK(h.data<float>(o5) == std::vector<float>{1});
}

TEST_CASE("upsample_nearest2d.vec: channels, dtypes, dim orders, empty batch", "[kernels][linalg][upsample]") {
  KernelHarness h;
  // Two channels of int64 [[1, 2]] and [[3, 4]] to 2x4.
  auto x = h.tensor<int64_t>(ScalarType::kLong, {1, 2, 1, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kLong, {1, 2, 2, 4});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.int_list({2, 4}), h.none(), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // The same channels stored NHWC (1, 3, 2, 4), into a channels-last out:
  // pixel-major with the two channels interleaved.
  auto xcl = h.tensor<int64_t>(ScalarType::kLong, {1, 2, 1, 2}, {1, 3, 2, 4}, {0, 2, 3, 1});
  auto ocl = h.out(ScalarType::kLong, {1, 2, 1, 4}, false, {0, 2, 3, 1});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {xcl, h.int_list({1, 4}), h.none(), ocl, ocl}).ok());
  CHECK(h.data<int64_t>(ocl) == std::vector<int64_t>{1, 3, 1, 3, 2, 4, 2, 4});
  // Channels-last input into a contiguous out.
  auto oc = h.out(ScalarType::kLong, {1, 2, 1, 4});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {xcl, h.int_list({1, 4}), h.none(), oc, oc}).ok());
  CHECK(h.data<int64_t>(oc) == std::vector<int64_t>{1, 1, 2, 2, 3, 3, 4, 4});
  // double and uint8.
  auto d = h.tensor<double>(ScalarType::kDouble, {1, 1, 1, 1}, {0.5});
  auto od = h.out(ScalarType::kDouble, {1, 1, 2, 2});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {d, h.none(), h.double_list({2, 2}), od, od}).ok());
  CHECK(h.data<double>(od) == std::vector<double>{0.5, 0.5, 0.5, 0.5});
  auto u = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 1, 2}, {7, 9});
  auto ou = h.out(ScalarType::kByte, {1, 1, 1, 4});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {u, h.int_list({1, 4}), h.none(), ou, ou}).ok());
  CHECK(h.data<uint8_t>(ou) == std::vector<uint8_t>{7, 7, 9, 9});
  // An empty batch.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 3, 2, 2}, {});
  auto oe = h.out(ScalarType::kFloat, {1, 3, 4, 4}, true);
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {e, h.none(), h.double_list({2, 2}), oe, oe}).ok());
  CHECK(h.sizes(oe) == std::vector<int32_t>{0, 3, 4, 4});
}

TEST_CASE("upsample_nearest2d.vec errors", "[kernels][linalg][upsample]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {1, 1, 4, 4});
  const std::string op = "aten::upsample_nearest2d.vec_out: ";
  auto fail = [&](size_t in, size_t size, size_t scales, size_t o) {
    auto s = h.call("aten::upsample_nearest2d.vec_out", {in, size, scales, o, o});
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail(x, h.none(), h.none(), out) == op + "exactly one of output_size and scale_factors must be given");
  CHECK(fail(x, h.int_list({4, 4}), h.double_list({2, 2}), out) ==
        op + "exactly one of output_size and scale_factors must be given");
  CHECK(fail(x, h.int_list({4}), h.none(), out) == op + "output_size must be two positive sizes, got [4]");
  CHECK(fail(x, h.int_list({0, 4}), h.none(), out) == op + "output_size must be two positive sizes, got [0, 4]");
  CHECK(fail(x, h.none(), h.double_list({2.0, 0.0}), out) ==
        op + "scale_factors must be two positive factors, got [2.000000, 0.000000]");
  CHECK(fail(x, h.none(), h.double_list({0.25, 0.25}), out) ==
        op + "output size [0, 0] of input [1, 1, 2, 2] is empty");
  auto x3 = h.tensor<float>(ScalarType::kFloat, {1, 2, 2}, {1, 2, 3, 4});
  CHECK(fail(x3, h.int_list({4, 4}), h.none(), out) == op + "input must be 4-D (N, C, H, W), got [1, 2, 2]");
  auto dout = h.out(ScalarType::kDouble, {1, 1, 4, 4});
  CHECK(fail(x, h.int_list({4, 4}), h.none(), dout) == op + "out dtype DOUBLE does not match input dtype FLOAT");
  auto small = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  CHECK(fail(x, h.int_list({4, 4}), h.none(), small) == op + "out: cannot resize a static tensor");
}

TEST_CASE("upsample_nearest2d.vec: identity and doubling are exact", "[kernels][linalg][upsample]") {
  KernelHarness h;
  // A factor a hair above 1 keeps the size (floor(3 * 1.0000001) = 3); the
  // rows are then copied one to one, not floor(i / 1.0000001).
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {1, 2, 3});
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 1, 3});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.double_list({1.0000001, 1.0000001}), o1, o1}).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{1, 2, 3});
  // A factor a hair below 2 gives 5 columns (floor(5.99)), by 1 / 1.999.
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 1, 5});
  REQUIRE(h.call("aten::upsample_nearest2d.vec_out", {x, h.none(), h.double_list({1.0, 1.999}), o2, o2}).ok());
  CHECK(h.data<float>(o2) == std::vector<float>{1, 1, 2, 2, 3});
}

namespace {

etkit::Status bilinear(KernelHarness& h, size_t in, size_t size, bool align_corners, size_t scales, size_t out) {
  return h.call("aten::upsample_bilinear2d.vec_out", {in, size, h.boolean(align_corners), scales, out, out});
}

// PyTorch's source coordinate of output index `dst` (UpSample.h): with
// align_corners the corners map onto each other, (in - 1) / (out - 1) apart;
// otherwise pixel centres, scale (dst + 0.5) - 0.5 clamped at 0, with scale
// 1 / factor when a factor was given.
double source_coordinate(int dst, int in, int out, bool align_corners, double factor) {
  if (align_corners) return out > 1 ? double(in - 1) / (out - 1) * dst : 0.0;
  const double scale = factor > 0 ? 1.0 / factor : double(in) / out;
  return std::max(0.0, scale * (dst + 0.5) - 0.5);
}

// Bilinear interpolation of plane[y][x] at (sy, sx), the neighbours clamped
// to the last row and column.
double interpolate(const std::vector<double>& plane, int h, int w, double sy, double sx) {
  const int y0 = std::min(int(sy), h - 1), x0 = std::min(int(sx), w - 1);
  const int y1 = std::min(y0 + 1, h - 1), x1 = std::min(x0 + 1, w - 1);
  const double fy = std::clamp(sy - y0, 0.0, 1.0), fx = std::clamp(sx - x0, 0.0, 1.0);
  auto at = [&](int y, int x) { return plane[size_t(y * w + x)]; };
  return (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) + fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1));
}

}  // namespace

TEST_CASE("upsample_bilinear2d.vec: hand-worked ramps, align_corners both ways", "[kernels][linalg][upsample]") {
  KernelHarness h;
  // f(y, x) = 2y + x on a 2x2 grid; bilinear interpolation of a linear
  // function is exact, so out = 2 * sy + sx at the source coordinates.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {0, 1, 2, 3});
  // align_corners, 3x3: coordinates 0, 0.5, 1.
  auto o1 = h.out(ScalarType::kFloat, {1, 1, 3, 3});
  REQUIRE(bilinear(h, x, h.int_list({3, 3}), true, h.none(), o1).ok());
  CHECK(h.data<float>(o1) == std::vector<float>{0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
  // Pixel centres, 4x4: coordinates max(0, (i + 0.5) / 2 - 0.5) = 0, 0.25,
  // 0.75, 1.25 -> the last clamps to the edge value (1).
  const std::vector<float> c{0, 0.25f, 0.75f, 1};
  std::vector<float> expected;
  for (float sy : c) {
    for (float sx : c) expected.push_back(2 * sy + sx);
  }
  auto o2 = h.out(ScalarType::kFloat, {1, 1, 4, 4});
  REQUIRE(bilinear(h, x, h.int_list({4, 4}), false, h.none(), o2).ok());
  CHECK(h.data<float>(o2) == expected);
  // Scale factor 2 gives the same 4x4.
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 4, 4});
  REQUIRE(bilinear(h, x, h.none(), false, h.double_list({2, 2}), o3).ok());
  CHECK(h.data<float>(o3) == expected);
  // A factor that is not out / in: [0, 1, 2] by 1.5 has 4 columns
  // (floor(4.5)) at (i + 0.5) / 1.5 - 0.5 = 0 (clamped), 0.5, 7/6, 11/6;
  // output_size 4 instead uses 3/4: 0, 0.625, 1.375, 2 (clamped).
  auto r = h.tensor<float>(ScalarType::kFloat, {1, 1, 1, 3}, {0, 1, 2});
  auto o4 = h.out(ScalarType::kFloat, {1, 1, 1, 4});
  REQUIRE(bilinear(h, r, h.none(), false, h.double_list({1, 1.5}), o4).ok());
  const auto got4 = h.data<float>(o4);
  CHECK(got4[0] == 0);
  CHECK(got4[1] == Approx(0.5));
  CHECK(got4[2] == Approx(7.0 / 6));
  CHECK(got4[3] == Approx(11.0 / 6));
  auto o5 = h.out(ScalarType::kFloat, {1, 1, 1, 4});
  REQUIRE(bilinear(h, r, h.int_list({1, 4}), false, h.none(), o5).ok());
  CHECK(h.data<float>(o5) == std::vector<float>{0, 0.625f, 1.375f, 2});
  // With align_corners the factor does not matter: 3 -> 4 columns at
  // 0, 2/3, 4/3, 2.
  auto o6 = h.out(ScalarType::kFloat, {1, 1, 1, 4});
  REQUIRE(bilinear(h, r, h.none(), true, h.double_list({1, 1.5}), o6).ok());
  const auto got6 = h.data<float>(o6);
  CHECK(got6[1] == Approx(2.0 / 3));
  CHECK(got6[2] == Approx(4.0 / 3));
  CHECK(got6[3] == Approx(2.0));
  // An empty batch gives an empty out of the new size.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 2, 2, 2}, {});
  auto oe = h.out(ScalarType::kFloat, {1, 2, 3, 3}, true);
  REQUIRE(bilinear(h, e, h.int_list({3, 3}), true, h.none(), oe).ok());
  CHECK(h.sizes(oe) == std::vector<int32_t>{0, 2, 3, 3});
  // A single output column with align_corners reads column 0.
  auto o7 = h.out(ScalarType::kFloat, {1, 1, 1, 1});
  REQUIRE(bilinear(h, r, h.int_list({1, 1}), true, h.none(), o7).ok());
  CHECK(h.data<float>(o7) == std::vector<float>{0});
}

TEST_CASE("upsample_bilinear2d.vec matches a plain reference (batches, channels-last, double, downscaling)",
          "[kernels][linalg][upsample]") {
  struct Case {
    int n, c, h, w, oh, ow;
    bool align_corners, by_factor, channels_last;
    double fh, fw;
  };
  const Case cases[] = {
      {2, 3, 5, 4, 9, 7, false, false, false, 0, 0},  {2, 3, 5, 4, 9, 7, true, false, false, 0, 0},
      {1, 2, 6, 7, 3, 2, false, false, false, 0, 0},  {1, 2, 6, 7, 3, 2, true, false, true, 0, 0},
      {1, 4, 3, 5, 7, 12, false, true, true, 2.5, 2.5}, {2, 1, 4, 4, 5, 5, false, true, false, 1.3, 1.3},
      {1, 2, 1, 5, 1, 10, true, false, false, 0, 0},
  };
  for (const Case& k : cases) {
    INFO("n " << k.n << " c " << k.c << " " << k.h << "x" << k.w << " -> " << k.oh << "x" << k.ow << " align "
              << k.align_corners << " factor " << k.fh << " NHWC " << k.channels_last);
    std::vector<double> xs(size_t(k.n * k.c * k.h * k.w));
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = std::sin(0.7 * double(i)) * 10;  // no linear structure
    std::vector<double> ref;
    for (int n = 0; n < k.n; ++n) {
      for (int c = 0; c < k.c; ++c) {
        const std::vector<double> plane(xs.begin() + (n * k.c + c) * k.h * k.w,
                                        xs.begin() + (n * k.c + c + 1) * k.h * k.w);
        for (int oy = 0; oy < k.oh; ++oy) {
          for (int ox = 0; ox < k.ow; ++ox) {
            ref.push_back(interpolate(plane, k.h, k.w, source_coordinate(oy, k.h, k.oh, k.align_corners, k.fh),
                                      source_coordinate(ox, k.w, k.ow, k.align_corners, k.fw)));
          }
        }
      }
    }
    KernelHarness h;
    // float32 (channels-last when asked: the storage is the NHWC reorder).
    std::vector<float> stored(xs.size());
    for (int n = 0; n < k.n; ++n)
      for (int c = 0; c < k.c; ++c)
        for (int p = 0; p < k.h * k.w; ++p) {
          const size_t logical = size_t((n * k.c + c) * k.h * k.w + p);
          const size_t at = k.channels_last ? size_t((n * k.h * k.w + p) * k.c + c) : logical;
          stored[at] = float(xs[logical]);
        }
    const std::vector<uint8_t> order = k.channels_last ? std::vector<uint8_t>{0, 2, 3, 1} : std::vector<uint8_t>{};
    auto x = h.tensor<float>(ScalarType::kFloat, {k.n, k.c, k.h, k.w}, stored, order);
    auto out = h.out(ScalarType::kFloat, {k.n, k.c, k.oh, k.ow}, false, order);
    const size_t size = k.by_factor ? h.none() : h.int_list({k.oh, k.ow});
    const size_t factors = k.by_factor ? h.double_list({k.fh, k.fw}) : h.none();
    REQUIRE(bilinear(h, x, size, k.align_corners, factors, out).ok());
    const auto got = h.data<float>(out);
    size_t bad = 0;
    for (int n = 0; n < k.n; ++n)
      for (int c = 0; c < k.c; ++c)
        for (int p = 0; p < k.oh * k.ow; ++p) {
          const size_t logical = size_t((n * k.c + c) * k.oh * k.ow + p);
          const size_t at = k.channels_last ? size_t((n * k.oh * k.ow + p) * k.c + c) : logical;
          if (std::fabs(double(got[at]) - ref[logical]) > 1e-4) ++bad;
        }
    CHECK(bad == 0);
    // float64, contiguous.
    auto dx = h.tensor<double>(ScalarType::kDouble, {k.n, k.c, k.h, k.w}, xs);
    auto dout = h.out(ScalarType::kDouble, {k.n, k.c, k.oh, k.ow});
    REQUIRE(bilinear(h, dx, size, k.align_corners, factors, dout).ok());
    const auto dgot = h.data<double>(dout);
    size_t dbad = 0;
    for (size_t i = 0; i < ref.size(); ++i) dbad += std::fabs(dgot[i] - ref[i]) > 1e-9;
    CHECK(dbad == 0);
  }
}

TEST_CASE("upsample_bilinear2d.vec errors", "[kernels][linalg][upsample]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {1, 1, 4, 4});
  const std::string op = "aten::upsample_bilinear2d.vec_out: ";
  auto fail = [&](size_t in, size_t size, size_t scales, size_t o) {
    auto s = bilinear(h, in, size, false, scales, o);
    REQUIRE_FALSE(s.ok());
    return s.error().message;
  };
  CHECK(fail(x, h.none(), h.none(), out) == op + "exactly one of output_size and scale_factors must be given");
  CHECK(fail(x, h.int_list({4, 4, 4}), h.none(), out) == op + "output_size must be two positive sizes, got [4, 4, 4]");
  CHECK(fail(x, h.none(), h.double_list({-1, 2}), out) ==
        op + "scale_factors must be two positive factors, got [-1.000000, 2.000000]");
  CHECK(fail(x, h.none(), h.double_list({1e10, 1}), out) ==
        op + "scale_factors [10000000000.000000, 1.000000] make the output of input [1, 1, 2, 2] larger than the int32 range");
  auto ix = h.tensor<int32_t>(ScalarType::kInt, {1, 1, 2, 2}, {1, 2, 3, 4});
  auto iout = h.out(ScalarType::kInt, {1, 1, 4, 4});
  CHECK(fail(ix, h.int_list({4, 4}), h.none(), iout) == op + "unsupported dtype INT (float32 or float64 only)");
  auto empty_h = h.tensor<float>(ScalarType::kFloat, {1, 1, 0, 2}, {});
  CHECK(fail(empty_h, h.int_list({4, 4}), h.none(), out) ==
        op + "input [1, 1, 0, 2] must have non-zero size in its non-batch dimensions");
  auto dout = h.out(ScalarType::kDouble, {1, 1, 4, 4});
  CHECK(fail(x, h.int_list({4, 4}), h.none(), dout) == op + "out dtype DOUBLE does not match input dtype FLOAT");
  auto small = h.out(ScalarType::kFloat, {1, 1, 2, 2});
  CHECK(fail(x, h.int_list({4, 4}), h.none(), small) == op + "out: cannot resize a static tensor");
}
