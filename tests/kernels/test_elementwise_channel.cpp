// The per-plane broadcast of the binary ops: one operand holding one value
// per channel ([C, 1, 1] or [1, C, 1, 1] against [N, C, H, W]; more
// generally a run of out's dims followed by size-1 dims) on either side.
// Expectations are each operator's definition evaluated here, with the
// broadcast written as index arithmetic: element (n, c, h, w) of out reads
// element c of the per-channel operand. Sizes are odd so that vector tails
// run; the float values include NaN, infinities and signed zeros.
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;

namespace {

bool same_float(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

std::vector<float> specials(int32_t n, int32_t shift) {
  const float pool[] = {1.5f, -2.25f, 0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f,
                        -std::numeric_limits<float>::infinity(), 1e-40f, -7.0f, std::numeric_limits<float>::infinity(),
                        -1e-40f, 0.375f, 5.0f};
  std::vector<float> v(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) v[size_t(i)] = pool[size_t(i + shift) % std::size(pool)];
  return v;
}

template <typename T>
T apply(const std::string& op, T x, T y) {
  if (op == "add") return T(x + y);
  if (op == "sub") return T(x - y);
  if (op == "mul") return T(x * y);
  return T(x / y);
}

// Index of the channel of element e of a contiguous [N, C, H, W] tensor.
int32_t channel_of(int32_t e, int32_t C, int32_t H, int32_t W) { return (e / (H * W)) % C; }

}  // namespace

TEST_CASE("add/sub/mul/div: a per-channel operand on either side, float", "[kernels][add][dense][channel]") {
  const std::vector<std::vector<int32_t>> shapes = {{2, 3, 5, 7}, {1, 6, 24, 24}, {3, 17, 1, 9}, {1, 2, 33, 1}};
  for (const auto& s : shapes) {
    const int32_t N = s[0], C = s[1], H = s[2], W = s[3], n = N * C * H * W;
    for (const std::string op : {"add", "sub", "mul", "div"}) {
      for (const auto& bshape : std::vector<std::vector<int32_t>>{{C, 1, 1}, {1, C, 1, 1}}) {
        for (bool channel_first : {false, true}) {
          INFO(op << " " << N << "x" << C << "x" << H << "x" << W << " channel operand rank " << bshape.size()
                  << (channel_first ? " as self" : " as other"));
          KernelHarness h;
          const auto xs = specials(n, 0), cs = specials(C, 5);
          const auto x = h.tensor<float>(ScalarType::kFloat, s, xs);
          const auto b = h.tensor<float>(ScalarType::kFloat, bshape, cs);
          const auto out = h.out(ScalarType::kFloat, s);
          const size_t self = channel_first ? b : x, other = channel_first ? x : b;
          std::vector<size_t> args = {self, other};
          if (op == "add" || op == "sub") args.push_back(h.integer(1));
          args.push_back(out);
          args.push_back(out);
          REQUIRE(h.call("aten::" + op + ".out", args).ok());
          const auto got = h.data<float>(out);
          bool all = true;
          for (int32_t e = 0; e < n; ++e) {
            const float v = xs[size_t(e)], c = cs[size_t(channel_of(e, C, H, W))];
            const float want = channel_first ? apply(op, c, v) : apply(op, v, c);
            all = all && same_float(got[size_t(e)], want);
          }
          CHECK(all);
        }
      }
    }
  }
}

TEST_CASE("add/mul: a per-channel operand with alpha, integers wrapping, doubles", "[kernels][add][dense][channel]") {
  const int32_t N = 2, C = 5, H = 3, W = 11, n = N * C * H * W;
  KernelHarness h;
  std::vector<int32_t> xi(static_cast<size_t>(n));
  for (int32_t e = 0; e < n; ++e) xi[size_t(e)] = e % 2 ? std::numeric_limits<int32_t>::max() - e : -e * 1000;
  const std::vector<int32_t> ci = {1, -1, 7, std::numeric_limits<int32_t>::max(), 0};
  const auto x = h.tensor<int32_t>(ScalarType::kInt, {N, C, H, W}, xi);
  const auto b = h.tensor<int32_t>(ScalarType::kInt, {C, 1, 1}, ci);
  const auto sum = h.out(ScalarType::kInt, {N, C, H, W});
  REQUIRE(h.call("aten::add.out", {x, b, h.integer(3), sum, sum}).ok());
  const auto prod = h.out(ScalarType::kInt, {N, C, H, W});
  REQUIRE(h.call("aten::mul.out", {b, x, prod, prod}).ok());
  const auto gs = h.data<int32_t>(sum), gp = h.data<int32_t>(prod);
  bool all = true;
  for (int32_t e = 0; e < n; ++e) {
    // Two's complement wrapping, computed in 64 bits and truncated.
    const int64_t v = xi[size_t(e)], c = ci[size_t(channel_of(e, C, H, W))];
    all = all && gs[size_t(e)] == int32_t(uint32_t(uint64_t(v + 3 * c)));
    all = all && gp[size_t(e)] == int32_t(uint32_t(uint64_t(c) * uint64_t(v)));
  }
  CHECK(all);

  std::vector<double> xd(static_cast<size_t>(n));
  for (int32_t e = 0; e < n; ++e) xd[size_t(e)] = 0.1 * e - 3;
  const auto xdd = h.tensor<double>(ScalarType::kDouble, {N, C, H, W}, xd);
  const auto bd = h.tensor<double>(ScalarType::kDouble, {1, C, 1, 1}, {0.5, -2, 3.25, 1e300, -0.0});
  const auto od = h.out(ScalarType::kDouble, {N, C, H, W});
  REQUIRE(h.call("aten::sub.out", {xdd, bd, h.real(2.0), od, od}).ok());
  const double cd[] = {0.5, -2, 3.25, 1e300, -0.0};
  const auto gd = h.data<double>(od);
  bool alld = true;
  for (int32_t e = 0; e < n; ++e) alld = alld && same_float(gd[size_t(e)], xd[size_t(e)] - 2.0 * cd[channel_of(e, C, H, W)]);
  CHECK(alld);
}

TEST_CASE("binary ops: operands that repeat a run of out's middle dims", "[kernels][add][dense][channel]") {
  // [C, H, 1] against [N, C, H, W]: each of the C * H values covers W
  // consecutive elements; [C, 1] against [N, C, W] likewise for rank 3.
  const int32_t N = 3, C = 4, H = 5, W = 9, n = N * C * H * W;
  KernelHarness h;
  const auto xs = specials(n, 1), cs = specials(C * H, 2);
  const auto x = h.tensor<float>(ScalarType::kFloat, {N, C, H, W}, xs);
  const auto b = h.tensor<float>(ScalarType::kFloat, {C, H, 1}, cs);
  const auto out = h.out(ScalarType::kFloat, {N, C, H, W});
  REQUIRE(h.call("aten::mul.out", {x, b, out, out}).ok());
  const auto got = h.data<float>(out);
  bool all = true;
  for (int32_t e = 0; e < n; ++e) all = all && same_float(got[size_t(e)], xs[size_t(e)] * cs[size_t((e / W) % (C * H))]);
  CHECK(all);

  const auto x3 = h.tensor<float>(ScalarType::kFloat, {N, C, W}, specials(N * C * W, 3));
  const auto b3 = h.tensor<float>(ScalarType::kFloat, {C, 1}, specials(C, 4));
  const auto o3 = h.out(ScalarType::kFloat, {N, C, W});
  REQUIRE(h.call("aten::maximum.out", {b3, x3, o3, o3}).ok());
  const auto g3 = h.data<float>(o3);
  const auto v3 = specials(N * C * W, 3), c3 = specials(C, 4);
  bool all3 = true;
  for (int32_t e = 0; e < N * C * W; ++e) {
    const float a = c3[size_t((e / W) % C)], v = v3[size_t(e)];
    // maximum propagates NaN from either side.
    const float want = std::isnan(a) || std::isnan(v) ? std::numeric_limits<float>::quiet_NaN() : (a > v ? a : v);
    all3 = all3 && (std::isnan(want) ? std::isnan(g3[size_t(e)]) : g3[size_t(e)] == want);
  }
  CHECK(all3);
}

TEST_CASE("per-channel broadcast outside the fast path still broadcasts", "[kernels][add][channel]") {
  // [C, 1, W] leaves a size-1 dim inside the run (H), a channels-last out
  // is not contiguous, and an operand that overlaps out is read first: all
  // take the general loop and give the same values.
  const int32_t N = 2, C = 3, H = 4, W = 5, n = N * C * H * W;
  KernelHarness h;
  std::vector<float> xs(static_cast<size_t>(n));
  for (int32_t e = 0; e < n; ++e) xs[size_t(e)] = float(e);
  const auto x = h.tensor<float>(ScalarType::kFloat, {N, C, H, W}, xs);
  std::vector<float> cw(static_cast<size_t>(C * W));
  for (int32_t k = 0; k < C * W; ++k) cw[size_t(k)] = float(1000 * k);
  const auto b = h.tensor<float>(ScalarType::kFloat, {C, 1, W}, cw);
  const auto out = h.out(ScalarType::kFloat, {N, C, H, W});
  REQUIRE(h.call("aten::add.out", {x, b, h.integer(1), out, out}).ok());
  const auto got = h.data<float>(out);
  bool all = true;
  for (int32_t e = 0; e < n; ++e) {
    const int32_t w = e % W, c = (e / (H * W)) % C;
    all = all && got[size_t(e)] == float(e + 1000 * (c * W + w));
  }
  CHECK(all);

  // Channels-last out: element (n, c, h, w) lives at ((n * H + h) * W + w) * C + c.
  const auto bc = h.tensor<float>(ScalarType::kFloat, {C, 1, 1}, {10.0f, 20.0f, 30.0f});
  const auto cl = h.out(ScalarType::kFloat, {N, C, H, W}, false, {0, 2, 3, 1});
  REQUIRE(h.call("aten::add.out", {x, bc, h.integer(1), cl, cl}).ok());
  const auto gcl = h.data<float>(cl);
  bool allcl = true;
  for (int32_t i = 0; i < N; ++i)
    for (int32_t c = 0; c < C; ++c)
      for (int32_t y = 0; y < H; ++y)
        for (int32_t w = 0; w < W; ++w) {
          const int32_t logical = ((i * C + c) * H + y) * W + w;
          allcl = allcl && gcl[size_t(((i * H + y) * W + w) * C + c)] == float(logical + 10 * (c + 1));
        }
  CHECK(allcl);
}
