// The dense fast paths of the elementwise kernels (one loop over consecutive
// elements: operands laid out like out, a single element, a repeated row),
// the register-blocked transpose of permute_copy and the flat dtype
// conversion of the copies. Lengths are odd and not multiples of a vector
// (1, 3, 7, 17, 33 elements) so that vector tails run; expectations come
// from the operators' definitions evaluated here element by element, or
// from index arithmetic for the copies.
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

const std::vector<int32_t> kLengths = {1, 3, 7, 17, 33};

// A float sequence of n values mixing signs, zeros of both signs, NaN and
// infinities, so that every special value lands at several vector lanes.
std::vector<float> specials(int32_t n) {
  const float pool[] = {1.5f, -2.25f, 0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f,
                        -std::numeric_limits<float>::infinity(), 1e-40f, -7.0f, std::numeric_limits<float>::infinity(),
                        -1e-40f};
  std::vector<float> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[size_t(i)] = pool[size_t(i) % std::size(pool)];
  return v;
}

// Bitwise equality for floats: NaN == NaN, -0.0 != +0.0.
bool same_float(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

template <typename T>
std::vector<T> ints(int32_t n, int64_t start, int64_t step) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[size_t(i)] = static_cast<T>(start + i * step);
  return v;
}

}  // namespace

TEST_CASE("relu dense path: NaN and -0.0 pass through at every length", "[kernels][relu][dense]") {
  for (int32_t n : kLengths) {
    INFO("n = " << n);
    KernelHarness h;
    const auto x = specials(n);
    auto in = h.tensor<float>(ScalarType::kFloat, {n}, x);
    auto out = h.out(ScalarType::kFloat, {n});
    REQUIRE(h.call("aten::relu.out", {in, out, out}).ok());
    const auto got = h.data<float>(out);
    for (int32_t i = 0; i < n; ++i) {
      const float v = x[size_t(i)];
      // relu(x) = x unless x < 0, where it is +0.0.
      const float want = v < 0 ? 0.0f : v;
      CHECK(same_float(got[size_t(i)], want));
    }
  }
}

TEST_CASE("relu dense path: every integer dtype and double, in place too", "[kernels][relu][dense]") {
  KernelHarness h;
  auto i8 = h.tensor<int8_t>(ScalarType::kChar, {7}, {-128, -1, 0, 1, 127, -5, 5});
  auto o8 = h.out(ScalarType::kChar, {7});
  REQUIRE(h.call("aten::relu.out", {i8, o8, o8}).ok());
  CHECK(h.data<int8_t>(o8) == std::vector<int8_t>{0, 0, 0, 1, 127, 0, 5});

  auto u8 = h.tensor<uint8_t>(ScalarType::kByte, {3}, {0, 200, 255});
  auto ou8 = h.out(ScalarType::kByte, {3});
  REQUIRE(h.call("aten::relu.out", {u8, ou8, ou8}).ok());
  CHECK(h.data<uint8_t>(ou8) == std::vector<uint8_t>{0, 200, 255});

  auto i16 = h.tensor<int16_t>(ScalarType::kShort, {3}, {-32768, 32767, -2});
  auto o16 = h.out(ScalarType::kShort, {3});
  REQUIRE(h.call("aten::relu.out", {i16, o16, o16}).ok());
  CHECK(h.data<int16_t>(o16) == std::vector<int16_t>{0, 32767, 0});

  auto i32 = h.tensor<int32_t>(ScalarType::kInt, {17}, ints<int32_t>(17, -8, 1));
  REQUIRE(h.call("aten::relu.out", {i32, i32, i32}).ok());  // in place
  const auto r32 = h.data<int32_t>(i32);
  for (int32_t i = 0; i < 17; ++i) CHECK(r32[size_t(i)] == std::max(0, i - 8));

  auto i64 = h.tensor<int64_t>(ScalarType::kLong, {3}, {std::numeric_limits<int64_t>::min(), -1, 1LL << 40});
  auto o64 = h.out(ScalarType::kLong, {3});
  REQUIRE(h.call("aten::relu.out", {i64, o64, o64}).ok());
  CHECK(h.data<int64_t>(o64) == std::vector<int64_t>{0, 0, 1LL << 40});

  auto d = h.tensor<double>(ScalarType::kDouble, {3}, {-0.0, std::nan(""), -1e300});
  auto od = h.out(ScalarType::kDouble, {3});
  REQUIRE(h.call("aten::relu.out", {d, od, od}).ok());
  const auto rd = h.data<double>(od);
  CHECK(same_float(rd[0], -0.0));
  CHECK(std::isnan(rd[1]));
  CHECK(same_float(rd[2], 0.0));
}

TEST_CASE("unary dense path follows the dim order when self and out share it", "[kernels][relu][dense]") {
  // NCHW [1,2,2,2] with logical values 0..7 minus 4, laid out channels-last:
  // memory order is (h, w, c), i.e. logical 0,4,1,5,2,6,3,7.
  KernelHarness h;
  const std::vector<float> memory = {-4, 0, -3, 1, -2, 2, -1, 3};
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, memory, {0, 2, 3, 1});
  auto same = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("aten::relu.out", {x, same, same}).ok());
  CHECK(h.data<float>(same) == std::vector<float>{0, 0, 0, 1, 0, 2, 0, 3});
  // Into a contiguous out the general loop reorders: logical order 0..7 - 4.
  auto contiguous = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  REQUIRE(h.call("aten::relu.out", {x, contiguous, contiguous}).ok());
  CHECK(h.data<float>(contiguous) == std::vector<float>{0, 0, 0, 0, 0, 1, 2, 3});
}

TEST_CASE("sigmoid and tanh dense path equal the formula on float and double", "[kernels][unary][dense]") {
  for (int32_t n : kLengths) {
    INFO("n = " << n);
    KernelHarness h;
    std::vector<float> x(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) x[size_t(i)] = float(i) * 0.37f - 3.0f;
    auto in = h.tensor<float>(ScalarType::kFloat, {n}, x);
    auto sig = h.out(ScalarType::kFloat, {n});
    auto th = h.out(ScalarType::kFloat, {n});
    REQUIRE(h.call("aten::sigmoid.out", {in, sig, sig}).ok());
    REQUIRE(h.call("aten::tanh.out", {in, th, th}).ok());
    for (int32_t i = 0; i < n; ++i) {
      const double v = x[size_t(i)];
      CHECK(h.data<float>(sig)[size_t(i)] == Approx(1 / (1 + std::exp(-v))).epsilon(1e-6));
      CHECK(h.data<float>(th)[size_t(i)] == Approx(std::tanh(v)).margin(1e-7).epsilon(1e-6));
    }
  }
  KernelHarness h;
  auto d = h.tensor<double>(ScalarType::kDouble, {3}, {-1.0, 0.0, 2.0});
  auto od = h.out(ScalarType::kDouble, {3});
  REQUIRE(h.call("aten::sigmoid.out", {d, od, od}).ok());
  CHECK(h.data<double>(od)[0] == Approx(1 / (1 + std::exp(1.0))).epsilon(1e-15));
  CHECK(h.data<double>(od)[1] == 0.5);
  CHECK(h.data<double>(od)[2] == Approx(1 / (1 + std::exp(-2.0))).epsilon(1e-15));
}

TEST_CASE("add/sub/mul dense path: same shape at every length, NaN and signed zeros", "[kernels][add][dense]") {
  for (int32_t n : kLengths) {
    INFO("n = " << n);
    KernelHarness h;
    const auto x = specials(n);
    std::vector<float> y(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) y[size_t(i)] = (i % 3 == 0) ? -0.0f : 0.5f * float(i);
    auto a = h.tensor<float>(ScalarType::kFloat, {n}, x);
    auto b = h.tensor<float>(ScalarType::kFloat, {n}, y);
    auto sum = h.out(ScalarType::kFloat, {n});
    auto diff = h.out(ScalarType::kFloat, {n});
    auto prod = h.out(ScalarType::kFloat, {n});
    REQUIRE(h.call("aten::add.out", {a, b, h.integer(1), sum, sum}).ok());
    REQUIRE(h.call("aten::sub.out", {a, b, h.real(2.0), diff, diff}).ok());
    REQUIRE(h.call("aten::mul.out", {a, b, prod, prod}).ok());
    for (int32_t i = 0; i < n; ++i) {
      const float u = x[size_t(i)], v = y[size_t(i)];
      CHECK(same_float(h.data<float>(sum)[size_t(i)], u + 1.0f * v));
      CHECK(same_float(h.data<float>(diff)[size_t(i)], u - 2.0f * v));
      CHECK(same_float(h.data<float>(prod)[size_t(i)], u * v));
    }
  }
}

TEST_CASE("add dense path: a 0-dim or one-element operand on either side", "[kernels][add][dense]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {7}, {0, 1, 2, 3, 4, 5, 6});
  auto s = h.tensor<float>(ScalarType::kFloat, {}, {10});
  auto s1 = h.tensor<float>(ScalarType::kFloat, {1}, {-0.5f});
  auto o1 = h.out(ScalarType::kFloat, {7});
  REQUIRE(h.call("aten::add.out", {x, s, h.integer(2), o1, o1}).ok());  // x + 2 * 10
  CHECK(h.data<float>(o1) == std::vector<float>{20, 21, 22, 23, 24, 25, 26});
  auto o2 = h.out(ScalarType::kFloat, {7});
  REQUIRE(h.call("aten::sub.out", {s1, x, h.integer(1), o2, o2}).ok());  // -0.5 - x: the scalar on the left
  CHECK(h.data<float>(o2) == std::vector<float>{-0.5f, -1.5f, -2.5f, -3.5f, -4.5f, -5.5f, -6.5f});
  auto o3 = h.out(ScalarType::kFloat, {7});
  REQUIRE(h.call("aten::div.out", {s, x, o3, o3}).ok());  // 10 / x, 10 / 0 = inf
  CHECK(std::isinf(h.data<float>(o3)[0]));
  CHECK(h.data<float>(o3)[4] == 2.5f);
  // Scalar overload: an Int scalar on a float tensor computes in float.
  auto o4 = h.out(ScalarType::kFloat, {7});
  REQUIRE(h.call("aten::mul.Scalar_out", {x, h.integer(3), o4, o4}).ok());
  CHECK(h.data<float>(o4) == std::vector<float>{0, 3, 6, 9, 12, 15, 18});
}

TEST_CASE("add dense path: a row repeated along the leading dims, on either side", "[kernels][add][dense]") {
  // [2, 3, 5] + [3, 5] (a row of 15), [3, 5] + [1, 5] (a row of 5 with a
  // leading 1), and [5] + [3, 5] (the row on the left).
  KernelHarness h;
  auto m = h.tensor<int32_t>(ScalarType::kInt, {2, 3, 5}, ints<int32_t>(30, 0, 1));
  auto r15 = h.tensor<int32_t>(ScalarType::kInt, {3, 5}, ints<int32_t>(15, 100, 100));
  auto o1 = h.out(ScalarType::kInt, {2, 3, 5});
  REQUIRE(h.call("aten::add.out", {m, r15, h.integer(1), o1, o1}).ok());
  for (int32_t i = 0; i < 30; ++i) CHECK(h.data<int32_t>(o1)[size_t(i)] == i + 100 * (i % 15 + 1));

  auto m2 = h.tensor<float>(ScalarType::kFloat, {3, 5}, std::vector<float>(15, 1.0f));
  auto r5 = h.tensor<float>(ScalarType::kFloat, {1, 5}, {1, 2, 3, 4, 5});
  auto o2 = h.out(ScalarType::kFloat, {3, 5});
  REQUIRE(h.call("aten::mul.out", {m2, r5, o2, o2}).ok());
  for (int32_t i = 0; i < 15; ++i) CHECK(h.data<float>(o2)[size_t(i)] == float(i % 5 + 1));

  auto left = h.tensor<float>(ScalarType::kFloat, {5}, {10, 20, 30, 40, 50});
  auto o3 = h.out(ScalarType::kFloat, {3, 5});
  REQUIRE(h.call("aten::sub.out", {left, m2, h.integer(1), o3, o3}).ok());
  for (int32_t i = 0; i < 15; ++i) CHECK(h.data<float>(o3)[size_t(i)] == float(10 * (i % 5 + 1) - 1));

  // A column [3, 1] is not a row: the general broadcast handles it.
  auto col = h.tensor<float>(ScalarType::kFloat, {3, 1}, {1, 2, 3});
  auto o4 = h.out(ScalarType::kFloat, {3, 5});
  REQUIRE(h.call("aten::add.out", {m2, col, h.integer(1), o4, o4}).ok());
  for (int32_t i = 0; i < 15; ++i) CHECK(h.data<float>(o4)[size_t(i)] == float(1 + (i / 5 + 1)));
}

TEST_CASE("add/mul dense path: integers wrap in every integer dtype", "[kernels][add][dense]") {
  KernelHarness h;
  auto a8 = h.tensor<int8_t>(ScalarType::kChar, {3}, {127, -128, 100});
  auto b8 = h.tensor<int8_t>(ScalarType::kChar, {3}, {1, -1, 100});
  auto o8 = h.out(ScalarType::kChar, {3});
  REQUIRE(h.call("aten::add.out", {a8, b8, h.integer(1), o8, o8}).ok());
  CHECK(h.data<int8_t>(o8) == std::vector<int8_t>{-128, 127, -56});  // 200 - 256

  auto u8 = h.tensor<uint8_t>(ScalarType::kByte, {2}, {200, 16});
  auto ou8 = h.out(ScalarType::kByte, {2});
  REQUIRE(h.call("aten::mul.out", {u8, u8, ou8, ou8}).ok());
  CHECK(h.data<uint8_t>(ou8) == std::vector<uint8_t>{64, 0});  // 40000 mod 256, 256 mod 256

  auto s16 = h.tensor<int16_t>(ScalarType::kShort, {2}, {32767, -300});
  auto os16 = h.out(ScalarType::kShort, {2});
  REQUIRE(h.call("aten::mul.out", {s16, s16, os16, os16}).ok());
  CHECK(h.data<int16_t>(os16) == std::vector<int16_t>{1, 24464});  // 32767^2 = 1 mod 2^16; 90000 - 65536

  const int32_t imax = std::numeric_limits<int32_t>::max();
  auto a32 = h.tensor<int32_t>(ScalarType::kInt, {17}, ints<int32_t>(17, imax - 16, 1));
  auto one = h.tensor<int32_t>(ScalarType::kInt, {}, {1});
  auto o32 = h.out(ScalarType::kInt, {17});
  REQUIRE(h.call("aten::add.out", {a32, one, h.integer(3), o32, o32}).ok());  // + 3
  for (int32_t i = 0; i < 17; ++i) {
    const int64_t exact = int64_t(imax) - 16 + i + 3;
    const int64_t wrapped = exact > imax ? exact - (int64_t(1) << 32) : exact;
    CHECK(h.data<int32_t>(o32)[size_t(i)] == wrapped);
  }

  auto a64 = h.tensor<int64_t>(ScalarType::kLong, {2}, {int64_t(1) << 62, -3});
  auto b64 = h.tensor<int64_t>(ScalarType::kLong, {2}, {4, 5});
  auto o64 = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::mul.out", {a64, b64, o64, o64}).ok());
  CHECK(h.data<int64_t>(o64) == std::vector<int64_t>{0, -15});  // 2^64 wraps to 0
}

TEST_CASE("add dense path: in place, out being self", "[kernels][add][dense]") {
  KernelHarness h;
  auto x = h.tensor<double>(ScalarType::kDouble, {33}, ints<double>(33, 0, 1));
  auto row = h.tensor<double>(ScalarType::kDouble, {}, {0.5});
  REQUIRE(h.call("aten::add.out", {x, row, h.integer(1), x, x}).ok());
  for (int32_t i = 0; i < 33; ++i) CHECK(h.data<double>(x)[size_t(i)] == i + 0.5);
  REQUIRE(h.call("aten::mul.out", {x, x, x, x}).ok());
  for (int32_t i = 0; i < 33; ++i) CHECK(h.data<double>(x)[size_t(i)] == (i + 0.5) * (i + 0.5));
}

TEST_CASE("dense path refusals keep the general path's errors", "[kernels][add][dense]") {
  KernelHarness h;
  // Integer division by zero is still reported (the dense path leaves it alone).
  auto a = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  auto z = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 0, 1});
  auto o = h.out(ScalarType::kInt, {3});
  auto s = h.call("aten::div.out_mode", {a, z, h.string("trunc"), o, o});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("division by zero") != std::string::npos);
  // An out of the wrong shape is resized or refused, never written densely.
  auto big = h.out(ScalarType::kInt, {4});
  REQUIRE_FALSE(h.call("aten::add.out", {a, a, h.integer(1), big, big}).ok());
}

TEST_CASE("permute_copy NCHW -> NHWC and back, ragged tiles, 4- and 8-byte elements", "[kernels][permute][dense]") {
  // Odd sizes put every tile edge and vector block edge somewhere; 37 x 41
  // spans more than one 32 x 32 tile in both directions.
  const std::vector<std::vector<int32_t>> shapes = {{2, 3, 5, 7}, {1, 37, 41, 1}, {1, 6, 24, 24}, {1, 1, 1, 1}, {1, 16, 8, 8}};
  for (const auto& s : shapes) {
    const int32_t N = s[0], C = s[1], H = s[2], W = s[3];
    INFO("shape " << N << "x" << C << "x" << H << "x" << W);
    const int32_t n = N * C * H * W;
    KernelHarness h;
    auto x = h.tensor<float>(ScalarType::kFloat, s, ints<float>(n, 0, 1));
    auto nhwc = h.out(ScalarType::kFloat, {N, H, W, C});
    REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({0, 2, 3, 1}), nhwc, nhwc}).ok());
    const auto got = h.data<float>(nhwc);
    bool all = true;
    for (int32_t b = 0; b < N; ++b)
      for (int32_t c = 0; c < C; ++c)
        for (int32_t y = 0; y < H; ++y)
          for (int32_t w = 0; w < W; ++w) {
            all = all && got[size_t(((b * H + y) * W + w) * C + c)] == float(((b * C + c) * H + y) * W + w);
          }
    CHECK(all);
    // Back to NCHW: the identity.
    auto back = h.out(ScalarType::kFloat, s);
    REQUIRE(h.call("aten::permute_copy.out", {nhwc, h.int_list({0, 3, 1, 2}), back, back}).ok());
    CHECK(h.data<float>(back) == ints<float>(n, 0, 1));

    // 8-byte elements (the 2 x 2 blocks) and 2-byte ones (element by element).
    auto x64 = h.tensor<int64_t>(ScalarType::kLong, s, ints<int64_t>(n, 1LL << 40, 1));
    auto o64 = h.out(ScalarType::kLong, {N, H, W, C});
    REQUIRE(h.call("aten::permute_copy.out", {x64, h.int_list({0, 2, 3, 1}), o64, o64}).ok());
    auto x16 = h.tensor<int16_t>(ScalarType::kShort, s, ints<int16_t>(n, -1000, 1));
    auto o16 = h.out(ScalarType::kShort, {N, H, W, C});
    REQUIRE(h.call("aten::permute_copy.out", {x16, h.int_list({0, 2, 3, 1}), o16, o16}).ok());
    const auto g64 = h.data<int64_t>(o64);
    const auto g16 = h.data<int16_t>(o16);
    bool all64 = true, all16 = true;
    for (int32_t b = 0; b < N; ++b)
      for (int32_t c = 0; c < C; ++c)
        for (int32_t y = 0; y < H; ++y)
          for (int32_t w = 0; w < W; ++w) {
            const size_t o = size_t(((b * H + y) * W + w) * C + c);
            const int32_t i = ((b * C + c) * H + y) * W + w;
            all64 = all64 && g64[o] == (1LL << 40) + i;
            all16 = all16 && g16[o] == int16_t(-1000 + i);
          }
    CHECK(all64);
    CHECK(all16);
  }
}

TEST_CASE("transpose_copy and t_copy of odd 2-D shapes", "[kernels][permute][dense]") {
  for (auto [R, C] : std::vector<std::pair<int32_t, int32_t>>{{120, 400}, {33, 65}, {3, 5}, {1, 9}}) {
    INFO(R << "x" << C);
    KernelHarness h;
    auto x = h.tensor<float>(ScalarType::kFloat, {R, C}, ints<float>(R * C, 0, 1));
    auto t = h.out(ScalarType::kFloat, {C, R});
    REQUIRE(h.call("aten::t_copy.out", {x, t, t}).ok());
    const auto got = h.data<float>(t);
    bool all = true;
    for (int32_t i = 0; i < R; ++i)
      for (int32_t j = 0; j < C; ++j) all = all && got[size_t(j * R + i)] == float(i * C + j);
    CHECK(all);
    auto x8 = h.tensor<double>(ScalarType::kDouble, {R, C}, ints<double>(R * C, 0, 1));
    auto t8 = h.out(ScalarType::kDouble, {C, R});
    REQUIRE(h.call("aten::transpose_copy.int_out", {x8, h.integer(0), h.integer(1), t8, t8}).ok());
    const auto got8 = h.data<double>(t8);
    bool all8 = true;
    for (int32_t i = 0; i < R; ++i)
      for (int32_t j = 0; j < C; ++j) all8 = all8 && got8[size_t(j * R + i)] == double(i * C + j);
    CHECK(all8);
  }
}

TEST_CASE("clone and _to_copy: same layout copies bytes, other dtypes convert densely", "[kernels][clone][dense]") {
  for (int32_t n : kLengths) {
    INFO("n = " << n);
    KernelHarness h;
    const auto x = specials(n);
    auto in = h.tensor<float>(ScalarType::kFloat, {n}, x);
    auto c = h.out(ScalarType::kFloat, {n});
    REQUIRE(h.call("aten::clone.out", {in, h.none(), c, c}).ok());
    const auto got = h.data<float>(c);
    for (int32_t i = 0; i < n; ++i) CHECK(same_float(got[size_t(i)], x[size_t(i)]));

    // float -> double is exact; float -> int32 truncates toward zero (only
    // finite, in-range values: the others are undefined in C++ and ATen).
    auto d = h.out(ScalarType::kDouble, {n});
    REQUIRE(h.call("aten::_to_copy.out", {in, h.boolean(false), h.none(), d, d}).ok());
    for (int32_t i = 0; i < n; ++i) CHECK(same_float(h.data<double>(d)[size_t(i)], double(x[size_t(i)])));
    std::vector<float> finite(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) finite[size_t(i)] = float(i) * 0.75f - 5.5f;
    auto fin = h.tensor<float>(ScalarType::kFloat, {n}, finite);
    auto as_int = h.out(ScalarType::kInt, {n});
    REQUIRE(h.call("aten::_to_copy.out", {fin, h.boolean(false), h.none(), as_int, as_int}).ok());
    for (int32_t i = 0; i < n; ++i) CHECK(h.data<int32_t>(as_int)[size_t(i)] == int32_t(std::trunc(finite[size_t(i)])));
  }
  // int64 -> BOOL: non-zero is true.
  KernelHarness h;
  auto l = h.tensor<int64_t>(ScalarType::kLong, {3}, {0, -7, 1LL << 40});
  auto b = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call("aten::_to_copy.out", {l, h.boolean(false), h.none(), b, b}).ok());
  CHECK(h.data<uint8_t>(b) == std::vector<uint8_t>{0, 1, 1});
  // A channels-last out of a contiguous input still reorders.
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto cl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.boolean(false), h.int_list({0, 2, 3, 1}), cl, cl}).ok());
  CHECK(h.data<float>(cl) == std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7});
}

TEST_CASE("permute_copy that only moves size-1 dims copies the bytes as they are", "[kernels][permute][dense]") {
  KernelHarness h;
  // [1, 3, 1, 5] -> dims (2, 0, 1, 3) -> [1, 1, 3, 5]: out[0][0][c][w] = in[0][c][0][w].
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 3, 1, 5}, ints<float>(15, 0, 1));
  auto out = h.out(ScalarType::kFloat, {1, 1, 3, 5});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({2, 0, 1, 3}), out, out}).ok());
  CHECK(h.sizes(out) == std::vector<int32_t>{1, 1, 3, 5});
  CHECK(h.data<float>(out) == ints<float>(15, 0, 1));
  // Negative dims count from the end: (-2, -4, -3, -1) is the same permutation.
  auto out2 = h.out(ScalarType::kFloat, {1, 1, 3, 5});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({-2, -4, -3, -1}), out2, out2}).ok());
  CHECK(h.data<float>(out2) == ints<float>(15, 0, 1));
  // A different dtype is still refused, a repeated dim too.
  auto wrong = h.out(ScalarType::kInt, {1, 1, 3, 5});
  REQUIRE_FALSE(h.call("aten::permute_copy.out", {x, h.int_list({2, 0, 1, 3}), wrong, wrong}).ok());
  REQUIRE_FALSE(h.call("aten::permute_copy.out", {x, h.int_list({2, 2, 1, 3}), out, out}).ok());
  // Swapping the two dims of size > 1 is a transpose: out[0][w][0][c] = in[0][c][0][w].
  auto t = h.out(ScalarType::kFloat, {1, 5, 1, 3});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({0, 3, 2, 1}), t, t}).ok());
  const auto got = h.data<float>(t);
  for (int32_t w = 0; w < 5; ++w)
    for (int32_t c = 0; c < 3; ++c) CHECK(got[size_t(w * 3 + c)] == float(c * 5 + w));
}
