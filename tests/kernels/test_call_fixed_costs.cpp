// The pieces a small operator pays on every call (issue #15): the cached
// contiguity of a tensor, the fill of every element size, and the argument
// checks whose messages moved out of line, which must still refuse what
// they refused, with the same words.
#include <cmath>
#include <cstring>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::rt::Tensor;
using etkit::test::KernelHarness;

TEST_CASE("Tensor: contiguity is the dim order's, also after a resize", "[kernels][tensor]") {
  int32_t storage[24] = {};
  CHECK(Tensor(ScalarType::kInt, {}, {}, storage).is_contiguous());
  CHECK(Tensor(ScalarType::kInt, {2, 3, 4}, {0, 1, 2}, storage).is_contiguous());
  CHECK(Tensor(ScalarType::kInt, {2, 3, 4}, {}, storage).is_contiguous());  // no dim order: 0..n-1
  CHECK_FALSE(Tensor(ScalarType::kInt, {2, 3, 4}, {0, 2, 1}, storage).is_contiguous());
  CHECK_FALSE(Tensor(ScalarType::kInt, {1, 2, 3, 4}, {0, 2, 3, 1}, storage).is_contiguous());
  Tensor dynamic(ScalarType::kInt, {2, 3, 4}, {1, 0, 2}, storage, etkit::pte::ShapeDynamism::kDynamicBound);
  REQUIRE(dynamic.resize(std::vector<int32_t>{1, 3, 4}).ok());
  CHECK_FALSE(dynamic.is_contiguous());
  Tensor plain(ScalarType::kInt, {2, 3, 4}, {0, 1, 2}, storage, etkit::pte::ShapeDynamism::kDynamicBound);
  REQUIRE(plain.resize(std::vector<int32_t>{2, 1, 4}).ok());
  CHECK(plain.is_contiguous());
}

TEST_CASE("full.out writes the element's bytes for sizes 1, 2, 4 and 8", "[kernels][shape][fill]") {
  struct Case {
    ScalarType dtype;
    double value;
    std::vector<uint8_t> element;  // the little-endian bytes of value in dtype
  };
  const Case cases[] = {
      {ScalarType::kByte, 200, {0xc8}},
      {ScalarType::kBool, 1, {0x01}},
      {ScalarType::kHalf, 1.5, {0x00, 0x3e}},              // binary16 0x3e00
      {ScalarType::kShort, -2, {0xfe, 0xff}},
      {ScalarType::kFloat, -2.5, {0x00, 0x00, 0x20, 0xc0}},  // binary32 0xc0200000
      {ScalarType::kInt, 0, {0x00, 0x00, 0x00, 0x00}},
      {ScalarType::kDouble, 0.75, {0, 0, 0, 0, 0, 0, 0xe8, 0x3f}},  // binary64 0x3fe8000000000000
      {ScalarType::kLong, 258, {0x02, 0x01, 0, 0, 0, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    for (int32_t n : {1, 3, 17}) {
      INFO("dtype " << int(c.dtype) << ", n = " << n);
      KernelHarness h;
      const size_t size = h.int_list({n});
      const size_t value = c.dtype == ScalarType::kHalf || c.dtype == ScalarType::kFloat ||
                                   c.dtype == ScalarType::kDouble
                               ? h.real(c.value)
                               : h.integer(int64_t(c.value));
      auto out = h.out(c.dtype, {n});
      REQUIRE(h.call("aten::full.out", {size, value, out, out}).ok());
      const Tensor& t = h.tensor_at(out);
      const auto* bytes = static_cast<const uint8_t*>(t.data());
      const size_t e = c.element.size();
      REQUIRE(t.nbytes() == size_t(n) * e);
      for (int32_t i = 0; i < n; ++i) CHECK(std::memcmp(bytes + size_t(i) * e, c.element.data(), e) == 0);
    }
  }
}

TEST_CASE("argument checks with out-of-line messages still refuse", "[kernels][shape][unary]") {
  KernelHarness h;
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {1.0f, -2.0f});
  auto i = h.out(ScalarType::kInt, {2});
  auto fo = h.out(ScalarType::kFloat, {2});
  // clone: out must have self's dtype.
  CHECK(etkit::test::error_message(h.call("aten::clone.out", {f, h.none(), i, i})) ==
        "aten::clone.out: out has dtype INT, expected FLOAT");
  // clone: memory_format 2 (channels_last) and a non-int are refused.
  CHECK(etkit::test::error_message(h.call("aten::clone.out", {f, h.integer(2), fo, fo})) ==
        "aten::clone.out: memory_format 2 is not supported (only contiguous or preserve)");
  CHECK(etkit::test::error_message(h.call("aten::clone.out", {f, h.real(0), fo, fo})) ==
        "aten::clone.out: memory_format must be an int or None, not Double");
  CHECK(h.call("aten::clone.out", {f, h.integer(1), fo, fo}).ok());
  // neg: a float result cannot go into an Int out.
  CHECK(etkit::test::error_message(h.call("aten::neg.out", {f, i, i})) ==
        "aten::neg.out: result type FLOAT cannot be stored in out of type INT");
  // mean: out must be floating.
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  CHECK(etkit::test::error_message(h.call("aten::mean.out", {ints, h.none(), h.boolean(false), h.none(), i, i})) ==
        "aten::mean.out: self must be floating point, not INT");
}

TEST_CASE("full_like.out into FLOAT: ints, doubles, bools, infinities and overflow", "[kernels][shape][fill]") {
  KernelHarness h;
  auto self = h.tensor<float>(ScalarType::kFloat, {2}, {0.0f, 0.0f});
  const auto fill = [&](size_t value) {
    auto out = h.out(ScalarType::kFloat, {2});
    REQUIRE(h.call("aten::full_like.out", {self, value, h.none(), out, out}).ok());
    return h.data<float>(out);
  };
  CHECK(fill(h.integer(-3)) == std::vector<float>{-3.0f, -3.0f});
  CHECK(fill(h.real(0.1)) == std::vector<float>{0.1f, 0.1f});  // rounded to the nearest float
  CHECK(fill(h.boolean(true)) == std::vector<float>{1.0f, 1.0f});
  CHECK(fill(h.real(-HUGE_VAL)) == std::vector<float>{-HUGE_VALF, -HUGE_VALF});
  CHECK(fill(h.real(3.4028234663852886e38)) == std::vector<float>{3.4028234663852886e38f, 3.4028234663852886e38f});
  auto out = h.out(ScalarType::kFloat, {2});
  CHECK(etkit::test::error_message(h.call("aten::full_like.out", {self, h.real(-1e39), h.none(), out, out})) ==
        "aten::full_like.out: fill_value -1e+39 cannot be converted to FLOAT without overflow");
}
