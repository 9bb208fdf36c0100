// cadence:: convolutions in every layout and dtype overload, and im2row,
// against a plain double-precision convolution written here over NCHW
// index arithmetic (layouts are converted in the test), and small cases
// worked by hand. The data keep every float product and sum exact and the
// scales powers of two, so the reference's float arithmetic and the double
// loop agree exactly.
#include <cmath>
#include <cstdint>
#include <utility>
#include <string>
#include <vector>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

struct Case {
  int64_t n, c, h, w, oc, kh, kw, groups;
  int64_t s0, s1, p0, p1, d0, d1;
  int64_t in_zp, w_zp, out_zp;
  double bias_scale, out_scale;
  int64_t lo, hi;  // out dtype range
  int64_t oh() const { return (h + 2 * p0 - d0 * (kh - 1) - 1) / s0 + 1; }
  int64_t ow() const { return (w + 2 * p1 - d1 * (kw - 1) - 1) / s1 + 1; }
};

// x [N, C, H, W], wt [OC, C / groups, KH, KW] -> out [N, OC, OH, OW].
std::vector<int64_t> reference(const Case& k, const std::vector<int64_t>& x, const std::vector<int64_t>& wt,
                               const std::vector<int64_t>& bias) {
  const int64_t oh = k.oh(), ow = k.ow(), icpg = k.c / k.groups, ocpg = k.oc / k.groups;
  std::vector<int64_t> out;
  for (int64_t b = 0; b < k.n; ++b)
    for (int64_t o = 0; o < k.oc; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = double(bias[size_t(o)]);
          for (int64_t i = 0; i < icpg; ++i)
            for (int64_t ky = 0; ky < k.kh; ++ky)
              for (int64_t kx = 0; kx < k.kw; ++kx) {
                const int64_t iy = y * k.s0 - k.p0 + ky * k.d0, ix = xx * k.s1 - k.p1 + kx * k.d1;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;  // padding: (zp - zp) * w = 0
                const int64_t ic = (o / ocpg) * icpg + i;
                const double xv = double(x[size_t(((b * k.c + ic) * k.h + iy) * k.w + ix)] - k.in_zp);
                const double wv = double(wt[size_t(((o * icpg + i) * k.kh + ky) * k.kw + kx)] - k.w_zp);
                acc += xv * wv;
              }
          const double q = double(k.out_zp) + std::nearbyint(k.bias_scale * acc / k.out_scale);
          out.push_back(int64_t(std::min(std::max(q, double(k.lo)), double(k.hi))));
        }
  return out;
}

// Deterministic values in [lo, hi].
std::vector<int64_t> values(size_t count, int64_t lo, int64_t hi, uint32_t seed) {
  std::vector<int64_t> v;
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1664525u + 1013904223u;
    v.push_back(lo + int64_t((seed >> 8) % uint32_t(hi - lo + 1)));
  }
  return v;
}

// [A, B, C, D] in row-major order -> [A, C, D, B] (NCHW -> NHWC) and back.
std::vector<int64_t> to_last(const std::vector<int64_t>& v, int64_t a, int64_t b, int64_t c, int64_t d) {
  std::vector<int64_t> r(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t l = 0; l < d; ++l) r[size_t(((i * c + k) * d + l) * b + j)] = v[size_t(((i * b + j) * c + k) * d + l)];
  return r;
}
template <typename T>
std::vector<T> to_first(const std::vector<T>& v, int64_t a, int64_t b, int64_t c, int64_t d) {
  std::vector<T> r(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t l = 0; l < d; ++l) r[size_t(((i * b + j) * c + k) * d + l)] = v[size_t(((i * c + k) * d + l) * b + j)];
  return r;
}

template <typename T>
size_t make(KernelHarness& h, ScalarType t, std::vector<int32_t> shape, const std::vector<int64_t>& v) {
  return h.tensor<T>(t, std::move(shape), std::vector<T>(v.begin(), v.end()));
}

std::vector<int64_t> read(KernelHarness& h, size_t out) {
  const auto& t = h.tensor_at(out);
  std::vector<int64_t> r;
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case ScalarType::kChar: r.push_back(t.data_as<int8_t>()[i]); break;
      case ScalarType::kByte: r.push_back(t.data_as<uint8_t>()[i]); break;
      case ScalarType::kShort: r.push_back(t.data_as<int16_t>()[i]); break;
      default: FAIL("unexpected out dtype");
    }
  }
  return r;
}

size_t make_any(KernelHarness& h, ScalarType t, std::vector<int32_t> shape, const std::vector<int64_t>& v) {
  switch (t) {
    case ScalarType::kChar: return make<int8_t>(h, t, std::move(shape), v);
    case ScalarType::kByte: return make<uint8_t>(h, t, std::move(shape), v);
    default: return make<int16_t>(h, t, std::move(shape), v);
  }
}

enum class Params { kPerTensor, kPerTensorOffset, kTensors };
enum class WeightLayout { kSameAsInput, kHwo };

struct Run {
  Run(std::string name, bool last = false, bool conv1d = false, Params p = Params::kPerTensor)
      : op(std::move(name)), channels_last(last), conv1d_input(conv1d), params(p) {}
  std::string op;
  bool channels_last;
  bool conv1d_input;  // drop H (which must be 1 with kh 1) from input, weight and out
  Params params;
  WeightLayout weight = WeightLayout::kSameAsInput;
  std::vector<int64_t> stride, padding, dilation;  // empty: {s0, s1} ...
};

// Runs `r` on case `k` and returns the output converted to NCHW order.
std::vector<int64_t> run(const Run& r, const Case& k, ScalarType it, ScalarType wt, ScalarType ot,
                         const std::vector<int64_t>& x, const std::vector<int64_t>& w, const std::vector<int64_t>& bias) {
  KernelHarness h;
  const int64_t icpg = k.c / k.groups, oh = k.oh(), ow = k.ow();
  auto shape = [&](int64_t a, int64_t b, int64_t hh, int64_t ww) -> std::vector<int32_t> {
    std::vector<int32_t> s{int32_t(a)};
    if (!r.channels_last) s.push_back(int32_t(b));
    if (!r.conv1d_input) s.push_back(int32_t(hh));
    s.push_back(int32_t(ww));
    if (r.channels_last) s.push_back(int32_t(b));
    return s;
  };
  const auto xin = r.channels_last ? to_last(x, k.n, k.c, k.h, k.w) : x;
  const size_t in = make_any(h, it, shape(k.n, k.c, k.h, k.w), xin);
  size_t weight;
  if (r.weight == WeightLayout::kHwo) {
    // [OC, 1, KH, KW] -> [KH, KW, OC] (or [KW, OC])
    std::vector<int64_t> hwo;
    for (int64_t ky = 0; ky < k.kh; ++ky)
      for (int64_t kx = 0; kx < k.kw; ++kx)
        for (int64_t o = 0; o < k.oc; ++o) hwo.push_back(w[size_t((o * k.kh + ky) * k.kw + kx)]);
    std::vector<int32_t> s;
    if (!r.conv1d_input) s.push_back(int32_t(k.kh));
    s.push_back(int32_t(k.kw));
    s.push_back(int32_t(k.oc));
    weight = make_any(h, wt, s, hwo);
  } else {
    const auto win = r.channels_last ? to_last(w, k.oc, icpg, k.kh, k.kw) : w;
    weight = make_any(h, wt, shape(k.oc, icpg, k.kh, k.kw), win);
  }
  const size_t b = make<int32_t>(h, ScalarType::kInt, {int32_t(k.oc)}, bias);
  const size_t out = h.out(ot, shape(k.n, k.oc, oh, ow));
  const auto list = [&](const std::vector<int64_t>& given, int64_t a, int64_t c) {
    return h.int_list(given.empty() ? std::vector<int64_t>{a, c} : given);
  };
  std::vector<size_t> args{in,
                           weight,
                           b,
                           list(r.stride, k.s0, k.s1),
                           list(r.padding, k.p0, k.p1),
                           list(r.dilation, k.d0, k.d1),
                           h.integer(k.groups),
                           h.integer(k.in_zp)};
  if (r.params == Params::kTensors) {
    // Per-channel values after the first: the generic reference reads element 0 only.
    std::vector<int32_t> wzp(size_t(k.oc), int32_t(k.w_zp) + 1);
    wzp[0] = int32_t(k.w_zp);
    std::vector<float> bs(size_t(k.oc), 1000.f);
    bs[0] = float(k.bias_scale);
    args.push_back(h.tensor<int32_t>(ScalarType::kInt, {int32_t(k.oc)}, wzp));
    args.push_back(h.tensor<float>(ScalarType::kFloat, {int32_t(k.oc)}, bs));
  } else {
    args.push_back(h.integer(k.w_zp));
    args.push_back(h.real(k.bias_scale));
  }
  args.push_back(h.real(k.out_scale));
  args.push_back(h.integer(k.out_zp));
  if (r.params == Params::kTensors) {
    args.push_back(h.tensor<int32_t>(ScalarType::kInt, {1}, {1 << 30}));
    args.push_back(h.tensor<int32_t>(ScalarType::kInt, {1}, {3}));
  } else {
    args.push_back(h.integer(1 << 30));  // ignored: the float scales requantize
    args.push_back(h.integer(3));
  }
  if (r.params == Params::kPerTensorOffset) args.push_back(h.none());
  args.push_back(out);
  args.push_back(out);
  const auto status = h.call(r.op, args);
  INFO(r.op << (status.ok() ? std::string() : ": " + status.error().message));
  REQUIRE(status.ok());
  const auto got = read(h, out);
  return r.channels_last ? to_first(got, k.n, k.oc, oh, ow) : got;
}

// A grouped, strided, padded and dilated 2-D case: 2 groups of 2 input and 3 output channels.
Case grouped(int64_t in_zp, int64_t w_zp, int64_t out_zp, int64_t lo, int64_t hi) {
  return Case{2, 4, 5, 6, 6, 3, 2, 2, 2, 1, 1, 2, 1, 2, in_zp, w_zp, out_zp, 0.25, 2.0, lo, hi};
}

struct Data {
  std::vector<int64_t> x, w, bias;
};
Data data_for(const Case& k, int64_t xlo, int64_t xhi, int64_t wlo, int64_t whi) {
  return {values(size_t(k.n * k.c * k.h * k.w), xlo, xhi, 1),
          values(size_t(k.oc * (k.c / k.groups) * k.kh * k.kw), wlo, whi, 2), values(size_t(k.oc), -3000, 3000, 3)};
}

}  // namespace

TEST_CASE("cadence::quantized_conv2d nchw and nhwc per_tensor_out: every dtype against a double loop", "[cadence]") {
  struct Dt {
    ScalarType in, w, out;
    int64_t xlo, xhi, wlo, whi, in_zp, w_zp, out_zp, lo, hi;
  };
  const Dt dts[] = {
      {ScalarType::kChar, ScalarType::kChar, ScalarType::kChar, -128, 127, -128, 127, 3, -2, 5, -128, 127},
      {ScalarType::kByte, ScalarType::kByte, ScalarType::kByte, 0, 255, 0, 255, 128, 7, 120, 0, 255},
      {ScalarType::kShort, ScalarType::kShort, ScalarType::kShort, -1000, 1000, -100, 100, -300, 4, -7, -32768, 32767},
      {ScalarType::kShort, ScalarType::kChar, ScalarType::kShort, -1000, 1000, -128, 127, 250, -1, 9, -32768, 32767},
  };
  for (const Dt& dt : dts) {
    const Case k = grouped(dt.in_zp, dt.w_zp, dt.out_zp, dt.lo, dt.hi);
    const Data d = data_for(k, dt.xlo, dt.xhi, dt.wlo, dt.whi);
    const auto expected = reference(k, d.x, d.w, d.bias);
    // The data reach the clamp and the rounding ties (acc / 8 with acc an odd multiple of 4).
    size_t clamped = 0, ties = 0, inside = 0;
    for (int64_t q : expected) (q == dt.lo || q == dt.hi ? clamped : inside)++;
    for (int64_t v : reference(Case{k.n, k.c, k.h, k.w, k.oc, k.kh, k.kw, k.groups, k.s0, k.s1, k.p0, k.p1, k.d0, k.d1,
                                    k.in_zp, k.w_zp, 0, 1.0, 1.0, INT64_MIN / 2, INT64_MAX / 2},
                               d.x, d.w, d.bias)) {
      ties += (v % 8 == 4 || v % 8 == -4) ? 1 : 0;
    }
    CHECK(inside > 0);
    CHECK(ties > 0);
    if (dt.out != ScalarType::kShort) CHECK(clamped > 0);
    CHECK(run({"cadence::quantized_conv2d_nchw.per_tensor_out"}, k, dt.in, dt.w, dt.out, d.x, d.w, d.bias) == expected);
    CHECK(run({"cadence::quantized_conv2d_nhwc.per_tensor_out", true, false, Params::kPerTensorOffset}, k, dt.in, dt.w,
              dt.out, d.x, d.w, d.bias) == expected);
  }
}

TEST_CASE("cadence::quantized_conv2d nchw and nhwc .out: tensor parameters, first element only", "[cadence]") {
  const Case k = grouped(3, -2, 5, -128, 127);
  const Data d = data_for(k, -128, 127, -128, 127);
  const auto expected = reference(k, d.x, d.w, d.bias);
  CHECK(run({"cadence::quantized_conv2d_nchw.out", false, false, Params::kTensors}, k, ScalarType::kChar,
            ScalarType::kChar, ScalarType::kChar, d.x, d.w, d.bias) == expected);
  CHECK(run({"cadence::quantized_conv2d_nhwc.out", true, false, Params::kTensors}, k, ScalarType::kChar, ScalarType::kChar,
            ScalarType::kChar, d.x, d.w, d.bias) == expected);
  // A weight zero point tensor of the wrong dtype is refused by name.
  KernelHarness h;
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 1}, {1});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 1}, {1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto fzp = h.tensor<float>(ScalarType::kFloat, {1}, {0.f});
  auto one = h.tensor<int32_t>(ScalarType::kInt, {1}, {1});
  auto out = h.out(ScalarType::kChar, {1, 1, 1, 1});
  auto s = h.call("cadence::quantized_conv2d_nchw.out",
                  {in, w, bias, h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.integer(1), h.integer(0),
                   fzp, fzp, h.real(1.0), h.integer(0), one, one, out, out});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "cadence::quantized_conv2d_nchw.out: weight_zero_point must be INT, not FLOAT");
}

TEST_CASE("cadence::quantized_conv2d_nhwc: a hand-worked case, padding contributing nothing", "[cadence]") {
  // One channel, so NHWC holds the same bytes as NCHW: the worked example of the NCHW test.
  // input 1..9 (zero point 1: v = 3r + c), weight [[1, 0], [0, -1]], bias 10, padding 1:
  // acc = 10 + v(y-1, x-1) - v(y, x); q = 2 acc - 3.
  KernelHarness h;
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 2, 1}, {1, 0, 0, -1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {10});
  auto out = h.out(ScalarType::kChar, {1, 4, 4, 1});
  REQUIRE(h.call("cadence::quantized_conv2d_nhwc.per_tensor_out",
                 {in, w, bias, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({1, 1}), h.integer(1), h.integer(1),
                  h.integer(0), h.real(0.5), h.real(0.25), h.integer(-3), h.integer(0), h.integer(0), h.none(), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{17, 15, 13, 17, 11, 9, 9, 21, 5, 9, 9, 27, 17, 29, 31, 33});
  CHECK(h.sizes(out) == std::vector<int32_t>{1, 4, 4, 1});
}

TEST_CASE("cadence::quantized_conv2d typed overloads: dilated, depthwise, both layouts and dtypes", "[cadence]") {
  // Depthwise: 3 channels, groups 3, two output channels per group.
  const Case dw8s{1, 3, 5, 5, 6, 3, 3, 3, 1, 2, 2, 1, 2, 1, -4, 3, -1, 0.5, 4.0, -128, 127};
  const Case dw8u{1, 3, 5, 5, 6, 3, 3, 3, 1, 2, 2, 1, 2, 1, 130, 0, 128, 0.5, 4.0, 0, 255};
  const Case g8s = grouped(3, -2, 5, -128, 127), g8u = grouped(128, 0, 120, 0, 255);
  struct Typed {
    const char* op;
    bool last;
    WeightLayout wl;
    bool is_signed;
    bool depthwise;
  };
  const Typed ops[] = {
      {"cadence::quantized_conv2d_nchw_asym8sxsym8s_asym8s.per_tensor_out", false, WeightLayout::kSameAsInput, true, false},
      {"cadence::quantized_conv2d_nchw_asym8uxsym8u_asym8u.per_tensor_out", false, WeightLayout::kSameAsInput, false, false},
      {"cadence::quantized_conv2d_nhwc_asym8sxsym8s_asym8s.per_tensor_out", true, WeightLayout::kSameAsInput, true, false},
      {"cadence::quantized_conv2d_nhwc_asym8uxsym8u_asym8u.per_tensor_out", true, WeightLayout::kSameAsInput, false, false},
      {"cadence::quantized_conv2d_nchw_dilated_asym8sxsym8s_asym8s.per_tensor_out", false, WeightLayout::kSameAsInput, true, false},
      {"cadence::quantized_conv2d_nchw_dilated_asym8uxsym8u_asym8u.per_tensor_out", false, WeightLayout::kSameAsInput, false, false},
      {"cadence::quantized_conv2d_nhwc_dilated_asym8sxsym8s_asym8s.per_tensor_out", true, WeightLayout::kSameAsInput, true, false},
      {"cadence::quantized_conv2d_nhwc_dilated_asym8uxsym8u_asym8u.per_tensor_out", true, WeightLayout::kSameAsInput, false, false},
      {"cadence::quantized_conv2d_nchw_depthwise_asym8sxsym8s_asym8s.per_tensor_out", false, WeightLayout::kSameAsInput, true, true},
      {"cadence::quantized_conv2d_nchw_depthwise_asym8uxsym8u_asym8u.per_tensor_out", false, WeightLayout::kSameAsInput, false, true},
      {"cadence::quantized_conv2d_nhwc_depthwise_asym8sxsym8s_asym8s.per_tensor_out", true, WeightLayout::kHwo, true, true},
      {"cadence::quantized_conv2d_nhwc_depthwise_asym8uxsym8u_asym8u.per_tensor_out", true, WeightLayout::kHwo, false, true},
  };
  for (const Typed& t : ops) {
    const Case& k = t.depthwise ? (t.is_signed ? dw8s : dw8u) : (t.is_signed ? g8s : g8u);
    const ScalarType st = t.is_signed ? ScalarType::kChar : ScalarType::kByte;
    const Data d = t.is_signed ? data_for(k, -128, 127, -128, 127) : data_for(k, 0, 255, 0, 255);
    Run r{t.op, t.last};
    r.weight = t.wl;
    CHECK(run(r, k, st, st, st, d.x, d.w, d.bias) == reference(k, d.x, d.w, d.bias));
  }
  // The overloads check their dtypes by argument name.
  KernelHarness h;
  auto in = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 1, 1}, {1});
  auto w = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 1, 1}, {1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto out = h.out(ScalarType::kByte, {1, 1, 1, 1});
  auto s = h.call("cadence::quantized_conv2d_nhwc_dilated_asym8sxsym8s_asym8s.per_tensor_out",
                  {in, w, bias, h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.integer(1), h.integer(0),
                   h.integer(0), h.real(1.0), h.real(1.0), h.integer(0), h.integer(0), h.integer(0), out, out});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message ==
        "cadence::quantized_conv2d_nhwc_dilated_asym8sxsym8s_asym8s.per_tensor_out: input must be CHAR for this overload, not BYTE");
}

TEST_CASE("cadence::quantized_conv2d_depthwise_nhwc.out: [KH, KW, OC] weights and regular ones", "[cadence]") {
  const Case k{2, 3, 4, 5, 3, 2, 3, 3, 1, 1, 1, 1, 1, 1, 5, -3, 2, 1.0, 8.0, -128, 127};
  const Data d = data_for(k, -128, 127, -128, 127);
  const auto expected = reference(k, d.x, d.w, d.bias);
  Run hwo{"cadence::quantized_conv2d_depthwise_nhwc.out", true};
  hwo.weight = WeightLayout::kHwo;
  CHECK(run(hwo, k, ScalarType::kChar, ScalarType::kChar, ScalarType::kChar, d.x, d.w, d.bias) == expected);
  CHECK(run({"cadence::quantized_conv2d_depthwise_nhwc.out", true}, k, ScalarType::kChar, ScalarType::kChar,
            ScalarType::kChar, d.x, d.w, d.bias) == expected);
  // The NHWC depthwise kernel needs one input channel per group.
  KernelHarness h;
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 2}, {1, 2});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2}, {1, 1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, 0});
  auto out = h.out(ScalarType::kChar, {1, 1, 1, 2});
  auto s = h.call("cadence::quantized_conv2d_nhwc_depthwise_asym8sxsym8s_asym8s.per_tensor_out",
                  {in, w, bias, h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.integer(1), h.integer(0),
                   h.integer(0), h.real(1.0), h.real(1.0), h.integer(0), h.integer(0), h.integer(0), out, out});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message ==
        "cadence::quantized_conv2d_nhwc_depthwise_asym8sxsym8s_asym8s.per_tensor_out: groups 1 must equal the 2 input "
        "channels for a depthwise weight [1, 1, 2]");
}

TEST_CASE("cadence::quantized_conv1d ncl and nlc, depthwise too: the last list entry, both 8-bit dtypes", "[cadence]") {
  // H = 1 and KH = 1; conv1d lists may have one entry or two (the last counts).
  const Case k{2, 4, 1, 9, 4, 1, 3, 2, 1, 2, 0, 2, 1, 2, 3, -2, 5, 0.25, 2.0, -128, 127};
  const Data d = data_for(k, -128, 127, -128, 127);
  const auto expected = reference(k, d.x, d.w, d.bias);
  Run ncl{"cadence::quantized_conv1d_ncl.per_tensor_out", false, true};
  ncl.stride = {2};
  ncl.padding = {2};
  ncl.dilation = {2};
  CHECK(run(ncl, k, ScalarType::kChar, ScalarType::kChar, ScalarType::kChar, d.x, d.w, d.bias) == expected);
  Run nlc{"cadence::quantized_conv1d_nlc.per_tensor_out", true, true, Params::kPerTensorOffset};
  nlc.stride = {7, 2};  // the 7 is ignored
  nlc.padding = {9, 2};
  CHECK(run(nlc, k, ScalarType::kChar, ScalarType::kChar, ScalarType::kChar, d.x, d.w, d.bias) == expected);
  // Depthwise: 4 channels, groups 4; uint8.
  const Case dk{1, 4, 1, 7, 4, 1, 3, 4, 1, 1, 0, 1, 1, 1, 128, 2, 100, 0.5, 2.0, 0, 255};
  const Data dd = data_for(dk, 0, 255, 0, 255);
  const auto dexp = reference(dk, dd.x, dd.w, dd.bias);
  CHECK(run({"cadence::quantized_depthwise_conv1d_ncl.per_tensor_out", false, true}, dk, ScalarType::kByte,
            ScalarType::kByte, ScalarType::kByte, dd.x, dd.w, dd.bias) == dexp);
  CHECK(run({"cadence::quantized_depthwise_conv1d_nlc.per_tensor_out", true, true}, dk, ScalarType::kByte,
            ScalarType::kByte, ScalarType::kByte, dd.x, dd.w, dd.bias) == dexp);
  // By hand: input [1, 1, 4] = 1 2 3 4, zero point 0, weight [1, -1], bias 0, stride 1, no padding:
  // 1-2, 2-3, 3-4 = -1 each; bias_scale 3, out_scale 1 -> -3; out zero point 10 -> 7.
  KernelHarness h;
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 4}, {1, 2, 3, 4});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2}, {1, -1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto out = h.out(ScalarType::kChar, {1, 1, 3});
  REQUIRE(h.call("cadence::quantized_conv1d_ncl.per_tensor_out",
                 {in, w, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(0),
                  h.integer(0), h.real(3.0), h.real(1.0), h.integer(10), h.integer(0), h.integer(0), out, out})
              .ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{7, 7, 7});
  // int16 is not among the conv1d kernels' dtypes; a 4-D input is refused.
  auto i16 = h.tensor<int16_t>(ScalarType::kShort, {1, 1, 4}, {1, 2, 3, 4});
  auto w16 = h.tensor<int16_t>(ScalarType::kShort, {1, 1, 2}, {1, -1});
  auto o16 = h.out(ScalarType::kShort, {1, 1, 3});
  auto s = h.call("cadence::quantized_conv1d_ncl.per_tensor_out",
                  {i16, w16, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(0),
                   h.integer(0), h.real(3.0), h.real(1.0), h.integer(10), h.integer(0), h.integer(0), o16, o16});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "cadence::quantized_conv1d_ncl.per_tensor_out: unsupported dtypes: input SHORT, weight SHORT, out SHORT");
  auto in4 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 4}, {1, 2, 3, 4});
  auto w4 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 2}, {1, -1});
  auto o4 = h.out(ScalarType::kChar, {1, 1, 1, 3});
  s = h.call("cadence::quantized_conv1d_nlc.per_tensor_out",
             {in4, w4, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(0), h.integer(0),
              h.real(3.0), h.real(1.0), h.integer(10), h.integer(0), h.integer(0), h.none(), o4, o4});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "cadence::quantized_conv1d_nlc.per_tensor_out: input must be [N, L, C], got [1, 1, 1, 4]");
}

TEST_CASE("cadence::quantized_conv1d ncl and nlc .out: tensor parameters, ties to even, saturation", "[cadence]") {
  // input 3 5 7 9 with input_zero_point 1: 2 4 6 8. weight_zero_point [1, 100] and
  // bias_scale [0.5, 8] are used by their first elements only: weights 2 1 -> 1 0
  // (output channel 0) and 1 3 -> 0 2 (channel 1); bias 0 and 1. Kernel 2, stride 1:
  //   channel 0: x[j]            = 2 4 6    -> * 0.5 = 1 2 3
  //   channel 1: 1 + 2 x[j + 1]  = 9 13 17  -> * 0.5 = 4.5 6.5 8.5 -> 4 6 8 (ties to even)
  // out_scale 1; out_zero_point 120 (int8): 121 122 123 and 124 126 128 -> 127 (saturated);
  // out_zero_point 200 (uint8): 201 202 203 and 204 206 208.
  KernelHarness h;
  auto w_zp = h.tensor<int32_t>(ScalarType::kInt, {2}, {1, 100});
  auto bias_scale = h.tensor<float>(ScalarType::kFloat, {2}, {0.5f, 8.f});
  auto unused = h.tensor<int32_t>(ScalarType::kInt, {1}, {12345});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {2}, {0, 1});
  const auto call = [&](const std::string& op, size_t in, size_t w, int64_t out_zp, size_t out) {
    return h.call(op, {in, w, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(1), w_zp,
                       bias_scale, h.real(1.0), h.integer(out_zp), unused, unused, out, out});
  };
  // NCL, int8: input [1, 1, 4], weight [OC, C, K] = [2, 1, 2], out [1, 2, 3].
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 4}, {3, 5, 7, 9});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {2, 1, 2}, {2, 1, 1, 3});
  auto out = h.out(ScalarType::kChar, {1, 2, 3});
  REQUIRE(call("cadence::quantized_conv1d_ncl.out", in, w, 120, out).ok());
  CHECK(h.data<int8_t>(out) == std::vector<int8_t>{121, 122, 123, 124, 126, 127});
  // NLC, uint8: input [1, 4, 1], weight [OC, K, C] = [2, 2, 1] (the same bytes with one
  // channel), out [1, 3, 2] with the channels innermost.
  auto in_u = h.tensor<uint8_t>(ScalarType::kByte, {1, 4, 1}, {3, 5, 7, 9});
  auto w_u = h.tensor<uint8_t>(ScalarType::kByte, {2, 2, 1}, {2, 1, 1, 3});
  auto out_u = h.out(ScalarType::kByte, {1, 3, 2});
  REQUIRE(call("cadence::quantized_conv1d_nlc.out", in_u, w_u, 200, out_u).ok());
  CHECK(h.data<uint8_t>(out_u) == std::vector<uint8_t>{201, 204, 202, 206, 203, 208});

  // The tensor parameters are checked by name.
  auto empty = h.tensor<int32_t>(ScalarType::kInt, {0}, {});
  auto s = h.call("cadence::quantized_conv1d_ncl.out",
                  {in, w, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(1), empty,
                   bias_scale, h.real(1.0), h.integer(0), unused, unused, out, out});
  CHECK(etkit::test::error_message(s) == "cadence::quantized_conv1d_ncl.out: weight_zero_point must not be empty");
  s = h.call("cadence::quantized_conv1d_nlc.out",
             {in_u, w_u, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(1), w_zp, w_zp,
              h.real(1.0), h.integer(0), unused, unused, out_u, out_u});
  CHECK(etkit::test::error_message(s) == "cadence::quantized_conv1d_nlc.out: bias_scale must be FLOAT, not INT");
  s = h.call("cadence::quantized_conv1d_ncl.out",
             {in, w, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(1), w_zp,
              bias_scale, h.real(1.0), h.integer(0), h.integer(0), unused, out, out});
  CHECK(etkit::test::error_message(s).starts_with("cadence::quantized_conv1d_ncl.out: out_multiplier must be a tensor"));
  // The layout is the op's: a [N, C, L] op refuses a 4-D input.
  auto in4 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 4}, {3, 5, 7, 9});
  s = h.call("cadence::quantized_conv1d_ncl.out",
             {in4, w, bias, h.int_list({1}), h.int_list({0}), h.int_list({1}), h.integer(1), h.integer(1), w_zp,
              bias_scale, h.real(1.0), h.integer(0), unused, unused, out, out});
  CHECK(etkit::test::error_message(s) == "cadence::quantized_conv1d_ncl.out: input must be [N, C, L], got [1, 1, 1, 4]");
}

namespace {

// im2row in NCHW index arithmetic: out[n][oy * OW + ox][(c * KH + ky) * KW + kx].
std::vector<double> im2row_reference(const std::vector<double>& x, int64_t n, int64_t c, int64_t h, int64_t w, int64_t kh,
                                     int64_t kw, int64_t d0, int64_t d1, int64_t p0, int64_t p1, int64_t s0, int64_t s1,
                                     const std::vector<double>& pad) {
  const int64_t oh = (h + 2 * p0 - d0 * (kh - 1) - 1) / s0 + 1, ow = (w + 2 * p1 - d1 * (kw - 1) - 1) / s1 + 1;
  std::vector<double> out(size_t(n * oh * ow * c * kh * kw));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t xx = 0; xx < ow; ++xx)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t ky = 0; ky < kh; ++ky)
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t iy = y * s0 - p0 + ky * d0, ix = xx * s1 - p1 + kx * d1;
              const size_t o = size_t(((b * oh + y) * ow + xx) * c * kh * kw + (ch * kh + ky) * kw + kx);
              out[o] = iy < 0 || iy >= h || ix < 0 || ix >= w ? pad[size_t(b)] : x[size_t(((b * c + ch) * h + iy) * w + ix)];
            }
  return out;
}

}  // namespace

TEST_CASE("cadence::im2row: rows per output position, padding with the zero point, both layouts", "[cadence]") {
  // By hand: input [1, 1, 2, 2] = 1 2 / 3 4, kernel 2x2, padding 1, stride 2 -> 2x2 positions:
  // (0,0) sees pad pad / pad 1; (0,1) pad pad / 2 pad; (1,0) pad 3 / pad pad; (1,1) 4 pad / pad pad.
  {
    KernelHarness h;
    auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 2, 2}, {1, 2, 3, 4});
    auto out = h.out(ScalarType::kChar, {1, 4, 4});
    REQUIRE(h.call("cadence::im2row.per_tensor_out", {in, h.int_list({2, 2}), h.int_list({1, 1}), h.int_list({1, 1}),
                                                      h.int_list({2, 2}), h.integer(-9), h.boolean(false), out, out})
                .ok());
    CHECK(h.data<int8_t>(out) == std::vector<int8_t>{-9, -9, -9, 1, -9, -9, 2, -9, -9, 3, -9, -9, 4, -9, -9, -9});
  }
  // A larger case in each layout and dtype, per-batch zero points in the .out overload.
  const int64_t n = 2, c = 3, hh = 4, w = 5;
  const auto xi = values(size_t(n * c * hh * w), -128, 127, 9);
  std::vector<double> x(xi.begin(), xi.end());
  const std::vector<double> pad{-7, 11};
  const auto expected = im2row_reference(x, n, c, hh, w, 2, 3, 2, 1, 1, 2, 1, 2, pad);
  // OH = (4 + 2 - 2*1 - 1) / 1 + 1 = 4; OW = (5 + 4 - 1*2 - 1) / 2 + 1 = 4: 16 rows of 3 * 2 * 3 = 18.
  for (bool last : {false, true}) {
    for (ScalarType t : {ScalarType::kChar, ScalarType::kFloat}) {
      KernelHarness h;
      const auto xs = last ? to_last(xi, n, c, hh, w) : xi;
      const std::vector<int32_t> shape = last ? std::vector<int32_t>{2, 4, 5, 3} : std::vector<int32_t>{2, 3, 4, 5};
      const size_t in = t == ScalarType::kChar ? make<int8_t>(h, t, shape, xs)
                                               : h.tensor<float>(t, shape, std::vector<float>(xs.begin(), xs.end()));
      const size_t out = h.out(t, {2, 16, 18});
      const size_t zp = h.tensor<int32_t>(ScalarType::kInt, {2}, {-7, 11});
      INFO("channel_last " << last << ", dtype " << int(t));
      REQUIRE(h.call("cadence::im2row.out", {in, h.int_list({2, 3}), h.int_list({2, 1}), h.int_list({1, 2}),
                                             h.int_list({1, 2}), zp, h.boolean(last), out, out})
                  .ok());
      std::vector<double> got;
      if (t == ScalarType::kChar) {
        for (int8_t v : h.data<int8_t>(out)) got.push_back(v);
      } else {
        for (float v : h.data<float>(out)) got.push_back(v);
      }
      CHECK(got == expected);
    }
  }
  // uint8: the zero point is converted to the element type (300 -> 44); a zero point per batch
  // must match the batch.
  KernelHarness h;
  auto u = h.tensor<uint8_t>(ScalarType::kByte, {1, 1, 1}, {200});
  auto uo = h.out(ScalarType::kByte, {1, 3, 1});
  REQUIRE(h.call("cadence::im2row.per_tensor_out", {u, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({0, 1}),
                                                    h.int_list({1, 1}), h.integer(300), h.boolean(false), uo, uo})
              .ok());
  CHECK(h.data<uint8_t>(uo) == std::vector<uint8_t>{44, 200, 44});
  auto zp3 = h.tensor<int32_t>(ScalarType::kInt, {3}, {1, 2, 3});
  auto s = h.call("cadence::im2row.out", {u, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({0, 1}), h.int_list({1, 1}),
                                          zp3, h.boolean(false), uo, uo});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "cadence::im2row.out: in_zero_point must have one element or one per batch entry (1), got [3]");
}

// ---- transposed_im2row and transposed_convolution ---------------------------
//
// The reference gathers: tap k of output position y reads the input position
// whose spread-out index (i * s) is y - (K - 1) d + k d + p. The expectations
// here scatter instead, as a transposed convolution is usually defined: input
// position i feeds output position i * s - p + (K - 1 - k) d through tap k
// (the kernel reversed).

TEST_CASE("cadence::transposed_im2row: scattered input positions, the zero point elsewhere", "[cadence]") {
  const int64_t n = 2, c = 2, hh = 3, w = 2, kh = 2, kw = 3, s0 = 2, s1 = 1, p0 = 1, p1 = 0, d0 = 1, d1 = 2, op0 = 1, op1 = 0;
  const int64_t oh = (hh - 1) * s0 - 2 * p0 + d0 * (kh - 1) + op0 + 1;  // 5
  const int64_t ow = (w - 1) * s1 - 2 * p1 + d1 * (kw - 1) + op1 + 1;   // 6
  REQUIRE(oh == 5);
  REQUIRE(ow == 6);
  const auto xi = values(size_t(n * c * hh * w), 0, 255, 5);
  const std::vector<double> pad{3, 250};
  for (bool last : {false, true}) {
    // Expected, by scatter; columns (c, ky, kx) or, channels-last, (ky, kx, c).
    std::vector<double> expected(size_t(n * oh * ow * c * kh * kw));
    const auto col = [&](int64_t ch, int64_t ky, int64_t kx) { return last ? (ky * kw + kx) * c + ch : (ch * kh + ky) * kw + kx; };
    for (int64_t b = 0; b < n; ++b)
      for (int64_t r = 0; r < oh * ow; ++r)
        for (int64_t k = 0; k < c * kh * kw; ++k) expected[size_t((b * oh * ow + r) * c * kh * kw + k)] = pad[size_t(b)];
    for (int64_t b = 0; b < n; ++b)
      for (int64_t ch = 0; ch < c; ++ch)
        for (int64_t iy = 0; iy < hh; ++iy)
          for (int64_t ix = 0; ix < w; ++ix)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t y = iy * s0 - p0 + (kh - 1 - ky) * d0, x = ix * s1 - p1 + (kw - 1 - kx) * d1;
                if (y < 0 || y >= oh || x < 0 || x >= ow) continue;
                expected[size_t((b * oh * ow + y * ow + x) * c * kh * kw + col(ch, ky, kx))] =
                    double(xi[size_t(((b * c + ch) * hh + iy) * w + ix)]);
              }
    for (ScalarType t : {ScalarType::kByte, ScalarType::kFloat}) {
      KernelHarness h;
      const auto xs = last ? to_last(xi, n, c, hh, w) : xi;
      const std::vector<int32_t> shape = last ? std::vector<int32_t>{2, 3, 2, 2} : std::vector<int32_t>{2, 2, 3, 2};
      const size_t in = t == ScalarType::kByte ? make<uint8_t>(h, t, shape, xs)
                                               : h.tensor<float>(t, shape, std::vector<float>(xs.begin(), xs.end()));
      const size_t out = h.out(t, {2, 30, 12});
      const size_t zp = h.tensor<int32_t>(ScalarType::kInt, {2}, {3, 250});
      INFO("channel_last " << last << ", dtype " << int(t));
      REQUIRE(h.call("cadence::transposed_im2row.out", {in, h.int_list({kh, kw}), h.int_list({d0, d1}), h.int_list({p0, p1}),
                                                        h.int_list({s0, s1}), h.int_list({op0, op1}), zp, h.boolean(last),
                                                        out, out})
                  .ok());
      std::vector<double> got;
      if (t == ScalarType::kByte) {
        for (uint8_t v : h.data<uint8_t>(out)) got.push_back(v);
      } else {
        for (float v : h.data<float>(out)) got.push_back(v);
      }
      CHECK(got == expected);
    }
  }
  // int8 is not among transposed_im2row's dtypes.
  KernelHarness h;
  auto i8 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1}, {1});
  auto o8 = h.out(ScalarType::kChar, {1, 1, 1});
  auto zp = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto s = h.call("cadence::transposed_im2row.out", {i8, h.int_list({1, 1}), h.int_list({1, 1}), h.int_list({0, 0}),
                                                     h.int_list({1, 1}), h.int_list({0, 0}), zp, h.boolean(false), o8, o8});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "cadence::transposed_im2row.out: input dtype CHAR is not supported (FLOAT or BYTE)");
}

TEST_CASE("cadence::transposed_convolution.out: groups, stride, padding, dilation, output padding, both layouts", "[cadence]") {
  // By hand, 1-D: input [1, 2], weight [3, 5], bias 0.5, stride 2, output padding 1: OW = 2 + 1 + 1 + 1 = 5;
  // x0 feeds outputs 0, 1 through the reversed kernel (5, 3), x1 outputs 2, 3: 5.5 3.5 10.5 6.5 0.5.
  {
    KernelHarness h;
    auto in = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {1, 2});
    auto w = h.tensor<float>(ScalarType::kFloat, {1, 1, 2}, {3, 5});
    auto bias = h.tensor<float>(ScalarType::kFloat, {1}, {0.5f});
    auto out = h.out(ScalarType::kFloat, {1, 1, 5});
    REQUIRE(h.call("cadence::transposed_convolution.out", {in, w, bias, h.int_list({2}), h.int_list({0}), h.int_list({1}),
                                                           h.int_list({1}), h.integer(1), h.boolean(false), out, out})
                .ok());
    CHECK(h.data<float>(out) == std::vector<float>{5.5f, 3.5f, 10.5f, 6.5f, 0.5f});
  }
  // 2-D with 2 groups (4 input, 6 output channels): the weight is [OC / groups, C, KH, KW] and output
  // channel o of group g uses weight row o - 3 g with the input channels of g (absolute index).
  const int64_t n = 2, c = 4, hh = 3, w = 4, groups = 2, ocpg = 3, oc = 6, kh = 3, kw = 2;
  const int64_t s0 = 2, s1 = 3, p0 = 1, p1 = 0, d0 = 1, d1 = 2, op0 = 1, op1 = 2;
  const int64_t oh = (hh - 1) * s0 - 2 * p0 + d0 * (kh - 1) + op0 + 1;  // 6
  const int64_t ow = (w - 1) * s1 - 2 * p1 + d1 * (kw - 1) + op1 + 1;   // 14
  const auto x = values(size_t(n * c * hh * w), -20, 20, 6);
  const auto wt = values(size_t(ocpg * c * kh * kw), -9, 9, 7);
  const auto bias = values(size_t(oc), -50, 50, 8);
  std::vector<double> expected(size_t(n * oc * oh * ow));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t i = 0; i < oh * ow; ++i) expected[size_t((b * oc + o) * oh * ow + i)] = double(bias[size_t(o)]);
  const int64_t icpg = c / groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t ic = (o / ocpg) * icpg; ic < (o / ocpg + 1) * icpg; ++ic)
        for (int64_t iy = 0; iy < hh; ++iy)
          for (int64_t ix = 0; ix < w; ++ix)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t y = iy * s0 - p0 + (kh - 1 - ky) * d0, xx = ix * s1 - p1 + (kw - 1 - kx) * d1;
                if (y < 0 || y >= oh || xx < 0 || xx >= ow) continue;
                expected[size_t(((b * oc + o) * oh + y) * ow + xx)] +=
                    double(x[size_t(((b * c + ic) * hh + iy) * w + ix)]) *
                    double(wt[size_t((((o % ocpg) * c + ic) * kh + ky) * kw + kx)]);
              }
  for (bool last : {false, true}) {
    KernelHarness h;
    const auto xs = last ? to_last(x, n, c, hh, w) : x;
    const auto ws = last ? to_last(wt, ocpg, c, kh, kw) : wt;
    const auto f = [](const std::vector<int64_t>& v) { return std::vector<float>(v.begin(), v.end()); };
    const size_t in = h.tensor<float>(ScalarType::kFloat, last ? std::vector<int32_t>{2, 3, 4, 4} : std::vector<int32_t>{2, 4, 3, 4}, f(xs));
    const size_t wv = h.tensor<float>(ScalarType::kFloat, last ? std::vector<int32_t>{3, 3, 2, 4} : std::vector<int32_t>{3, 4, 3, 2}, f(ws));
    const size_t bv = h.tensor<float>(ScalarType::kFloat, {6}, f(bias));
    const size_t out = h.out(ScalarType::kFloat, last ? std::vector<int32_t>{2, 6, 14, 6} : std::vector<int32_t>{2, 6, 6, 14});
    INFO("channel_last " << last);
    REQUIRE(h.call("cadence::transposed_convolution.out",
                   {in, wv, bv, h.int_list({s0, s1}), h.int_list({p0, p1}), h.int_list({d0, d1}), h.int_list({op0, op1}),
                    h.integer(groups), h.boolean(last), out, out})
                .ok());
    std::vector<double> got;
    for (float v : h.data<float>(out)) got.push_back(v);
    if (last) got = to_first(got, n, oc, oh, ow);
    CHECK(got == expected);
  }
}

TEST_CASE("cadence::quantized_conv2d: zero points narrowed as the reference narrows them, 3-D inputs", "[cadence]") {
  KernelHarness h;
  auto in = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 1}, {50});
  auto w4 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1, 1}, {1});
  auto w3 = h.tensor<int8_t>(ScalarType::kChar, {1, 1, 1}, {1});
  auto bias = h.tensor<int32_t>(ScalarType::kInt, {1}, {0});
  auto out = h.out(ScalarType::kChar, {1, 1, 1, 1});
  const auto call = [&](const char* op, size_t weight, int64_t in_zp, int64_t out_zp) {
    REQUIRE(h.call(op, {in, weight, bias, h.int_list({1, 1}), h.int_list({0, 0}), h.int_list({1, 1}), h.integer(1),
                        h.integer(in_zp), h.integer(0), h.real(1.0), h.real(1.0), h.integer(out_zp), h.integer(0),
                        h.integer(0), out, out})
                .ok());
    return h.data<int8_t>(out)[0];
  };
  // The generic NCHW loop takes the input zero point as int8: 300 -> 44, 50 - 44 = 6; so is the out
  // zero point: 300 -> 44, 6 + 44 = 50.
  CHECK(call("cadence::quantized_conv2d_nchw_asym8sxsym8s_asym8s.per_tensor_out", w4, 300, 0) == 6);
  CHECK(call("cadence::quantized_conv2d_nchw_asym8sxsym8s_asym8s.per_tensor_out", w4, 300, 300) == 50);
  // The NHWC depthwise kernel subtracts the int32 input zero point: 50 - 300 = -250 -> -128.
  CHECK(call("cadence::quantized_conv2d_nhwc_depthwise_asym8sxsym8s_asym8s.per_tensor_out", w3, 300, 0) == -128);

  // A 3-D input to a conv2d op is [N, W, C] (NHWC): input 1 2 3, weight [1, 1], padding (0, 1):
  // 1, 1 + 2, 2 + 3, 3. A non-zero first padding entry puts the single input row out of reach
  // (row 0 - p0 < 0), leaving the bias alone.
  auto x = h.tensor<int8_t>(ScalarType::kChar, {1, 3, 1}, {1, 2, 3});
  auto w = h.tensor<int8_t>(ScalarType::kChar, {1, 2, 1}, {1, 1});
  auto b7 = h.tensor<int32_t>(ScalarType::kInt, {1}, {7});
  auto o = h.out(ScalarType::kChar, {1, 4, 1});
  const auto conv1d = [&](std::vector<int64_t> padding) {
    REQUIRE(h.call("cadence::quantized_conv2d_nhwc.per_tensor_out",
                   {x, w, b7, h.int_list({5, 1}), h.int_list(padding), h.int_list({1, 1}), h.integer(1), h.integer(0),
                    h.integer(0), h.real(1.0), h.real(1.0), h.integer(0), h.integer(0), h.integer(0), h.none(), o, o})
                .ok());
    return h.data<int8_t>(o);
  };
  CHECK(conv1d({0, 1}) == std::vector<int8_t>{8, 10, 12, 10});
  CHECK(conv1d({1, 1}) == std::vector<int8_t>{7, 7, 7, 7});
}

// Sums that float cannot hold exactly: the reference's float accumulator
// rounds at each step, so the result depends on its order and differs from
// the exact sum. (Below 2^24 the kernel sums in integers, which gives the
// same bits; here it must not.) Two terms of 65535 * 255 take the sum past
// 2^25, where float's step is 4, then 4000 terms of 3 each round to 4:
// float ends at 33438848 (16327.56 x 2048, quantized 16328) where the exact
// sum is 33434850 (16325.61 x 2048, quantized 16326).
TEST_CASE("cadence::quantized_conv2d: sums beyond 2^24 round as the reference's float loop does", "[cadence]") {
  const int64_t taps = 4002;
  const Case k{1, 1, 1, taps, 1, 1, taps, 1, 1, 1, 0, 0, 1, 1, -32768, -128, 0, 1.0, 2048.0, -32768, 32767};
  std::vector<int64_t> x(size_t(taps), -32768 + 3), w(size_t(taps), -127);
  x[0] = x[1] = 32767;
  w[0] = w[1] = 127;
  float acc = 0.f;  // the reference's loop: float(bias), then term after term
  int64_t exact = 0;
  for (int64_t i = 0; i < taps; ++i) {
    const int64_t term = (x[size_t(i)] - k.in_zp) * (w[size_t(i)] - k.w_zp);
    acc += static_cast<float>(term);
    exact += term;
  }
  REQUIRE(acc == 33438848.f);
  REQUIRE(exact == 33434850);
  CHECK(run({"cadence::quantized_conv2d_nchw.per_tensor_out"}, k, ScalarType::kShort, ScalarType::kChar,
            ScalarType::kShort, x, w, {0}) == std::vector<int64_t>{16328});
  CHECK(run({"cadence::quantized_conv2d_nhwc.per_tensor_out", true, false, Params::kPerTensorOffset}, k,
            ScalarType::kShort, ScalarType::kChar, ScalarType::kShort, x, w, {0}) == std::vector<int64_t>{16328});
}
