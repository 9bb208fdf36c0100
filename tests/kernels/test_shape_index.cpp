// Indexing and gathers: index.Tensor (advanced indexing), index_select,
// gather, scatter, embedding. x = [[1,2],[3,4],[5,6]] unless said otherwise.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

constexpr size_t kNone = SIZE_MAX;

}  // namespace

TEST_CASE("index.Tensor with one index tensor", "[kernels][shape][index]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 2, 3, 4, 5, 6});
  const std::string op = "aten::index.Tensor_out";
  // Rows 2, -3 (= 0), -1 (= 2).
  auto rows = h.tensor<int64_t>(ScalarType::kLong, {3}, {2, -3, -1});
  auto out = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call(op, {x, h.tensor_list({rows}, true), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{5, 6, 1, 2, 5, 6});
  // x[:, [1, 0]] with int32 indices: columns swapped.
  auto cols = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 0});
  auto swapped = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call(op, {x, h.tensor_list({kNone, cols}, true), swapped, swapped}).ok());
  CHECK(h.data<float>(swapped) == std::vector<float>{2, 1, 4, 3, 6, 5});
  // A [2, 2] index tensor on dim 0 gives [2, 2, 2]: rows 0, 1, 2, 0.
  auto grid = h.tensor<int64_t>(ScalarType::kLong, {2, 2}, {0, 1, 2, 0});
  auto g = h.out(ScalarType::kFloat, {2, 2, 2});
  REQUIRE(h.call(op, {x, h.tensor_list({grid}, true), g, g}).ok());
  CHECK(h.data<float>(g) == std::vector<float>{1, 2, 3, 4, 5, 6, 1, 2});
  // A column-major x (same logical values) into a column-major out:
  // x[[2, 0]] = [[5,6],[1,2]], stored by column.
  auto xt = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 3, 5, 2, 4, 6}, {1, 0});
  auto pick = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 0});
  auto cm = h.out(ScalarType::kFloat, {2, 2}, false, {1, 0});
  REQUIRE(h.call(op, {xt, h.tensor_list({pick}, true), cm, cm}).ok());
  CHECK(h.data<float>(cm) == std::vector<float>{5, 1, 6, 2});
  // No index tensors at all: a copy.
  auto copy = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call(op, {x, h.tensor_list({kNone}, true), copy, copy}).ok());
  CHECK(h.data<float>(copy) == std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("index.Tensor with several index tensors and masks", "[kernels][shape][index]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 2, 3, 4, 5, 6});
  const std::string op = "aten::index.Tensor_out";
  // x[[0, 2], [1, 0]] = [x[0][1], x[2][0]] = [2, 5].
  auto i0 = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 2});
  auto i1 = h.tensor<int64_t>(ScalarType::kLong, {2}, {1, 0});
  auto pair = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call(op, {x, h.tensor_list({i0, i1}, true), pair, pair}).ok());
  CHECK(h.data<float>(pair) == std::vector<float>{2, 5});
  // Broadcast: rows [[0],[2]] against columns [0, 1] -> [[1,2],[5,6]].
  auto col_of_rows = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {0, 2});
  auto both_cols = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, -1});
  auto grid = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call(op, {x, h.tensor_list({col_of_rows, both_cols}, true), grid, grid}).ok());
  CHECK(h.data<float>(grid) == std::vector<float>{1, 2, 5, 6});

  // y[a][b][c] = 6a + 2b + c for sizes [2, 3, 2].
  std::vector<int32_t> yv(12);
  for (int i = 0; i < 12; ++i) yv[size_t(i)] = i;
  auto y = h.tensor<int32_t>(ScalarType::kInt, {2, 3, 2}, yv);
  // Adjacent after a None: y[:, [2, 0], [1, 1]] -> [2, 2]: out[a][k] =
  // y[a][b_k][1] = 5, 1 for a = 0 and 11, 7 for a = 1.
  auto b_idx = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 0});
  auto c_idx = h.tensor<int64_t>(ScalarType::kLong, {2}, {1, 1});
  auto adj = h.out(ScalarType::kInt, {2, 2});
  REQUIRE(h.call(op, {y, h.tensor_list({kNone, b_idx, c_idx}, true), adj, adj}).ok());
  CHECK(h.data<int32_t>(adj) == std::vector<int32_t>{5, 1, 11, 7});
  // Not adjacent: y[[1, 0], :, [0, 1]] puts the index dim first -> [2, 3]:
  // out[k][b] = y[a_k][b][c_k] = 6, 8, 10 and 1, 3, 5.
  auto a_idx = h.tensor<int64_t>(ScalarType::kLong, {2}, {1, 0});
  auto c2_idx = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 1});
  auto apart = h.out(ScalarType::kInt, {2, 3});
  REQUIRE(h.call(op, {y, h.tensor_list({a_idx, kNone, c2_idx}, true), apart, apart}).ok());
  CHECK(h.data<int32_t>(apart) == std::vector<int32_t>{6, 8, 10, 1, 3, 5});

  // Masks: rows 0 and 2; then the 2-D mask picks x[0][0], x[1][1], x[2][0].
  auto rows = h.tensor<bool>(ScalarType::kBool, {3}, {true, false, true});
  auto masked = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call(op, {x, h.tensor_list({rows}, true), masked, masked}).ok());
  CHECK(h.data<float>(masked) == std::vector<float>{1, 2, 5, 6});
  auto cells = h.tensor<bool>(ScalarType::kBool, {3, 2}, {true, false, false, true, true, false});
  auto picked = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call(op, {x, h.tensor_list({cells}, true), picked, picked}).ok());
  CHECK(h.data<float>(picked) == std::vector<float>{1, 4, 5});
  // A mask (rows 1, 2) with an int index broadcast from [1]: x[[1,2], [1]] = [4, 6].
  auto late = h.tensor<bool>(ScalarType::kBool, {3}, {false, true, true});
  auto one = h.tensor<int64_t>(ScalarType::kLong, {1}, {1});
  auto mixed = h.out(ScalarType::kFloat, {2});
  REQUIRE(h.call(op, {x, h.tensor_list({late, one}, true), mixed, mixed}).ok());
  CHECK(h.data<float>(mixed) == std::vector<float>{4, 6});
  // An all-false mask selects nothing.
  auto nothing = h.tensor<bool>(ScalarType::kBool, {3}, {false, false, false});
  auto empty = h.out(ScalarType::kFloat, {3, 2}, true);
  REQUIRE(h.call(op, {x, h.tensor_list({nothing}, true), empty, empty}).ok());
  CHECK(h.sizes(empty) == std::vector<int32_t>{0, 2});
}

TEST_CASE("index.Tensor errors", "[kernels][shape][index]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {2, 2}, true);
  const std::string op = "aten::index.Tensor_out";
  auto big = h.tensor<int64_t>(ScalarType::kLong, {1}, {3});
  CHECK(failure(h, op, {x, h.tensor_list({big}, true), out, out}) ==
        "aten::index.Tensor_out: index 3 is out of range for dimension 0 of size 3");
  auto low = h.tensor<int32_t>(ScalarType::kInt, {1}, {-3});
  CHECK(failure(h, op, {x, h.tensor_list({kNone, low}, true), out, out}) ==
        "aten::index.Tensor_out: index -3 is out of range for dimension 1 of size 2");
  auto ok = h.tensor<int64_t>(ScalarType::kLong, {1}, {0});
  CHECK(failure(h, op, {x, h.tensor_list({ok, ok, ok}, true), out, out}) ==
        "aten::index.Tensor_out: too many indices for a tensor of rank 2");
  auto real = h.tensor<float>(ScalarType::kFloat, {1}, {0});
  CHECK(failure(h, op, {x, h.tensor_list({real}, true), out, out}) ==
        "aten::index.Tensor_out: indices[0] must be an int64, int32 or bool tensor, not FLOAT");
  auto short_mask = h.tensor<bool>(ScalarType::kBool, {2}, {true, false});
  CHECK(failure(h, op, {x, h.tensor_list({short_mask}, true), out, out}) ==
        "aten::index.Tensor_out: mask indices[0] of shape [2] does not match self [3, 2] at dim 0");
  auto two = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 1});
  auto three = h.tensor<int64_t>(ScalarType::kLong, {3}, {0, 1, 0});
  CHECK(failure(h, op, {x, h.tensor_list({three, two}, true), out, out}) ==
        "aten::index.Tensor_out: index shapes cannot be broadcast together: [3] and [2]");
  auto ints = h.out(ScalarType::kInt, {2, 2});
  CHECK(failure(h, op, {x, h.tensor_list({two}, true), ints, ints}) == "aten::index.Tensor_out: out has dtype INT, expected FLOAT");
  CHECK(failure(h, op, {x, two, out, out}) ==
        "aten::index.Tensor_out: indices must be a list of optional tensors, not Tensor");
}

TEST_CASE("index_select", "[kernels][shape][index_select]") {
  KernelHarness h;
  auto x = h.tensor<int64_t>(ScalarType::kLong, {3, 2}, {1, 2, 3, 4, 5, 6});
  const std::string op = "aten::index_select.out";
  auto rows = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, 0});
  auto out = h.out(ScalarType::kLong, {2, 2});
  REQUIRE(h.call(op, {x, h.integer(0), rows, out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{5, 6, 1, 2});
  auto col = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto c = h.out(ScalarType::kLong, {3, 1});
  REQUIRE(h.call(op, {x, h.integer(-1), col, c, c}).ok());
  CHECK(h.data<int64_t>(c) == std::vector<int64_t>{2, 4, 6});
  // The middle dim of a contiguous [2, 3, 2] holding 0..11, rows 2 then 0 of
  // each block: {4, 5, 0, 1} and {10, 11, 6, 7}.
  auto cube = h.tensor<float>(ScalarType::kFloat, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto picked = h.out(ScalarType::kFloat, {2, 2, 2});
  REQUIRE(h.call(op, {cube, h.integer(1), rows, picked, picked}).ok());
  CHECK(h.data<float>(picked) == std::vector<float>{4, 5, 0, 1, 10, 11, 6, 7});
  // A 0-dim self takes index 0 only.
  auto scalar = h.tensor<int64_t>(ScalarType::kLong, {}, {7});
  auto zero = h.tensor<int64_t>(ScalarType::kLong, {1}, {0});
  auto s = h.out(ScalarType::kLong, {});
  REQUIRE(h.call(op, {scalar, h.integer(0), zero, s, s}).ok());
  CHECK(h.data<int64_t>(s) == std::vector<int64_t>{7});
  auto neg = h.tensor<int64_t>(ScalarType::kLong, {1}, {-1});
  CHECK(failure(h, op, {x, h.integer(0), neg, out, out}) ==
        "aten::index_select.out: index -1 is out of range for dimension 0 of size 3");
  auto square = h.tensor<int64_t>(ScalarType::kLong, {1, 1}, {0});
  CHECK(failure(h, op, {x, h.integer(0), square, out, out}) == "aten::index_select.out: index must have at most 1 dim, got [1, 1]");
  auto real = h.tensor<float>(ScalarType::kFloat, {1}, {0});
  CHECK(failure(h, op, {x, h.integer(0), real, out, out}) == "aten::index_select.out: index must be int64 or int32, not FLOAT");
}

TEST_CASE("gather and scatter", "[kernels][shape][gather][scatter]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  // Along dim 1: out[i][j] = x[i][index[i][j]] -> [[3,1],[5,5]].
  auto idx = h.tensor<int64_t>(ScalarType::kLong, {2, 2}, {2, 0, 1, 1});
  auto g = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::gather.out", {x, h.integer(1), idx, h.boolean(false), g, g}).ok());
  CHECK(h.data<float>(g) == std::vector<float>{3, 1, 5, 5});
  // Along dim 0 with a [1, 3] index: out[0][j] = x[index[0][j]][j].
  auto idx0 = h.tensor<int64_t>(ScalarType::kLong, {1, 3}, {1, 0, 1});
  auto g0 = h.out(ScalarType::kFloat, {1, 3});
  REQUIRE(h.call("aten::gather.out", {x, h.integer(-2), idx0, h.boolean(false), g0, g0}).ok());
  CHECK(h.data<float>(g0) == std::vector<float>{4, 2, 6});
  auto bad = h.tensor<int64_t>(ScalarType::kLong, {2, 2}, {0, 3, 0, 0});
  CHECK(failure(h, "aten::gather.out", {x, h.integer(1), bad, h.boolean(false), g, g}) ==
        "aten::gather.out: index 3 is out of range for dimension 1 of size 3");
  auto tall = h.tensor<int64_t>(ScalarType::kLong, {3, 1}, {0, 0, 0});
  CHECK(failure(h, "aten::gather.out", {x, h.integer(1), tall, h.boolean(false), g, g}) ==
        "aten::gather.out: index [3, 1] is larger than self [2, 3] in dimension 0");
  auto flat = h.tensor<int64_t>(ScalarType::kLong, {2}, {0, 0});
  CHECK(failure(h, "aten::gather.out", {x, h.integer(1), flat, h.boolean(false), g, g}) ==
        "aten::gather.out: index has 1 dims, self has 2");

  // scatter.value: zeros [2, 3], dim 1, index [[2],[0]] -> 5 at (0,2) and (1,0).
  auto zeros = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto where = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {2, 0});
  auto s = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::scatter.value_out", {zeros, h.integer(1), where, h.integer(5), s, s}).ok());
  CHECK(h.data<float>(s) == std::vector<float>{0, 0, 5, 5, 0, 0});
  // scatter.src along dim 0: out[index[0][j]][j] = src[0][j] -> out[1][0] = 1, out[0][1] = 2.
  auto to_rows = h.tensor<int64_t>(ScalarType::kLong, {1, 2}, {1, 0});
  auto src = h.tensor<float>(ScalarType::kFloat, {2, 2}, {1, 2, 3, 4});
  auto s2 = h.out(ScalarType::kFloat, {2, 3});
  REQUIRE(h.call("aten::scatter.src_out", {zeros, h.integer(0), to_rows, src, s2, s2}).ok());
  CHECK(h.data<float>(s2) == std::vector<float>{0, 2, 0, 1, 0, 0});
  auto bytes = h.tensor<int8_t>(ScalarType::kChar, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto bs = h.out(ScalarType::kChar, {2, 3});
  CHECK(failure(h, "aten::scatter.value_out", {bytes, h.integer(1), where, h.integer(300), bs, bs}) ==
        "aten::scatter.value_out: value 300 cannot be converted to CHAR without overflow");
  auto far = h.tensor<int64_t>(ScalarType::kLong, {2, 1}, {3, 0});
  CHECK(failure(h, "aten::scatter.value_out", {zeros, h.integer(1), far, h.integer(5), s, s}) ==
        "aten::scatter.value_out: index 3 is out of range for dimension 1 of size 3");
}

TEST_CASE("embedding", "[kernels][shape][embedding]") {
  KernelHarness h;
  // Row r of the weight holds 10r, 10r + 1.
  auto weight = h.tensor<float>(ScalarType::kFloat, {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  const std::string op = "aten::embedding.out";
  auto ids = h.tensor<int64_t>(ScalarType::kLong, {2, 2}, {3, 0, 1, 1});
  auto out = h.out(ScalarType::kFloat, {2, 2, 2});
  REQUIRE(h.call(op, {weight, ids, h.integer(-1), h.boolean(false), h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{30, 31, 0, 1, 10, 11, 10, 11});
  auto ids32 = h.tensor<int32_t>(ScalarType::kInt, {3}, {2, 2, 0});
  auto o32 = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call(op, {weight, ids32, h.integer(-1), h.boolean(false), h.boolean(false), o32, o32}).ok());
  CHECK(h.data<float>(o32) == std::vector<float>{20, 21, 20, 21, 0, 1});
  // A half table is copied bytewise.
  auto hw = h.tensor<uint16_t>(ScalarType::kHalf, {2, 1}, {0x3C00, 0x4000});
  auto hid = h.tensor<int64_t>(ScalarType::kLong, {3}, {1, 0, 1});
  auto ho = h.out(ScalarType::kHalf, {3, 1});
  REQUIRE(h.call(op, {hw, hid, h.integer(-1), h.boolean(false), h.boolean(false), ho, ho}).ok());
  CHECK(h.data<uint16_t>(ho) == std::vector<uint16_t>{0x4000, 0x3C00, 0x4000});

  auto past = h.tensor<int64_t>(ScalarType::kLong, {1}, {4});
  auto o1 = h.out(ScalarType::kFloat, {1, 2});
  CHECK(failure(h, op, {weight, past, h.integer(-1), h.boolean(false), h.boolean(false), o1, o1}) ==
        "aten::embedding.out: index 4 is out of range for dimension 0 of size 4");
  auto flat = h.tensor<float>(ScalarType::kFloat, {4}, {0, 1, 2, 3});
  CHECK(failure(h, op, {flat, past, h.integer(-1), h.boolean(false), h.boolean(false), o1, o1}) ==
        "aten::embedding.out: weight must have 2 dims, got [4]");
  auto real_ids = h.tensor<float>(ScalarType::kFloat, {1}, {0});
  CHECK(failure(h, op, {weight, real_ids, h.integer(-1), h.boolean(false), h.boolean(false), o1, o1}) ==
        "aten::embedding.out: indices must be int64 or int32, not FLOAT");
}

TEST_CASE("index.Tensor: adjacent int indices as a nearest upsample, every element size", "[kernels][shape][index]") {
  // yolox's pattern: x[:, :, rows[H2, 1], cols[W2]] with rows = cols = i / 2
  // (as int32 and int64). x[n][c][y][x] = 1000c + 10y + x on [1, 3, 9, 9], so
  // out[0][c][i][j] must be 1000c + 10(i/2) + (j/2) on [1, 3, 18, 18]: 324
  // positions of the broadcast, more than one chunk of 256.
  const int C = 3, H = 9, H2 = 18;
  std::vector<int32_t> up;
  for (int i = 0; i < H2; ++i) up.push_back(i / 2);
  std::vector<int64_t> up64(up.begin(), up.end());
  std::vector<double> want;
  for (int c = 0; c < C; ++c) {
    for (int i = 0; i < H2; ++i) {
      for (int j = 0; j < H2; ++j) want.push_back(1000.0 * c + 10 * (i / 2) + (j / 2));
    }
  }
  std::vector<double> xs;
  for (int c = 0; c < C; ++c) {
    for (int y = 0; y < H; ++y) {
      for (int x = 0; x < H; ++x) xs.push_back(1000.0 * c + 10 * y + x);
    }
  }
  const std::string op = "aten::index.Tensor_out";
  auto run = [&](auto zero, ScalarType dtype) {
    using T = decltype(zero);
    KernelHarness h;
    std::vector<T> xv(xs.begin(), xs.end());
    auto x = h.tensor<T>(dtype, {1, C, H, H}, xv);
    auto rows = h.tensor<int32_t>(ScalarType::kInt, {H2, 1}, up);
    auto cols = h.tensor<int64_t>(ScalarType::kLong, {H2}, up64);
    auto out = h.out(dtype, {1, C, H2, H2});
    REQUIRE(h.call(op, {x, h.tensor_list({kNone, kNone, rows, cols}, true), out, out}).ok());
    CHECK(h.data<T>(out) == std::vector<T>(want.begin(), want.end()));
  };
  run(float(0), ScalarType::kFloat);
  run(double(0), ScalarType::kDouble);
  run(int16_t(0), ScalarType::kShort);
  // int8 holds the values modulo 256 on both sides alike.
  {
    KernelHarness h;
    std::vector<uint8_t> xv;
    for (double v : xs) xv.push_back(uint8_t(int64_t(v) % 256));
    auto x = h.tensor<uint8_t>(ScalarType::kByte, {1, C, H, H}, xv);
    auto rows = h.tensor<int64_t>(ScalarType::kLong, {H2, 1}, up64);
    auto cols = h.tensor<int32_t>(ScalarType::kInt, {H2}, up);
    auto out = h.out(ScalarType::kByte, {1, C, H2, H2});
    REQUIRE(h.call(op, {x, h.tensor_list({kNone, kNone, rows, cols}, true), out, out}).ok());
    std::vector<uint8_t> w8;
    for (double v : want) w8.push_back(uint8_t(int64_t(v) % 256));
    CHECK(h.data<uint8_t>(out) == w8);
  }
}

TEST_CASE("index.Tensor: adjacent indices with kept dims after them, negative values, strided self",
          "[kernels][shape][index]") {
  KernelHarness h;
  // y[a][b][c][d] = 1000a + 100b + 10c + d on [2, 3, 4, 5], stored with dim
  // order (0, 3, 1, 2) (d outermost after a). y[:, [2, -3], [-1, 0], :] has
  // shape [2, 2, 5]: out[a][k][d] = y[a][b_k][c_k][d] with (b, c) = (2, 3),
  // (0, 0).
  std::vector<int64_t> stored;  // logical index (a, d, b, c) row-major
  for (int a = 0; a < 2; ++a) {
    for (int d = 0; d < 5; ++d) {
      for (int b = 0; b < 3; ++b) {
        for (int c = 0; c < 4; ++c) stored.push_back(1000 * a + 100 * b + 10 * c + d);
      }
    }
  }
  auto y = h.tensor<int64_t>(ScalarType::kLong, {2, 3, 4, 5}, stored, {0, 3, 1, 2});
  auto bi = h.tensor<int64_t>(ScalarType::kLong, {2}, {2, -3});
  auto ci = h.tensor<int32_t>(ScalarType::kInt, {2}, {-1, 0});
  auto out = h.out(ScalarType::kLong, {2, 2, 5});
  REQUIRE(h.call("aten::index.Tensor_out", {y, h.tensor_list({kNone, bi, ci}, true), out, out}).ok());
  CHECK(h.data<int64_t>(out) == std::vector<int64_t>{230,  231,  232,  233,  234,  0,    1,    2,    3,    4,
                                                      1230, 1231, 1232, 1233, 1234, 1000, 1001, 1002, 1003, 1004});
}
