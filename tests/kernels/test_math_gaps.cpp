// Math kernels that closed gaps in the portable set: inverse hyperbolics,
// atan2, elu, bitwise ops and shifts, max/min (dim and unary), prod,
// var_mean and topk. Expected values are closed forms or worked by hand in
// the comments.
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("acosh, asinh, atanh: closed forms", "[math][gaps][unary]") {
  KernelHarness h;
  auto x = h.tensor<double>(ScalarType::kDouble, {3}, {2.0, 1.0, 0.5});
  auto out = h.out(ScalarType::kDouble, {3});
  REQUIRE(h.call("aten::acosh.out", {x, out, out}).ok());
  // acosh(2) = ln(2 + sqrt 3), acosh(1) = 0, acosh(0.5) is outside the domain: NaN.
  CHECK(h.data<double>(out)[0] == Approx(1.3169578969248166).epsilon(1e-15));
  CHECK(h.data<double>(out)[1] == 0.0);
  CHECK(std::isnan(h.data<double>(out)[2]));
  REQUIRE(h.call("aten::asinh.out", {x, out, out}).ok());
  // asinh(2) = ln(2 + sqrt 5) = 1.4436354751788103, asinh(1) = ln(1 + sqrt 2) = 0.881373587019543,
  // asinh(0.5) = ln(0.5 + sqrt 1.25) = 0.48121182505960347.
  CHECK(h.data<double>(out)[0] == Approx(1.4436354751788103).epsilon(1e-15));
  CHECK(h.data<double>(out)[1] == Approx(0.881373587019543).epsilon(1e-15));
  CHECK(h.data<double>(out)[2] == Approx(0.48121182505960347).epsilon(1e-15));
  // atanh(0.5) = ln(3) / 2 = 0.5493061443340549; atanh(1) = +inf; atanh(2) is NaN.
  auto y = h.tensor<float>(ScalarType::kFloat, {3}, {0.5f, 1.0f, 2.0f});
  auto fo = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::atanh.out", {y, fo, fo}).ok());
  CHECK(h.data<float>(fo)[0] == Approx(0.5493061443340549).epsilon(1e-6));
  CHECK(h.data<float>(fo)[1] == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(h.data<float>(fo)[2]));
  // Integer input, float out: asinh(0) = 0.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto io = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::asinh.out", {i, io, io}).ok());
  CHECK(h.data<float>(io)[0] == 0.0f);
  auto lo = h.out(ScalarType::kLong, {1});
  CHECK(failure(h, "aten::acosh.out", {i, lo, lo}) == "aten::acosh.out: out must be floating point, not LONG");
}

TEST_CASE("atan2: quadrants, broadcasting, integers in float", "[math][gaps][atan2]") {
  KernelHarness h;
  // y = [[1], [-1]] against x = [1, -1, 0]: atan2(1, 1) = pi/4, atan2(1, -1) = 3pi/4,
  // atan2(1, 0) = pi/2, atan2(-1, 1) = -pi/4, atan2(-1, -1) = -3pi/4, atan2(-1, 0) = -pi/2.
  const double pi = 3.14159265358979323846;
  auto y = h.tensor<double>(ScalarType::kDouble, {2, 1}, {1, -1});
  auto x = h.tensor<double>(ScalarType::kDouble, {3}, {1, -1, 0});
  auto out = h.out(ScalarType::kDouble, {2, 3});
  REQUIRE(h.call("aten::atan2.out", {y, x, out, out}).ok());
  const std::vector<double> expected = {pi / 4, 3 * pi / 4, pi / 2, -pi / 4, -3 * pi / 4, -pi / 2};
  for (size_t k = 0; k < expected.size(); ++k) CHECK(h.data<double>(out)[k] == Approx(expected[k]).epsilon(1e-15));
  // int32 operands compute in float: atan2(0, -2) = pi, atan2(3, 3) = pi/4.
  auto yi = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, 3});
  auto xi = h.tensor<int64_t>(ScalarType::kLong, {2}, {-2, 3});
  auto fo = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::atan2.out", {yi, xi, fo, fo}).ok());
  CHECK(h.data<float>(fo)[0] == Approx(pi).epsilon(1e-7));
  CHECK(h.data<float>(fo)[1] == Approx(pi / 4).epsilon(1e-7));
  // NaN propagates.
  auto n = h.tensor<float>(ScalarType::kFloat, {1}, {float(kNaN)});
  auto one = h.tensor<float>(ScalarType::kFloat, {1}, {1.0f});
  auto no = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::atan2.out", {n, one, no, no}).ok());
  CHECK(std::isnan(h.data<float>(no)[0]));
  auto io = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::atan2.out", {yi, xi, io, io}) == "aten::atan2.out: out must be floating point, not INT");
}

TEST_CASE("elu: alpha, scale and input_scale", "[math][gaps][elu]") {
  KernelHarness h;
  auto x = h.tensor<double>(ScalarType::kDouble, {4}, {2.0, 0.0, -1.0, kNaN});
  auto out = h.out(ScalarType::kDouble, {4});
  // alpha 1.5, scale 2, input_scale 0.5: 2 -> 2 * 2 = 4; 0 -> 1.5 * 2 * (e^0 - 1) = 0;
  // -1 -> 3 * (e^-0.5 - 1) = 3 * (0.6065306597126334 - 1) = -1.1804080208620998.
  REQUIRE(h.call("aten::elu.out", {x, h.real(1.5), h.real(2.0), h.real(0.5), out, out}).ok());
  CHECK(h.data<double>(out)[0] == 4.0);
  CHECK(h.data<double>(out)[1] == 0.0);
  CHECK(h.data<double>(out)[2] == Approx(-1.1804080208620998).epsilon(1e-14));
  CHECK(std::isnan(h.data<double>(out)[3]));
  // Defaults (1, 1, 1) with Int scalars: -2 -> e^-2 - 1 = -0.8646647167633873.
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {-2.0f, 3.0f});
  auto fo = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::elu.out", {f, h.integer(1), h.integer(1), h.integer(1), fo, fo}).ok());
  CHECK(h.data<float>(fo)[0] == Approx(-0.8646647167633873).epsilon(1e-6));
  CHECK(h.data<float>(fo)[1] == 3.0f);
  auto i = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto io = h.out(ScalarType::kInt, {1});
  CHECK(failure(h, "aten::elu.out", {i, h.integer(1), h.integer(1), h.integer(1), io, io}) ==
        "aten::elu.out: self must be floating point, not INT");
  CHECK(failure(h, "aten::elu.out", {f, h.integer(1), h.integer(1), h.integer(1), out, out}) ==
        "aten::elu.out: out dtype DOUBLE differs from self dtype FLOAT");
}

TEST_CASE("bitwise and/or/xor: tensors, scalars, bool, promotion", "[math][gaps][bitwise]") {
  KernelHarness h;
  // 12 = 0b1100, 10 = 0b1010: and 8, or 14, xor 6; -1 & 5 = 5, -1 | 5 = -1, -1 ^ 5 = -6.
  auto a = h.tensor<int32_t>(ScalarType::kInt, {2}, {12, -1});
  auto b = h.tensor<int32_t>(ScalarType::kInt, {2}, {10, 5});
  auto out = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::bitwise_and.Tensor_out", {a, b, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{8, 5});
  REQUIRE(h.call("aten::bitwise_or.Tensor_out", {a, b, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{14, -1});
  REQUIRE(h.call("aten::bitwise_xor.Tensor_out", {a, b, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{6, -6});
  // Scalar other, broadcast over [2, 2]: x & 3.
  auto m = h.tensor<int64_t>(ScalarType::kLong, {2, 2}, {4, 5, 6, 7});
  auto mo = h.out(ScalarType::kLong, {2, 2});
  REQUIRE(h.call("aten::bitwise_and.Scalar_out", {m, h.integer(3), mo, mo}).ok());
  CHECK(h.data<int64_t>(mo) == std::vector<int64_t>{0, 1, 2, 3});
  REQUIRE(h.call("aten::bitwise_or.Scalar_out", {m, h.integer(8), mo, mo}).ok());
  CHECK(h.data<int64_t>(mo) == std::vector<int64_t>{12, 13, 14, 15});
  REQUIRE(h.call("aten::bitwise_xor.Scalar_out", {m, h.integer(1), mo, mo}).ok());
  CHECK(h.data<int64_t>(mo) == std::vector<int64_t>{5, 4, 7, 6});
  // Bool tensors stay logical.
  auto t = h.tensor<bool>(ScalarType::kBool, {4}, {false, false, true, true});
  auto u = h.tensor<bool>(ScalarType::kBool, {4}, {false, true, false, true});
  auto bo = h.out(ScalarType::kBool, {4});
  REQUIRE(h.call("aten::bitwise_xor.Tensor_out", {t, u, bo, bo}).ok());
  CHECK(h.data<bool>(bo) == std::vector<bool>{false, true, true, false});
  // uint8 | int8 promotes to int16: 200 | -128 -> 0x00C8 | 0xFF80 = 0xFFC8 = -56.
  auto ub = h.tensor<uint8_t>(ScalarType::kByte, {1}, {200});
  auto sb = h.tensor<int8_t>(ScalarType::kChar, {1}, {-128});
  auto so = h.out(ScalarType::kShort, {1});
  REQUIRE(h.call("aten::bitwise_or.Tensor_out", {ub, sb, so, so}).ok());
  CHECK(h.data<int16_t>(so)[0] == -56);
  // Floating operands and float scalars are refused; int32 does not fit in a BOOL out.
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  CHECK(failure(h, "aten::bitwise_and.Tensor_out", {f, b, out, out}) ==
        "aten::bitwise_and.Tensor_out: self must be an integer or BOOL tensor, not FLOAT");
  CHECK(failure(h, "aten::bitwise_or.Scalar_out", {a, h.real(1.0), out, out}) ==
        "aten::bitwise_or.Scalar_out: other must be an integer or bool scalar, not a float");
  auto b2 = h.out(ScalarType::kBool, {2});
  CHECK(failure(h, "aten::bitwise_and.Tensor_out", {a, b, b2, b2}) ==
        "aten::bitwise_and.Tensor_out: result type INT cannot be stored in out of type BOOL");
}

TEST_CASE("bitwise shifts: wrap, sign fill, amounts beyond the width", "[math][gaps][bitwise]") {
  KernelHarness h;
  // int32: 1 << 31 = INT32_MIN (wraps), 3 << 1 = 6, amount 32 or -1 gives 0 (ATen),
  // INT32_MAX << 1 = -2 (0x7fffffff * 2 mod 2^32 = 0xfffffffe).
  auto a = h.tensor<int32_t>(ScalarType::kInt, {5}, {1, 3, 1, 5, INT32_MAX});
  auto s = h.tensor<int32_t>(ScalarType::kInt, {5}, {31, 1, 32, -1, 1});
  auto out = h.out(ScalarType::kInt, {5});
  REQUIRE(h.call("aten::bitwise_left_shift.Tensor_out", {a, s, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{INT32_MIN, 6, 0, 0, -2});
  // Right shift: -8 >> 1 = -4 (arithmetic), -8 >> 40 = -1 (sign fill), 8 >> 40 = 0, 8 >> -1 = 0 (ATen),
  // -1 >> 31 = -1.
  auto r = h.tensor<int64_t>(ScalarType::kLong, {5}, {-8, -8, 8, 8, -1});
  auto rs = h.tensor<int64_t>(ScalarType::kLong, {5}, {1, 70, 70, -1, 31});
  auto ro = h.out(ScalarType::kLong, {5});
  REQUIRE(h.call("aten::bitwise_right_shift.Tensor_out", {r, rs, ro, ro}).ok());
  CHECK(h.data<int64_t>(ro) == std::vector<int64_t>{-4, -1, 0, 0, -1});
  // uint8 with a scalar amount: 0b10110001 (177) << 1 = 0b01100010 (98) after dropping the top bit;
  // 177 >> 4 = 11; >> 8 = 0.
  auto u = h.tensor<uint8_t>(ScalarType::kByte, {1}, {177});
  auto uo = h.out(ScalarType::kByte, {1});
  REQUIRE(h.call("aten::bitwise_left_shift.Tensor_Scalar_out", {u, h.integer(1), uo, uo}).ok());
  CHECK(h.data<uint8_t>(uo)[0] == 98);
  REQUIRE(h.call("aten::bitwise_right_shift.Tensor_Scalar_out", {u, h.integer(4), uo, uo}).ok());
  CHECK(h.data<uint8_t>(uo)[0] == 11);
  REQUIRE(h.call("aten::bitwise_right_shift.Tensor_Scalar_out", {u, h.integer(8), uo, uo}).ok());
  CHECK(h.data<uint8_t>(uo)[0] == 0);
  // int8 -128 >> 7 = -1; -128 << 1 wraps to 0.
  auto c = h.tensor<int8_t>(ScalarType::kChar, {1}, {-128});
  auto co = h.out(ScalarType::kChar, {1});
  REQUIRE(h.call("aten::bitwise_right_shift.Tensor_Scalar_out", {c, h.integer(7), co, co}).ok());
  CHECK(h.data<int8_t>(co)[0] == -1);
  REQUIRE(h.call("aten::bitwise_left_shift.Tensor_Scalar_out", {c, h.integer(1), co, co}).ok());
  CHECK(h.data<int8_t>(co)[0] == 0);
  auto f = h.tensor<double>(ScalarType::kDouble, {1}, {1.0});
  auto fo = h.out(ScalarType::kDouble, {1});
  CHECK(failure(h, "aten::bitwise_left_shift.Tensor_Scalar_out", {f, h.integer(1), fo, fo}) ==
        "aten::bitwise_left_shift.Tensor_Scalar_out: self must be an integer or BOOL tensor, not DOUBLE");
}

TEST_CASE("max.dim_max / min.dim_min: values, first index of ties, NaN, keepdim", "[math][gaps][reduce]") {
  KernelHarness h;
  // rows [3, 7, 7, 1] and [2, NaN, 9, NaN]: max 7 at 1 (first of the tie), NaN at 1 (first NaN);
  // min 1 at 3, NaN at 1.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 4}, {3, 7, 7, 1, 2, float(kNaN), 9, float(kNaN)});
  auto v = h.out(ScalarType::kFloat, {2});
  auto i = h.out(ScalarType::kLong, {2});
  auto ret = h.tensor_list({v, i});
  REQUIRE(h.call("aten::max.dim_max", {x, h.integer(-1), h.boolean(false), v, i, ret}).ok());
  CHECK(h.data<float>(v)[0] == 7.0f);
  CHECK(std::isnan(h.data<float>(v)[1]));
  CHECK(h.data<int64_t>(i) == std::vector<int64_t>{1, 1});
  REQUIRE(h.call("aten::min.dim_min", {x, h.integer(1), h.boolean(false), v, i, ret}).ok());
  CHECK(h.data<float>(v)[0] == 1.0f);
  CHECK(std::isnan(h.data<float>(v)[1]));
  CHECK(h.data<int64_t>(i) == std::vector<int64_t>{3, 1});
  // Over dim 0 with keepdim: columns (3,2) (7,NaN) (7,9) (1,NaN); min: 2@1, NaN@1, 7@0, NaN@1.
  auto kv = h.out(ScalarType::kFloat, {1, 4});
  auto ki = h.out(ScalarType::kLong, {1, 4});
  REQUIRE(h.call("aten::min.dim_min", {x, h.integer(0), h.boolean(true), kv, ki, h.tensor_list({kv, ki})}).ok());
  CHECK(h.sizes(kv) == std::vector<int32_t>{1, 4});
  CHECK(h.data<float>(kv)[0] == 2.0f);
  CHECK(h.data<float>(kv)[2] == 7.0f);
  CHECK(h.data<int64_t>(ki) == std::vector<int64_t>{1, 1, 0, 1});
  // int64 ties: [5, 5] -> max 5 at index 0. 0-dim self: the value at index 0.
  auto n = h.tensor<int64_t>(ScalarType::kLong, {2}, {5, 5});
  auto nv = h.out(ScalarType::kLong, {});
  auto ni = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::max.dim_max", {n, h.integer(0), h.boolean(false), nv, ni, h.tensor_list({nv, ni})}).ok());
  CHECK(h.data<int64_t>(nv)[0] == 5);
  CHECK(h.data<int64_t>(ni)[0] == 0);
  auto s = h.tensor<double>(ScalarType::kDouble, {}, {-2.5});
  auto sv = h.out(ScalarType::kDouble, {});
  REQUIRE(h.call("aten::max.dim_max", {s, h.integer(-1), h.boolean(false), sv, ni, h.tensor_list({sv, ni})}).ok());
  CHECK(h.data<double>(sv)[0] == -2.5);
  CHECK(h.data<int64_t>(ni)[0] == 0);
  // An empty reduced dim is an error; an int32 indices out too.
  auto e = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto ev = h.out(ScalarType::kFloat, {2});
  auto ei = h.out(ScalarType::kLong, {2});
  CHECK(failure(h, "aten::max.dim_max", {e, h.integer(1), h.boolean(false), ev, ei, h.tensor_list({ev, ei})}) ==
        "aten::max.dim_max: cannot reduce dim 1 of size 0");
  auto bad = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::min.dim_min", {x, h.integer(1), h.boolean(false), v, bad, h.tensor_list({v, bad})}) ==
        "aten::min.dim_min: indices must be LONG, not INT");
}

TEST_CASE("max.unary_out / min.unary_out over all elements", "[math][gaps][reduce]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {4, -9, 12, 0});
  auto out = h.out(ScalarType::kInt, {});
  REQUIRE(h.call("aten::max.unary_out", {x, out, out}).ok());
  CHECK(h.data<int32_t>(out)[0] == 12);
  REQUIRE(h.call("aten::min.unary_out", {x, out, out}).ok());
  CHECK(h.data<int32_t>(out)[0] == -9);
  // A NaN anywhere is the result; int into a wider out is allowed.
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {1, float(kNaN), 5});
  auto fo = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::min.unary_out", {f, fo, fo}).ok());
  CHECK(std::isnan(h.data<float>(fo)[0]));
  auto lo = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::max.unary_out", {x, lo, lo}).ok());
  CHECK(h.data<int64_t>(lo)[0] == 12);
  // An empty self: ExecuTorch's op_max.cpp / op_min.cpp write the value
  // they start from, lower_bound / upper_bound of out's dtype: -inf / +inf
  // for FLOAT, INT64_MIN / INT64_MAX for LONG, false / true for BOOL.
  auto e = h.tensor<float>(ScalarType::kFloat, {0}, {});
  REQUIRE(h.call("aten::max.unary_out", {e, fo, fo}).ok());
  CHECK(h.data<float>(fo)[0] == -std::numeric_limits<float>::infinity());
  REQUIRE(h.call("aten::min.unary_out", {e, fo, fo}).ok());
  CHECK(h.data<float>(fo)[0] == std::numeric_limits<float>::infinity());
  auto el = h.tensor<int64_t>(ScalarType::kLong, {2, 0}, {});
  REQUIRE(h.call("aten::max.unary_out", {el, lo, lo}).ok());
  CHECK(h.data<int64_t>(lo)[0] == std::numeric_limits<int64_t>::min());
  REQUIRE(h.call("aten::min.unary_out", {el, lo, lo}).ok());
  CHECK(h.data<int64_t>(lo)[0] == std::numeric_limits<int64_t>::max());
  auto eb = h.tensor<bool>(ScalarType::kBool, {0}, {});
  auto ob = h.out(ScalarType::kBool, {});
  REQUIRE(h.call("aten::max.unary_out", {eb, ob, ob}).ok());
  CHECK(h.data<bool>(ob)[0] == false);
  REQUIRE(h.call("aten::min.unary_out", {eb, ob, ob}).ok());
  CHECK(h.data<bool>(ob)[0] == true);
}

TEST_CASE("prod.int_out and prod.out: dtypes, empty dims, integer wrap", "[math][gaps][reduce]") {
  KernelHarness h;
  // [[1, 2, 3], [4, 5, 6]]: prod over dim 1 = [6, 120]; over dim 0 = [4, 10, 18]; all = 720.
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::prod.int_out", {x, h.integer(1), h.boolean(false), h.none(), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{6, 120});
  auto kept = h.out(ScalarType::kLong, {1, 3});
  REQUIRE(h.call("aten::prod.int_out", {x, h.integer(-2), h.boolean(true), h.none(), kept, kept}).ok());
  CHECK(h.data<int64_t>(kept) == std::vector<int64_t>{4, 10, 18});
  auto all = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::prod.out", {x, h.none(), all, all}).ok());
  CHECK(h.data<int64_t>(all)[0] == 720);
  // An integer self needs a LONG out unless dtype says otherwise.
  auto io = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, "aten::prod.int_out", {x, h.integer(1), h.boolean(false), h.none(), io, io}) ==
        "aten::prod.int_out: out must be LONG for self dtype INT, not INT");
  // dtype INT (3): 65536 * 65536 = 2^32 wraps to 0 in int32; 2^31 * -1 ... use 46341^2 = 2147488281
  // = 2^31 + 4633 -> wraps to -2147479015.
  auto big = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {65536, 65536, 46341, 46341});
  REQUIRE(h.call("aten::prod.int_out", {big, h.integer(1), h.boolean(false), h.integer(3), io, io}).ok());
  CHECK(h.data<int32_t>(io) == std::vector<int32_t>{0, -2147479015});
  // Floats: an empty dim gives 1; NaN propagates.
  auto e = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto eo = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::prod.int_out", {e, h.integer(1), h.boolean(false), h.none(), eo, eo}).ok());
  CHECK(h.data<float>(eo) == std::vector<float>{1, 1});
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {0.5f, float(kNaN), 4});
  auto fo = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::prod.out", {f, h.none(), fo, fo}).ok());
  CHECK(std::isnan(h.data<float>(fo)[0]));
  // Bool self: LONG out, product of 0/1. A float self into an integer dtype is refused.
  auto b = h.tensor<bool>(ScalarType::kBool, {3}, {true, true, false});
  REQUIRE(h.call("aten::prod.out", {b, h.none(), all, all}).ok());
  CHECK(h.data<int64_t>(all)[0] == 0);
  CHECK(failure(h, "aten::prod.out", {f, h.integer(4), all, all}) ==
        "aten::prod.out: cannot take the product of FLOAT values in LONG");
}

TEST_CASE("var_mean.correction_out: correction, dims, degenerate divisors", "[math][gaps][reduce]") {
  KernelHarness h;
  // Rows [1, 2, 3, 4] and [2, 2, 2, 2]: means 2.5 and 2; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5
  // and 0. correction 1 -> var 5/3 and 0; correction 0 -> 1.25 and 0.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  auto var = h.out(ScalarType::kFloat, {2});
  auto mean = h.out(ScalarType::kFloat, {2});
  auto ret = h.tensor_list({var, mean});
  REQUIRE(h.call("aten::var_mean.correction_out", {x, h.int_list({1}), h.none(), h.boolean(false), var, mean, ret}).ok());
  CHECK(h.data<float>(var)[0] == Approx(5.0 / 3.0).epsilon(1e-6));
  CHECK(h.data<float>(var)[1] == 0.0f);
  CHECK(h.data<float>(mean) == std::vector<float>{2.5f, 2.0f});
  REQUIRE(h.call("aten::var_mean.correction_out", {x, h.int_list({-1}), h.integer(0), h.boolean(false), var, mean, ret}).ok());
  CHECK(h.data<float>(var) == std::vector<float>{1.25f, 0.0f});
  // All dims (None), keepdim: mean of all 8 = 18/8 = 2.25; deviations: 1.5625 + 0.0625 + 0.5625 + 3.0625
  // + 4 * 0.0625 = 5.5; correction 1 -> 5.5 / 7.
  auto kv = h.out(ScalarType::kFloat, {1, 1});
  auto km = h.out(ScalarType::kFloat, {1, 1});
  REQUIRE(h.call("aten::var_mean.correction_out", {x, h.none(), h.integer(1), h.boolean(true), kv, km, h.tensor_list({kv, km})}).ok());
  CHECK(h.sizes(kv) == std::vector<int32_t>{1, 1});
  CHECK(h.data<float>(kv)[0] == Approx(5.5 / 7.0).epsilon(1e-6));
  CHECK(h.data<float>(km)[0] == 2.25f);
  // Divisor max(N - correction, 0): N = 4, correction 4 -> 5 / 0 = inf for row 0 and 0 / 0 = NaN for row 1;
  // the means are still 2.5 and 2 (ATen).
  REQUIRE(h.call("aten::var_mean.correction_out", {x, h.int_list({1}), h.integer(4), h.boolean(false), var, mean, ret}).ok());
  CHECK(h.data<float>(var)[0] == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(h.data<float>(var)[1]));
  CHECK(h.data<float>(mean) == std::vector<float>{2.5f, 2.0f});
  // An empty group: both NaN.
  auto e = h.tensor<double>(ScalarType::kDouble, {2, 0}, {});
  auto ev = h.out(ScalarType::kDouble, {2});
  auto em = h.out(ScalarType::kDouble, {2});
  REQUIRE(h.call("aten::var_mean.correction_out", {e, h.int_list({1}), h.none(), h.boolean(false), ev, em, h.tensor_list({ev, em})}).ok());
  CHECK(std::isnan(h.data<double>(ev)[0]));
  CHECK(std::isnan(h.data<double>(em)[1]));
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  CHECK(failure(h, "aten::var_mean.correction_out", {i, h.none(), h.none(), h.boolean(false), var, mean, ret}) ==
        "aten::var_mean.correction_out: self must be floating point, not INT");
  auto dm = h.out(ScalarType::kDouble, {2});
  CHECK(failure(h, "aten::var_mean.correction_out", {x, h.int_list({1}), h.none(), h.boolean(false), var, dm, ret}) ==
        "aten::var_mean.correction_out: out1 dtype DOUBLE differs from out0 dtype FLOAT");
}

TEST_CASE("topk.values: largest and smallest, ties, NaN, dims", "[math][gaps][topk]") {
  KernelHarness h;
  // [5, 1, 5, 3, NaN, 2]: largest 3 -> NaN@4, 5@0, 5@2 (ties: lower position first);
  // smallest 3 -> 1@1, 2@5, 3@3 (NaN counts as largest, so never among the smallest here).
  auto x = h.tensor<float>(ScalarType::kFloat, {6}, {5, 1, 5, 3, float(kNaN), 2});
  auto v = h.out(ScalarType::kFloat, {3});
  auto i = h.out(ScalarType::kLong, {3});
  auto ret = h.tensor_list({v, i});
  REQUIRE(h.call("aten::topk.values", {x, h.integer(3), h.integer(-1), h.boolean(true), h.boolean(true), v, i, ret}).ok());
  CHECK(std::isnan(h.data<float>(v)[0]));
  CHECK(h.data<float>(v)[1] == 5.0f);
  CHECK(h.data<float>(v)[2] == 5.0f);
  CHECK(h.data<int64_t>(i) == std::vector<int64_t>{4, 0, 2});
  REQUIRE(h.call("aten::topk.values", {x, h.integer(3), h.integer(0), h.boolean(false), h.boolean(true), v, i, ret}).ok());
  CHECK(h.data<float>(v) == std::vector<float>{1, 2, 3});
  CHECK(h.data<int64_t>(i) == std::vector<int64_t>{1, 5, 3});
  // k = n smallest: the NaN comes last: 1, 2, 3, 5, 5, NaN at 1, 5, 3, 0, 2, 4.
  auto av = h.out(ScalarType::kFloat, {6});
  auto ai = h.out(ScalarType::kLong, {6});
  REQUIRE(h.call("aten::topk.values", {x, h.integer(6), h.integer(0), h.boolean(false), h.boolean(false), av, ai, h.tensor_list({av, ai})}).ok());
  CHECK(h.data<int64_t>(ai) == std::vector<int64_t>{1, 5, 3, 0, 2, 4});
  // Along dim 0 of a [3, 2] int tensor: columns (4, 9, 4) and (-1, 0, 7); top 2 largest:
  // column 0 -> 9@1, 4@0; column 1 -> 7@2, 0@1.
  auto m = h.tensor<int32_t>(ScalarType::kInt, {3, 2}, {4, -1, 9, 0, 4, 7});
  auto mv = h.out(ScalarType::kInt, {2, 2});
  auto mi = h.out(ScalarType::kLong, {2, 2});
  REQUIRE(h.call("aten::topk.values", {m, h.integer(2), h.integer(0), h.boolean(true), h.boolean(true), mv, mi, h.tensor_list({mv, mi})}).ok());
  CHECK(h.data<int32_t>(mv) == std::vector<int32_t>{9, 7, 4, 0});
  CHECK(h.data<int64_t>(mi) == std::vector<int64_t>{1, 2, 0, 1});
  // k = 0 gives empty outs; k > size is an error; a 0-dim self takes k 1.
  auto zv = h.out(ScalarType::kFloat, {0}, true);
  auto zi = h.out(ScalarType::kLong, {0}, true);
  REQUIRE(h.call("aten::topk.values", {x, h.integer(0), h.integer(0), h.boolean(true), h.boolean(true), zv, zi, h.tensor_list({zv, zi})}).ok());
  CHECK(h.sizes(zv) == std::vector<int32_t>{0});
  CHECK(failure(h, "aten::topk.values", {x, h.integer(7), h.integer(0), h.boolean(true), h.boolean(true), v, i, ret}) ==
        "aten::topk.values: k 7 out of range for dim 0 of size 6");
  auto s = h.tensor<double>(ScalarType::kDouble, {}, {4.5});
  auto sv = h.out(ScalarType::kDouble, {});
  auto si = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::topk.values", {s, h.integer(1), h.integer(0), h.boolean(true), h.boolean(true), sv, si, h.tensor_list({sv, si})}).ok());
  CHECK(h.data<double>(sv)[0] == 4.5);
  CHECK(h.data<int64_t>(si)[0] == 0);
  // k = 0 on a 0-dim self still fills the 0-dim outs (there is no dim to shrink).
  auto s2 = h.tensor<double>(ScalarType::kDouble, {}, {-1.25});
  REQUIRE(h.call("aten::topk.values", {s2, h.integer(0), h.integer(-1), h.boolean(true), h.boolean(true), sv, si, h.tensor_list({sv, si})}).ok());
  CHECK(h.data<double>(sv)[0] == -1.25);
  CHECK(failure(h, "aten::topk.values", {x, h.integer(1), h.integer(0), h.boolean(true), h.boolean(true), sv, si, h.tensor_list({sv, si})}) ==
        "aten::topk.values: out dtype DOUBLE differs from self dtype FLOAT");
}

TEST_CASE("topk.values: a larger row against a sort by hand", "[math][gaps][topk]") {
  KernelHarness h;
  // v[j] = (j * 7) mod 20 for j = 0..19 is a permutation of 0..19 (7 is coprime to 20), so the 5
  // largest are 19, 18, 17, 16, 15 at the j with 7j = v (mod 20): j = 7v mod 20 (7 * 3 = 21 = 1 mod 20,
  // so j = 3v mod 20): 19 -> 17, 18 -> 14, 17 -> 11, 16 -> 8, 15 -> 5.
  std::vector<int64_t> data(20);
  for (int64_t j = 0; j < 20; ++j) data[size_t(j)] = (j * 7) % 20;
  auto x = h.tensor<int64_t>(ScalarType::kLong, {20}, data);
  auto v = h.out(ScalarType::kLong, {5});
  auto i = h.out(ScalarType::kLong, {5});
  REQUIRE(h.call("aten::topk.values", {x, h.integer(5), h.integer(0), h.boolean(true), h.boolean(true), v, i, h.tensor_list({v, i})}).ok());
  CHECK(h.data<int64_t>(v) == std::vector<int64_t>{19, 18, 17, 16, 15});
  CHECK(h.data<int64_t>(i) == std::vector<int64_t>{17, 14, 11, 8, 5});
}
