// View and copy kernels: expected element orders worked out by hand.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

TEST_CASE("permute, view, expand, transpose", "[kernels][shape]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto p = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::permute_copy.out", {x, h.int_list({1, 0}), p, p}).ok());
  CHECK(h.data<float>(p) == std::vector<float>{1, 4, 2, 5, 3, 6});
  auto t = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::transpose_copy.int_out", {x, h.integer(-1), h.integer(0), t, t}).ok());
  CHECK(h.data<float>(t) == std::vector<float>{1, 4, 2, 5, 3, 6});
  auto v = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::view_copy.out", {x, h.int_list({3, -1}), v, v}).ok());
  CHECK(h.sizes(v) == std::vector<int32_t>{3, 2});
  CHECK(h.data<float>(v) == std::vector<float>{1, 2, 3, 4, 5, 6});
  auto bad = h.call("aten::view_copy.out", {x, h.int_list({-1, -1}), v, v});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "aten::view_copy.out: only one dimension can be -1");

  // [3,1] -> [-1, 2]: each row repeated; [3] -> [2, 3]: a new leading dim.
  auto c = h.tensor<float>(ScalarType::kFloat, {3, 1}, {7, 8, 9});
  auto e = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::expand_copy.out", {c, h.int_list({-1, 2}), h.boolean(false), e, e}).ok());
  CHECK(h.data<float>(e) == std::vector<float>{7, 7, 8, 8, 9, 9});
  auto r = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  auto e2 = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::expand_copy.out", {r, h.int_list({2, 3}), h.boolean(false), e2, e2}).ok());
  CHECK(h.data<float>(e2) == std::vector<float>{1, 2, 3, 1, 2, 3});
  auto no = h.call("aten::expand_copy.out", {r, h.int_list({2, 4}), h.boolean(false), e2, e2});
  REQUIRE_FALSE(no.ok());
  CHECK(no.error().message == "aten::expand_copy.out: cannot expand dimension 1 of size 3 to 4");
}

TEST_CASE("dim-order copies: NCHW to channels-last and dtype conversion", "[kernels][shape]") {
  KernelHarness h;
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[size_t(i)] = float(i);
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, v);
  auto cl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.boolean(false), h.int_list({0, 2, 3, 1}), cl, cl}).ok());
  // Memory of the channels-last copy: (h, w, c) order, i.e. 0,4,1,5,2,6,3,7.
  CHECK(h.data<float>(cl) == std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7});
  auto mismatch = h.call("dim_order_ops::_clone_dim_order.out", {x, h.boolean(false), h.int_list({0, 1, 2, 3}), cl, cl});
  REQUIRE_FALSE(mismatch.ok());

  auto l = h.tensor<int64_t>(ScalarType::kLong, {2}, {3, -4});
  auto f = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("dim_order_ops::_to_dim_order_copy.out", {l, h.boolean(false), h.none(), f, f}).ok());
  CHECK(h.data<float>(f) == std::vector<float>{3.0f, -4.0f});
  // float -> half -> float: 1.5 is exact; 0.1 rounds to 0.0999755859375 (0x2E66).
  auto src = h.tensor<float>(ScalarType::kFloat, {2}, {1.5f, 0.1f});
  auto half = h.out(ScalarType::kHalf, {2});
  REQUIRE(h.call("aten::_to_copy.out", {src, h.boolean(false), h.none(), half, half}).ok());
  CHECK(h.data<uint16_t>(half) == std::vector<uint16_t>{0x3E00, 0x2E66});
  auto back = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call("aten::_to_copy.out", {half, h.boolean(false), h.none(), back, back}).ok());
  CHECK(h.data<float>(back) == std::vector<float>{1.5f, 0.0999755859375f});
}

TEST_CASE("select, slice, squeeze, unsqueeze, cat, full", "[kernels][shape]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto s = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::select_copy.int_out", {x, h.integer(1), h.integer(-1), s, s}).ok());
  CHECK(h.data<int32_t>(s) == std::vector<int32_t>{3, 6});
  auto oob = h.call("aten::select_copy.int_out", {x, h.integer(0), h.integer(2), s, s});
  REQUIRE_FALSE(oob.ok());
  CHECK(oob.error().message == "aten::select_copy.int_out: index 2 out of range for size 2");

  std::vector<int32_t> ten(10);
  for (int i = 0; i < 10; ++i) ten[size_t(i)] = i;
  auto r = h.tensor<int32_t>(ScalarType::kInt, {10}, ten);
  auto tail = h.out(ScalarType::kInt, {3}, true);
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {r, h.integer(0), h.integer(-3), h.none(), h.integer(1), tail, tail}).ok());
  CHECK(h.data<int32_t>(tail) == std::vector<int32_t>{7, 8, 9});
  auto stepped = h.out(ScalarType::kInt, {3}, true);
  REQUIRE(h.call("aten::slice_copy.Tensor_out", {r, h.integer(0), h.integer(1), h.integer(100), h.integer(3), stepped, stepped}).ok());
  CHECK(h.data<int32_t>(stepped) == std::vector<int32_t>{1, 4, 7});

  auto u = h.out(ScalarType::kInt, {2, 3, 1});
  REQUIRE(h.call("aten::unsqueeze_copy.out", {x, h.integer(-1), u, u}).ok());
  CHECK(h.sizes(u) == std::vector<int32_t>{2, 3, 1});
  auto one = h.tensor<int32_t>(ScalarType::kInt, {1, 3}, {7, 8, 9});
  auto sq = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::squeeze_copy.dims_out", {one, h.int_list({0}), sq, sq}).ok());
  CHECK(h.data<int32_t>(sq) == std::vector<int32_t>{7, 8, 9});

  // cat along dim 1 of [[1],[2]] and [[3,4],[5,6]], skipping an empty [0] tensor.
  auto left = h.tensor<float>(ScalarType::kFloat, {2, 1}, {1, 2});
  auto right = h.tensor<float>(ScalarType::kFloat, {2, 2}, {3, 4, 5, 6});
  auto empty = h.tensor<float>(ScalarType::kFloat, {0}, {});
  auto c = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::cat.out", {h.tensor_list({left, empty, right}), h.integer(1), c, c}).ok());
  CHECK(h.data<float>(c) == std::vector<float>{1, 3, 4, 2, 5, 6});

  auto f = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::full.out", {h.int_list({2}), h.integer(7), f, f}).ok());
  CHECK(h.data<int32_t>(f) == std::vector<int32_t>{7, 7});
  auto nf = h.call("aten::full.out", {h.int_list({2}), h.real(0.5), f, f});
  REQUIRE_FALSE(nf.ok());
}
