// 8-bit (qint8/quint8) elementwise, pooling and mean nodes against XNNPACK's
// arithmetic as the version ExecuTorch pins (92a7ad50) computes it. Each
// expectation comes from the published formula written out here as a plain
// loop (int64 and double where XNNPACK's own rounding does not matter), or
// by hand in the comments; never from the backend's helpers.
#include <catch2/catch.hpp>

#include <cmath>
#include <array>
#include <cstdint>
#include <tuple>

#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::test;
using T = xnn::NodeType;
using D = xnn::Datatype;

namespace {

// Every byte 0..255 once (as the datatype reads it).
std::vector<uint8_t> all_bytes() {
  std::vector<uint8_t> v(256);
  for (int i = 0; i < 256; ++i) v[size_t(i)] = uint8_t(i);
  return v;
}

struct Clamp {
  bool on = false;
  float lo = 0, hi = 0;
};

std::vector<uint8_t> run_unary_q(T type, D din, QP qin, D dout, QP qout, const std::vector<uint8_t>& x, float scalar = 0,
                                 Clamp clamp = {}) {
  XnnGraphBuilder g;
  const uint32_t n = uint32_t(x.size());
  const uint32_t in = g.input({n}, din);
  const uint32_t out = g.output({n}, dout);
  set_q(g, in, qin);
  set_q(g, out, qout);
  auto& node = g.node(type, {in}, {out});
  node.scalar = scalar;
  if (clamp.on) {
    node.has_output_min_max = true;
    node.output_min = clamp.lo;
    node.output_max = clamp.hi;
  }
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<uint8_t>({int32_t(n)}, x, st_of(din)), xnn_out({int32_t(n)}, st_of(dout), 1)};
  const Status s = run_xnn(payload, args);
  INFO((s.ok() ? "" : s.error().describe()));
  REQUIRE(s.ok());
  return values_of<uint8_t>(args[1]);
}

// a [n] op b [n] with one datatype throughout.
std::vector<uint8_t> run_binary_q(T type, D d, QP qa, QP qb, QP qo, const std::vector<uint8_t>& a,
                                  const std::vector<uint8_t>& b, Clamp clamp = {}) {
  XnnGraphBuilder g;
  const uint32_t n = uint32_t(a.size());
  const uint32_t ia = g.input({n}, d), ib = g.input({n}, d), out = g.output({n}, d);
  set_q(g, ia, qa);
  set_q(g, ib, qb);
  set_q(g, out, qo);
  auto& node = g.node(type, {ia, ib}, {out});
  if (clamp.on) {
    node.has_output_min_max = true;
    node.output_min = clamp.lo;
    node.output_max = clamp.hi;
  }
  const auto payload = g.payload();
  std::vector<XnnArg> args = {xnn_arg<uint8_t>({int32_t(n)}, a, st_of(d)), xnn_arg<uint8_t>({int32_t(n)}, b, st_of(d)),
                              xnn_out({int32_t(n)}, st_of(d), 1)};
  const Status s = run_xnn(payload, args);
  INFO((s.ok() ? "" : s.error().describe()));
  REQUIRE(s.ok());
  return values_of<uint8_t>(args[2]);
}

// Signed bytes for hand-written int8 cases.
std::vector<uint8_t> s8(std::initializer_list<int> v) {
  std::vector<uint8_t> out;
  for (int x : v) out.push_back(uint8_t(int8_t(x)));
  return out;
}

// Floor division by 2^shift in int64 (an arithmetic shift right).
int64_t floor_shift(int64_t v, int shift) {
  const int64_t d = int64_t(1) << shift;
  return v >= 0 ? v / d : -((-v + d - 1) / d);
}

// Round half to even of a double, written out.
int64_t round_even(double v) {
  const double f = std::floor(v);
  const double diff = v - f;
  if (diff > 0.5) return int64_t(f) + 1;
  if (diff < 0.5) return int64_t(f);
  return int64_t(f) % 2 == 0 ? int64_t(f) : int64_t(f) + 1;
}

int32_t sat(int64_t v, D d) { return int32_t(std::min<int64_t>(std::max<int64_t>(v, lo_of(d)), hi_of(d))); }

// xnn_qs8_quantize / xnn_qu8_quantize of a float bound: v / scale + zp in
// float, saturated, rounded to nearest even.
int32_t bound_of(float v, QP q, D d) {
  const float t = v / q.scale + float(q.zp);
  return int32_t(round_even(std::min<double>(std::max<double>(t, lo_of(d)), hi_of(d))));
}

// The add requantization: multipliers round(|ratio| * 2^shift) with shift
// = 20 - floor(log2(max |ratio|)), then floor((2^(shift-1) + ma (a - za) +
// mb (b - zb)) / 2^shift) + zo, saturated (one rounding, half up).
int32_t expected_add(int32_t a, int32_t b, QP qa, QP qb, QP qo, D d, bool subtract) {
  const float ra = qa.scale / qo.scale, rb = qb.scale / qo.scale;
  int e = 0;
  std::frexp(double(std::max(ra, rb)), &e);  // max = m * 2^e, m in [0.5, 1)
  const int shift = 20 - (e - 1);
  const int64_t ma = round_even(double(ra) * std::ldexp(1.0, shift));
  int64_t mb = round_even(double(rb) * std::ldexp(1.0, shift));
  if (subtract) mb = -mb;
  const int64_t acc = (int64_t(1) << (shift - 1)) + ma * (a - qa.zp) + mb * (b - qb.zp);
  return sat(floor_shift(acc, shift) + qo.zp, d);
}

// fp32 requantization: float(acc) * scale (float), clamped to the range
// less the zero point, nearest even, plus the zero point.
int32_t expected_fp32(int64_t acc, float scale, QP qo, D d) {
  float v = float(acc) * scale;
  v = std::min(std::max(v, float(lo_of(d) - qo.zp)), float(hi_of(d) - qo.zp));
  return int32_t(round_even(v)) + qo.zp;
}

// The reference kernels' quantization: y * (1 / scale) + zp in float,
// NaN -> 0, nearest even, saturated.
int32_t expected_reference_q(float y, QP qo, D d) {
  const float inv = 1.0f / qo.scale;
  float t = y * inv;
  t = t + float(qo.zp);
  if (std::isnan(t)) return 0;
  // Saturating first is the same for integer bounds, and keeps infinities out of round_even.
  return int32_t(round_even(std::min<double>(std::max<double>(t, lo_of(d)), hi_of(d))));
}

float deq(int32_t q, QP p) { return float(q - p.zp) * p.scale; }

// The 8-bit multiplier scheme (convert, leaky ReLU): m = round(256 s);
// floor(((x - zi) m + 128) / 256) + zo, saturated.
int32_t expected_shift8(int32_t x_less_zp, float s, QP qo, D d) {
  const int64_t m = round_even(double(256.0f * s));
  return sat(floor_shift(int64_t(x_less_zp) * m + 128, 8) + qo.zp, d);
}

const D kTypes[] = {D::kQint8, D::kQuint8};

}  // namespace

TEST_CASE("xnnpack q8: add and subtract use XNNPACK's fixed-point requantization (ties round up)", "[xnnpack]") {
  // Hand-computed: a, b scale 0.5, output scale 1, zero points 0. shift = 20 - (-1) = 21,
  // multipliers 2^20. 5 * 0.5 = 2.5 -> (2^20 + 5 * 2^20) >> 21 = 3 (the fp32 path gave 2);
  // 1 * 0.5 = 0.5 -> 1 (was 0); -1 * 0.5 -> (2^20 - 2^20) >> 21 = 0; 127 + 127 -> 127.
  CHECK(run_binary_q(T::kAdd, D::kQint8, {0.5f, 0}, {0.5f, 0}, {1.0f, 0}, s8({5, 1, -1, 127}), s8({0, 0, 0, 127})) ==
        s8({3, 1, 0, 127}));
  // Subtract negates b's multiplier: 0 - 3 * 0.5 = -1.5 -> (2^20 - 3 * 2^20) >> 21 = -1 (was -2).
  CHECK(run_binary_q(T::kSubtract, D::kQint8, {0.5f, 0}, {0.5f, 0}, {1.0f, 0}, s8({0, 5, -128}), s8({3, 0, 127})) ==
        s8({-1, 3, -127}));  // -64 - 63.5 = -127.5 -> -127
  // quint8 with zero points: (a - 128) * 0.5 + (b - 100) * 0.5, out zero point 10:
  // a = 129, b = 100 -> 0.5 -> 1 + 10 = 11.
  CHECK(run_binary_q(T::kAdd, D::kQuint8, {0.5f, 128}, {0.5f, 100}, {1.0f, 10}, {129, 0, 255}, {100, 0, 255}) ==
        std::vector<uint8_t>{11, 0, 151});  // -114 saturates; 63.5 + 77.5 = 141 -> 151

  // Sweeps: every a against a spread of b, for several scale ratios, against the formula.
  const std::vector<std::array<QP, 3>> params = {
      {QP{0.5f, 0}, QP{0.25f, 4}, QP{1.0f, -3}},   {QP{0.1f, 3}, QP{0.07f, -9}, QP{0.13f, 2}},
      {QP{0.02f, -1}, QP{0.5f, 7}, QP{0.3f, 0}},    {QP{1.0f, 0}, QP{1.0f, 0}, QP{300.0f, 0}},
      {QP{0.003f, 5}, QP{0.0031f, -5}, QP{0.0062f, 1}}};
  for (D d : kTypes) {
    for (const auto& p : params) {
      QP qa = p[0], qb = p[1], qo = p[2];
      if (d == D::kQuint8) qa.zp += 128, qb.zp += 128, qo.zp += 128;
      std::vector<uint8_t> a = all_bytes(), b(256);
      for (size_t i = 0; i < 256; ++i) b[i] = uint8_t((i * 37 + 11) % 256);
      for (T type : {T::kAdd, T::kSubtract}) {
        const auto got = run_binary_q(type, d, qa, qb, qo, a, b);
        for (size_t i = 0; i < 256; ++i) {
          INFO("type " << int(type) << " a " << value_of(d, a[i]) << " b " << value_of(d, b[i]) << " scales " << qa.scale << " "
                       << qb.scale << " " << qo.scale);
          CHECK(value_of(d, got[i]) ==
                expected_add(value_of(d, a[i]), value_of(d, b[i]), qa, qb, qo, d, type == T::kSubtract));
        }
      }
    }
  }
}

TEST_CASE("xnnpack q8: add's output min/max is a clamp between quantized bounds", "[xnnpack]") {
  for (D d : kTypes) {
    const QP q{0.5f, d == D::kQint8 ? 0 : 128}, qo{1.0f, d == D::kQint8 ? 0 : 128};
    // Bounds: -2.4 / 1 + zp -> -2 + zp; 3.5 -> 4 + zp (nearest even).
    const Clamp c{true, -2.4f, 3.5f};
    std::vector<uint8_t> a = all_bytes(), b(256, uint8_t(q.zp));
    const auto got = run_binary_q(T::kAdd, d, q, q, qo, a, b, c);
    for (size_t i = 0; i < 256; ++i) {
      const int32_t want = std::min(std::max(expected_add(value_of(d, a[i]), q.zp, q, q, qo, d, false), bound_of(-2.4f, qo, d)),
                                    bound_of(3.5f, qo, d));
      CHECK(value_of(d, got[i]) == want);
    }
    CHECK(bound_of(-2.4f, qo, d) == -2 + qo.zp);
    CHECK(bound_of(3.5f, qo, d) == 4 + qo.zp);
  }
}

TEST_CASE("xnnpack q8: multiply and PReLU requantize the integer product in fp32", "[xnnpack]") {
  // Hand: scales 0.5 and 1, output 1: 1 * 5 -> 5 * 0.5 = 2.5 -> 2 (even); 1 * 3 -> 1.5 -> 2; 127 * 127 -> 127.
  CHECK(run_binary_q(T::kMultiply, D::kQint8, {0.5f, 0}, {1.0f, 0}, {1.0f, 0}, s8({1, 1, 127}), s8({5, 3, 127})) ==
        s8({2, 2, 127}));
  // All scales 0.1: the product scale 0.1f * 0.1f / 0.1f rounds to 0.10000001 in float, so 1 * 5 gives
  // 0.50000006 -> 1 (the fp32 path, 0.1 * 0.5 / 0.1, landed on 0.5 and rounded to 0).
  CHECK(run_binary_q(T::kMultiply, D::kQint8, {0.1f, 0}, {0.1f, 0}, {0.1f, 0}, s8({1, 5}), s8({5, 5})) == s8({1, 3}));
  const std::vector<std::array<QP, 3>> params = {{QP{0.1f, 3}, QP{0.07f, -9}, QP{0.013f, 2}},
                                                 {QP{0.02f, -1}, QP{0.5f, 7}, QP{0.3f, 0}},
                                                 {QP{0.7f, 0}, QP{0.3f, 1}, QP{0.9f, -4}}};
  for (D d : kTypes) {
    for (const auto& p : params) {
      QP qa = p[0], qb = p[1], qo = p[2];
      if (d == D::kQuint8) qa.zp += 128, qb.zp += 128, qo.zp += 128;
      std::vector<uint8_t> a = all_bytes(), b(256);
      for (size_t i = 0; i < 256; ++i) b[i] = uint8_t((i * 53 + 7) % 256);
      const float product = qa.scale * qb.scale / qo.scale, positive = qa.scale / qo.scale;
      const auto mul = run_binary_q(T::kMultiply, d, qa, qb, qo, a, b);
      const auto prelu = run_binary_q(T::kPReLU, d, qa, qb, qo, a, b);
      for (size_t i = 0; i < 256; ++i) {
        const int64_t x = value_of(d, a[i]) - qa.zp, w = value_of(d, b[i]) - qb.zp;
        CHECK(value_of(d, mul[i]) == expected_fp32(x * w, product, qo, d));
        CHECK(value_of(d, prelu[i]) == (x < 0 ? expected_fp32(x * w, product, qo, d) : expected_fp32(x, positive, qo, d)));
      }
    }
  }
}

TEST_CASE("xnnpack q8: divide, minimum and maximum run XNNPACK's float reference kernel", "[xnnpack]") {
  // Hand: max((3 - 1) * 0.5, (-4 - 0) * 0.25) = 1 -> 1 / 0.5 + 0 = 2; min -> -1 -> -2;
  // 3 / 2 (scales 1) = 1.5 -> 2 with output scale 1.
  CHECK(run_binary_q(T::kMaximum, D::kQint8, {0.5f, 1}, {0.25f, 0}, {0.5f, 0}, s8({3}), s8({-4})) == s8({2}));
  CHECK(run_binary_q(T::kMinimum, D::kQint8, {0.5f, 1}, {0.25f, 0}, {0.5f, 0}, s8({3}), s8({-4})) == s8({-2}));
  CHECK(run_binary_q(T::kDiv, D::kQint8, {1.0f, 0}, {1.0f, 0}, {1.0f, 0}, s8({3, 1, 5}), s8({2, 0, 2})) ==
        s8({2, 127, 2}));  // 1 / 0 = inf -> saturates; 2.5 -> 2
  for (D d : kTypes) {
    QP qa{0.1f, 3}, qb{0.07f, -9}, qo{0.05f, 2};
    if (d == D::kQuint8) qa.zp += 128, qb.zp += 128, qo.zp += 128;
    std::vector<uint8_t> a = all_bytes(), b(256);
    for (size_t i = 0; i < 256; ++i) b[i] = uint8_t((i * 91 + 3) % 256);
    for (T type : {T::kDiv, T::kMinimum, T::kMaximum}) {
      const auto got = run_binary_q(type, d, qa, qb, qo, a, b);
      for (size_t i = 0; i < 256; ++i) {
        const float x = deq(value_of(d, a[i]), qa), y = deq(value_of(d, b[i]), qb);
        const float r = type == T::kDiv ? x / y : type == T::kMinimum ? std::min(x, y) : std::max(x, y);
        INFO("node " << int(type) << " a " << x << " b " << y);
        CHECK(value_of(d, got[i]) == expected_reference_q(r, qo, d));
      }
    }
  }
}

TEST_CASE("xnnpack q8: convert between 8-bit values uses the 8-bit fixed-point multiplier", "[xnnpack]") {
  // Hand: scale 1 -> 2, zero points 0: multiplier 128. 1 -> (128 + 128) >> 8 = 1 (the fp32 path gave
  // 0: 0.5 to even); 3 -> 2; -1 -> 0; -3 -> (-384 + 128) >> 8 = -1.
  CHECK(run_unary_q(T::kConvert, D::kQint8, {1.0f, 0}, D::kQint8, {2.0f, 0}, s8({1, 3, -1, -3})) == s8({1, 2, 0, -1}));
  for (D d : kTypes) {
    for (auto [qi, qo] : {std::pair{QP{0.1f, 3}, QP{0.13f, -2}}, std::pair{QP{0.5f, 0}, QP{0.01f, 1}},
                          std::pair{QP{0.37f, -7}, QP{0.2f, 9}}}) {
      if (d == D::kQuint8) qi.zp += 128, qo.zp += 128;
      const auto got = run_unary_q(T::kConvert, d, qi, d, qo, all_bytes());
      for (int i = 0; i < 256; ++i) {
        CHECK(value_of(d, got[size_t(i)]) == expected_shift8(value_of(d, uint8_t(i)) - qi.zp, qi.scale / qo.scale, qo, d));
      }
    }
  }
  // qint8 -> quint8 goes through XNNPACK's reference convert: dequantize, quantize.
  const auto mixed = run_unary_q(T::kConvert, D::kQint8, {0.1f, 3}, D::kQuint8, {0.13f, 120}, all_bytes());
  for (int i = 0; i < 256; ++i) {
    CHECK(int32_t(mixed[size_t(i)]) == expected_reference_q(deq(int8_t(i), {0.1f, 3}), {0.13f, 120}, D::kQuint8));
  }
}

TEST_CASE("xnnpack q8: leaky ReLU uses the 8-bit fixed-point multipliers", "[xnnpack]") {
  // Hand: scales 1, slope 0.1: positive multiplier 256, negative round(25.6) = 26.
  // -5 -> (-130 + 128) >> 8 = -1 (the fp32 path gave -0.5 -> 0); -10 -> -1; -20 -> (-520 + 128) >> 8 = -2; 5 -> 5.
  CHECK(run_unary_q(T::kLeakyReLU, D::kQint8, {1.0f, 0}, D::kQint8, {1.0f, 0}, s8({-5, -10, -20, 5}), 0.1f) ==
        s8({-1, -1, -2, 5}));
  for (D d : kTypes) {
    for (float slope : {0.01f, 0.2f, -0.5f, 1.7f}) {
      QP qi{0.05f, 4}, qo{0.03f, -6};
      if (d == D::kQuint8) qi.zp += 128, qo.zp += 128;
      const auto got = run_unary_q(T::kLeakyReLU, d, qi, d, qo, all_bytes(), slope);
      const float positive = qi.scale / qo.scale;
      for (int i = 0; i < 256; ++i) {
        const int32_t x = value_of(d, uint8_t(i)) - qi.zp;
        CHECK(value_of(d, got[size_t(i)]) == expected_shift8(x, x >= 0 ? positive : positive * slope, qo, d));
      }
    }
  }
}

TEST_CASE("xnnpack q8: clamp with the input's parameters clamps bytes, otherwise the reference table", "[xnnpack]") {
  // Hand, scale 0.5 zero point 2: bounds -1 / 0.5 + 2 = 0 and 1.25 / 0.5 + 2 = 4.5 -> 4 (even).
  CHECK(run_unary_q(T::kClamp, D::kQint8, {0.5f, 2}, D::kQint8, {0.5f, 2}, s8({-128, 0, 3, 4, 5, 127}), 0,
                    Clamp{true, -1.0f, 1.25f}) == s8({0, 0, 3, 4, 4, 4}));
  for (D d : kTypes) {
    QP qi{0.05f, 4}, qo{0.03f, -6};
    if (d == D::kQuint8) qi.zp += 128, qo.zp += 128;
    const auto got = run_unary_q(T::kClamp, d, qi, d, qo, all_bytes(), 0, Clamp{true, -1.0f, 2.0f});
    for (int i = 0; i < 256; ++i) {
      const float x = deq(value_of(d, uint8_t(i)), qi);
      CHECK(value_of(d, got[size_t(i)]) == expected_reference_q(std::min(std::max(x, -1.0f), 2.0f), qo, d));
    }
  }
}

TEST_CASE("xnnpack q8: sigmoid, tanh, ELU, hardswish, GELU and the rest are XNNPACK's 256-entry tables", "[xnnpack]") {
  // Hand: hardswish, scale 0.5 in, 0.25 out: q = -3 -> x = -1.5 -> -1.5 * 1.5 / 6 = -0.375 -> -1.5 -> -2 (even);
  // q = 6 -> 3 -> 3 -> 12. Sigmoid, scale 1 in, 1/256 out, zero point -128: q = 0 -> 0.5 -> 128 - 128 = 0.
  CHECK(run_unary_q(T::kHardswish, D::kQint8, {0.5f, 0}, D::kQint8, {0.25f, 0}, s8({-3, 6})) == s8({-2, 12}));
  CHECK(run_unary_q(T::kSigmoid, D::kQint8, {1.0f, 0}, D::kQint8, {1.0f / 256, -128}, s8({0, 127, -128})) ==
        s8({0, 127, -128}));
  // Each function as XNNPACK's reference kernel defines it, over every input byte.
  const auto f = [](T type, float x, float alpha) -> float {
    switch (type) {
      case T::kSigmoid: return x > 100 ? 1.0f : x < -100 ? 0.0f : float(1.0 / (1.0 + 1.0 / std::exp(double(x))));
      case T::kTanh: return std::tanh(x);
      case T::kELU: return x < 0 ? alpha * std::expm1(x) : x;
      case T::kHardswish: return (x / 6) * std::max(std::min(x + 3, 6.0f), 0.0f);
      case T::kGelu: return float(double(x) * 0.5 * (1.0 + std::erf(double(x) / std::sqrt(2.0))));
      case T::kAbs: return std::fabs(x);
      case T::kNegate: return -x;
      case T::kSquare: return x * x;
      case T::kSquareRoot: return std::sqrt(x);
      case T::kFloor: return std::floor(x);
      default: return std::nanf("");
    }
  };
  for (D d : kTypes) {
    QP qi{0.05f, 4}, qo{0.01f, -3};
    if (d == D::kQuint8) qi.zp += 128, qo.zp += 128;
    for (T type : {T::kSigmoid, T::kTanh, T::kELU, T::kHardswish, T::kGelu, T::kAbs, T::kNegate, T::kSquare, T::kSquareRoot,
                   T::kFloor}) {
      const float alpha = 0.7f;
      const auto got = run_unary_q(type, d, qi, d, qo, all_bytes(), alpha);
      for (int i = 0; i < 256; ++i) {
        const float x = deq(value_of(d, uint8_t(i)), qi);
        INFO("node " << int(type) << " x " << x);
        CHECK(value_of(d, got[size_t(i)]) == expected_reference_q(f(type, x, alpha), qo, d));
      }
    }
  }
}

TEST_CASE("xnnpack q8: max pooling compares bytes and clamps between quantized bounds", "[xnnpack]") {
  for (D d : kTypes) {
    const int32_t z = d == D::kQint8 ? 0 : 128;
    XnnGraphBuilder g;
    const uint32_t x = g.input({1, 3, 3, 1}, d), out = g.output({1, 2, 2, 1}, d);
    set_q(g, x, {0.5f, z});
    set_q(g, out, {0.5f, z});
    auto& n = g.node(T::kMaxPooling2d, {x}, {out});
    n.window = xnn::Window{1, 1, 1, 1, 2, 2, 2, 2, 1, 1};  // 2x2, stride 2, padding 1
    n.has_output_min_max = true;
    n.output_min = -1.0f;  // -1 / 0.5 + z = z - 2
    n.output_max = 2.0f;   // z + 4
    const auto payload = g.payload();
    // Windows: {q0}, {q1, q2}, {q3, q6}, {q4, q5, q7, q8} with q = z + {-9, 1, 3, -5, -7, 20, -8, 2, 0}.
    std::vector<uint8_t> image;
    for (int v : {-9, 1, 3, -5, -7, 20, -8, 2, 0}) image.push_back(uint8_t(z + v));
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1, 3, 3, 1}, image, st_of(d)), xnn_out({1, 2, 2, 1}, st_of(d), 1)};
    REQUIRE(run_xnn(payload, args).ok());
    // max: -9 and -5 clamped to -2; 3; 20 clamped to 4.
    const auto got = values_of<uint8_t>(args[1]);
    std::vector<int32_t> values;
    for (uint8_t b : got) values.push_back(value_of(d, b) - z);
    CHECK(values == std::vector<int32_t>{-2, 3, -2, 4});
  }
}

TEST_CASE("xnnpack q8: global average pooling is XNNPACK's 8-bit mean (raw sums, folded zero point)", "[xnnpack]") {
  // Hand: 3 pixels, in scale 1 zero point 3, out scale 1 zero point 0; values 4, 5, 5 (less the
  // zero point 1, 2, 2: mean 5/3). scale' = 1 * (1/3), zero point' = 0 - 9 * (1/3) = -3:
  // 14 / 3 - 3 = 1.667 -> 2.
  auto run = [](D d, QP qi, QP qo, uint32_t h, uint32_t w, uint32_t c, const std::vector<uint8_t>& x, Clamp clamp = {}) {
    XnnGraphBuilder g;
    const uint32_t in = g.input({1, h, w, c}, d), out = g.output({1, 1, 1, c}, d);
    set_q(g, in, qi);
    set_q(g, out, qo);
    auto& n = g.node(T::kGlobalAvgPooling2d, {in}, {out});
    if (clamp.on) {
      n.has_output_min_max = true;
      n.output_min = clamp.lo;
      n.output_max = clamp.hi;
    }
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1, int32_t(h), int32_t(w), int32_t(c)}, x, st_of(d)),
                                xnn_out({1, 1, 1, int32_t(c)}, st_of(d), 1)};
    REQUIRE(run_xnn(payload, args).ok());
    return values_of<uint8_t>(args[1]);
  };
  CHECK(run(D::kQint8, {1.0f, 3}, {1.0f, 0}, 3, 1, 1, s8({4, 5, 5})) == s8({2}));
  // Scales 0.1, 6 pixels summing to 3: scale' = 1 * (1/6) = 0.16666667 in float, 3 * that = 0.5 exactly -> 0
  // (the fp32 path's 0.3 / 6 / 0.1 gave 0.50000006 -> 1).
  CHECK(run(D::kQint8, {0.1f, 0}, {0.1f, 0}, 2, 3, 1, s8({3, 0, 0, 0, 0, 0})) == s8({0}));
  for (D d : kTypes) {
    QP qi{0.07f, 5}, qo{0.05f, -3};
    if (d == D::kQuint8) qi.zp += 128, qo.zp += 128;
    // 256 channels over 3x5 pixels, each channel a different walk through the bytes.
    const uint32_t h = 3, w = 5, c = 256;
    std::vector<uint8_t> x(h * w * c);
    for (size_t p = 0; p < h * w; ++p) {
      for (size_t k = 0; k < c; ++k) x[p * c + k] = uint8_t((k * (p + 1) * 29 + p * 101 + k) % 256);
    }
    for (Clamp clamp : {Clamp{}, Clamp{true, -0.5f, 0.8f}}) {
      const auto got = run(d, qi, qo, h, w, c, x, clamp);
      const int32_t count = int32_t(h * w);
      const float scale = (qi.scale / qo.scale) * (1.0f / float(count));
      const float zp = float(qo.zp) - float(count) * float(qi.zp) * scale;
      for (size_t k = 0; k < c; ++k) {
        int64_t sum = 0;
        for (size_t p = 0; p < h * w; ++p) sum += value_of(d, x[p * c + k]);
        float t = float(sum) * scale;
        t = t + zp;
        int32_t want = sat(round_even(t), d);
        if (clamp.on) want = std::min(std::max(want, bound_of(clamp.lo, qo, d)), bound_of(clamp.hi, qo, d));
        CHECK(value_of(d, got[k]) == want);
      }
    }
  }
}

TEST_CASE("xnnpack q8: bilinear resize blends bytes in Q11 fixed point, rounding once", "[xnnpack]") {
  auto run = [](D d, uint32_t ih, uint32_t iw, uint32_t oh, uint32_t ow, uint32_t c, const std::vector<uint8_t>& x,
                uint32_t flags = 0) {
    XnnGraphBuilder g;
    const uint32_t in = g.input({1, ih, iw, c}, d), out = g.output({1, oh, ow, c}, d);
    set_q(g, in, {0.5f, 3});
    set_q(g, out, {0.5f, 3});
    auto& n = g.node(T::kStaticResizeBilinear2D, {in}, {out});
    n.new_height = oh;
    n.new_width = ow;
    n.flags = flags;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1, int32_t(ih), int32_t(iw), int32_t(c)}, x, st_of(d)),
                                xnn_out({1, int32_t(oh), int32_t(ow), int32_t(c)}, st_of(d), 1)};
    REQUIRE(run_xnn(payload, args).ok());
    return values_of<uint8_t>(args[1]);
  };
  // Hand: width 2 -> 4 (half-pixel centres): sources -0.25 (-> 0), 0.25, 0.75, 1.25 (-> 1), weights
  // 0, 512, 1536, 0 of 2048. [0, 2]: 0.5 rounds half up to 1 (the fp32 path gave 0), 1.5 -> 2;
  // [-2, 0]: -1.5 -> (-3072 * 2048 + 2^21) >> 22 = -1 (was -2), -0.5 -> 0.
  CHECK(run(D::kQint8, 1, 2, 1, 4, 1, s8({0, 2})) == s8({0, 1, 2, 2}));
  CHECK(run(D::kQint8, 1, 2, 1, 4, 1, s8({-2, 0})) == s8({-2, -1, 0, 0}));
  // Sweep: 3x5 -> 7x4 and 4x4 -> 9x6, every flag, against the indirection and blend formulas.
  const auto tap = [](size_t o, size_t in, size_t out, bool align, bool legacy) {
    const int adj = align && out != 1 ? 1 : 0;
    const float scale = float(int(in) - adj) / float(int(out) - adj);
    float src = (align || legacy) ? float(o) * scale : float(o) * scale + (0.5f * scale - 0.5f);
    src = std::min(std::max(src, 0.0f), float(in - 1));
    const size_t i0 = size_t(src);
    return std::tuple<size_t, size_t, int64_t>{i0, std::min(i0 + 1, in - 1), round_even(double((src - float(i0)) * 2048.0f))};
  };
  for (D d : kTypes) {
    for (auto [ih, iw, oh, ow] : {std::array<uint32_t, 4>{3, 5, 7, 4}, std::array<uint32_t, 4>{4, 4, 9, 6}}) {
      for (uint32_t flags : {0u, uint32_t(xnn::kAlignCorners), uint32_t(xnn::kTensorflowLegacy)}) {
        const uint32_t c = 3;
        std::vector<uint8_t> x(ih * iw * c);
        for (size_t i = 0; i < x.size(); ++i) x[i] = uint8_t((i * 97 + 13) % 256);
        const auto got = run(d, ih, iw, oh, ow, c, x, flags);
        const bool align = flags == uint32_t(xnn::kAlignCorners), legacy = flags == uint32_t(xnn::kTensorflowLegacy);
        for (size_t oy = 0; oy < oh; ++oy) {
          const auto [y0, y1, wy] = tap(oy, ih, oh, align, legacy);
          for (size_t ox = 0; ox < ow; ++ox) {
            const auto [x0, x1, wx] = tap(ox, iw, ow, align, legacy);
            for (size_t k = 0; k < c; ++k) {
              const size_t row = iw;  // clang 14 cannot capture a structured binding
              auto v = [&](size_t yy, size_t xx) { return int64_t(value_of(d, x[(yy * row + xx) * c + k])); };
              const int64_t top = v(y0, x0) * (2048 - wx) + v(y0, x1) * wx;
              const int64_t bottom = v(y1, x0) * (2048 - wx) + v(y1, x1) * wx;
              const int64_t want = floor_shift(top * (2048 - wy) + bottom * wy + (int64_t(1) << 21), 22);
              CHECK(value_of(d, got[(oy * ow + ox) * c + k]) == want);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("xnnpack q8: a constant pad's value is quantized as xnn_qs8_quantize does", "[xnnpack]") {
  auto run = [](D d, QP q, float value) {
    XnnGraphBuilder g;
    const uint32_t in = g.input({1}, d), out = g.output({2}, d);
    set_q(g, in, q);
    set_q(g, out, q);
    auto& n = g.node(T::kStaticConstantPad, {in}, {out});
    n.pre_paddings = {1};
    n.post_paddings = {0};
    n.scalar = value;
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({1}, {7}, st_of(d)), xnn_out({2}, st_of(d), 1)};
    REQUIRE(run_xnn(payload, args).ok());
    return values_of<uint8_t>(args[1]);
  };
  // 0.5 / 1 + 3 = 3.5 -> 4 (nearest even after the zero point; the convert path gave round(0.5) + 3 = 3).
  CHECK(run(D::kQint8, {1.0f, 3}, 0.5f) == std::vector<uint8_t>{4, 7});
  // 100 / 0.5 + 3 = 203 saturates to 127 (qint8), not to quint8's 255.
  CHECK(run(D::kQint8, {0.5f, 3}, 100.0f) == std::vector<uint8_t>{127, 7});
  CHECK(run(D::kQuint8, {0.5f, 3}, 100.0f) == std::vector<uint8_t>{203, 7});
  CHECK(run(D::kQuint8, {0.5f, 3}, -100.0f) == std::vector<uint8_t>{0, 7});
}

TEST_CASE("xnnpack q8: maximum/minimum with a constant scalar is XNNPACK's clamp rewrite, an unbounded clamp a copy", "[xnnpack]") {
  auto run = [](T type, QP qx, QP qc, int8_t c, const std::vector<uint8_t>& x, bool scalar_first = false) {
    XnnGraphBuilder g;
    const uint32_t n = uint32_t(x.size());
    const uint32_t in = g.input({n}, D::kQint8);
    const uint32_t k = g.constant<int8_t>({1}, {c}, D::kQint8);
    const uint32_t out = g.output({n}, D::kQint8);
    set_q(g, in, qx);
    set_q(g, k, qc);
    set_q(g, out, qx);
    g.node(type, scalar_first ? std::vector<uint32_t>{k, in} : std::vector<uint32_t>{in, k}, {out});
    const auto payload = g.payload();
    std::vector<XnnArg> args = {xnn_arg<uint8_t>({int32_t(n)}, x, ScalarType::kChar), xnn_out({int32_t(n)}, ScalarType::kChar, 1)};
    REQUIRE(run_xnn(payload, args).ok());
    return values_of<uint8_t>(args[1]);
  };
  // Hand: x and output scale 0.1, constant -65 * 0.03 = -1.95 (float -1.9499999). The clamp's
  // bound is -1.9499999 / 0.1 = -19.499998 -> -19, so max(-128, c) = -19 (the float reference
  // maximum computed -1.9499999 * 10 = -19.5 -> -20); -10 stays -10.
  CHECK(run(T::kMaximum, {0.1f, 0}, {0.03f, 0}, -65, s8({-128, -10})) == s8({-19, -10}));
  CHECK(run(T::kMaximum, {0.1f, 0}, {0.03f, 0}, -65, s8({-128, -10}), true) == s8({-19, -10}));
  // minimum: bound 20 * 0.3 / 0.1 = 60 (float 60.000004 -> 60): 100 -> 60, 5 -> 5.
  CHECK(run(T::kMinimum, {0.1f, 0}, {0.3f, 0}, 20, s8({100, 5})) == s8({60, 5}));
  // Over every byte against the formula: clamp(x, round(c / scale + zp)).
  for (int8_t c : {int8_t(-100), int8_t(-7), int8_t(0), int8_t(33), int8_t(127)}) {
    const QP qx{0.07f, 3}, qc{0.05f, -2};
    const float cv = float(c - qc.zp) * qc.scale;
    const auto got_max = run(T::kMaximum, qx, qc, c, all_bytes());
    const auto got_min = run(T::kMinimum, qx, qc, c, all_bytes());
    for (int i = 0; i < 256; ++i) {
      const int32_t x = int8_t(i);
      CHECK(int8_t(got_max[size_t(i)]) == std::max(x, bound_of(cv, qx, D::kQint8)));
      CHECK(int8_t(got_min[size_t(i)]) == std::min(x, bound_of(cv, qx, D::kQint8)));
    }
  }
  // A clamp without bounds is replaced by a copy: the bytes pass through even when the output's
  // parameters differ (a requantization would have halved them).
  CHECK(run_unary_q(T::kClamp, D::kQint8, {1.0f, 0}, D::kQint8, {2.0f, 0}, s8({-128, 5, 127})) == s8({-128, 5, 127}));
  // With bounds and different parameters it is the reference table: 5 * 1 clamped to [-inf, 3] = 3 -> 1.5 -> 2.
  CHECK(run_unary_q(T::kClamp, D::kQint8, {1.0f, 0}, D::kQint8, {2.0f, 0}, s8({-128, 5, 2}), 0,
                    Clamp{true, -INFINITY, 3.0f}) == s8({-64, 2, 1}));
}
