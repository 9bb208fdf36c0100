// permute_copy against a plain index-arithmetic reference written here:
// every permutation of 3-D and 4-D tensors whose sizes cross the vector
// blocks (8) and tiles (32, 64, 128 elements) without being multiples of
// them, element sizes 1, 2, 4 and 8, size-1 dims, and inputs and outputs in
// other dim orders. The copy's register blocks (AVX2 or SSE2, see
// runner/kernels/shape/transpose.h) only move bits, so the expected bytes
// are the source's, placed by the index arithmetic; ctest runs these again
// with ETKIT_NO_AVX2=1 (kernels.baseline-isa).
#include <algorithm>
#include <cstdint>
#include <numeric>

#include "runner/kernels/shape/transpose.h"
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

// Strides in elements of a tensor of `sizes` laid out in `order` (outermost
// dim first), written out from the definition: the last dim in the order
// steps by 1, each earlier one by the product of the sizes after it.
std::vector<int64_t> strides_of(const std::vector<int32_t>& sizes, const std::vector<uint8_t>& order) {
  std::vector<int64_t> strides(sizes.size(), 0);
  int64_t step = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = step;
    step *= std::max<int32_t>(sizes[order[k]], 1);
  }
  return strides;
}

std::vector<uint8_t> identity(size_t rank) {
  std::vector<uint8_t> o(rank);
  std::iota(o.begin(), o.end(), uint8_t(0));
  return o;
}

// A distinct-looking value for element i of each width (1-byte values
// repeat every 256 elements; the multiplier makes neighbours differ).
template <typename T>
T value_at(int64_t i) {
  if constexpr (sizeof(T) == 1) return T((i * 37 + 11) & 0xff);
  else if constexpr (sizeof(T) == 2) return T((i * 7 + 3) & 0xffff);
  else if constexpr (sizeof(T) == 4) return T(i * 3 + 1);
  else return T((int64_t(1) << 40) + i * 5);
}

struct Case {
  std::vector<int32_t> sizes;
  std::vector<int64_t> dims;
  std::vector<uint8_t> in_order;   // empty: contiguous
  std::vector<uint8_t> out_order;  // empty: contiguous
};

// Runs permute_copy on `c` with elements of type T and compares every byte
// of out with the reference: out's logical index o reads self's logical
// index i with i[dims[k]] = o[k]; each is placed in memory by its strides.
template <typename T>
bool permute_matches(ScalarType dtype, const Case& c) {
  const size_t rank = c.sizes.size();
  const auto in_order = c.in_order.empty() ? identity(rank) : c.in_order;
  const auto out_order = c.out_order.empty() ? identity(rank) : c.out_order;
  // A negative dim counts from the end.
  std::vector<size_t> dims(rank);
  for (size_t k = 0; k < rank; ++k) dims[k] = size_t(c.dims[k] < 0 ? c.dims[k] + int64_t(rank) : c.dims[k]);
  std::vector<int32_t> out_sizes(rank);
  for (size_t k = 0; k < rank; ++k) out_sizes[k] = c.sizes[dims[k]];
  int64_t n = 1;
  for (int32_t s : c.sizes) n *= s;
  std::vector<T> memory(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) memory[size_t(i)] = value_at<T>(i);

  KernelHarness h;
  const auto x = h.tensor<T>(dtype, c.sizes, memory, c.in_order);
  const auto out = h.out(dtype, out_sizes, false, c.out_order);
  if (!h.call("aten::permute_copy.out", {x, h.int_list(c.dims), out, out}).ok()) return false;
  const auto got = h.data<T>(out);

  const auto in_strides = strides_of(c.sizes, in_order);
  const auto out_strides = strides_of(out_sizes, out_order);
  std::vector<int64_t> o(rank, 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t src = 0, dst = 0;
    for (size_t k = 0; k < rank; ++k) {
      src += o[k] * in_strides[dims[k]];
      dst += o[k] * out_strides[k];
    }
    if (got[size_t(dst)] != memory[size_t(src)]) return false;
    for (size_t k = rank; k-- > 0;) {  // next logical index of out, row-major
      if (++o[k] < out_sizes[k]) break;
      o[k] = 0;
    }
  }
  return true;
}

// All four element widths, the signed and unsigned dtypes of each.
bool all_widths(const Case& c) {
  return permute_matches<uint8_t>(ScalarType::kByte, c) && permute_matches<int16_t>(ScalarType::kShort, c) &&
         permute_matches<float>(ScalarType::kFloat, c) && permute_matches<int64_t>(ScalarType::kLong, c);
}

std::string describe(const Case& c) {
  std::string s;
  for (int32_t d : c.sizes) s.append(std::to_string(d)).append(" ");
  s += "dims";
  for (int64_t d : c.dims) s.append(" ").append(std::to_string(d));
  return s;
}

void every_permutation(const std::vector<int32_t>& sizes) {
  std::vector<int64_t> dims(sizes.size());
  std::iota(dims.begin(), dims.end(), int64_t(0));
  int count = 0;
  do {
    const Case c{sizes, dims, {}, {}};
    INFO(describe(c));
    CHECK(all_widths(c));
    ++count;
  } while (std::next_permutation(dims.begin(), dims.end()));
  int expected = 1;
  for (size_t k = 2; k <= sizes.size(); ++k) expected *= int(k);
  CHECK(count == expected);
}

}  // namespace

TEST_CASE("permute_copy: all 24 permutations of 4-D tensors, 1-, 2-, 4- and 8-byte elements", "[kernels][permute]") {
  every_permutation({3, 5, 7, 9});
  every_permutation({2, 9, 33, 17});
}

TEST_CASE("permute_copy: all 6 permutations of 3-D tensors across block and tile edges", "[kernels][permute]") {
  every_permutation({9, 33, 17});
  // 67 x 130: past the 64-element tile of 4-byte elements one way and the
  // 128-element tile of 1-byte elements the other; 8 x 16 is exact blocks.
  every_permutation({3, 67, 130});
  every_permutation({2, 8, 16});
  every_permutation({1, 300, 257});
}

TEST_CASE("permute_copy: size-1 dims anywhere, including permutations that are a plain copy", "[kernels][permute]") {
  every_permutation({1, 7, 1, 9});
  every_permutation({5, 1, 1, 3});
  every_permutation({1, 1, 1, 1});
  every_permutation({1, 4, 2, 2});
  // A rank-1 and a rank-0 tensor.
  CHECK(all_widths({{11}, {0}, {}, {}}));
  CHECK(all_widths({{}, {}, {}, {}}));
}

TEST_CASE("permute_copy: inputs and outputs in other dim orders", "[kernels][permute][dim_order]") {
  const std::vector<int32_t> sizes = {2, 9, 33, 17};
  const std::vector<uint8_t> channels_last = {0, 2, 3, 1};
  const std::vector<std::vector<int64_t>> perms = {{0, 2, 3, 1}, {0, 3, 1, 2}, {0, 1, 3, 2}, {3, 2, 1, 0}, {0, 1, 2, 3}};
  for (const auto& dims : perms) {
    for (int which = 0; which < 3; ++which) {
      Case c{sizes, dims, {}, {}};
      if (which != 1) c.in_order = channels_last;
      if (which != 0) c.out_order = {1, 0, 3, 2};
      INFO(describe(c) << " in/out dim orders: " << which);
      CHECK(all_widths(c));
    }
  }
}

TEST_CASE("permute_copy: negative dims and the errors of a bad dims list", "[kernels][permute]") {
  CHECK(all_widths({{3, 5, 7, 9}, {-4, -2, -1, -3}, {}, {}}));
  KernelHarness h;
  const auto x = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 1, 2, 3, 4, 5});
  const auto out = h.out(ScalarType::kFloat, {3, 2});
  auto s = h.call("aten::permute_copy.out", {x, h.int_list({1, 2}), out, out});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message, Catch::Matchers::Contains("dim 2 out of range for rank 2"));
  s = h.call("aten::permute_copy.out", {x, h.int_list({1, 1}), out, out});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message, Catch::Matchers::Contains("repeats dim 1"));
  s = h.call("aten::permute_copy.out", {x, h.int_list({1}), out, out});
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message, Catch::Matchers::Contains("has 1 entries for a tensor of rank 2"));
  const auto wrong = h.out(ScalarType::kInt, {3, 2});
  REQUIRE_FALSE(h.call("aten::permute_copy.out", {x, h.int_list({1, 0}), wrong, wrong}).ok());
}

// Destinations of 8 MiB and more take streaming stores, eight destination
// rows at a time (transpose.cpp; kStreamBytes, stream_store.h); the rows and columns those
// blocks leave go through the cached tiles. Shapes: NCHW <-> NHWC of 16
// channels (the benchmark's), row and column counts that leave 1-7 rows
// and 1-7 columns (AVX2 blocks are 8 wide, SSE ones 4), destination rows
// that are not a multiple of 8 or 4 floats, and destinations 4 bytes
// (not streamed), 16 bytes (streamed in halves) and 32 bytes past an
// aligned start. Expected: the source's floats placed by the definition.
TEST_CASE("transpose_matrix: large 4-byte transposes with streaming stores", "[kernels][permute]") {
  struct Case {
    int64_t rows, cols, dst_row, src_col, dst_offset;
  };
  const Case cases[] = {
      {131072, 16, 16, 131072, 0},   // NCHW -> NHWC, 8 MiB
      {16, 131072, 131072, 16, 0},   // NHWC -> NCHW
      {131075, 16, 16, 131075, 8},   // 3 rows left; 32-byte offset
      {16, 131075, 131075, 16, 4},   // columns % 8 == 3; rows 16-byte aligned only (odd dst_row)
      {1048579, 3, 3, 1048579, 0},   // 3 columns: fewer than a block, all through the tiles
      {70007, 31, 32, 70007, 4},     // 7 rows and 7 (AVX2) / 3 (SSE) columns left; 16-byte offset
      {70007, 31, 31, 70009, 1},     // unaligned: the cached tiles only
      {200003, 13, 14, 200005, 0},   // dst_row % 4 == 2: not streamed
  };
  for (const Case& c : cases) {
    INFO("rows " << c.rows << " cols " << c.cols << " dst_row " << c.dst_row << " src_col " << c.src_col
                 << " dst offset " << c.dst_offset);
    std::vector<uint32_t> src(size_t(c.cols * c.src_col));
    for (size_t k = 0; k < src.size(); ++k) src[k] = uint32_t(k * 2654435761u);
    // 64-byte aligned storage; dst starts dst_offset floats in.
    const size_t dst_floats = size_t(c.rows * c.dst_row) + 16;
    std::vector<uint32_t> storage(dst_floats + 16, 0xDEADBEEFu);
    uint32_t* base = storage.data();
    while (reinterpret_cast<uintptr_t>(base) % 64 != 0) ++base;
    uint32_t* dst = base + c.dst_offset;
    etkit::rt::kernels::transpose_matrix(4, reinterpret_cast<uint8_t*>(dst), c.dst_row,
                                         reinterpret_cast<const uint8_t*>(src.data()), c.src_col, c.rows, c.cols);
    int64_t wrong = 0, touched = 0;
    for (int64_t i = 0; i < c.rows; ++i) {
      for (int64_t j = 0; j < c.dst_row; ++j) {
        const uint32_t got = dst[i * c.dst_row + j];
        if (j < c.cols) {
          wrong += got != src[size_t(i + j * c.src_col)];
        } else {
          touched += got != 0xDEADBEEFu;  // padding of a destination row: never written
        }
      }
    }
    CHECK(wrong == 0);
    CHECK(touched == 0);
    CHECK(dst[c.rows * c.dst_row] == 0xDEADBEEFu);
  }
}
