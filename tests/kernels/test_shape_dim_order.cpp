// Same-shape copies into out's own dim order and dtype: clone,
// _clone_dim_order, _to_dim_order_copy, _to_copy, copy. NCHW [1,2,2,2]
// holding 0..7 is, channels-last (dim order 0,2,3,1), the memory
// 0,4,1,5,2,6,3,7: for each (h, w) both channels.
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

const std::vector<float> kNchw = {0, 1, 2, 3, 4, 5, 6, 7};
const std::vector<float> kChannelsLast = {0, 4, 1, 5, 2, 6, 3, 7};

}  // namespace

TEST_CASE("_clone_dim_order converts between NCHW and channels-last", "[kernels][shape][dim_order]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, kNchw);
  auto cl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.boolean(false), h.int_list({0, 2, 3, 1}), cl, cl}).ok());
  CHECK(h.data<float>(cl) == kChannelsLast);
  // And back: channels-last in, contiguous out.
  auto back = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {cl, h.boolean(false), h.int_list({0, 1, 2, 3}), back, back}).ok());
  CHECK(h.data<float>(back) == kNchw);
  // dim_order None: out's own dim order decides.
  auto cl2 = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {x, h.boolean(false), h.none(), cl2, cl2}).ok());
  CHECK(h.data<float>(cl2) == kChannelsLast);
  // Channels-last to channels-last is a plain copy.
  auto same = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {cl, h.boolean(false), h.int_list({0, 2, 3, 1}), same, same}).ok());
  CHECK(h.data<float>(same) == kChannelsLast);

  // Half is copied bytewise, whatever the layout.
  auto hx = h.tensor<uint16_t>(ScalarType::kHalf, {1, 2, 1, 2}, {0x3C00, 0x4000, 0x4200, 0x4400});
  auto hcl = h.out(ScalarType::kHalf, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("dim_order_ops::_clone_dim_order.out", {hx, h.boolean(false), h.none(), hcl, hcl}).ok());
  CHECK(h.data<uint16_t>(hcl) == std::vector<uint16_t>{0x3C00, 0x4200, 0x4000, 0x4400});
}

TEST_CASE("_clone_dim_order errors", "[kernels][shape][dim_order]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, kNchw);
  auto cl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  const std::string op = "dim_order_ops::_clone_dim_order.out";
  CHECK(failure(h, op, {x, h.boolean(false), h.int_list({0, 1, 2, 3}), cl, cl}) ==
        "dim_order_ops::_clone_dim_order.out: dim_order [0, 1, 2, 3] does not match out's dim order [0, 2, 3, 1]");
  CHECK(failure(h, op, {x, h.boolean(false), h.int_list({0, 1, 2}), cl, cl}) ==
        "dim_order_ops::_clone_dim_order.out: dim_order [0, 1, 2] is not a permutation of the 4 dims of self");
  CHECK(failure(h, op, {x, h.boolean(false), h.int_list({0, 2, 2, 1}), cl, cl}) ==
        "dim_order_ops::_clone_dim_order.out: dim_order [0, 2, 2, 1] is not a permutation of the 4 dims of self");
  CHECK(failure(h, op, {x, h.integer(0), h.none(), cl, cl}) ==
        "dim_order_ops::_clone_dim_order.out: non_blocking must be a bool, not Int");
  auto half = h.out(ScalarType::kHalf, {1, 2, 2, 2});
  CHECK(failure(h, op, {x, h.boolean(false), h.none(), half, half}) ==
        "dim_order_ops::_clone_dim_order.out: out has dtype HALF, expected FLOAT");
  auto small = h.out(ScalarType::kFloat, {1, 2, 2, 1});
  CHECK(failure(h, op, {x, h.boolean(false), h.none(), small, small}) ==
        "dim_order_ops::_clone_dim_order.out: out: cannot resize a static tensor");
}

TEST_CASE("_to_dim_order_copy converts dtype and layout", "[kernels][shape][dim_order]") {
  KernelHarness h;
  // int64 [1, 2, 1, 2]: channel 0 holds 0, 1 and channel 1 holds 2, 3;
  // channels-last memory is (w0: c0, c1), (w1: c0, c1) = 0, 2, 1, 3.
  auto l = h.tensor<int64_t>(ScalarType::kLong, {1, 2, 1, 2}, {0, 1, 2, 3});
  auto f = h.out(ScalarType::kFloat, {1, 2, 1, 2}, false, {0, 2, 3, 1});
  const std::string op = "dim_order_ops::_to_dim_order_copy.out";
  REQUIRE(h.call(op, {l, h.boolean(false), h.int_list({0, 2, 3, 1}), f, f}).ok());
  CHECK(h.data<float>(f) == std::vector<float>{0, 2, 1, 3});

  // int64 -> float32, including a 0-dim constant (const_methods.pte).
  auto big = h.tensor<int64_t>(ScalarType::kLong, {3}, {3, -4, 1 << 24});
  auto bf = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call(op, {big, h.boolean(false), h.none(), bf, bf}).ok());
  CHECK(h.data<float>(bf) == std::vector<float>{3.0f, -4.0f, 16777216.0f});
  auto zero_dim = h.tensor<int64_t>(ScalarType::kLong, {}, {128});
  auto zf = h.out(ScalarType::kFloat, {});
  REQUIRE(h.call(op, {zero_dim, h.boolean(false), h.int_list({}), zf, zf}).ok());
  CHECK(h.data<float>(zf) == std::vector<float>{128.0f});

  // float -> half -> float: 1.5 and -2 are exact, 65504 is half's largest,
  // 0.1 rounds to 0x2E66 = 0.0999755859375.
  auto src = h.tensor<float>(ScalarType::kFloat, {4}, {1.5f, 0.1f, -2.0f, 65504.0f});
  auto half = h.out(ScalarType::kHalf, {4});
  REQUIRE(h.call(op, {src, h.boolean(false), h.none(), half, half}).ok());
  CHECK(h.data<uint16_t>(half) == std::vector<uint16_t>{0x3E00, 0x2E66, 0xC000, 0x7BFF});
  auto back = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call(op, {half, h.boolean(false), h.none(), back, back}).ok());
  CHECK(h.data<float>(back) == std::vector<float>{1.5f, 0.0999755859375f, -2.0f, 65504.0f});

  // float -> bfloat16 -> float: 0.1f is 0x3DCCCCCD, rounded to 0x3DCD =
  // 0.10009765625; 65504 (0x477FE000) rounds up to 0x4780 = 65536.
  auto bf16 = h.out(ScalarType::kBFloat16, {4});
  REQUIRE(h.call(op, {src, h.boolean(false), h.none(), bf16, bf16}).ok());
  CHECK(h.data<uint16_t>(bf16) == std::vector<uint16_t>{0x3FC0, 0x3DCD, 0xC000, 0x4780});
  auto back16 = h.out(ScalarType::kFloat, {4});
  REQUIRE(h.call(op, {bf16, h.boolean(false), h.none(), back16, back16}).ok());
  CHECK(h.data<float>(back16) == std::vector<float>{1.5f, 0.10009765625f, -2.0f, 65536.0f});

  // float -> int32 truncates toward zero; int -> bool is != 0; bool -> float.
  auto fr = h.tensor<float>(ScalarType::kFloat, {3}, {1.9f, -1.9f, 0.0f});
  auto ir = h.out(ScalarType::kInt, {3});
  REQUIRE(h.call(op, {fr, h.boolean(false), h.none(), ir, ir}).ok());
  CHECK(h.data<int32_t>(ir) == std::vector<int32_t>{1, -1, 0});
  auto ints = h.tensor<int32_t>(ScalarType::kInt, {3}, {0, 2, -1});
  auto bools = h.out(ScalarType::kBool, {3});
  REQUIRE(h.call(op, {ints, h.boolean(false), h.none(), bools, bools}).ok());
  CHECK(h.data<bool>(bools) == std::vector<bool>{false, true, true});
  auto bf2 = h.out(ScalarType::kFloat, {3});
  REQUIRE(h.call(op, {bools, h.boolean(false), h.none(), bf2, bf2}).ok());
  CHECK(h.data<float>(bf2) == std::vector<float>{0, 1, 1});
  // double -> uint8 and int8 -> int64 (sign kept).
  auto d = h.tensor<double>(ScalarType::kDouble, {2}, {200.0, 7.5});
  auto u8 = h.out(ScalarType::kByte, {2});
  REQUIRE(h.call(op, {d, h.boolean(false), h.none(), u8, u8}).ok());
  CHECK(h.data<uint8_t>(u8) == std::vector<uint8_t>{200, 7});
  auto i8 = h.tensor<int8_t>(ScalarType::kChar, {2}, {-128, 5});
  auto i64 = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call(op, {i8, h.boolean(false), h.none(), i64, i64}).ok());
  CHECK(h.data<int64_t>(i64) == std::vector<int64_t>{-128, 5});

  // Empty tensors convert to empty tensors.
  auto e = h.tensor<int64_t>(ScalarType::kLong, {0, 2}, {});
  auto ef = h.out(ScalarType::kFloat, {0, 2});
  REQUIRE(h.call(op, {e, h.boolean(false), h.none(), ef, ef}).ok());

  auto complex = h.out(ScalarType::kComplexFloat, {3});
  CHECK(failure(h, op, {fr, h.boolean(false), h.none(), complex, complex}) ==
        "dim_order_ops::_to_dim_order_copy.out: cannot convert FLOAT to COMPLEX64");
}

TEST_CASE("clone, _to_copy and copy", "[kernels][shape][clone]") {
  KernelHarness h;
  auto x = h.tensor<float>(ScalarType::kFloat, {1, 2, 2, 2}, kNchw);
  auto c = h.out(ScalarType::kFloat, {1, 2, 2, 2});
  REQUIRE(h.call("aten::clone.out", {x, h.none(), c, c}).ok());
  CHECK(h.data<float>(c) == kNchw);
  // memory_format 1 (preserve) into a channels-last out.
  auto ccl = h.out(ScalarType::kFloat, {1, 2, 2, 2}, false, {0, 2, 3, 1});
  REQUIRE(h.call("aten::clone.out", {x, h.integer(1), ccl, ccl}).ok());
  CHECK(h.data<float>(ccl) == kChannelsLast);
  CHECK(failure(h, "aten::clone.out", {x, h.integer(2), c, c}) ==
        "aten::clone.out: memory_format 2 is not supported (only contiguous or preserve)");
  auto ci = h.out(ScalarType::kInt, {1, 2, 2, 2});
  CHECK(failure(h, "aten::clone.out", {x, h.none(), ci, ci}) == "aten::clone.out: out has dtype INT, expected FLOAT");

  // _to_copy converts: float -> int64, memory_format 0 (contiguous).
  auto f = h.tensor<float>(ScalarType::kFloat, {2}, {2.75f, -3.5f});
  auto l = h.out(ScalarType::kLong, {2});
  REQUIRE(h.call("aten::_to_copy.out", {f, h.boolean(false), h.integer(0), l, l}).ok());
  CHECK(h.data<int64_t>(l) == std::vector<int64_t>{2, -3});
  CHECK(failure(h, "aten::_to_copy.out", {f, h.boolean(false), h.integer(2), l, l}) ==
        "aten::_to_copy.out: memory_format 2 is not supported (only contiguous or preserve)");
  CHECK(failure(h, "aten::_to_copy.out", {f, h.boolean(false), h.real(0), l, l}) ==
        "aten::_to_copy.out: memory_format must be an int or None, not Double");

  // copy: src [2] int32 broadcast over self [2, 2], converted to float.
  auto self = h.tensor<float>(ScalarType::kFloat, {2, 2}, {9, 9, 9, 9});
  auto src = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 2});
  auto out = h.out(ScalarType::kFloat, {2, 2});
  REQUIRE(h.call("aten::copy.out", {self, src, h.boolean(false), out, out}).ok());
  CHECK(h.data<float>(out) == std::vector<float>{1, 2, 1, 2});
  auto wide = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  CHECK(failure(h, "aten::copy.out", {self, wide, h.boolean(false), out, out}) ==
        "aten::copy.out: src [3] cannot be broadcast to self [2, 2]");
}
