// Shape kernels that rearrange one tensor: view_copy, permute/transpose/t,
// expand/repeat, (un)squeeze, alias/detach, flip, roll. Expected element
// orders are worked out by hand next to each call.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

// The message of a call that must fail.
std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

// A [2,2] tensor of `type` holding a, b, c, d, transposed: a, c, b, d.
template <typename T>
void check_transpose_bytes(ScalarType type, std::vector<T> v) {
  KernelHarness h;
  auto x = h.tensor<T>(type, {2, 2}, v);
  auto out = h.out(type, {2, 2});
  REQUIRE(h.call("aten::transpose_copy.int_out", {x, h.integer(0), h.integer(1), out, out}).ok());
  CHECK(h.data<T>(out) == std::vector<T>{v[0], v[2], v[1], v[3]});
}

}  // namespace

TEST_CASE("view_copy infers -1 and reads inputs in logical order", "[kernels][shape][view_copy]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto flat = h.out(ScalarType::kFloat, {6});
  REQUIRE(h.call("aten::view_copy.out", {x, h.int_list({-1}), flat, flat}).ok());
  CHECK(h.data<float>(flat) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // [3, 2] needs no -1; a leading -1 takes 6 / 2 = 3.
  auto v = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::view_copy.out", {x, h.int_list({-1, 2}), v, v}).ok());
  CHECK(h.sizes(v) == std::vector<int32_t>{3, 2});
  CHECK(h.data<float>(v) == std::vector<float>{1, 2, 3, 4, 5, 6});

  // Dim order {1, 0}: memory 1,4,2,5,3,6 is x = [[1,2,3],[4,5,6]] (strides
  // [1, 2]); the reshape follows the logical order.
  auto xt = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto f2 = h.out(ScalarType::kFloat, {6});
  REQUIRE(h.call("aten::view_copy.out", {xt, h.int_list({6}), f2, f2}).ok());
  CHECK(h.data<float>(f2) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // ... and into a column-major [3, 2] out: logical [[1,2],[3,4],[5,6]],
  // memory column by column.
  auto cm = h.out(ScalarType::kFloat, {3, 2}, false, {1, 0});
  REQUIRE(h.call("aten::view_copy.out", {xt, h.int_list({3, 2}), cm, cm}).ok());
  CHECK(h.data<float>(cm) == std::vector<float>{1, 3, 5, 2, 4, 6});

  // Empty: [0, 3] -> [-1, 3] infers 0.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto e_out = h.out(ScalarType::kFloat, {0, 3});
  REQUIRE(h.call("aten::view_copy.out", {e, h.int_list({-1, 3}), e_out, e_out}).ok());
  CHECK(h.sizes(e_out) == std::vector<int32_t>{0, 3});
}

TEST_CASE("view_copy errors", "[kernels][shape][view_copy]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto v = h.out(ScalarType::kFloat, {3, 2});
  const std::string op = "aten::view_copy.out";
  CHECK(failure(h, op, {x, h.int_list({-1, -1}), v, v}) == "aten::view_copy.out: only one dimension can be -1");
  CHECK(failure(h, op, {x, h.int_list({4, -1}), v, v}) ==
        "aten::view_copy.out: shape [4, -1] is invalid for input of 6 elements");
  CHECK(failure(h, op, {x, h.int_list({0, -1}), v, v}) ==
        "aten::view_copy.out: cannot infer the -1 in shape [0, -1] for 0 elements");
  CHECK(failure(h, op, {x, h.int_list({2, -3}), v, v}) == "aten::view_copy.out: invalid size -3 in shape [2, -3]");
  CHECK(failure(h, op, {x, h.int_list({2, 2}), v, v}) ==
        "aten::view_copy.out: shape [2, 2] is invalid for input of 6 elements");
  CHECK(failure(h, op, {x, h.int_list({6}), v, v}) == "aten::view_copy.out: out: cannot resize a rank-2 tensor to rank 1");
  CHECK(failure(h, op, {x, h.int_list({2, 3}), v, v}) == "aten::view_copy.out: out: cannot resize a static tensor");
  auto wrong_type = h.out(ScalarType::kInt, {3, 2});
  CHECK(failure(h, op, {x, h.int_list({3, 2}), wrong_type, wrong_type}) ==
        "aten::view_copy.out: out has dtype INT, expected FLOAT");
  CHECK(failure(h, op, {x, h.integer(6), v, v}) == "aten::view_copy.out: size must be an int list, not Int");
}

TEST_CASE("permute_copy, transpose_copy and t_copy", "[kernels][shape][permute_copy]") {
  KernelHarness h;
  // x[a][b][c] = 6a + 3b + c for sizes [2, 2, 3].
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[size_t(i)] = float(i);
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 2, 3}, v);
  // out[c][a][b] = x[a][b][c]: for c = 0: 0,3,6,9; c = 1: 1,4,7,10; c = 2: 2,5,8,11.
  auto p = h.out(ScalarType::kFloat, {3, 2, 2});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({2, 0, 1}), p, p}).ok());
  CHECK(h.data<float>(p) == std::vector<float>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  auto pn = h.out(ScalarType::kFloat, {3, 2, 2});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({-1, -3, 1}), pn, pn}).ok());
  CHECK(h.data<float>(pn) == h.data<float>(p));

  // A permute into a column-major out is a plain copy: logical
  // [[1,4],[2,5],[3,6]] stored column by column.
  auto m = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto cm = h.out(ScalarType::kFloat, {3, 2}, false, {1, 0});
  REQUIRE(h.call("aten::permute_copy.out", {m, h.int_list({1, 0}), cm, cm}).ok());
  CHECK(h.data<float>(cm) == std::vector<float>{1, 2, 3, 4, 5, 6});

  // A channels-last input permuted to NHWC: memory 0,4,1,5,2,6,3,7 holds
  // the NCHW values 0..7; NHWC logical order is (h, w, c).
  auto cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7}, {0, 2, 3, 1});
  auto nhwc = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  REQUIRE(h.call("aten::permute_copy.out", {cl, h.int_list({0, 2, 3, 1}), nhwc, nhwc}).ok());
  CHECK(h.data<float>(nhwc) == std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7});

  auto t8 = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto tr = h.out(ScalarType::kChar, {3, 2});
  REQUIRE(h.call("aten::transpose_copy.int_out", {t8, h.integer(0), h.integer(-1), tr, tr}).ok());
  CHECK(h.data<int8_t>(tr) == std::vector<int8_t>{1, 4, 2, 5, 3, 6});
  auto tt = h.out(ScalarType::kChar, {3, 2});
  REQUIRE(h.call("aten::t_copy.out", {t8, tt, tt}).ok());
  CHECK(h.data<int8_t>(tt) == std::vector<int8_t>{1, 4, 2, 5, 3, 6});
  auto row = h.tensor<int8_t>(ScalarType::kChar, {3}, {7, 8, 9});
  auto same = h.out(ScalarType::kChar, {3});
  REQUIRE(h.call("aten::t_copy.out", {row, same, same}).ok());
  CHECK(h.data<int8_t>(same) == std::vector<int8_t>{7, 8, 9});

  // Empty tensors permute to empty tensors.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto e_out = h.out(ScalarType::kFloat, {3, 0});
  REQUIRE(h.call("aten::permute_copy.out", {e, h.int_list({1, 0}), e_out, e_out}).ok());
}

TEST_CASE("permute, transpose and t errors", "[kernels][shape][permute_copy]") {
  KernelHarness h;
  auto m = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {3, 2});
  CHECK(failure(h, "aten::permute_copy.out", {m, h.int_list({0}), out, out}) ==
        "aten::permute_copy.out: dims [0] has 1 entries for a tensor of rank 2");
  CHECK(failure(h, "aten::permute_copy.out", {m, h.int_list({0, -2}), out, out}) ==
        "aten::permute_copy.out: dims [0, -2] repeats dim 0");
  CHECK(failure(h, "aten::permute_copy.out", {m, h.int_list({0, 2}), out, out}) ==
        "aten::permute_copy.out: dim 2 out of range for rank 2");
  CHECK(failure(h, "aten::transpose_copy.int_out", {m, h.integer(2), h.integer(0), out, out}) ==
        "aten::transpose_copy.int_out: dim0 2 out of range for rank 2");
  auto cube = h.tensor<float>(ScalarType::kFloat, {1, 1, 1}, {1});
  auto o3 = h.out(ScalarType::kFloat, {1, 1, 1});
  CHECK(failure(h, "aten::t_copy.out", {cube, o3, o3}) == "aten::t_copy.out: t expects a tensor of at most 2 dims, got [1, 1, 1]");
}

TEST_CASE("every dtype is copied bytewise", "[kernels][shape][transpose_copy]") {
  check_transpose_bytes<bool>(ScalarType::kBool, {true, false, false, true});
  check_transpose_bytes<uint8_t>(ScalarType::kByte, {1, 2, 255, 4});
  check_transpose_bytes<int8_t>(ScalarType::kChar, {-1, 2, -128, 127});
  check_transpose_bytes<int16_t>(ScalarType::kShort, {-300, 2, 3, 30000});
  check_transpose_bytes<int32_t>(ScalarType::kInt, {-1, 2, 3, 1 << 30});
  check_transpose_bytes<int64_t>(ScalarType::kLong, {-1, int64_t(1) << 62, 3, 4});
  check_transpose_bytes<uint16_t>(ScalarType::kHalf, {0x3C00, 0x4000, 0xBC00, 0x7C00});
  check_transpose_bytes<uint16_t>(ScalarType::kBFloat16, {0x3F80, 0x4000, 0xBF80, 0x7F80});
  check_transpose_bytes<float>(ScalarType::kFloat, {0.5f, -1.0f, 2.25f, 3.0f});
  check_transpose_bytes<double>(ScalarType::kDouble, {0.1, -1.0, 1e300, 3.0});
}

TEST_CASE("expand_copy and repeat", "[kernels][shape][expand_copy]") {
  KernelHarness h;
  // [3, 1] -> [2, -1, 2]: a new leading dim, dim 1 kept, dim 2 broadcast.
  auto c = h.tensor<int32_t>(ScalarType::kInt, {3, 1}, {7, 8, 9});
  auto e = h.out(ScalarType::kInt, {2, 3, 2});
  REQUIRE(h.call("aten::expand_copy.out", {c, h.int_list({2, -1, 2}), h.boolean(false), e, e}).ok());
  CHECK(h.data<int32_t>(e) == std::vector<int32_t>{7, 7, 8, 8, 9, 9, 7, 7, 8, 8, 9, 9});
  auto b = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  auto be = h.out(ScalarType::kBool, {2, 2});
  REQUIRE(h.call("aten::expand_copy.out", {b, h.int_list({2, 2}), h.boolean(false), be, be}).ok());
  CHECK(h.data<bool>(be) == std::vector<bool>{true, false, true, false});
  // Into a column-major out: logical [[1,0],[1,0]] stored by column.
  auto bc = h.out(ScalarType::kBool, {2, 2}, false, {1, 0});
  REQUIRE(h.call("aten::expand_copy.out", {b, h.int_list({2, 2}), h.boolean(false), bc, bc}).ok());
  CHECK(h.data<bool>(bc) == std::vector<bool>{true, true, false, false});

  const std::string op = "aten::expand_copy.out";
  CHECK(failure(h, op, {c, h.int_list({-1, 3, 1}), h.boolean(false), e, e}) ==
        "aten::expand_copy.out: size -1 is not allowed for new leading dimension 0");
  CHECK(failure(h, op, {c, h.int_list({3}), h.boolean(false), e, e}) ==
        "aten::expand_copy.out: size [3] has fewer dims than self [3, 1]");
  CHECK(failure(h, op, {c, h.int_list({2, 3}), h.boolean(false), e, e}) ==
        "aten::expand_copy.out: cannot expand dimension 0 of size 3 to 2");
  CHECK(failure(h, op, {c, h.int_list({3, -2}), h.boolean(false), e, e}) ==
        "aten::expand_copy.out: invalid size -2 for dimension 1");

  // repeat: [1, 2] tiled 2 x 2 -> [[1,2,1,2],[1,2,1,2]]; [2, 1] by [1, 3].
  auto r = h.tensor<int16_t>(ScalarType::kShort, {2}, {1, 2});
  auto r_out = h.out(ScalarType::kShort, {2, 4});
  REQUIRE(h.call("aten::repeat.out", {r, h.int_list({2, 2}), r_out, r_out}).ok());
  CHECK(h.data<int16_t>(r_out) == std::vector<int16_t>{1, 2, 1, 2, 1, 2, 1, 2});
  auto col = h.tensor<int16_t>(ScalarType::kShort, {2, 1}, {1, 2});
  auto c_out = h.out(ScalarType::kShort, {2, 3});
  REQUIRE(h.call("aten::repeat.out", {col, h.int_list({1, 3}), c_out, c_out}).ok());
  CHECK(h.data<int16_t>(c_out) == std::vector<int16_t>{1, 1, 1, 2, 2, 2});
  auto zero = h.out(ScalarType::kShort, {0, 1});
  REQUIRE(h.call("aten::repeat.out", {col, h.int_list({0, 1}), zero, zero}).ok());
  CHECK(failure(h, "aten::repeat.out", {col, h.int_list({2}), c_out, c_out}) ==
        "aten::repeat.out: repeats [2] has fewer dims than self [2, 1]");
  CHECK(failure(h, "aten::repeat.out", {col, h.int_list({-1, 1}), c_out, c_out}) ==
        "aten::repeat.out: repeats [-1, 1] must be non-negative");
}

TEST_CASE("unsqueeze_copy, squeeze_copy, alias_copy", "[kernels][shape][squeeze_copy]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto u0 = h.out(ScalarType::kFloat, {1, 2, 3});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {x, h.integer(0), u0, u0}).ok());
  CHECK(h.data<float>(u0) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto u2 = h.out(ScalarType::kFloat, {2, 3, 1});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {x, h.integer(-1), u2, u2}).ok());
  CHECK(failure(h, "aten::unsqueeze_copy.out", {x, h.integer(3), u2, u2}) ==
        "aten::unsqueeze_copy.out: dim 3 out of range for rank 3");
  auto scalar = h.tensor<float>(ScalarType::kFloat, {}, {5});
  auto one = h.out(ScalarType::kFloat, {1});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {scalar, h.integer(0), one, one}).ok());
  CHECK(h.data<float>(one) == std::vector<float>{5});

  // squeeze drops only listed dims of size 1.
  auto y = h.tensor<int64_t>(ScalarType::kLong, {1, 2, 1}, {8, 9});
  auto s = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::squeeze_copy.dims_out", {y, h.int_list({0, -1}), s, s}).ok());
  CHECK(h.data<int64_t>(s) == std::vector<int64_t>{8, 9});
  auto keep = h.out(ScalarType::kLong, {1, 2, 1});
  REQUIRE(h.call("aten::squeeze_copy.dim_out", {y, h.integer(1), keep, keep}).ok());
  auto s1 = h.out(ScalarType::kLong, {2, 1});
  REQUIRE(h.call("aten::squeeze_copy.dim_out", {y, h.integer(0), s1, s1}).ok());
  CHECK(h.sizes(s1) == std::vector<int32_t>{2, 1});
  auto all = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::squeeze_copy.out", {y, all, all}).ok());
  CHECK(h.data<int64_t>(all) == std::vector<int64_t>{8, 9});
  CHECK(failure(h, "aten::squeeze_copy.dims_out", {y, h.int_list({0, -3}), s, s}) ==
        "aten::squeeze_copy.dims_out: dim 0 appears more than once in dims");
  CHECK(failure(h, "aten::squeeze_copy.dim_out", {y, h.integer(3), s, s}) ==
        "aten::squeeze_copy.dim_out: dim 3 out of range for rank 3");

  auto a = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::alias_copy.out", {x, a, a}).ok());
  CHECK(h.data<float>(a) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto d = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::detach_copy.out", {x, d, d}).ok());
  CHECK(h.data<float>(d) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto bad = h.out(ScalarType::kDouble, {2, 3});
  CHECK(failure(h, "aten::alias_copy.out", {x, bad, bad}) == "aten::alias_copy.out: out has dtype DOUBLE, expected FLOAT");
}

TEST_CASE("flip and roll", "[kernels][shape][flip][roll]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto f = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::flip.out", {x, h.int_list({1}), f, f}).ok());
  CHECK(h.data<int32_t>(f) == std::vector<int32_t>{3, 2, 1, 6, 5, 4});
  auto both = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::flip.out", {x, h.int_list({0, -1}), both, both}).ok());
  CHECK(h.data<int32_t>(both) == std::vector<int32_t>{6, 5, 4, 3, 2, 1});
  CHECK(failure(h, "aten::flip.out", {x, h.int_list({0, -2}), f, f}) == "aten::flip.out: dims [0, -2] repeats dim 0");

  // Roll dim 1 by 1: [[3,1,2],[6,4,5]].
  auto r = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::roll.out", {x, h.int_list({1}), h.int_list({1}), r, r}).ok());
  CHECK(h.data<int32_t>(r) == std::vector<int32_t>{3, 1, 2, 6, 4, 5});
  // Dim 1 by -1 ([[2,3,1],[5,6,4]]), then dim 0 by 1: [[5,6,4],[2,3,1]].
  auto r2 = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::roll.out", {x, h.int_list({-1, 1}), h.int_list({1, 0}), r2, r2}).ok());
  CHECK(h.data<int32_t>(r2) == std::vector<int32_t>{5, 6, 4, 2, 3, 1});
  // No dims: the flattened 1..6 rolled by 2 (a shift of 8 is the same).
  auto flat = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::roll.out", {x, h.int_list({8}), h.int_list({}), flat, flat}).ok());
  CHECK(h.data<int32_t>(flat) == std::vector<int32_t>{5, 6, 1, 2, 3, 4});
  // A column-major input rolled flat: logical order is what rolls.
  auto xt = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  auto flat_t = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::roll.out", {xt, h.int_list({2}), h.int_list({}), flat_t, flat_t}).ok());
  CHECK(h.data<int32_t>(flat_t) == std::vector<int32_t>{5, 6, 1, 2, 3, 4});
  CHECK(failure(h, "aten::roll.out", {x, h.int_list({1, 2}), h.int_list({}), r, r}) ==
        "aten::roll.out: shifts [1, 2] must have one entry when dims is empty");
  CHECK(failure(h, "aten::roll.out", {x, h.int_list({1}), h.int_list({0, 1}), r, r}) ==
        "aten::roll.out: shifts [1] and dims [0, 1] must have the same length");
}
