// Windows along one dim and joins: select_copy, slice_copy, narrow_copy,
// split_with_sizes_copy, split_copy, unbind_copy, chunk, tensor_split, cat,
// stack; contiguous.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

std::vector<int32_t> iota(int n) {
  std::vector<int32_t> v(size_t(n), 0);
  for (int i = 0; i < n; ++i) v[size_t(i)] = i;
  return v;
}

}  // namespace

TEST_CASE("select_copy with negative indices and dims", "[kernels][shape][select_copy]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto row = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::select_copy.int_out", {x, h.integer(0), h.integer(-1), row, row}).ok());
  CHECK(h.data<int32_t>(row) == std::vector<int32_t>{4, 5, 6});
  auto col = h.out(ScalarType::kInt, {2});
  REQUIRE(h.call("aten::select_copy.int_out", {x, h.integer(-1), h.integer(0), col, col}).ok());
  CHECK(h.data<int32_t>(col) == std::vector<int32_t>{1, 4});
  // Channel 1 of a channels-last NCHW [1,2,2,2] holding 0..7: 4, 5, 6, 7.
  auto cl = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, {0, 4, 1, 5, 2, 6, 3, 7}, {0, 2, 3, 1});
  auto ch = h.out(ScalarType::kFloat, {1, 2, 2});
  REQUIRE(h.call("aten::select_copy.int_out", {cl, h.integer(1), h.integer(1), ch, ch}).ok());
  CHECK(h.data<float>(ch) == std::vector<float>{4, 5, 6, 7});
  // A middle dim of a contiguous [2, 3, 2] holding 0..11: index 2 of dim 1
  // is {4, 5} from the first block and {10, 11} from the second.
  auto cube = h.tensor<int64_t>(ScalarType::kLong, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto mid = h.out(ScalarType::kLong, {2, 2});
  REQUIRE(h.call("aten::select_copy.int_out", {cube, h.integer(1), h.integer(2), mid, mid}).ok());
  CHECK(h.data<int64_t>(mid) == std::vector<int64_t>{4, 5, 10, 11});
  auto wrong = h.out(ScalarType::kInt, {2, 2});
  CHECK(failure(h, "aten::select_copy.int_out", {cube, h.integer(1), h.integer(2), wrong, wrong}) ==
        "aten::select_copy.int_out: out has dtype INT, expected LONG");

  const std::string op = "aten::select_copy.int_out";
  CHECK(failure(h, op, {x, h.integer(0), h.integer(-3), row, row}) == "aten::select_copy.int_out: index -3 out of range for size 2");
  CHECK(failure(h, op, {x, h.integer(2), h.integer(0), row, row}) == "aten::select_copy.int_out: dim 2 out of range for rank 2");
  auto scalar = h.tensor<int32_t>(ScalarType::kInt, {}, {1});
  CHECK(failure(h, op, {scalar, h.integer(0), h.integer(0), scalar, scalar}) ==
        "aten::select_copy.int_out: cannot select from a 0-dim tensor");
  CHECK(failure(h, op, {x, h.integer(0), h.none(), row, row}) == "aten::select_copy.int_out: index must be an int, not None");
}

TEST_CASE("slice_copy clamps like Python slicing", "[kernels][shape][slice_copy]") {
  KernelHarness h;
  auto r = h.tensor<int32_t>(ScalarType::kInt, {10}, iota(10));
  const std::string op = "aten::slice_copy.Tensor_out";
  auto slice = [&](size_t start, size_t end, int64_t step) {
    auto out = h.out(ScalarType::kInt, {10}, true);
    REQUIRE(h.call(op, {r, h.integer(0), start, end, h.integer(step), out, out}).ok());
    return h.data<int32_t>(out);
  };
  CHECK(slice(h.integer(-3), h.none(), 1) == std::vector<int32_t>{7, 8, 9});
  CHECK(slice(h.none(), h.integer(-7), 1) == std::vector<int32_t>{0, 1, 2});
  CHECK(slice(h.integer(-100), h.integer(100), 4) == std::vector<int32_t>{0, 4, 8});
  CHECK(slice(h.integer(2), h.integer(-2), 3) == std::vector<int32_t>{2, 5});
  CHECK(slice(h.integer(8), h.integer(2), 1).empty());
  CHECK(slice(h.integer(12), h.none(), 1).empty());
  CHECK(slice(h.none(), h.none(), 1) == iota(10));

  // Columns 1..2 of [2, 4] holding 0..7, into a column-major out:
  // logical [[1,2],[5,6]], stored by column.
  auto m = h.tensor<int32_t>(ScalarType::kInt, {2, 4}, iota(8));
  auto cm = h.out(ScalarType::kInt, {2, 2}, false, {1, 0});
  REQUIRE(h.call(op, {m, h.integer(-1), h.integer(1), h.integer(3), h.integer(1), cm, cm}).ok());
  CHECK(h.data<int32_t>(cm) == std::vector<int32_t>{1, 5, 2, 6});

  auto out = h.out(ScalarType::kInt, {10}, true);
  CHECK(failure(h, op, {r, h.integer(0), h.none(), h.none(), h.integer(0), out, out}) ==
        "aten::slice_copy.Tensor_out: step must be positive, got 0");
  CHECK(failure(h, op, {r, h.integer(0), h.none(), h.none(), h.integer(-1), out, out}) ==
        "aten::slice_copy.Tensor_out: step must be positive, got -1");
  CHECK(failure(h, op, {r, h.integer(1), h.none(), h.none(), h.integer(1), out, out}) ==
        "aten::slice_copy.Tensor_out: dim 1 out of range for rank 1");
  auto small = h.out(ScalarType::kInt, {2});
  CHECK(failure(h, op, {r, h.integer(0), h.none(), h.none(), h.integer(1), small, small}) ==
        "aten::slice_copy.Tensor_out: out: cannot resize a static tensor");

  // narrow_copy: start -3 of size 4 is 1.
  auto n = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::narrow_copy.out", {m, h.integer(1), h.integer(-3), h.integer(2), n, n}).ok());
  CHECK(h.data<int32_t>(n) == std::vector<int32_t>{1, 2, 5, 6});
  CHECK(failure(h, "aten::narrow_copy.out", {m, h.integer(1), h.integer(3), h.integer(2), n, n}) ==
        "aten::narrow_copy.out: start 3 + length 2 exceeds size 4");
  CHECK(failure(h, "aten::narrow_copy.out", {m, h.integer(1), h.integer(-5), h.integer(2), n, n}) ==
        "aten::narrow_copy.out: start -5 out of range for size 4");
}

TEST_CASE("split_with_sizes_copy, split_copy and unbind_copy", "[kernels][shape][split]") {
  KernelHarness h;
  // [2, 5] holding 0..9 split [2, 3] along dim 1.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto a = h.out(ScalarType::kFloat, {2, 2});
  auto b = h.out(ScalarType::kFloat, {2, 3});
  auto outs = h.tensor_list({a, b});
  const std::string op = "aten::split_with_sizes_copy.out";
  REQUIRE(h.call(op, {x, h.int_list({2, 3}), h.integer(-1), outs, outs}).ok());
  CHECK(h.data<float>(a) == std::vector<float>{0, 1, 5, 6});
  CHECK(h.data<float>(b) == std::vector<float>{2, 3, 4, 7, 8, 9});
  // An empty split, and a column-major out (memory column by column).
  auto none = h.out(ScalarType::kFloat, {2, 0});
  auto whole = h.out(ScalarType::kFloat, {2, 5}, false, {1, 0});
  auto outs2 = h.tensor_list({none, whole});
  REQUIRE(h.call(op, {x, h.int_list({0, 5}), h.integer(1), outs2, outs2}).ok());
  CHECK(h.data<float>(whole) == std::vector<float>{0, 5, 1, 6, 2, 7, 3, 8, 4, 9});

  CHECK(failure(h, op, {x, h.int_list({2, 2}), h.integer(1), outs, outs}) ==
        "aten::split_with_sizes_copy.out: split_sizes [2, 2] sum to 4, but dimension 1 has size 5");
  CHECK(failure(h, op, {x, h.int_list({6, -1}), h.integer(1), outs, outs}) ==
        "aten::split_with_sizes_copy.out: split_sizes [6, -1] must be non-negative");
  CHECK(failure(h, op, {x, h.int_list({5}), h.integer(1), outs, outs}) ==
        "aten::split_with_sizes_copy.out: out has 2 tensors for 1 splits");
  CHECK(failure(h, op, {x, h.int_list({3, 2}), h.integer(1), outs, outs}) ==
        "aten::split_with_sizes_copy.out: out[0]: cannot resize a static tensor");
  auto wrong = h.out(ScalarType::kInt, {2, 3});
  auto mixed = h.tensor_list({a, wrong});
  CHECK(failure(h, op, {x, h.int_list({2, 3}), h.integer(1), mixed, mixed}) ==
        "aten::split_with_sizes_copy.out: out[1] has dtype INT, expected FLOAT");
  CHECK(failure(h, op, {x, h.int_list({2, 3}), h.integer(1), a, a}) ==
        "aten::split_with_sizes_copy.out: out must be a tensor list, not Tensor");

  // split_copy: [5] in chunks of 2 -> [0,1], [2,3], [4].
  auto r = h.tensor<int64_t>(ScalarType::kLong, {5}, {0, 1, 2, 3, 4});
  auto c0 = h.out(ScalarType::kLong, {2});
  auto c1 = h.out(ScalarType::kLong, {2});
  auto c2 = h.out(ScalarType::kLong, {1});
  auto chunks = h.tensor_list({c0, c1, c2});
  REQUIRE(h.call("aten::split_copy.Tensor_out", {r, h.integer(2), h.integer(0), chunks, chunks}).ok());
  CHECK(h.data<int64_t>(c0) == std::vector<int64_t>{0, 1});
  CHECK(h.data<int64_t>(c1) == std::vector<int64_t>{2, 3});
  CHECK(h.data<int64_t>(c2) == std::vector<int64_t>{4});
  CHECK(failure(h, "aten::split_copy.Tensor_out", {r, h.integer(0), h.integer(0), chunks, chunks}) ==
        "aten::split_copy.Tensor_out: split_size 0 cannot split dimension 0 of size 5");
  CHECK(failure(h, "aten::split_copy.Tensor_out", {r, h.integer(3), h.integer(0), chunks, chunks}) ==
        "aten::split_copy.Tensor_out: out has 3 tensors for 2 splits");

  // unbind_copy along dim 1 of [[0,1,2],[3,4,5]].
  auto m = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto u0 = h.out(ScalarType::kChar, {2});
  auto u1 = h.out(ScalarType::kChar, {2});
  auto u2 = h.out(ScalarType::kChar, {2});
  auto us = h.tensor_list({u0, u1, u2});
  REQUIRE(h.call("aten::unbind_copy.int_out", {m, h.integer(1), us, us}).ok());
  CHECK(h.data<int8_t>(u0) == std::vector<int8_t>{0, 3});
  CHECK(h.data<int8_t>(u1) == std::vector<int8_t>{1, 4});
  CHECK(h.data<int8_t>(u2) == std::vector<int8_t>{2, 5});
  CHECK(failure(h, "aten::unbind_copy.int_out", {m, h.integer(0), us, us}) ==
        "aten::unbind_copy.int_out: out has 3 tensors for dimension 0 of size 2");
}

TEST_CASE("chunk.out: ceil-sized pieces, fewer than asked when they run out", "[kernels][shape][split]") {
  KernelHarness h;
  const std::string op = "aten::chunk.out";
  // [7] in 3 chunks: pieces of ceil(7 / 3) = 3 -> [0,1,2], [3,4,5], [6].
  auto x = h.tensor<int16_t>(ScalarType::kShort, {7}, {0, 1, 2, 3, 4, 5, 6});
  auto p0 = h.out(ScalarType::kShort, {3});
  auto p1 = h.out(ScalarType::kShort, {3});
  auto p2 = h.out(ScalarType::kShort, {3}, true);
  auto three = h.tensor_list({p0, p1, p2});
  REQUIRE(h.call(op, {x, h.integer(3), h.integer(0), three, three}).ok());
  CHECK(h.data<int16_t>(p0) == std::vector<int16_t>{0, 1, 2});
  CHECK(h.data<int16_t>(p1) == std::vector<int16_t>{3, 4, 5});
  CHECK(h.data<int16_t>(p2) == std::vector<int16_t>{6});
  // [2, 6] in 4 chunks along dim -1: pieces of ceil(6 / 4) = 2, and 6 / 2 = 3 of them.
  auto m = h.tensor<float>(ScalarType::kFloat, {2, 6}, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
  auto q0 = h.out(ScalarType::kFloat, {2, 2});
  auto q1 = h.out(ScalarType::kFloat, {2, 2});
  auto q2 = h.out(ScalarType::kFloat, {2, 2});
  auto qs = h.tensor_list({q0, q1, q2});
  REQUIRE(h.call(op, {m, h.integer(4), h.integer(-1), qs, qs}).ok());
  CHECK(h.data<float>(q0) == std::vector<float>{0, 1, 10, 11});
  CHECK(h.data<float>(q1) == std::vector<float>{2, 3, 12, 13});
  CHECK(h.data<float>(q2) == std::vector<float>{4, 5, 14, 15});
  // A dimension of size 0 gives `chunks` empty pieces.
  auto e = h.tensor<float>(ScalarType::kFloat, {0, 2}, {});
  auto e0 = h.out(ScalarType::kFloat, {0, 2});
  auto e1 = h.out(ScalarType::kFloat, {0, 2});
  auto es = h.tensor_list({e0, e1});
  REQUIRE(h.call(op, {e, h.integer(2), h.integer(0), es, es}).ok());
  CHECK(h.sizes(e1) == std::vector<int32_t>{0, 2});

  CHECK(failure(h, op, {x, h.integer(0), h.integer(0), three, three}) == "aten::chunk.out: chunks must be positive, got 0");
  CHECK(failure(h, op, {m, h.integer(4), h.integer(2), qs, qs}) == "aten::chunk.out: dim 2 out of range for rank 2");
  // [2, 6] in 4 chunks is 3 pieces, not 4.
  auto q3 = h.out(ScalarType::kFloat, {2, 2});
  auto four = h.tensor_list({q0, q1, q2, q3});
  CHECK(failure(h, op, {m, h.integer(4), h.integer(1), four, four}) ==
        "aten::chunk.out: out has 4 tensors for 3 chunks of dimension 1 (size 6)");
  auto scalar = h.tensor<float>(ScalarType::kFloat, {}, {1});
  CHECK(failure(h, op, {scalar, h.integer(1), h.integer(0), qs, qs}) == "aten::chunk.out: cannot chunk a 0-dim tensor");
}

TEST_CASE("tensor_split.sections_out: exactly `sections` pieces, the first ones longer", "[kernels][shape][split]") {
  KernelHarness h;
  const std::string op = "aten::tensor_split.sections_out";
  // [3, 2] rows 0..2 (values 10r + c) split in 2 along dim 0: 3 = 2 + 1.
  auto x = h.tensor<int32_t>(ScalarType::kInt, {3, 2}, {0, 1, 10, 11, 20, 21});
  auto a = h.out(ScalarType::kInt, {2, 2});
  auto b = h.out(ScalarType::kInt, {2, 2}, true);
  auto ab = h.tensor_list({a, b});
  REQUIRE(h.call(op, {x, h.integer(2), h.integer(0), ab, ab}).ok());
  CHECK(h.data<int32_t>(a) == std::vector<int32_t>{0, 1, 10, 11});
  CHECK(h.data<int32_t>(b) == std::vector<int32_t>{20, 21});
  CHECK(h.sizes(b) == std::vector<int32_t>{1, 2});
  // [2] in 4 sections: 1, 1, 0, 0 (where chunk would give two pieces).
  auto v = h.tensor<int8_t>(ScalarType::kChar, {2}, {7, 9});
  auto s0 = h.out(ScalarType::kChar, {1});
  auto s1 = h.out(ScalarType::kChar, {1});
  auto s2 = h.out(ScalarType::kChar, {0});
  auto s3 = h.out(ScalarType::kChar, {0});
  auto ss = h.tensor_list({s0, s1, s2, s3});
  REQUIRE(h.call(op, {v, h.integer(4), h.integer(0), ss, ss}).ok());
  CHECK(h.data<int8_t>(s0) == std::vector<int8_t>{7});
  CHECK(h.data<int8_t>(s1) == std::vector<int8_t>{9});
  CHECK(h.sizes(s3) == std::vector<int32_t>{0});
  // 7 columns in 3 sections: 3, 2, 2.
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 7}, {1, 2, 3, 4, 5, 6, 7});
  auto w0 = h.out(ScalarType::kChar, {1, 3});
  auto w1 = h.out(ScalarType::kChar, {1, 2});
  auto w2 = h.out(ScalarType::kChar, {1, 2});
  auto ws = h.tensor_list({w0, w1, w2});
  REQUIRE(h.call(op, {w, h.integer(3), h.integer(1), ws, ws}).ok());
  CHECK(h.data<int8_t>(w0) == std::vector<int8_t>{1, 2, 3});
  CHECK(h.data<int8_t>(w1) == std::vector<int8_t>{4, 5});
  CHECK(h.data<int8_t>(w2) == std::vector<int8_t>{6, 7});

  CHECK(failure(h, op, {x, h.integer(-1), h.integer(0), ab, ab}) ==
        "aten::tensor_split.sections_out: sections must be positive, got -1");
  CHECK(failure(h, op, {x, h.integer(3), h.integer(0), ab, ab}) ==
        "aten::tensor_split.sections_out: out has 2 tensors for 3 sections");
  CHECK(failure(h, op, {x, h.integer(2), h.integer(0), a, a}) ==
        "aten::tensor_split.sections_out: out must be a tensor list, not Tensor");
  auto wrong = h.out(ScalarType::kFloat, {1, 2});
  auto mixed = h.tensor_list({a, wrong});
  CHECK(failure(h, op, {x, h.integer(2), h.integer(0), mixed, mixed}) ==
        "aten::tensor_split.sections_out: out[1] has dtype FLOAT, expected INT");
}

TEST_CASE("contiguous.out: a copy into out's dim order", "[kernels][shape][clone]") {
  KernelHarness h;
  // [2, 3] read from a column-major self, written row-major: the logical values in row order.
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 3, 1, 4, 2, 5}, {1, 0});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::contiguous.out", {x, h.integer(0), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(failure(h, "aten::contiguous.out", {x, h.integer(2), out, out}) ==
        "aten::contiguous.out: memory_format 2 is not supported (only contiguous or preserve)");
  auto wrong = h.out(ScalarType::kInt, {2, 3});
  CHECK(failure(h, "aten::contiguous.out", {x, h.integer(0), wrong, wrong}) == "aten::contiguous.out: out has dtype INT, expected FLOAT");
}

TEST_CASE("cat skips [0] tensors, promotes dtypes, writes any layout", "[kernels][shape][cat]") {
  KernelHarness h;
  auto top = h.tensor<float>(ScalarType::kFloat, {1, 2}, {1, 2});
  auto bottom = h.tensor<float>(ScalarType::kFloat, {2, 2}, {3, 4, 5, 6});
  auto empty = h.tensor<float>(ScalarType::kFloat, {0}, {});
  auto c = h.out(ScalarType::kFloat, {3, 2});
  // The empty tensor comes first: the rank and dim come from the next one.
  REQUIRE(h.call("aten::cat.out", {h.tensor_list({empty, top, bottom}), h.integer(-2), c, c}).ok());
  CHECK(h.data<float>(c) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // Only [0] tensors: the result is [0].
  auto e_out = h.out(ScalarType::kFloat, {0});
  REQUIRE(h.call("aten::cat.out", {h.tensor_list({empty, empty}), h.integer(0), e_out, e_out}).ok());
  // A [2, 0] tensor is not skipped but adds nothing along dim 1.
  auto zero_cols = h.tensor<float>(ScalarType::kFloat, {2, 0}, {});
  auto c2 = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::cat.out", {h.tensor_list({zero_cols, bottom}), h.integer(1), c2, c2}).ok());
  CHECK(h.data<float>(c2) == std::vector<float>{3, 4, 5, 6});

  // int32 and float promote to float.
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto floats = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
  auto mixed = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call("aten::cat.out", {h.tensor_list({ints, floats}), h.integer(0), mixed, mixed}).ok());
  CHECK(h.data<float>(mixed) == std::vector<float>{1, 2, 0.5f});

  // Two [1,1,2,2] tensors (0..3 and 4..7) along C into a channels-last out.
  auto c_a = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {0, 1, 2, 3});
  auto c_b = h.tensor<float>(ScalarType::kFloat, {1, 1, 2, 2}, {4, 5, 6, 7});
  auto cl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("aten::cat.out", {h.tensor_list({c_a, c_b}), h.integer(1), cl, cl}).ok());
  CHECK(h.data<float>(cl) == std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7});

  const std::string op = "aten::cat.out";
  auto int_out = h.out(ScalarType::kInt, {3});
  CHECK(failure(h, op, {h.tensor_list({ints, floats}), h.integer(0), int_out, int_out}) ==
        "aten::cat.out: result type FLOAT cannot be stored in out of type INT");
  auto wide = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(failure(h, op, {h.tensor_list({bottom, wide}), h.integer(0), c, c}) ==
        "aten::cat.out: tensors[1] has shape [2, 3], which does not match [2, 2] except in dimension 0");
  CHECK(failure(h, op, {h.tensor_list({}), h.integer(0), c, c}) == "aten::cat.out: tensors must not be empty");
  auto scalar = h.tensor<float>(ScalarType::kFloat, {}, {1});
  CHECK(failure(h, op, {h.tensor_list({scalar}), h.integer(0), c, c}) ==
        "aten::cat.out: tensors[0] is 0-dim and cannot be concatenated");
  CHECK(failure(h, op, {h.tensor_list({top, bottom}), h.integer(2), c, c}) == "aten::cat.out: dim 2 out of range for rank 2");
}

TEST_CASE("stack inserts a new dim", "[kernels][shape][stack]") {
  KernelHarness h;
  auto a = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto b = h.tensor<int32_t>(ScalarType::kInt, {2}, {3, 4});
  auto s0 = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::stack.out", {h.tensor_list({a, b}), h.integer(0), s0, s0}).ok());
  CHECK(h.data<int32_t>(s0) == std::vector<int32_t>{1, 2, 3, 4});
  auto s1 = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::stack.out", {h.tensor_list({a, b}), h.integer(-1), s1, s1}).ok());
  CHECK(h.data<int32_t>(s1) == std::vector<int32_t>{1, 3, 2, 4});

  auto c = h.tensor<int32_t>(ScalarType::kInt, {3}, {5, 6, 7});
  CHECK(failure(h, "aten::stack.out", {h.tensor_list({a, c}), h.integer(0), s0, s0}) ==
        "aten::stack.out: tensors[1] has shape [3], expected [2]");
  CHECK(failure(h, "aten::stack.out", {h.tensor_list({a, b}), h.integer(2), s0, s0}) ==
        "aten::stack.out: dim 2 out of range for rank 2");
}
