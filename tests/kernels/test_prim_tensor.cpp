// Prim ops on tensors: sym_size, sym_numel, _local_scalar_dense, et_view
// (shares memory) and et_copy_index (stacks rows into a growing tensor).
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
namespace rt = etkit::rt;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

}  // namespace

TEST_CASE("sym_size.int reads one size, negative dims count from the end", "[prim]") {
  KernelHarness h;
  auto t = h.tensor<float>(ScalarType::kFloat, {2, 3}, {0, 0, 0, 0, 0, 0});
  auto out = h.integer(0);
  REQUIRE(h.call("aten::sym_size.int", {t, h.integer(1), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kInt && h.value(out).i == 3));
  REQUIRE(h.call("aten::sym_size.int", {t, h.integer(-2), out}).ok());
  CHECK(h.value(out).i == 2);
  CHECK(failure(h, "aten::sym_size.int", {t, h.integer(2), out}) == "aten::sym_size.int: dim 2 out of range for rank 2");
  auto scalar = h.tensor<float>(ScalarType::kFloat, {}, {1});
  CHECK(failure(h, "aten::sym_size.int", {scalar, h.integer(0), out}) ==
        "aten::sym_size.int: dim 0 out of range for rank 0");
  CHECK(failure(h, "aten::sym_size.int", {h.integer(1), h.integer(0), out}) ==
        "aten::sym_size.int: self must be a tensor, not Int");
}

TEST_CASE("sym_numel counts elements, 0 for an empty tensor", "[prim]") {
  KernelHarness h;
  auto out = h.integer(0);
  REQUIRE(h.call("aten::sym_numel", {h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6}), out}).ok());
  CHECK(h.value(out).i == 6);
  REQUIRE(h.call("aten::sym_numel", {h.tensor<int32_t>(ScalarType::kInt, {0, 3}, {}), out}).ok());
  CHECK(h.value(out).i == 0);
}

TEST_CASE("_local_scalar_dense: Int, Double or Bool by dtype", "[prim]") {
  KernelHarness h;
  auto out = h.integer(0);
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<int64_t>(ScalarType::kLong, {}, {-42}), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kInt && h.value(out).i == -42));
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<uint8_t>(ScalarType::kByte, {1}, {200}), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kInt && h.value(out).i == 200));
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<float>(ScalarType::kFloat, {1, 1}, {2.5f}), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kDouble && h.value(out).d == 2.5));
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<bool>(ScalarType::kBool, {}, {true}), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kBool && h.value(out).b));
  // Half 0x3e00 is 1.5.
  REQUIRE(h.call("aten::_local_scalar_dense", {h.tensor<uint16_t>(ScalarType::kHalf, {}, {0x3e00}), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kDouble && h.value(out).d == 1.5));
  CHECK(failure(h, "aten::_local_scalar_dense", {h.tensor<float>(ScalarType::kFloat, {0}, {}), out}) ==
        "aten::_local_scalar_dense: self has no elements");
}

TEST_CASE("et_view points out at self's data with the new sizes", "[prim]") {
  KernelHarness h;
  auto self = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {3, 2});
  REQUIRE(h.call("executorch_prim::et_view.default", {self, h.int_list({3, 2}), out}).ok());
  CHECK(h.tensor_at(out).data() == h.tensor_at(self).data());
  CHECK(h.sizes(out) == std::vector<int32_t>{3, 2});
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // A write through self shows in the view: no copy was made.
  h.tensor_at(self).data_as<float>()[5] = 60;
  CHECK(h.data<float>(out)[5] == 60);
}

TEST_CASE("et_view infers one -1 and may change the rank", "[prim]") {
  KernelHarness h;
  auto self = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto flat = h.out(ScalarType::kInt, {6});
  REQUIRE(h.call("executorch_prim::et_view.default", {self, h.int_list({-1}), flat}).ok());
  CHECK(h.sizes(flat) == std::vector<int32_t>{6});
  // A dynamic out (upper bound [4, 6]) takes the inferred shape.
  auto dyn = h.out(ScalarType::kInt, {4, 6}, true);
  REQUIRE(h.call("executorch_prim::et_view.default", {self, h.int_list({-1, 2}), dyn}).ok());
  CHECK(h.sizes(dyn) == std::vector<int32_t>{3, 2});
  CHECK(h.data<int32_t>(dyn) == std::vector<int32_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("et_view errors", "[prim]") {
  KernelHarness h;
  auto self = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = h.out(ScalarType::kFloat, {3, 2}, true);
  const std::string op = "executorch_prim::et_view.default";
  CHECK(failure(h, op, {self, h.int_list({-1, -1}), out}) == op + ": only one dimension can be -1");
  CHECK(failure(h, op, {self, h.int_list({4, 2}), out}) == op + ": size [4, 2] is invalid for self of 6 elements");
  CHECK(failure(h, op, {self, h.int_list({-2, 3}), out}) == op + ": invalid size -2");
  CHECK(failure(h, op, {self, h.int_list({6}), out}) == op + ": size has 1 entries but out has rank 2");
  auto ints = h.out(ScalarType::kInt, {3, 2});
  CHECK(failure(h, op, {self, h.int_list({3, 2}), ints}) == op + ": out dtype INT differs from self dtype FLOAT");
  auto empty = h.tensor<float>(ScalarType::kFloat, {0, 3}, {});
  auto out0 = h.out(ScalarType::kFloat, {0, 3}, true);
  CHECK(failure(h, op, {empty, h.int_list({0, -1}), out0}) == op + ": cannot infer the -1 in [0, -1]: another size is 0");
  auto transposed = h.tensor<float>(ScalarType::kFloat, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  CHECK(failure(h, op, {transposed, h.int_list({3, 2}), out}) == op + ": self and out must have the default dim order");
  auto fixed = h.out(ScalarType::kFloat, {3, 2});
  CHECK(failure(h, op, {self, h.int_list({1, 6}), fixed}) == op + ": out: cannot resize a static tensor");
}

TEST_CASE("et_copy_index grows copy_to row by row", "[prim]") {
  KernelHarness h;
  // Upper bound [3, 2]; starts with no rows, as a map output before the loop.
  auto to = h.out(ScalarType::kFloat, {3, 2}, true);
  const int64_t empty[] = {0, 2};
  REQUIRE(h.tensor_at(to).resize(empty).ok());
  const std::string op = "executorch_prim::et_copy_index.tensor";
  for (int64_t i = 0; i < 3; ++i) {
    auto row = h.tensor<float>(ScalarType::kFloat, {2}, {float(10 * i), float(10 * i + 1)});
    REQUIRE(h.call(op, {to, row, h.integer(i)}).ok());
    CHECK(h.sizes(to) == std::vector<int32_t>{int32_t(i + 1), 2});
  }
  CHECK(h.data<float>(to) == std::vector<float>{0, 1, 10, 11, 20, 21});
  // Writing an existing row does not shrink the tensor.
  REQUIRE(h.call(op, {to, h.tensor<float>(ScalarType::kFloat, {2}, {-1, -2}), h.integer(0)}).ok());
  CHECK(h.data<float>(to) == std::vector<float>{-1, -2, 10, 11, 20, 21});
  // Past the upper bound.
  CHECK(failure(h, op, {to, h.tensor<float>(ScalarType::kFloat, {2}, {0, 0}), h.integer(3)}) ==
        op + ": copy_to: resize to 8 elements exceeds the upper bound of 6");
}

TEST_CASE("et_copy_index copies a non-contiguous row in logical order", "[prim]") {
  KernelHarness h;
  auto to = h.out(ScalarType::kInt, {2, 2, 3});
  // Logical [[1,2,3],[4,5,6]] stored with dim order (1, 0).
  auto row = h.tensor<int32_t>(ScalarType::kInt, {2, 3}, {1, 4, 2, 5, 3, 6}, {1, 0});
  REQUIRE(h.call("executorch_prim::et_copy_index.tensor", {to, row, h.integer(1)}).ok());
  CHECK(h.data<int32_t>(to) == std::vector<int32_t>{0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6});
}

TEST_CASE("et_copy_index errors", "[prim]") {
  KernelHarness h;
  const std::string op = "executorch_prim::et_copy_index.tensor";
  auto to = h.out(ScalarType::kFloat, {2, 3});
  auto row = h.tensor<float>(ScalarType::kFloat, {3}, {1, 2, 3});
  CHECK(failure(h, op, {to, to, h.integer(0)}) == op + ": copy_to has rank 2, copy_from rank 2: they must differ by 1");
  CHECK(failure(h, op, {to, h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3}), h.integer(0)}) ==
        op + ": copy_to dtype FLOAT differs from copy_from dtype INT");
  CHECK(failure(h, op, {to, h.tensor<float>(ScalarType::kFloat, {2}, {1, 2}), h.integer(0)}) ==
        op + ": copy_from shape [2] does not match the rows of copy_to [2, 3]");
  CHECK(failure(h, op, {to, row, h.integer(-1)}) == op + ": index -1 out of range");
  CHECK(failure(h, op, {to, row, h.integer(2)}) == op + ": copy_to: cannot resize a static tensor");
  CHECK(failure(h, op, {to, row, h.real(1.0)}) == op + ": index must be an int, not Double");
}
