// aten::upsample_nearest2d.vec_out: output sizes from output_size or
// scale_factors, source rows floor(dst * in / out), any dtype and dim order.
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
