// executorch_prim scalar operators: Python semantics on Int, Double and Bool
// values; the result replaces the placeholder in the last slot.
#include <cmath>
#include <limits>

#include "tests/support/kernel_harness.h"

using etkit::test::KernelHarness;
namespace rt = etkit::rt;

namespace {

// Runs a binary prim op on two values and returns the result slot.
rt::EValue binary(KernelHarness& h, const std::string& op, size_t a, size_t b) {
  auto out = h.integer(0);  // the placeholder the emitter stores
  auto s = h.call("executorch_prim::" + op, {a, b, out});
  INFO(op << ": " << (s ? "" : s.error().message));
  REQUIRE(s.ok());
  return h.value(out);
}

rt::EValue unary(KernelHarness& h, const std::string& op, size_t a) {
  auto out = h.integer(0);
  auto s = h.call("executorch_prim::" + op, {a, out});
  INFO(op << ": " << (s ? "" : s.error().message));
  REQUIRE(s.ok());
  return h.value(out);
}

std::string failure(KernelHarness& h, const std::string& op, const std::vector<size_t>& args) {
  auto s = h.call(op, args);
  REQUIRE_FALSE(s.ok());
  return s.error().message;
}

}  // namespace

TEST_CASE("prim add/sub/mul: Int op Int is Int, a Double makes Double", "[prim]") {
  KernelHarness h;
  auto r = binary(h, "add.Scalar", h.integer(3), h.integer(4));
  CHECK(r.tag == rt::Tag::kInt);
  CHECK(r.i == 7);
  r = binary(h, "sub.Scalar", h.integer(3), h.integer(10));
  CHECK((r.tag == rt::Tag::kInt && r.i == -7));
  r = binary(h, "mul.Scalar", h.integer(3), h.real(0.5));
  CHECK((r.tag == rt::Tag::kDouble && r.d == 1.5));
  r = binary(h, "add.Scalar", h.real(0.25), h.integer(1));
  CHECK((r.tag == rt::Tag::kDouble && r.d == 1.25));
  // Bool counts as 0 or 1, as in Python (True + 1 == 2).
  r = binary(h, "add.Scalar", h.boolean(true), h.integer(1));
  CHECK((r.tag == rt::Tag::kInt && r.i == 2));
}

TEST_CASE("prim truediv always gives a Double", "[prim]") {
  KernelHarness h;
  auto r = binary(h, "truediv.Scalar", h.integer(7), h.integer(2));
  CHECK((r.tag == rt::Tag::kDouble && r.d == 3.5));
  r = binary(h, "truediv.Scalar", h.integer(1), h.integer(0));  // IEEE, as ExecuTorch
  CHECK((r.tag == rt::Tag::kDouble && std::isinf(r.d) && r.d > 0));
}

TEST_CASE("prim floordiv rounds toward -infinity", "[prim]") {
  KernelHarness h;
  CHECK(binary(h, "floordiv.Scalar", h.integer(7), h.integer(2)).i == 3);
  CHECK(binary(h, "floordiv.Scalar", h.integer(-7), h.integer(2)).i == -4);
  CHECK(binary(h, "floordiv.Scalar", h.integer(7), h.integer(-2)).i == -4);
  CHECK(binary(h, "floordiv.Scalar", h.integer(-8), h.integer(2)).i == -4);
  // floordiv.int truncates like C, as ExecuTorch's kernel does.
  CHECK(binary(h, "floordiv.int", h.integer(-7), h.integer(2)).i == -3);
  auto d = binary(h, "floordiv.Scalar", h.real(-7.5), h.integer(2));
  CHECK((d.tag == rt::Tag::kDouble && d.d == -4.0));
  d = binary(h, "floordiv.Scalar", h.real(7.5), h.real(-2.5));
  CHECK(d.d == -3.0);
  // A Double zero divisor gives infinity (ExecuTorch's choice), an Int one fails.
  d = binary(h, "floordiv.Scalar", h.real(-1.0), h.integer(0));
  CHECK((std::isinf(d.d) && d.d < 0));
  auto out = h.integer(0);
  CHECK(failure(h, "executorch_prim::floordiv.Scalar", {h.integer(1), h.integer(0), out}) ==
        "executorch_prim::floordiv.Scalar: integer division by zero");
  CHECK(failure(h, "executorch_prim::floordiv.int", {h.integer(std::numeric_limits<int64_t>::min()), h.integer(-1), out}) ==
        "executorch_prim::floordiv.int: integer overflow");
}

TEST_CASE("prim mod on Ints truncates like C, on Doubles takes the divisor's sign", "[prim]") {
  KernelHarness h;
  CHECK(binary(h, "mod.Scalar", h.integer(7), h.integer(3)).i == 1);
  CHECK(binary(h, "mod.Scalar", h.integer(-7), h.integer(3)).i == -1);  // C: -7 % 3
  CHECK(binary(h, "mod.Scalar", h.integer(7), h.integer(-3)).i == 1);
  CHECK(binary(h, "mod.int", h.integer(-7), h.integer(3)).i == -1);
  CHECK(binary(h, "mod.int", h.integer(std::numeric_limits<int64_t>::min()), h.integer(-1)).i == 0);
  auto d = binary(h, "mod.Scalar", h.real(-7.5), h.integer(2));
  CHECK((d.tag == rt::Tag::kDouble && d.d == 0.5));
  CHECK(std::isnan(binary(h, "mod.Scalar", h.real(1.0), h.real(0.0)).d));
  auto out = h.integer(0);
  CHECK(failure(h, "executorch_prim::mod.int", {h.integer(5), h.integer(0), out}) ==
        "executorch_prim::mod.int: integer modulo by zero");
}

TEST_CASE("prim .int overloads take only Int (or Bool) operands", "[prim]") {
  KernelHarness h;
  auto out = h.integer(0);
  CHECK(failure(h, "executorch_prim::floordiv.int", {h.real(7.0), h.integer(2), out}) ==
        "executorch_prim::floordiv.int: a must be an int, not Double");
  CHECK(failure(h, "executorch_prim::mod.int", {h.integer(7), h.string("2"), out}) ==
        "executorch_prim::mod.int: b must be an int, not String");
}

TEST_CASE("prim comparisons give Bool across Int, Double and Bool", "[prim]") {
  KernelHarness h;
  auto r = binary(h, "eq.Scalar", h.integer(2), h.real(2.0));
  CHECK((r.tag == rt::Tag::kBool && r.b));
  CHECK(binary(h, "gt.Scalar", h.integer(3), h.integer(2)).b);
  CHECK_FALSE(binary(h, "lt.Scalar", h.integer(3), h.integer(2)).b);
  CHECK(binary(h, "ge.Scalar", h.real(2.5), h.real(2.5)).b);
  CHECK(binary(h, "le.Scalar", h.integer(-1), h.real(-0.5)).b);
  CHECK(binary(h, "eq.Scalar", h.boolean(true), h.boolean(true)).b);
  CHECK(binary(h, "eq.Scalar", h.boolean(true), h.integer(1)).b);
  // Int comparisons are exact beyond 2^53.
  CHECK_FALSE(binary(h, "eq.Scalar", h.integer((int64_t(1) << 53) + 1), h.integer(int64_t(1) << 53)).b);
}

TEST_CASE("prim sym_max and sym_min", "[prim]") {
  KernelHarness h;
  auto r = binary(h, "sym_max.Scalar", h.integer(3), h.integer(9));
  CHECK((r.tag == rt::Tag::kInt && r.i == 9));
  r = binary(h, "sym_min.Scalar", h.integer(3), h.integer(9));
  CHECK((r.tag == rt::Tag::kInt && r.i == 3));
  r = binary(h, "sym_max.Scalar", h.integer(3), h.real(2.5));
  CHECK((r.tag == rt::Tag::kDouble && r.d == 3.0));
}

TEST_CASE("prim Int arithmetic fails on overflow instead of wrapping", "[prim]") {
  KernelHarness h;
  auto out = h.integer(0);
  const int64_t max = std::numeric_limits<int64_t>::max();
  CHECK(failure(h, "executorch_prim::add.Scalar", {h.integer(max), h.integer(1), out}) ==
        "executorch_prim::add.Scalar: integer overflow");
  CHECK(failure(h, "executorch_prim::mul.Scalar", {h.integer(max), h.integer(2), out}) ==
        "executorch_prim::mul.Scalar: integer overflow");
  CHECK(failure(h, "executorch_prim::sub.Scalar", {h.integer(-max), h.integer(2), out}) ==
        "executorch_prim::sub.Scalar: integer overflow");
  CHECK(failure(h, "executorch_prim::neg.Scalar", {h.integer(-max - 1), out}) ==
        "executorch_prim::neg.Scalar: integer overflow");
}

TEST_CASE("prim result may overwrite an operand (i = i + 1)", "[prim]") {
  KernelHarness h;
  auto i = h.integer(4);
  REQUIRE(h.call("executorch_prim::add.Scalar", {i, h.integer(1), i}).ok());
  CHECK(h.value(i).i == 5);
  auto d = h.real(1.5);
  REQUIRE(h.call("executorch_prim::truediv.Scalar", {d, d, d}).ok());
  CHECK(h.value(d).d == 1.0);
}

TEST_CASE("prim neg, sym_float, sym_int, sym_not", "[prim]") {
  KernelHarness h;
  auto r = unary(h, "neg.Scalar", h.integer(5));
  CHECK((r.tag == rt::Tag::kInt && r.i == -5));
  r = unary(h, "neg.Scalar", h.real(2.5));
  CHECK((r.tag == rt::Tag::kDouble && r.d == -2.5));
  r = unary(h, "sym_float.Scalar", h.integer(3));
  CHECK((r.tag == rt::Tag::kDouble && r.d == 3.0));
  r = unary(h, "sym_float.Scalar", h.boolean(true));
  CHECK((r.tag == rt::Tag::kDouble && r.d == 1.0));
  r = unary(h, "sym_int.Scalar", h.real(-2.7));
  CHECK((r.tag == rt::Tag::kInt && r.i == -2));
  r = unary(h, "sym_int.Scalar", h.integer(12));
  CHECK((r.tag == rt::Tag::kInt && r.i == 12));
  r = unary(h, "sym_not.Scalar", h.boolean(false));
  CHECK((r.tag == rt::Tag::kBool && r.b));
  auto out = h.integer(0);
  CHECK(failure(h, "executorch_prim::sym_not.Scalar", {h.integer(1), out}) ==
        "executorch_prim::sym_not.Scalar: a must be a bool, not Int");
}

TEST_CASE("prim ceil, round (half to even) and trunc give Int", "[prim]") {
  KernelHarness h;
  CHECK(unary(h, "ceil.Scalar", h.real(2.1)).i == 3);
  CHECK(unary(h, "ceil.Scalar", h.real(-2.1)).i == -2);
  CHECK(unary(h, "round.Scalar", h.real(2.5)).i == 2);
  CHECK(unary(h, "round.Scalar", h.real(3.5)).i == 4);
  CHECK(unary(h, "round.Scalar", h.real(-2.5)).i == -2);
  CHECK(unary(h, "round.Scalar", h.real(-2.6)).i == -3);
  CHECK(unary(h, "round.Scalar", h.real(0.49999999999999994)).i == 0);
  CHECK(unary(h, "trunc.Scalar", h.real(-2.9)).i == -2);
  auto r = unary(h, "ceil.Scalar", h.integer(7));  // an Int is already integral
  CHECK((r.tag == rt::Tag::kInt && r.i == 7));
  auto out = h.integer(0);
  CHECK(failure(h, "executorch_prim::trunc.Scalar", {h.real(INFINITY), out}) ==
        "executorch_prim::trunc.Scalar: value inf does not fit an Int");
  CHECK(failure(h, "executorch_prim::sym_int.Scalar", {h.real(NAN), out}) ==
        "executorch_prim::sym_int.Scalar: value nan does not fit an Int");
  CHECK(failure(h, "executorch_prim::round.Scalar", {h.real(1e19), out}) ==
        "executorch_prim::round.Scalar: value 1e+19 does not fit an Int");
}

TEST_CASE("prim sym_ite copies the chosen value", "[prim]") {
  KernelHarness h;
  auto out = h.integer(0);
  REQUIRE(h.call("executorch_prim::sym_ite.Scalar", {h.boolean(true), h.integer(4), h.real(9.5), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kInt && h.value(out).i == 4));
  REQUIRE(h.call("executorch_prim::sym_ite.Scalar", {h.boolean(false), h.integer(4), h.real(9.5), out}).ok());
  CHECK((h.value(out).tag == rt::Tag::kDouble && h.value(out).d == 9.5));
  CHECK(failure(h, "executorch_prim::sym_ite.Scalar", {h.integer(1), h.integer(4), h.integer(5), out}) ==
        "executorch_prim::sym_ite.Scalar: b must be a bool, not Int");
  CHECK(failure(h, "executorch_prim::sym_ite.Scalar", {h.boolean(false), h.integer(4), h.none(), out}) ==
        "executorch_prim::sym_ite.Scalar: f must be a scalar, not None");
}

TEST_CASE("prim scalar ops reject non-scalar operands and result slots", "[prim]") {
  KernelHarness h;
  auto t = h.tensor<float>(etkit::ScalarType::kFloat, {1}, {1.0f});
  auto out = h.integer(0);
  CHECK(failure(h, "executorch_prim::add.Scalar", {t, h.integer(1), out}) ==
        "executorch_prim::add.Scalar: a must be a scalar, not Tensor");
  CHECK(failure(h, "executorch_prim::eq.Scalar", {h.integer(1), h.string("x"), out}) ==
        "executorch_prim::eq.Scalar: b must be a scalar, not String");
  // The method owns the tensor in a slot: it is never overwritten.
  CHECK(failure(h, "executorch_prim::add.Scalar", {h.integer(1), h.integer(1), t}) ==
        "executorch_prim::add.Scalar: the result slot holds a Tensor, not a scalar");
  CHECK(h.value(t).tag == rt::Tag::kTensor);
  // A None placeholder is fine.
  auto none = h.none();
  REQUIRE(h.call("executorch_prim::add.Scalar", {h.integer(1), h.integer(1), none}).ok());
  CHECK(h.value(none).i == 2);
}

TEST_CASE("prim kernels check their slot count themselves", "[prim]") {
  KernelHarness h;
  const rt::KernelInfo* k = rt::portable_kernel_registry().find("executorch_prim::add.Scalar");
  REQUIRE(k != nullptr);
  CHECK(k->prim);
  CHECK(k->num_args == 3);
  CHECK(k->out_args.empty());
  auto a = h.integer(1);
  std::vector<rt::EValue*> args{&h.value(a), &h.value(a)};
  rt::KernelContext ctx("executorch_prim::add.Scalar", {});
  auto s = k->fn(ctx, args);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "executorch_prim::add.Scalar: expected 3 arguments, got 2");
}

TEST_CASE("prim table: every ExecuTorch prim op, with its slot count", "[prim]") {
  const std::pair<const char*, int> expected[] = {
      {"aten::sym_size.int", 3},
      {"aten::sym_numel", 2},
      {"aten::_local_scalar_dense", 2},
      {"executorch_prim::add.Scalar", 3},
      {"executorch_prim::sub.Scalar", 3},
      {"executorch_prim::mul.Scalar", 3},
      {"executorch_prim::floordiv.Scalar", 3},
      {"executorch_prim::truediv.Scalar", 3},
      {"executorch_prim::eq.Scalar", 3},
      {"executorch_prim::gt.Scalar", 3},
      {"executorch_prim::lt.Scalar", 3},
      {"executorch_prim::ge.Scalar", 3},
      {"executorch_prim::le.Scalar", 3},
      {"executorch_prim::mod.Scalar", 3},
      {"executorch_prim::sym_max.Scalar", 3},
      {"executorch_prim::sym_min.Scalar", 3},
      {"executorch_prim::floordiv.int", 3},
      {"executorch_prim::mod.int", 3},
      {"executorch_prim::neg.Scalar", 2},
      {"executorch_prim::sym_float.Scalar", 2},
      {"executorch_prim::sym_int.Scalar", 2},
      {"executorch_prim::sym_not.Scalar", 2},
      {"executorch_prim::ceil.Scalar", 2},
      {"executorch_prim::round.Scalar", 2},
      {"executorch_prim::trunc.Scalar", 2},
      {"executorch_prim::sym_ite.Scalar", 4},
      {"executorch_prim::et_view.default", 3},
      {"executorch_prim::et_copy_index.tensor", 3},
  };
  CHECK(std::size(expected) == 28);  // portable_ops.md §B
  for (const auto& [name, slots] : expected) {
    INFO(name);
    const rt::KernelInfo* k = rt::portable_kernel_registry().find(name);
    REQUIRE(k != nullptr);
    CHECK(k->num_args == slots);
    CHECK(k->prim);
    CHECK(k->out_args.empty());
  }
}
