// aten::{add,sub,mul,div}: literal inputs with hand-computed results.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("add.out: same shape, alpha, float", "[kernels][add]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1.0f, -2.0f, 0.5f, 4.0f});
  auto b = h.tensor<float>(ScalarType::kFloat, {2, 2}, {0.1f, 0.1f, 0.1f, 0.1f});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::add.out", {a, b, h.integer(2), out, out}).ok());
  // a + 2*b
  CHECK(h.data<float>(out) == std::vector<float>{1.0f + 2 * 0.1f, -2.0f + 2 * 0.1f, 0.5f + 2 * 0.1f, 4.0f + 2 * 0.1f});
}

TEST_CASE("add.out broadcasts a 0-dim constant and a row", "[kernels][add]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto one = h.tensor<float>(ScalarType::kFloat, {}, {1});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::add.out", {x, one, h.integer(1), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{2, 3, 4});

  auto m = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto row = h.tensor<int32_t>(ScalarType::kInt, {3}, {10, 20, 30});
  auto o2 = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::add.out", {m, row, h.integer(1), o2, o2}).ok());
  CHECK(h.data<int32_t>(o2) == std::vector<int32_t>{10, 21, 32, 13, 24, 35});
}

TEST_CASE("mul.out promotes int32 x float32 to float32", "[kernels][mul]") {
  KernelHarness h;
  auto a = h.tensor<int32_t>(ScalarType::kInt, {2}, {3, -4});
  auto b = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, 0.25f});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::mul.out", {a, b, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1.5f, -1.0f});
  // A float result cannot be stored in an int out.
  auto bad = h.out(ScalarType::kInt, {2});
  auto s = h.call("aten::mul.out", {a, b, bad, bad});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "aten::mul.out: result type FLOAT cannot be stored in out of type INT");
}

TEST_CASE("add_mul_int program semantics: 3x + 2 + y on int32", "[kernels][add][mul]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 2, 3, 4});
  auto three = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {3, 3, 3, 3});
  auto t = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::mul.out", {three, x, t, t}).ok());
  CHECK(h.data<int32_t>(t) == std::vector<int32_t>{3, 6, 9, 12});
}

TEST_CASE("scalar variants and division", "[kernels][div][sub]") {
  KernelHarness h;
  auto a = h.tensor<int64_t>(ScalarType::kLong, {3}, {7, -7, 6});
  // Integer tensor / int -> true division in float.
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::div.Scalar_out", {a, h.integer(2), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{3.5f, -3.5f, 3.0f});
  auto b = h.tensor<int64_t>(ScalarType::kLong, {3}, {2, 2, 4});
  auto floor_out = h.out(ScalarType::kLong, {3});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.string("floor"), floor_out, floor_out}).ok());
  CHECK(h.data<int64_t>(floor_out) == std::vector<int64_t>{3, -4, 1});
  auto trunc_out = h.out(ScalarType::kLong, {3});
  REQUIRE(h.call("aten::div.out_mode", {a, b, h.string("trunc"), trunc_out, trunc_out}).ok());
  CHECK(h.data<int64_t>(trunc_out) == std::vector<int64_t>{3, -3, 1});
  auto zero = h.tensor<int64_t>(ScalarType::kLong, {3}, {1, 0, 1});
  auto z = h.call("aten::div.out_mode", {a, zero, h.string("trunc"), trunc_out, trunc_out});
  REQUIRE_FALSE(z.ok());
  CHECK(z.error().message == "aten::div.out_mode: integer division by zero");
  // sub.Scalar_out with alpha: a - 2*1.5 on an int tensor promotes to float.
  auto s_out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::sub.Scalar_out", {a, h.real(1.5), h.integer(2), s_out, s_out}).ok());
  CHECK(h.data<float>(s_out) == std::vector<float>{4.0f, -10.0f, 3.0f});
}

TEST_CASE("broadcasting errors and non-contiguous inputs", "[kernels][add]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto b = h.tensor<float>(ScalarType::kFloat, {4}, {0, 0, 0, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  auto s = h.call("aten::add.out", {a, b, h.integer(1), out, out});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "aten::add.out: shapes [2, 3] and [4] cannot be broadcast");

  // A [2,3] tensor stored with dim order (1,0): memory holds the transpose.
  // Logical x = [[1,2,3],[4,5,6]] is stored as 1,4,2,5,3,6.
  auto t = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto zeros = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto c = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::add.out", {t, zeros, h.integer(1), c, c}).ok());
  CHECK(h.data<float>(c) == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("empty tensors produce empty outputs", "[kernels][add]") {
  KernelHarness h;
  auto a = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto out = h.out(ScalarType::kFloat, {0, 3});
  REQUIRE(h.call("aten::add.out", {a, a, h.integer(1), out, out}).ok());
  CHECK(h.tensor_at(out).numel() == 0);
}

TEST_CASE("integer add, sub, mul and div wrap in two's complement as ATen does", "[kernels][add][mul][hostile]") {
  // Signed overflow is undefined in C++; ATen's results are the wrapped ones:
  // INT32_MAX + 1 = INT32_MIN, INT32_MIN - 1 = INT32_MAX,
  // 65536 * 65536 = 2^32 = 0 (mod 2^32), 46341^2 = 2147488281 - 2^32 = -2147479015,
  // and INT32_MIN / -1 = INT32_MIN (no trap).
  KernelHarness h;
  auto a = h.tensor<int32_t>(ScalarType::kInt, {3}, {INT32_MAX, INT32_MIN, 65536});
  auto one = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 1, 65536});
  auto sum = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::add.out", {a, one, h.integer(1), sum, sum}).ok());
  CHECK(h.data<int32_t>(sum) == std::vector<int32_t>{INT32_MIN, INT32_MIN + 1, 131072});
  auto diff = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::sub.out", {a, one, h.integer(1), diff, diff}).ok());
  CHECK(h.data<int32_t>(diff) == std::vector<int32_t>{INT32_MAX - 1, INT32_MAX, 0});
  auto prod = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::mul.out", {a, one, prod, prod}).ok());
  CHECK(h.data<int32_t>(prod) == std::vector<int32_t>{INT32_MAX, INT32_MIN, 0});
  auto sq = h.tensor<int32_t>(ScalarType::kInt, {1}, {46341});
  auto sq_out = h.out(ScalarType::kInt, {1});
  REQUIRE(h.call("aten::mul.out", {sq, sq, sq_out, sq_out}).ok());
  CHECK(h.data<int32_t>(sq_out) == std::vector<int32_t>{-2147479015});
  // alpha scales in the integer type too: INT64_MAX as alpha (not representable as a double).
  auto l = h.tensor<int64_t>(ScalarType::kLong, {1}, {0});
  auto lone = h.tensor<int64_t>(ScalarType::kLong, {1}, {1});
  auto lout = h.out(ScalarType::kLong, {1});
  REQUIRE(h.call("aten::add.out", {l, lone, h.integer(INT64_MAX), lout, lout}).ok());
  CHECK(h.data<int64_t>(lout) == std::vector<int64_t>{INT64_MAX});
  auto minus_one = h.tensor<int32_t>(ScalarType::kInt, {1}, {-1});
  auto imin = h.tensor<int32_t>(ScalarType::kInt, {1}, {INT32_MIN});
  auto q = h.out(ScalarType::kInt, {1});
  REQUIRE(h.call("aten::div.out_mode", {imin, minus_one, h.string("trunc"), q, q}).ok());
  CHECK(h.data<int32_t>(q) == std::vector<int32_t>{INT32_MIN});
  // 16-bit products promote to int in C++: 32767 * 32767 = 1073676289 = 0x3fff0001 -> 0x0001 = 1.
  auto s = h.tensor<int16_t>(ScalarType::kShort, {1}, {32767});
  auto s_out = h.out(ScalarType::kShort, {1});
  REQUIRE(h.call("aten::mul.out", {s, s, s_out, s_out}).ok());
  CHECK(h.data<int16_t>(s_out) == std::vector<int16_t>{1});
}

TEST_CASE("BOOL elements are read as bytes: any non-zero byte is true", "[kernels][hostile]") {
  // Bytes 2 and 128 in BOOL tensors (memory another dtype wrote, or a hostile
  // constant): ATen reads them as true; loading them as C++ bool is undefined.
  KernelHarness h;
  auto a = h.tensor<uint8_t>(ScalarType::kBool, {3}, {2, 128, 0});
  auto b = h.tensor<uint8_t>(ScalarType::kBool, {3}, {1, 1, 1});
  auto eq = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call("aten::eq.Tensor_out", {a, b, eq, eq}).ok());
  CHECK(h.data<uint8_t>(eq) == std::vector<uint8_t>{1, 1, 0});
  auto sum = h.out(ScalarType::kInt, {3});
  auto bi = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 0, 0});
  REQUIRE(h.call("aten::add.out", {a, bi, h.integer(1), sum, sum}).ok());
  CHECK(h.data<int32_t>(sum) == std::vector<int32_t>{1, 1, 0});
}
