// Reductions: sum, mean, var, amax/amin, argmax/argmin, any/all, cumsum.
// Tiny literal tensors with sums worked out by hand.
#include <bit>
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

size_t dtype(KernelHarness& h, ScalarType t) { return h.integer(int64_t(t)); }

}  // namespace

TEST_CASE("sum over a dim list, with and without keepdim", "[math][reduce]") {
  KernelHarness h;
  // [2, 2, 2] = 0..7
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({0, 2}), h.boolean(false), h.none(), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0 + 1 + 4 + 5, 2 + 3 + 6 + 7});
  auto kept = h.out(ScalarType::kFloat, {1, 2, 1});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({-1, 0}), h.boolean(true), h.none(), kept, kept}).ok());
  CHECK(h.sizes(kept) == std::vector<int32_t>{1, 2, 1});
  CHECK(h.data<float>(kept) == std::vector<float>{10, 18});
}

TEST_CASE("sum over None or [] reduces every dim", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kInt, {});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.none(), h.boolean(false), h.none(), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{21});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({}), h.boolean(false), h.none(), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{21});
  auto kept = h.out(ScalarType::kInt, {1, 1});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.none(), h.boolean(true), h.none(), kept, kept}).ok());
  CHECK(h.data<int32_t>(kept) == std::vector<int32_t>{21});
}

TEST_CASE("sum with a dtype argument and of bools", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {std::numeric_limits<int32_t>::max(), 1, 2, 3});
  auto out = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({1}), h.boolean(false), dtype(h, ScalarType::kLong), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{int64_t(std::numeric_limits<int32_t>::max()) + 1, 5});
  auto b = h.tensor<bool>(ScalarType::kBool, {4}, {true, false, true, true});
  auto count = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::sum.IntList_out", {b, h.none(), h.boolean(false), h.none(), count, count}).ok());
  CHECK(h.data<int64_t>(count) == std::vector<int64_t>{3});
}

TEST_CASE("sum errors: dtype mismatch, bad dtype, float into int, duplicate dims", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {2});
  const std::string op = "aten::sum.IntList_out";
  CHECK(failure(h, op, {x, h.int_list({1}), h.boolean(false), dtype(h, ScalarType::kDouble), out, out}) ==
        op + ": dtype DOUBLE does not match out dtype FLOAT");
  CHECK(failure(h, op, {x, h.int_list({1}), h.boolean(false), h.integer(99), out, out}) == op + ": dtype 99 is not a scalar type");
  auto oi = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, op, {x, h.int_list({1}), h.boolean(false), h.none(), oi, oi}) ==
        op + ": result type FLOAT cannot be stored in out of type INT");
  CHECK(failure(h, op, {x, h.int_list({1, -1}), h.boolean(false), h.none(), out, out}) == op + ": dim 1 appears more than once");
  CHECK(failure(h, op, {x, h.int_list({2}), h.boolean(false), h.none(), out, out}) == op + ": dim 2 out of range for rank 2");
  CHECK(failure(h, op, {x, h.integer(1), h.boolean(false), h.none(), out, out}) == op + ": dim must be an int list, not Int");
  auto wrong = h.out(ScalarType::kFloat, {3});
  CHECK(failure(h, op, {x, h.int_list({1}), h.boolean(false), h.none(), wrong, wrong}) ==
        op + ": out: cannot resize a static tensor");
}

TEST_CASE("sum of a non-contiguous input and of an empty dim", "[math][reduce]") {
  KernelHarness h;
  // Logical [[1, 2, 3], [4, 5, 6]] stored with dim order (1, 0).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto rows = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({1}), h.boolean(false), h.none(), rows, rows}).ok());
  CHECK(h.data<float>(rows) == std::vector<float>{6, 15});
  auto empty = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto zeros = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::sum.IntList_out", {empty, h.int_list({0}), h.boolean(false), h.none(), zeros, zeros}).ok());
  CHECK(h.data<float>(zeros) == std::vector<float>{0, 0, 0});
}

TEST_CASE("mean over dims, keepdim, the dtype argument", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 5});
  auto cols = h.out(ScalarType::kFloat, {1, 2});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({0}), h.boolean(true), h.none(), cols, cols}).ok());
  CHECK(h.data<float>(cols) == std::vector<float>{2, 3.5f});
  auto all = h.out(ScalarType::kDouble, {});
  REQUIRE(h.call("aten::mean.out", {x, h.none(), h.boolean(false), dtype(h, ScalarType::kDouble), all, all}).ok());
  CHECK(h.data<double>(all) == std::vector<double>{2.75});
  // An integer self needs a floating dtype.
  auto i = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 4});
  auto of = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::mean.out", {i, h.int_list({0}), h.boolean(false), dtype(h, ScalarType::kFloat), of, of}).ok());
  CHECK(h.data<float>(of)[0] == Approx(7.0 / 3));
  CHECK(failure(h, "aten::mean.out", {i, h.int_list({0}), h.boolean(false), h.none(), of, of}) ==
        "aten::mean.out: self must be floating point, not INT");
  auto ol = h.out(ScalarType::kLong, {});
  CHECK(failure(h, "aten::mean.out", {i, h.int_list({0}), h.boolean(false), dtype(h, ScalarType::kLong), ol, ol}) ==
        "aten::mean.out: dtype must be floating point, not LONG");
}

TEST_CASE("mean of an empty dim is NaN and mean.dtype_out averages everything", "[math][reduce]") {
  KernelHarness h;
  auto empty = h.tensor<float>(ScalarType::kFloat, {0, 2}, {});
  auto out = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::mean.out", {empty, h.int_list({0}), h.boolean(false), h.none(), out, out}).ok());
  CHECK(std::isnan(h.data<float>(out)[0]));
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 6});
  auto all = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::mean.dtype_out", {x, h.none(), all, all}).ok());
  CHECK(h.data<float>(all) == std::vector<float>{3});
}

TEST_CASE("var and var.correction", "[math][reduce]") {
  KernelHarness h;
  // [1, 2, 3, 4]: mean 2.5, squared deviations sum to 5.
  auto x = h.tensor<float>(ScalarType::kFloat, {4}, {1, 2, 3, 4});
  auto out = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::var.out", {x, h.none(), h.boolean(true), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out)[0] == Approx(5.0 / 3));
  REQUIRE(h.call("aten::var.out", {x, h.int_list({0}), h.boolean(false), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out)[0] == Approx(5.0 / 4));
  REQUIRE(h.call("aten::var.correction_out", {x, h.none(), h.none(), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out)[0] == Approx(5.0 / 3));
  REQUIRE(h.call("aten::var.correction_out", {x, h.none(), h.integer(2), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out)[0] == Approx(5.0 / 2));
  // count - correction <= 0 gives NaN.
  REQUIRE(h.call("aten::var.correction_out", {x, h.none(), h.integer(4), h.boolean(false), out, out}).ok());
  CHECK(std::isnan(h.data<float>(out)[0]));
  auto rows = h.tensor<double>(ScalarType::kDouble, {2, 2}, {1, 3, 10, 10});
  auto kept = h.out(ScalarType::kDouble, {2, 1});
  REQUIRE(h.call("aten::var.out", {rows, h.int_list({1}), h.boolean(true), h.boolean(true), kept, kept}).ok());
  CHECK(h.data<double>(kept) == std::vector<double>{2, 0});
  auto i = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  CHECK(failure(h, "aten::var.out", {i, h.none(), h.boolean(true), h.boolean(false), out, out}) ==
        "aten::var.out: self must be floating point, not INT");
}

TEST_CASE("amax and amin keep self's dtype and NaN wins", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 7, -2, 4, NAN, 0});
  auto out = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::amax.out", {x, h.int_list({0}), h.boolean(false), out, out}).ok());
  auto r = h.data<float>(out);
  CHECK(r[0] == 4);
  CHECK(std::isnan(r[1]));
  CHECK(r[2] == 0);
  auto kept = h.out(ScalarType::kFloat, {2, 1});
  REQUIRE(h.call("aten::amin.out", {x, h.int_list({-1}), h.boolean(true), kept, kept}).ok());
  CHECK(h.data<float>(kept)[0] == -2);
  CHECK(std::isnan(h.data<float>(kept)[1]));
  // int64 values beyond 2^53 compare exactly.
  const int64_t big = (int64_t(1) << 60) + 1;
  auto l = h.tensor<int64_t>(ScalarType::kLong, {3}, {big - 1, big, -big});
  auto ol = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::amax.out", {l, h.int_list({}), h.boolean(false), ol, ol}).ok());
  CHECK(h.data<int64_t>(ol) == std::vector<int64_t>{big});
  REQUIRE(h.call("aten::amin.out", {l, h.int_list({0}), h.boolean(false), ol, ol}).ok());
  CHECK(h.data<int64_t>(ol) == std::vector<int64_t>{-big});
}

TEST_CASE("amax and amin report the last NaN, max.dim and argmax the first, as ExecuTorch", "[math][reduce]") {
  // op_amax.cpp reduces with `isnan(v) || v > acc ? v : acc`: every NaN
  // replaces the accumulator, so the last NaN's bits come out. op_max.cpp
  // (max.dim) and op_argmax.cpp keep the first NaN: `!isnan(acc) && ...`.
  // Row [1, NaN(payload 1), 5, NaN(payload 2)]: amax and amin give payload
  // 2; max.dim gives payload 1 at index 1; argmax 1.
  const auto nan_bits = [](uint32_t payload) { return std::bit_cast<float>(0x7fc00000u | payload); };
  const auto bits = [](float v) { return std::bit_cast<uint32_t>(v); };
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 4}, {1.0f, nan_bits(1), 5.0f, nan_bits(2)});
  for (const char* op : {"aten::amax.out", "aten::amin.out"}) {
    INFO(op);
    auto out = h.out(ScalarType::kFloat, {1});
    REQUIRE(h.call(op, {x, h.int_list({1}), h.boolean(false), out, out}).ok());
    CHECK(bits(h.data<float>(out)[0]) == (0x7fc00000u | 2u));
  }
  auto values = h.out(ScalarType::kFloat, {1});
  auto where = h.out(ScalarType::kLong, {1});
  REQUIRE(h.call("aten::max.dim_max", {x, h.integer(1), h.boolean(false), values, where, h.tensor_list({values, where})})
              .ok());
  CHECK(bits(h.data<float>(values)[0]) == (0x7fc00000u | 1u));
  CHECK(h.data<int64_t>(where) == std::vector<int64_t>{1});
  auto arg = h.out(ScalarType::kLong, {1});
  REQUIRE(h.call("aten::argmax.out", {x, h.integer(1), h.boolean(false), arg, arg}).ok());
  CHECK(h.data<int64_t>(arg) == std::vector<int64_t>{1});
}

TEST_CASE("amax errors", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {0, 2}, {});
  auto out = h.out(ScalarType::kFloat, {2});
  CHECK(failure(h, "aten::amax.out", {x, h.int_list({0}), h.boolean(false), out, out}) ==
        "aten::amax.out: cannot reduce dim 0 of size 0");
  auto od = h.out(ScalarType::kDouble, {2});
  CHECK(failure(h, "aten::amin.out", {x, h.int_list({0}), h.boolean(false), od, od}) ==
        "aten::amin.out: out dtype DOUBLE differs from self dtype FLOAT");
  CHECK(failure(h, "aten::amax.out", {x, h.none(), h.boolean(false), out, out}) ==
        "aten::amax.out: dim must be an int list, not None");
  // Reducing the non-empty dim of an empty tensor is fine: nothing to write.
  auto none = h.out(ScalarType::kFloat, {0});
  REQUIRE(h.call("aten::amax.out", {x, h.int_list({1}), h.boolean(false), none, none}).ok());
}

TEST_CASE("argmax and argmin along a dim and first of equal values wins", "[math][reduce]") {
  KernelHarness h;
  auto v = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 5, 5, 7, 2, -1});
  auto out = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::argmax.out", {v, h.integer(1), h.boolean(false), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{1, 0});
  REQUIRE(h.call("aten::argmin.out", {v, h.integer(-1), h.boolean(false), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{0, 2});
  auto cols = h.out(ScalarType::kLong, {1, 3});
  REQUIRE(h.call("aten::argmax.out", {v, h.integer(0), h.boolean(true), cols, cols}).ok());
  CHECK(h.data<int64_t>(cols) == std::vector<int64_t>{1, 0, 0});
}

TEST_CASE("argmax over None is the flat position and keepdim keeps rank", "[math][reduce]") {
  KernelHarness h;
  auto v = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 5, 5, 7, 2, -1});
  auto flat = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::argmax.out", {v, h.none(), h.boolean(false), flat, flat}).ok());
  CHECK(h.data<int64_t>(flat) == std::vector<int64_t>{3});
  auto kept = h.out(ScalarType::kLong, {1, 1});
  REQUIRE(h.call("aten::argmin.out", {v, h.none(), h.boolean(true), kept, kept}).ok());
  CHECK(h.data<int64_t>(kept) == std::vector<int64_t>{5});
  // Non-contiguous: logical [[1, 5, 5], [7, 2, -1]] stored with dim order (1, 0).
  auto t = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 7, 5, 2, 5, -1}, {1, 0});
  REQUIRE(h.call("aten::argmax.out", {t, h.none(), h.boolean(false), flat, flat}).ok());
  CHECK(h.data<int64_t>(flat) == std::vector<int64_t>{3});
  auto rows = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::argmin.out", {t, h.integer(1), h.boolean(false), rows, rows}).ok());
  CHECK(h.data<int64_t>(rows) == std::vector<int64_t>{0, 2});
}

TEST_CASE("argmax picks the first NaN", "[math][reduce]") {
  KernelHarness h;
  auto v = h.tensor<float>(ScalarType::kFloat, {4}, {1, NAN, 9, NAN});
  auto out = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::argmax.out", {v, h.integer(0), h.boolean(false), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{1});
  REQUIRE(h.call("aten::argmin.out", {v, h.none(), h.boolean(false), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{1});
}

TEST_CASE("argmax errors", "[math][reduce]") {
  KernelHarness h;
  auto v = h.tensor<float>(ScalarType::kFloat, {2}, {1, 2});
  auto oi = h.out(ScalarType::kInt, {});
  CHECK(failure(h, "aten::argmax.out", {v, h.integer(0), h.boolean(false), oi, oi}) == "aten::argmax.out: out must be LONG, not INT");
  auto out = h.out(ScalarType::kLong, {});
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  CHECK(failure(h, "aten::argmax.out", {b, h.integer(0), h.boolean(false), out, out}) ==
        "aten::argmax.out: self dtype BOOL is not supported");
  auto empty = h.tensor<float>(ScalarType::kFloat, {0}, {});
  CHECK(failure(h, "aten::argmin.out", {empty, h.none(), h.boolean(false), out, out}) ==
        "aten::argmin.out: cannot reduce an empty tensor");
  auto e2 = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto o2 = h.out(ScalarType::kLong, {2});
  CHECK(failure(h, "aten::argmax.out", {e2, h.integer(1), h.boolean(false), o2, o2}) ==
        "aten::argmax.out: cannot reduce dim 1 of size 0");
  CHECK(failure(h, "aten::argmax.out", {v, h.integer(1), h.boolean(false), out, out}) ==
        "aten::argmax.out: dim 1 out of range for rank 1");
}

TEST_CASE("reductions of a 0-dim tensor", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {}, {4});
  auto out = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({0}), h.boolean(true), h.none(), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{4});
  REQUIRE(h.call("aten::amax.out", {x, h.int_list({-1}), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{4});
  auto idx = h.out(ScalarType::kLong, {});
  REQUIRE(h.call("aten::argmax.out", {x, h.integer(0), h.boolean(false), idx, idx}).ok());
  CHECK(h.data<int64_t>(idx) == std::vector<int64_t>{0});
}

TEST_CASE("any and all, over everything, a dim list or one dim", "[math][reduce]") {
  KernelHarness h;
  // [[0, 2], [0, 0]] as float, NaN-free.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2}, {0, 2, 0, 0});
  auto one = h.out(ScalarType::kBool, {});
  REQUIRE(h.call("aten::any.all_out", {x, one, one}).ok());
  CHECK(h.data<bool>(one) == std::vector<bool>{true});
  REQUIRE(h.call("aten::all.all_out", {x, one, one}).ok());
  CHECK(h.data<bool>(one) == std::vector<bool>{false});
  auto rows = h.out(ScalarType::kBool, {2});
  REQUIRE(h.call("aten::any.dims_out", {x, h.int_list({1}), h.boolean(false), rows, rows}).ok());
  CHECK(h.data<bool>(rows) == std::vector<bool>{true, false});
  auto cols = h.out(ScalarType::kByte, {1, 2});
  REQUIRE(h.call("aten::any.out", {x, h.integer(0), h.boolean(true), cols, cols}).ok());
  CHECK(h.data<uint8_t>(cols) == std::vector<uint8_t>{0, 1});
  auto nan = h.tensor<double>(ScalarType::kDouble, {2}, {NAN, 1});
  REQUIRE(h.call("aten::all.dims_out", {nan, h.none(), h.boolean(false), one, one}).ok());
  CHECK(h.data<bool>(one) == std::vector<bool>{true});  // NaN is true
  auto empty = h.tensor<int32_t>(ScalarType::kInt, {0}, {});
  REQUIRE(h.call("aten::any.all_out", {empty, one, one}).ok());
  CHECK(h.data<bool>(one) == std::vector<bool>{false});
  REQUIRE(h.call("aten::all.out", {empty, h.integer(0), h.boolean(false), one, one}).ok());
  CHECK(h.data<bool>(one) == std::vector<bool>{true});
  auto of = h.out(ScalarType::kFloat, {});
  CHECK(failure(h, "aten::any.all_out", {x, of, of}) == "aten::any.all_out: out must be BOOL or BYTE, not FLOAT");
}

TEST_CASE("cumsum along a dim, negative dims, dtype", "[math][reduce]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::cumsum.out", {x, h.integer(1), h.none(), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{1, 3, 6, 4, 9, 15});
  REQUIRE(h.call("aten::cumsum.out", {x, h.integer(-2), h.none(), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{1, 2, 3, 5, 7, 9});
  auto ol = h.out(ScalarType::kLong, {2, 3});
  REQUIRE(h.call("aten::cumsum.out", {x, h.integer(1), dtype(h, ScalarType::kLong), ol, ol}).ok());
  CHECK(h.data<int64_t>(ol) == std::vector<int64_t>{1, 3, 6, 4, 9, 15});
  auto f = h.tensor<float>(ScalarType::kFloat, {3}, {0.5f, 0.25f, -1.0f});
  auto of = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::cumsum.out", {f, h.integer(0), h.none(), of, of}).ok());
  CHECK(h.data<float>(of) == std::vector<float>{0.5f, 0.75f, -0.25f});
  auto b = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  auto counts = h.out(ScalarType::kLong, {3});
  REQUIRE(h.call("aten::cumsum.out", {b, h.integer(0), h.none(), counts, counts}).ok());
  CHECK(h.data<int64_t>(counts) == std::vector<int64_t>{1, 1, 2});
}

TEST_CASE("cumsum reads non-contiguous input and errors", "[math][reduce]") {
  KernelHarness h;
  // Logical [[1, 2, 3], [4, 5, 6]] stored with dim order (1, 0).
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::cumsum.out", {x, h.integer(1), h.none(), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 3, 6, 4, 9, 15});
  CHECK(failure(h, "aten::cumsum.out", {x, h.integer(2), h.none(), out, out}) == "aten::cumsum.out: dim 2 out of range for rank 2");
  CHECK(failure(h, "aten::cumsum.out", {x, h.integer(0), dtype(h, ScalarType::kDouble), out, out}) ==
        "aten::cumsum.out: dtype DOUBLE does not match out dtype FLOAT");
  auto oi = h.out(ScalarType::kInt, {2, 3});
  CHECK(failure(h, "aten::cumsum.out", {x, h.integer(0), h.none(), oi, oi}) ==
        "aten::cumsum.out: result type FLOAT cannot be stored in out of type INT");
}

TEST_CASE("sum and mean over adjacent dims of contiguous tensors keep the summation order", "[math][reduce]") {
  KernelHarness h;
  // [2, 3, 2]: out[a, b] = x[a, 0, b] + x[a, 1, b] + x[a, 2, b], left to
  // right. In float (1e8 + 1) - 1e8 is 0 (1e8 + 1 rounds to 1e8), while
  // 1 + (1e8 - 1e8) would be 1: the order shows in the result.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3, 2}, {1e8f, 1, 1, 2, -1e8f, 3, 4, 1e8f, 5, 1, 6, -1e8f});
  auto mid = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({1}), h.boolean(false), h.none(), mid, mid}).ok());
  CHECK(h.data<float>(mid) == std::vector<float>{0, 6, 15, 0});
  // Over the last dims (one group of six per a) and the first (dnf_training's
  // [1, 100] over dim 0 is this case with a count of one).
  auto last = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::sum.IntList_out", {x, h.int_list({1, 2}), h.boolean(false), h.none(), last, last}).ok());
  CHECK(h.data<float>(last) == std::vector<float>{(((1e8f + 1) + 1) + 2) - 1e8f + 3, 4 + 1e8f + 5 + 1 + 6 - 1e8f});
  auto row = h.tensor<double>(ScalarType::kDouble, {1, 3}, {0.5, -2, 7});
  auto first = h.out(ScalarType::kDouble, {3});
  REQUIRE(h.call("aten::sum.IntList_out", {row, h.int_list({0}), h.boolean(false), h.none(), first, first}).ok());
  CHECK(h.data<double>(first) == std::vector<double>{0.5, -2, 7});
  auto means = h.out(ScalarType::kFloat, {2, 1, 1});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({2, 1}), h.boolean(true), h.none(), means, means}).ok());
  CHECK(h.data<float>(means) == std::vector<float>{((((1e8f + 1) + 1) + 2) - 1e8f + 3) / 6,
                                                   (4 + 1e8f + 5 + 1 + 6 - 1e8f) / 6});
  // An empty reduced dim: sums of nothing are 0, means 0 / 0 = NaN.
  auto empty = h.tensor<float>(ScalarType::kFloat, {2, 0, 2}, {});
  auto nan = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::mean.out", {empty, h.int_list({1}), h.boolean(false), h.none(), nan, nan}).ok());
  for (float v : h.data<float>(nan)) CHECK(std::isnan(v));
}

TEST_CASE("mean of contiguous float tensors: dims in any form, and what the general path decides", "[math][reduce]") {
  KernelHarness h;
  // [2, 3, 2] = 0..11. Means by hand: over dim 2 pairs (2k, 2k+1) -> 2k + 0.5;
  // over dims 1 and 2 the six of each a -> 2.5 and 8.5; over dim 0 -> x + 3.
  std::vector<float> v;
  for (int i = 0; i < 12; ++i) v.push_back(float(i));
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3, 2}, v);
  auto last = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({-1}), h.boolean(false), h.none(), last, last}).ok());
  CHECK(h.data<float>(last) == std::vector<float>{0.5f, 2.5f, 4.5f, 6.5f, 8.5f, 10.5f});
  auto kept = h.out(ScalarType::kFloat, {2, 1, 1});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({-2, 2}), h.boolean(true), h.none(), kept, kept}).ok());
  CHECK(h.data<float>(kept) == std::vector<float>{2.5f, 8.5f});
  auto front = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({0}), h.boolean(false), h.none(), front, front}).ok());
  CHECK(h.data<float>(front) == std::vector<float>{3, 4, 5, 6, 7, 8});
  auto all = h.out(ScalarType::kFloat, {1, 1, 1});
  REQUIRE(h.call("aten::mean.out", {x, h.none(), h.boolean(true), h.none(), all, all}).ok());
  CHECK(h.data<float>(all) == std::vector<float>{5.5f});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({}), h.boolean(true), h.none(), all, all}).ok());
  CHECK(h.data<float>(all) == std::vector<float>{5.5f});
  // module_model's case, in double too.
  auto d = h.tensor<double>(ScalarType::kDouble, {1, 2}, {0.25, 2});
  auto od = h.out(ScalarType::kDouble, {1});
  REQUIRE(h.call("aten::mean.out", {d, h.int_list({1}), h.boolean(false), h.none(), od, od}).ok());
  CHECK(h.data<double>(od) == std::vector<double>{1.125});
  // Left to the general path, with its results and messages: reduced
  // dims that are not adjacent, a dtype argument, self in another dim
  // order, out of other sizes, dims out of range or repeated.
  auto ends = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({0, 2}), h.boolean(false), h.none(), ends, ends}).ok());
  CHECK(h.data<float>(ends) == std::vector<float>{3.5f, 5.5f, 7.5f});  // (0 + 1 + 6 + 7) / 4, ...
  REQUIRE(h.call("aten::mean.out",
                 {x, h.int_list({0, 2}), h.boolean(false), dtype(h, ScalarType::kFloat), ends, ends}).ok());
  CHECK(h.data<float>(ends) == std::vector<float>{3.5f, 5.5f, 7.5f});
  auto t = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 3, 1, 4, 2, 5}, {1, 0});  // [[0, 1, 2], [3, 4, 5]]
  auto rows = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::mean.out", {t, h.int_list({1}), h.boolean(false), h.none(), rows, rows}).ok());
  CHECK(h.data<float>(rows) == std::vector<float>{1, 4});
  auto grow = h.out(ScalarType::kFloat, {2, 4}, true);
  REQUIRE(h.call("aten::mean.out", {x, h.int_list({2}), h.boolean(false), h.none(), grow, grow}).ok());
  CHECK(h.sizes(grow) == std::vector<int32_t>{2, 3});
  auto fixed = h.out(ScalarType::kFloat, {2, 4});
  CHECK(failure(h, "aten::mean.out", {x, h.int_list({2}), h.boolean(false), h.none(), fixed, fixed}) ==
        "aten::mean.out: out: cannot resize a static tensor");
  CHECK(failure(h, "aten::mean.out", {x, h.int_list({3}), h.boolean(false), h.none(), last, last}) ==
        "aten::mean.out: dim 3 out of range for rank 3");
  CHECK(failure(h, "aten::mean.out", {x, h.int_list({2, -1}), h.boolean(false), h.none(), last, last}) ==
        "aten::mean.out: dim 2 appears more than once");
}
