// Shape kernels that closed gaps in the portable set: scatter_add,
// slice_scatter, select_scatter, diagonal_copy, unfold_copy,
// as_strided_copy, index_put(.out and _) and masked_scatter. Expected
// values are worked out by hand in the comments.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

}  // namespace

TEST_CASE("scatter_add.out: repeated targets add up", "[shape][gaps][scatter]") {
  KernelHarness h;
  // self zeros [2, 3]; dim 1, index [[0, 0, 2], [1, 1, 1]], src [[1, 2, 3], [4, 5, 6]]:
  // row 0: col 0 += 1 + 2, col 2 += 3 -> [3, 0, 3]; row 1: col 1 += 4 + 5 + 6 -> [0, 15, 0].
  auto self = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto index = h.tensor<int64_t>(ScalarType::kLong, {2, 3}, {0, 0, 2, 1, 1, 1});
  auto src = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::scatter_add.out", {self, h.integer(1), index, src, out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{3, 0, 3, 0, 15, 0});
  // dim 0 (as -2), int32 self with INT32_MAX + 1 wrapping, a smaller index than src:
  // index [[1]] adds src[0][0] = 1 to self[1][0] = INT32_MAX -> INT32_MIN.
  auto si = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {0, 0, INT32_MAX, 7});
  auto ii = h.tensor<int32_t>(ScalarType::kInt, {1, 1}, {1});
  auto srci = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {1, 9, 9, 9});
  auto oi = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::scatter_add.out", {si, h.integer(-2), ii, srci, oi, oi}).ok());
  CHECK(h.data<int32_t>(oi) == std::vector<int32_t>{0, 0, INT32_MIN, 7});
  auto badi = h.tensor<int64_t>(ScalarType::kLong, {1, 1}, {3});
  CHECK(failure(h, "aten::scatter_add.out", {si, h.integer(0), badi, srci, oi, oi}) ==
        "aten::scatter_add.out: index 3 is out of range for dimension 0 of size 2");
  CHECK(failure(h, "aten::scatter_add.out", {self, h.integer(1), index, srci, out, out}) ==
        "aten::scatter_add.out: src has dtype INT, expected FLOAT");
}

TEST_CASE("slice_scatter.out and select_scatter.out", "[shape][gaps][scatter]") {
  KernelHarness h;
  // self [2, 5] = 0..9; dim 1, start 1, end None, step 2 -> columns 1 and 3 get src [[-1, -2], [-3, -4]].
  auto self = h.tensor<int64_t>(ScalarType::kLong, {2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto src = h.tensor<int64_t>(ScalarType::kLong, {2, 2}, {-1, -2, -3, -4});
  auto out = h.out(ScalarType::kLong, {2, 5});
  REQUIRE(h.call("aten::slice_scatter.out", {self, src, h.integer(1), h.integer(1), h.none(), h.integer(2), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{0, -1, 2, -2, 4, 5, -3, 7, -4, 9});
  // Negative start -1 on dim 0: only row 1, src [1, 5].
  auto row = h.tensor<int64_t>(ScalarType::kLong, {1, 5}, {10, 11, 12, 13, 14});
  REQUIRE(h.call("aten::slice_scatter.out", {self, row, h.integer(0), h.integer(-1), h.integer(100), h.integer(1), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{0, 1, 2, 3, 4, 10, 11, 12, 13, 14});
  // A window of the wrong shape is an error.
  CHECK(failure(h, "aten::slice_scatter.out", {self, src, h.integer(1), h.none(), h.none(), h.integer(1), out, out}) ==
        "aten::slice_scatter.out: src has shape [2, 2] but the window has shape [2, 5]");
  // select_scatter: dim 1, index -1 (column 4) gets [7, 8].
  auto col = h.tensor<int64_t>(ScalarType::kLong, {2}, {70, 80});
  REQUIRE(h.call("aten::select_scatter.out", {self, col, h.integer(1), h.integer(-1), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{0, 1, 2, 3, 70, 5, 6, 7, 8, 80});
  CHECK(failure(h, "aten::select_scatter.out", {self, col, h.integer(1), h.integer(5), out, out}) ==
        "aten::select_scatter.out: index 5 out of range for size 5");
}

TEST_CASE("diagonal_copy.out: offsets and dims", "[shape][gaps][views]") {
  KernelHarness h;
  // [3, 4] = 0..11 (row r, col c holds 4r + c).
  auto x = h.tensor<int32_t>(ScalarType::kInt, {3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto out = h.out(ScalarType::kInt, {3}, true);
  REQUIRE(h.call("aten::diagonal_copy.out", {x, h.integer(0), h.integer(0), h.integer(1), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{0, 5, 10});
  // offset 2: (0,2), (1,3) -> 2, 7. offset -1: (1,0), (2,1) -> 4, 9. offset 5: empty.
  REQUIRE(h.call("aten::diagonal_copy.out", {x, h.integer(2), h.integer(0), h.integer(1), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{2, 7});
  REQUIRE(h.call("aten::diagonal_copy.out", {x, h.integer(-1), h.integer(0), h.integer(1), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{4, 9});
  REQUIRE(h.call("aten::diagonal_copy.out", {x, h.integer(5), h.integer(0), h.integer(1), out, out}).ok());
  CHECK(h.sizes(out) == std::vector<int32_t>{0});
  // Swapped dims (1, 0) with offset 1: element i is x[i + 1][i] -> 4, 9.
  REQUIRE(h.call("aten::diagonal_copy.out", {x, h.integer(1), h.integer(-1), h.integer(0), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{4, 9});
  // [2, 2, 2] = 0..7 over dims 1, 2: batch b gives [4b, 4b + 3].
  auto y = h.tensor<float>(ScalarType::kFloat, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto yo = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::diagonal_copy.out", {y, h.integer(0), h.integer(1), h.integer(2), yo, yo}).ok());
  CHECK(h.data<float>(yo) == std::vector<float>{0, 3, 4, 7});
  CHECK(failure(h, "aten::diagonal_copy.out", {x, h.integer(0), h.integer(1), h.integer(-1), out, out}) ==
        "aten::diagonal_copy.out: dim1 and dim2 are both 1");
}

TEST_CASE("unfold_copy.out: sliding windows", "[shape][gaps][views]") {
  KernelHarness h;
  // [0..6] with size 3, step 2: windows start at 0, 2, 4 -> [[0,1,2],[2,3,4],[4,5,6]].
  auto x = h.tensor<float>(ScalarType::kFloat, {7}, {0, 1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {3, 3});
  REQUIRE(h.call("aten::unfold_copy.out", {x, h.integer(0), h.integer(3), h.integer(2), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 1, 2, 2, 3, 4, 4, 5, 6});
  // [2, 3] along dim 1 (as -1), size 2, step 1: [2, 2, 2] = [[[0,1],[1,2]], [[3,4],[4,5]]].
  auto m = h.tensor<int64_t>(ScalarType::kLong, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto mo = h.out(ScalarType::kLong, {2, 2, 2});
  REQUIRE(h.call("aten::unfold_copy.out", {m, h.integer(-1), h.integer(2), h.integer(1), mo, mo}).ok());
  CHECK(h.data<int64_t>(mo) == std::vector<int64_t>{0, 1, 1, 2, 3, 4, 4, 5});
  CHECK(failure(h, "aten::unfold_copy.out", {x, h.integer(0), h.integer(8), h.integer(1), out, out}) ==
        "aten::unfold_copy.out: size 8 out of range for dimension 0 of size 7");
  CHECK(failure(h, "aten::unfold_copy.out", {x, h.integer(0), h.integer(2), h.integer(0), out, out}) ==
        "aten::unfold_copy.out: step must be positive, got 0");
}

TEST_CASE("as_strided_copy.out: sizes, strides, storage offset, bounds", "[shape][gaps][views]") {
  KernelHarness h;
  auto x = h.tensor<int32_t>(ScalarType::kInt, {6}, {10, 11, 12, 13, 14, 15});
  // size [2, 2], stride [1, 2], offset 1: element (i, j) = x[1 + i + 2j] -> [[11, 13], [12, 14]].
  auto out = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call("aten::as_strided_copy.out", {x, h.int_list({2, 2}), h.int_list({1, 2}), h.integer(1), out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{11, 13, 12, 14});
  // Stride 0 repeats; offset None is 0.
  auto rep = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call("aten::as_strided_copy.out", {x, h.int_list({3}), h.int_list({0}), h.none(), rep, rep}).ok());
  CHECK(h.data<int32_t>(rep) == std::vector<int32_t>{10, 10, 10});
  // Reaching element 1 + 1 + 2 * 2 = 6 of a 6-element storage is out of bounds.
  CHECK(failure(h, "aten::as_strided_copy.out", {x, h.int_list({2, 3}), h.int_list({1, 2}), h.integer(1), out, out}) ==
        "aten::as_strided_copy.out: size [2, 3], stride [1, 2] and storage_offset 1 reach element 6 of a storage of 6");
  CHECK(failure(h, "aten::as_strided_copy.out", {x, h.int_list({3}), h.int_list({INT64_MAX}), h.none(), rep, rep}) ==
        "aten::as_strided_copy.out: size [3] with stride [9223372036854775807] overflows");
}

TEST_CASE("index_put.out: assignment, accumulate, broadcast values, masks", "[shape][gaps][index]") {
  KernelHarness h;
  // self [3, 2] = 0..5; rows [2, 0] = [[7, 8], [9, 10]] -> [[9, 10], [2, 3], [7, 8]].
  auto self = h.tensor<float>(ScalarType::kFloat, {3, 2}, {0, 1, 2, 3, 4, 5});
  auto rows = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 0});
  auto values = h.tensor<float>(ScalarType::kFloat, {2, 2}, {7, 8, 9, 10});
  auto out = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("aten::index_put.out", {self, h.tensor_list({rows}, true), values, h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{9, 10, 2, 3, 7, 8});
  // Element-wise (rows [0, 0, -1], cols [1, 1, 0]) += 1 (a 0-dim value broadcast): (0,1) twice, (2,0) once
  // -> [[0, 3], [2, 3], [5, 5]].
  auto r = h.tensor<int64_t>(ScalarType::kLong, {3}, {0, 0, -1});
  auto c = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 1, 0});
  auto one = h.tensor<float>(ScalarType::kFloat, {}, {1});
  REQUIRE(h.call("aten::index_put.out", {self, h.tensor_list({r, c}, true), one, h.boolean(true), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 3, 2, 3, 5, 5});
  // A None first index and a column index: self[:, [1]] = [[-1], [-2], [-3]].
  auto col = h.tensor<int64_t>(ScalarType::kLong, {1}, {1});
  auto colv = h.tensor<float>(ScalarType::kFloat, {3, 1}, {-1, -2, -3});
  REQUIRE(h.call("aten::index_put.out", {self, h.tensor_list({SIZE_MAX, col}, true), colv, h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, -1, 2, -2, 4, -3});
  // A bool mask over the rows: [true, false, true] = 0 -> rows 0 and 2 zeroed.
  auto mask = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  auto zero = h.tensor<float>(ScalarType::kFloat, {1}, {0});
  REQUIRE(h.call("aten::index_put.out", {self, h.tensor_list({mask}, true), zero, h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{0, 0, 2, 3, 0, 0});
  // Errors leave out alone: an out-of-range index, and values of another dtype.
  auto bad = h.tensor<int64_t>(ScalarType::kLong, {1}, {3});
  CHECK(failure(h, "aten::index_put.out", {self, h.tensor_list({bad}, true), zero, h.boolean(false), out, out}) ==
        "aten::index_put.out: index 3 is out of range for dimension 0 of size 3");
  CHECK(h.data<float>(out) == std::vector<float>{0, 0, 2, 3, 0, 0});
  auto dv = h.tensor<double>(ScalarType::kDouble, {1}, {0});
  CHECK(failure(h, "aten::index_put.out", {self, h.tensor_list({rows}, true), dv, h.boolean(false), out, out}) ==
        "aten::index_put.out: values has dtype DOUBLE, expected FLOAT");
  auto wide = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(failure(h, "aten::index_put.out", {self, h.tensor_list({rows}, true), wide, h.boolean(false), out, out}) ==
        "aten::index_put.out: values of shape [3] cannot be broadcast to [2, 2]");
}

TEST_CASE("index_put_ updates self in place", "[shape][gaps][index]") {
  KernelHarness h;
  // int64 [4] = [1, 2, 3, INT64_MAX]; positions [3, 0] += [1, 5] -> INT64_MAX + 1 wraps to INT64_MIN, 1 + 5.
  auto self = h.tensor<int64_t>(ScalarType::kLong, {4}, {1, 2, 3, INT64_MAX});
  auto pos = h.tensor<int64_t>(ScalarType::kLong, {2}, {3, 0});
  auto values = h.tensor<int64_t>(ScalarType::kLong, {2}, {1, 5});
  REQUIRE(h.call("aten::index_put_", {self, h.tensor_list({pos}, true), values, h.boolean(true), self}).ok());
  CHECK(h.data<int64_t>(self) == std::vector<int64_t>{6, 2, 3, INT64_MIN});
  // A separate return tensor receives a copy of the result.
  auto ret = h.out(ScalarType::kLong, {4});
  REQUIRE(h.call("aten::index_put_", {self, h.tensor_list({pos}, true), values, h.boolean(false), ret}).ok());
  CHECK(h.data<int64_t>(self) == std::vector<int64_t>{5, 2, 3, 1});
  CHECK(h.data<int64_t>(ret) == std::vector<int64_t>{5, 2, 3, 1});
}

TEST_CASE("masked_scatter.out: source elements fill true positions in order", "[shape][gaps][index]") {
  KernelHarness h;
  // self [2, 3] = 0..5, mask [3] = [true, false, true] broadcast over rows; source [2, 2] = 10..13 taken
  // in order: (0,0) 10, (0,2) 11, (1,0) 12, (1,2) 13 -> [[10, 1, 11], [12, 4, 13]].
  auto self = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {0, 1, 2, 3, 4, 5});
  auto mask = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  auto source = h.tensor<int32_t>(ScalarType::kInt, {2, 2}, {10, 11, 12, 13});
  auto out = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call("aten::masked_scatter.out", {self, mask, source, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{10, 1, 11, 12, 4, 13});
  // The mask can widen self: self [3] = [1, 2, 3] with mask [[false, true, false], [true, true, true]]
  // -> out [2, 3]: [1, 10, 3], [11, 12, 13].
  auto s1 = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  auto m2 = h.tensor<bool>(ScalarType::kBool, {2, 3}, {false, true, false, true, true, true});
  auto src5 = h.tensor<int32_t>(ScalarType::kInt, {5}, {10, 11, 12, 13, 14});
  REQUIRE(h.call("aten::masked_scatter.out", {s1, m2, src5, out, out}).ok());
  CHECK(h.data<int32_t>(out) == std::vector<int32_t>{1, 10, 3, 11, 12, 13});
  auto small = h.tensor<int32_t>(ScalarType::kInt, {1}, {9});
  CHECK(failure(h, "aten::masked_scatter.out", {self, mask, small, out, out}) ==
        "aten::masked_scatter.out: mask has 4 true elements but source has only 1");
  auto intmask = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 0, 1});
  CHECK(failure(h, "aten::masked_scatter.out", {self, intmask, source, out, out}) ==
        "aten::masked_scatter.out: mask must be BOOL, not INT");
}
