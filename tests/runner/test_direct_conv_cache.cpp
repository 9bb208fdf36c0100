// The direct convolution's packed filters kept between executions: a
// constant filter is packed once (per loaded method for aten::convolution,
// per runtime for the XNNPACK node), so a method run again on new inputs
// must give the reference results again, and a filter that is not a
// constant (a method input, or computed by an earlier kernel) must be
// packed afresh on every run, never served from the cache.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "runner/constant_cache.h"
#include "runner/kernels/linalg/direct_conv.h"
#include "tests/runner/runner_test_util.h"
#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::test;

namespace {

// LeNet's second layer padded by 1 (padded bands): 6x14x14 -> 16x12x12, 5x5.
constexpr int kCin = 6, kH = 14, kW = 14, kCout = 16, kK = 5, kPad = 1, kOh = 12, kOw = 12;

// The definition in double over NCHW input, OIHW filter (nhwc: NHWC input
// and out, OHWI filter); `mag` gets the sum of the terms' magnitudes.
std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                              bool nhwc, std::vector<double>& mag) {
  std::vector<double> out(size_t(kCout * kOh * kOw));
  mag.assign(out.size(), 0.0);
  for (int co = 0; co < kCout; ++co) {
    for (int oy = 0; oy < kOh; ++oy) {
      for (int ox = 0; ox < kOw; ++ox) {
        double acc = b[size_t(co)], m = std::fabs(acc);
        for (int c = 0; c < kCin; ++c) {
          for (int ky = 0; ky < kK; ++ky) {
            for (int kx = 0; kx < kK; ++kx) {
              const int y = oy - kPad + ky, xx = ox - kPad + kx;
              if (y < 0 || y >= kH || xx < 0 || xx >= kW) continue;
              const double xv = nhwc ? x[size_t((y * kW + xx) * kCin + c)] : x[size_t((c * kH + y) * kW + xx)];
              const double wv = nhwc ? w[size_t(((co * kK + ky) * kK + kx) * kCin + c)]
                                     : w[size_t(((co * kCin + c) * kK + ky) * kK + kx)];
              acc += xv * wv;
              m += std::fabs(xv * wv);
            }
          }
        }
        const size_t at = nhwc ? size_t((oy * kOw + ox) * kCout + co) : size_t((co * kOh + oy) * kOw + ox);
        out[at] = acc;
        mag[at] = m;
      }
    }
  }
  return out;
}

std::vector<float> added(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

// One aten::convolution.out (padding 1) whose weight is `weight_value`.
void add_conv(pte::MethodBuilder& m, int32_t x, int32_t weight_value, int32_t bias, int32_t y) {
  m.kernel_call("aten::convolution", "out",
                {x, weight_value, bias, m.add_int_list({1, 1}), m.add_int_list({kPad, kPad}), m.add_int_list({1, 1}),
                 m.add_bool(false), m.add_int_list({0, 0}), m.add_int(1), y, y});
}

void set_floats(rt::LoadedMethod& method, size_t input, std::vector<int32_t> sizes, const std::vector<float>& v) {
  const auto bytes = float_bytes(v);
  const Status s = method.set_input_tensor(input, ScalarType::kFloat, sizes, ByteSpan(bytes));
  if (!s.ok()) FAIL(s.error().message);
}

void execute_and_check(rt::LoadedMethod& method, const std::vector<double>& ref, const std::vector<double>& mag) {
  const Status s = rt::execute(method);
  if (!s.ok()) FAIL(s.error().message);
  const auto got = floats_of(method.output(0));
  REQUIRE(got.size() == ref.size());
  CHECK(count_outside_rounding(got, ref, mag) == 0);
}

}  // namespace

TEST_CASE("direct convolution: a constant weight packed once serves every execution", "[conv][linalg][cache]") {
  const auto w = random_floats(size_t(kCout * kCin * kK * kK), 41), b = random_floats(kCout, 42);
  pte::ProgramBuilder builder;
  auto& m = builder.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, kCin, kH, kW});
  const int32_t wt = m.add_constant_tensor({kCout, kCin, kK, kK}, w);
  const int32_t bias = m.add_constant_tensor({kCout}, b);
  const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, kCout, kOh, kOw});
  add_conv(m, x, wt, bias, y);
  m.set_inputs({x});
  m.set_outputs({y});
  const auto built = build_program(builder);
  auto method = rt::load_method(built->program, "forward");
  REQUIRE(method.ok());
  // Three executions on three inputs: the second and third find the packed
  // filter the first left.
  for (uint32_t seed : {43u, 44u, 45u}) {
    INFO("input seed " << seed);
    const auto in = random_floats(size_t(kCin * kH * kW), seed);
    std::vector<double> mag;
    const auto ref = reference(in, w, b, false, mag);
    set_floats(**method, 0, {1, kCin, kH, kW}, in);
    execute_and_check(**method, ref, mag);
  }
}

TEST_CASE("direct convolution: a weight that is not a constant is never served stale", "[conv][linalg][cache]") {
  const auto b = random_floats(kCout, 51);
  const auto in = random_floats(size_t(kCin * kH * kW), 52);
  SECTION("the weight is a method input") {
    pte::ProgramBuilder builder;
    auto& m = builder.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, kCin, kH, kW});
    const int32_t wt = m.add_planned_tensor(ScalarType::kFloat, {kCout, kCin, kK, kK});
    const int32_t bias = m.add_constant_tensor({kCout}, b);
    const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, kCout, kOh, kOw});
    add_conv(m, x, wt, bias, y);
    m.set_inputs({x, wt});
    m.set_outputs({y});
    const auto built = build_program(builder);
    auto method = rt::load_method(built->program, "forward");
    REQUIRE(method.ok());
    set_floats(**method, 0, {1, kCin, kH, kW}, in);
    for (uint32_t seed : {53u, 54u}) {
      INFO("weight seed " << seed);
      const auto w = random_floats(size_t(kCout * kCin * kK * kK), seed);
      std::vector<double> mag;
      const auto ref = reference(in, w, b, false, mag);
      set_floats(**method, 1, {kCout, kCin, kK, kK}, w);
      execute_and_check(**method, ref, mag);
    }
  }
  SECTION("the weight is computed by an earlier kernel from a constant and an input") {
    const auto base = random_floats(size_t(kCout * kCin * kK * kK), 55);
    pte::ProgramBuilder builder;
    auto& m = builder.add_method("forward");
    const int32_t x = m.add_planned_tensor(ScalarType::kFloat, {1, kCin, kH, kW});
    const int32_t delta = m.add_planned_tensor(ScalarType::kFloat, {kCout, kCin, kK, kK});
    const int32_t w0 = m.add_constant_tensor({kCout, kCin, kK, kK}, base);
    const int32_t wt = m.add_planned_tensor(ScalarType::kFloat, {kCout, kCin, kK, kK});
    const int32_t bias = m.add_constant_tensor({kCout}, b);
    const int32_t y = m.add_planned_tensor(ScalarType::kFloat, {1, kCout, kOh, kOw});
    m.kernel_call("aten::add", "out", {w0, delta, m.add_int(1), wt, wt});
    add_conv(m, x, wt, bias, y);
    m.set_inputs({x, delta});
    m.set_outputs({y});
    const auto built = build_program(builder);
    auto method = rt::load_method(built->program, "forward");
    REQUIRE(method.ok());
    set_floats(**method, 0, {1, kCin, kH, kW}, in);
    for (uint32_t seed : {56u, 57u}) {
      INFO("delta seed " << seed);
      const auto d = random_floats(base.size(), seed);
      std::vector<double> mag;
      const auto ref = reference(in, added(base, d), b, false, mag);
      set_floats(**method, 1, {kCout, kCin, kK, kK}, d);
      execute_and_check(**method, ref, mag);
    }
  }
}

TEST_CASE("ConstantCache: one entry per constant, layout and parameters, bounded", "[cache]") {
  rt::ConstantCache cache;
  const float constant[4] = {1, 2, 3, 4};
  const int64_t p1[] = {16, 6, 5, 5}, p2[] = {16, 6, 25, 1};
  auto a = cache.floats(constant, 1, p1, 10);
  REQUIRE(a.data != nullptr);
  CHECK(a.fresh);
  a.data[0] = 7.0f;
  auto again = cache.floats(constant, 1, p1, 10);
  CHECK(again.data == a.data);
  CHECK_FALSE(again.fresh);
  CHECK(again.data[0] == 7.0f);
  // Another view of the same bytes, another layout: entries of their own.
  CHECK(cache.floats(constant, 1, p2, 10).fresh);
  CHECK(cache.floats(constant, 2, p1, 10).fresh);
  CHECK(cache.size() == 3);
  CHECK(cache.bytes() == 3 * 10 * sizeof(float));
  // The same key asked for another size gets nothing rather than a short buffer.
  CHECK(cache.floats(constant, 1, p1, 11).data == nullptr);
  // Over the bound: not cached, nothing allocated.
  CHECK(cache.floats(constant + 1, 1, p1, size_t(rt::ConstantCache::kMaxBytes / sizeof(float))).data == nullptr);
  CHECK(cache.size() == 3);
}

TEST_CASE("xnnpack: a static convolution filter packed once serves every run, an external one is repacked each run",
          "[xnnpack][conv][cache]") {
  const auto b = random_floats(kCout, 61);
  const std::vector<uint32_t> wdims = {kCout, kK, kK, kCin};
  const size_t wn = size_t(kCout * kK * kK * kCin);
  for (bool static_filter : {true, false}) {
    INFO("static filter " << static_filter);
    const auto w_static = random_floats(wn, 62);
    XnnGraphBuilder gb;
    const uint32_t in = gb.input({1, kH, kW, kCin});
    const uint32_t wid = static_filter ? gb.constant<float>(wdims, w_static) : gb.input(wdims);
    const uint32_t bid = gb.constant<float>({kCout}, b);
    const uint32_t out = gb.output({1, kOh, kOw, kCout});
    auto& node = gb.node(xnn::NodeType::kConv2d, {in, wid, bid}, {out});
    node.window = xnn::Window{kPad, kPad, kPad, kPad, kK, kK, 1, 1, 1, 1};
    node.groups = 1;
    node.group_input_channels = kCin;
    node.group_output_channels = kCout;
    const auto payload = gb.payload();
    auto graph = xnn::read_xnn_payload(ByteSpan(payload));
    REQUIRE(graph.ok());
    auto runtime = rt::xnnpack::Runtime::compile(std::move(graph).value(), nullptr, {});
    REQUIRE(runtime.ok());
    for (uint32_t seed : {63u, 64u, 65u}) {
      INFO("seed " << seed);
      const auto x = random_floats(size_t(kH * kW * kCin), seed);
      const auto w = static_filter ? w_static : random_floats(wn, seed + 100);
      std::vector<double> mag;
      const auto ref = reference(x, w, b, true, mag);
      std::vector<XnnArg> args = {xnn_arg<float>({1, kH, kW, kCin}, x)};
      if (!static_filter) args.push_back(xnn_arg<float>({kCout, kK, kK, kCin}, w));
      args.push_back(xnn_out({1, kOh, kOw, kCout}));
      const Status s = run_xnn_runtime(**runtime, args);
      if (!s.ok()) FAIL(s.error().message);
      const auto got = values_of(args.back());
      CHECK(count_outside_rounding(got, ref, mag, 1e-5, 1e-6) == 0);
    }
  }
}
