// Outputs of 8 MiB and more (runner/kernels/stream_store.h, kStreamBytes)
// are written with streaming stores: the elementwise maps and zips by 1 KiB
// blocks through a buffer, the same-dtype copies whole. The tensors here
// hold 2,100,003 floats (8,400,012 bytes, just above 8,388,608), an odd
// count so that every block size leaves a tail. Expectations are the
// operators' definitions evaluated here element by element, or the source's
// bytes for copies; the helpers are also called directly on destinations
// 4 to 60 bytes past a 64-byte boundary, with guard bytes around them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/stream_store.h"
#include "tests/support/kernel_harness.h"

using etkit::ScalarType;
using etkit::test::KernelHarness;
namespace k = etkit::rt::kernels;

namespace {

constexpr int32_t kBig = 2'100'003;
static_assert(int64_t(kBig) * 4 >= k::kStreamBytes, "the tests must reach the streamed path");

// Floats with every special value at many positions and lanes: a pseudo-random
// magnitude and sign, and NaN, infinities, signed zeros and a denormal at
// indices that fall on different lanes and blocks.
std::vector<float> values(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t x = seed;
  for (int64_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    float f = float(int32_t(x >> 8) - (1 << 23)) / 4096.0f;
    switch (i % 997) {
      case 3: f = std::numeric_limits<float>::quiet_NaN(); break;
      case 10: f = -0.0f; break;
      case 17: f = 0.0f; break;
      case 29: f = std::numeric_limits<float>::infinity(); break;
      case 40: f = -std::numeric_limits<float>::infinity(); break;
      case 55: f = -1e-40f; break;
      default: break;
    }
    v[size_t(i)] = f;
  }
  return v;
}

// Bitwise equality for floats: NaN == NaN, -0.0 != +0.0.
bool same_float(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  return got == want && std::signbit(got) == std::signbit(want);
}

template <typename F>
int64_t mismatches(const std::vector<float>& got, F want) {
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) wrong += !same_float(got[i], want(int64_t(i)));
  return wrong;
}

// Float storage whose element `offset` sits `offset * 4` bytes past a
// 64-byte boundary, with guard values on both sides.
struct Placed {
  std::vector<float> storage;
  float* at = nullptr;
  int64_t n = 0;
  static constexpr float kGuard = -12345.5f;
  Placed(int64_t count, int64_t offset) : storage(size_t(count + offset + 64), kGuard), n(count) {
    float* base = storage.data();
    while (reinterpret_cast<uintptr_t>(base) % 64 != 0) ++base;
    at = base + offset;
  }
  bool guards_intact() const {
    const float* end = at + n;
    for (const float* p = storage.data(); p < at; ++p) {
      if (*p != kGuard) return false;
    }
    for (const float* p = end; p < storage.data() + storage.size(); ++p) {
      if (*p != kGuard) return false;
    }
    return true;
  }
};

}  // namespace

TEST_CASE("relu and neg on outputs above the streaming threshold", "[kernels][unary][relu][dense][stream]") {
  KernelHarness h;
  const auto x = values(kBig, 1);
  auto in = h.tensor<float>(ScalarType::kFloat, {kBig}, x);
  auto relu = h.out(ScalarType::kFloat, {kBig});
  auto neg = h.out(ScalarType::kFloat, {kBig});
  REQUIRE(h.call("aten::relu.out", {in, relu, relu}).ok());
  REQUIRE(h.call("aten::neg.out", {in, neg, neg}).ok());
  // relu(x) is +0.0 where x < 0, else x (NaN and -0.0 pass through).
  CHECK(mismatches(h.data<float>(relu), [&](int64_t i) { return x[size_t(i)] < 0 ? 0.0f : x[size_t(i)]; }) == 0);
  CHECK(mismatches(h.data<float>(neg), [&](int64_t i) { return -x[size_t(i)]; }) == 0);

  // In place: out is self.
  auto self = h.tensor<float>(ScalarType::kFloat, {kBig}, x);
  REQUIRE(h.call("aten::relu.out", {self, self, self}).ok());
  CHECK(mismatches(h.data<float>(self), [&](int64_t i) { return x[size_t(i)] < 0 ? 0.0f : x[size_t(i)]; }) == 0);
}

TEST_CASE("add/sub/mul of one shape on outputs above the streaming threshold", "[kernels][add][mul][dense][stream]") {
  KernelHarness h;
  const auto x = values(kBig, 2), y = values(kBig, 3);
  auto a = h.tensor<float>(ScalarType::kFloat, {kBig}, x);
  auto b = h.tensor<float>(ScalarType::kFloat, {kBig}, y);
  auto sum = h.out(ScalarType::kFloat, {kBig});
  auto diff = h.out(ScalarType::kFloat, {kBig});
  auto prod = h.out(ScalarType::kFloat, {kBig});
  REQUIRE(h.call("aten::add.out", {a, b, h.integer(1), sum, sum}).ok());
  REQUIRE(h.call("aten::sub.out", {a, b, h.real(2.0), diff, diff}).ok());
  REQUIRE(h.call("aten::mul.out", {a, b, prod, prod}).ok());
  CHECK(mismatches(h.data<float>(sum), [&](int64_t i) { return x[size_t(i)] + y[size_t(i)]; }) == 0);
  CHECK(mismatches(h.data<float>(diff), [&](int64_t i) { return x[size_t(i)] - 2.0f * y[size_t(i)]; }) == 0);
  CHECK(mismatches(h.data<float>(prod), [&](int64_t i) { return x[size_t(i)] * y[size_t(i)]; }) == 0);

  // In place on the left operand.
  REQUIRE(h.call("aten::add.out", {a, b, h.integer(1), a, a}).ok());
  CHECK(mismatches(h.data<float>(a), [&](int64_t i) { return x[size_t(i)] + y[size_t(i)]; }) == 0);

  // int16: 2-byte elements, 4,200,007 of them (8,400,014 bytes).
  const int32_t n16 = 2 * kBig + 1;
  std::vector<int16_t> p(static_cast<size_t>(n16)), q(static_cast<size_t>(n16));
  for (int32_t i = 0; i < n16; ++i) p[size_t(i)] = int16_t(i * 7), q[size_t(i)] = int16_t(30000 - i);
  auto pa = h.tensor<int16_t>(ScalarType::kShort, {n16}, p);
  auto qa = h.tensor<int16_t>(ScalarType::kShort, {n16}, q);
  auto s16 = h.out(ScalarType::kShort, {n16});
  REQUIRE(h.call("aten::add.out", {pa, qa, h.integer(1), s16, s16}).ok());
  const auto got = h.data<int16_t>(s16);
  int64_t wrong = 0;
  for (int32_t i = 0; i < n16; ++i) wrong += got[size_t(i)] != int16_t(uint16_t(p[size_t(i)]) + uint16_t(q[size_t(i)]));
  CHECK(wrong == 0);
}

TEST_CASE("broadcast operands on outputs above the streaming threshold", "[kernels][add][mul][dense][channel][stream]") {
  KernelHarness h;
  // [7, 300001] with one value per row of 300,001 (a per-channel operand,
  // on either side), [2101, 1000] with a row of 1000 (either side), and a
  // 0-dim operand.
  const auto x = values(7 * 300001, 4);
  const auto per_channel = values(7, 5);
  auto m = h.tensor<float>(ScalarType::kFloat, {7, 300001}, x);
  auto c = h.tensor<float>(ScalarType::kFloat, {7, 1}, per_channel);
  auto o1 = h.out(ScalarType::kFloat, {7, 300001});
  auto o2 = h.out(ScalarType::kFloat, {7, 300001});
  REQUIRE(h.call("aten::add.out", {m, c, h.integer(1), o1, o1}).ok());
  REQUIRE(h.call("aten::sub.out", {c, m, h.integer(1), o2, o2}).ok());
  CHECK(mismatches(h.data<float>(o1), [&](int64_t i) { return x[size_t(i)] + per_channel[size_t(i / 300001)]; }) == 0);
  CHECK(mismatches(h.data<float>(o2), [&](int64_t i) { return per_channel[size_t(i / 300001)] - x[size_t(i)]; }) == 0);

  const auto r = values(2101 * 1000, 6);
  const auto row = values(1000, 7);
  auto big = h.tensor<float>(ScalarType::kFloat, {2101, 1000}, r);
  auto rw = h.tensor<float>(ScalarType::kFloat, {1000}, row);
  auto o3 = h.out(ScalarType::kFloat, {2101, 1000});
  auto o4 = h.out(ScalarType::kFloat, {2101, 1000});
  REQUIRE(h.call("aten::mul.out", {big, rw, o3, o3}).ok());
  REQUIRE(h.call("aten::sub.out", {rw, big, h.integer(1), o4, o4}).ok());
  CHECK(mismatches(h.data<float>(o3), [&](int64_t i) { return r[size_t(i)] * row[size_t(i % 1000)]; }) == 0);
  CHECK(mismatches(h.data<float>(o4), [&](int64_t i) { return row[size_t(i % 1000)] - r[size_t(i)]; }) == 0);

  auto s = h.tensor<float>(ScalarType::kFloat, {}, {0.75f});
  auto o5 = h.out(ScalarType::kFloat, {2101, 1000});
  REQUIRE(h.call("aten::mul.out", {s, big, o5, o5}).ok());
  CHECK(mismatches(h.data<float>(o5), [&](int64_t i) { return 0.75f * r[size_t(i)]; }) == 0);
}

TEST_CASE("clone, _to_copy and view_copy above the streaming threshold copy the bytes", "[kernels][clone][dense][stream]") {
  KernelHarness h;
  const auto x = values(kBig, 8);
  auto in = h.tensor<float>(ScalarType::kFloat, {kBig}, x);
  auto cl = h.out(ScalarType::kFloat, {kBig});
  auto to = h.out(ScalarType::kFloat, {kBig});
  auto vw = h.out(ScalarType::kFloat, {3, 700001});
  REQUIRE(h.call("aten::clone.out", {in, h.none(), cl, cl}).ok());
  REQUIRE(h.call("aten::_to_copy.out", {in, h.boolean(false), h.none(), to, to}).ok());
  REQUIRE(h.call("aten::view_copy.out", {in, h.int_list({3, -1}), vw, vw}).ok());
  for (size_t out : {cl, to, vw}) {
    const auto got = h.data<float>(out);
    REQUIRE(got.size() == x.size());
    CHECK(std::memcmp(got.data(), x.data(), x.size() * 4) == 0);
  }
}

TEST_CASE("stream_copy: every destination and source alignment, guards untouched", "[kernels][dense][stream]") {
  const int64_t sizes[] = {0, 1, 3, 4, 15, 16, 17, 31, 63, 64, 65, 200, 1001};
  std::vector<float> src_store(1100 + 64);
  for (size_t i = 0; i < src_store.size(); ++i) src_store[i] = float(i) + 0.25f;
  for (int64_t n : sizes) {
    for (int64_t dst_off = 0; dst_off < 16; ++dst_off) {
      for (int64_t src_off : {0, 1, 5}) {
        INFO("n " << n << " dst offset " << dst_off << " src offset " << src_off);
        Placed dst(n, dst_off);
        const float* src = src_store.data() + src_off;
        k::stream_copy(dst.at, src, size_t(n) * 4);
        CHECK(std::memcmp(dst.at, src, size_t(n) * 4) == 0);
        CHECK(dst.guards_intact());
      }
    }
  }
}

TEST_CASE("dense_map and dense_zip streamed into unaligned outputs", "[kernels][dense][stream]") {
  const int64_t n = kBig;
  const auto x = values(n, 9), y = values(n, 10);
  const auto relu = [](float v) { return !(v < 0.0f) ? v : 0.0f; };
  for (int64_t offset : {1, 3, 8, 15}) {
    INFO("out starts " << offset * 4 << " bytes past a 64-byte boundary");
    Placed out(n, offset);
    k::dense_map(x.data(), out.at, n, relu);
    const std::vector<float> mapped(out.at, out.at + n);
    CHECK(mismatches(mapped, [&](int64_t i) { return x[size_t(i)] < 0 ? 0.0f : x[size_t(i)]; }) == 0);
    CHECK(out.guards_intact());

    Placed zipped(n, offset);
    const k::DenseLayout same{k::DenseBinary::kSame};
    k::dense_zip(same, x.data(), y.data(), zipped.at, n, [](float u, float v) { return u * v; });
    const std::vector<float> z(zipped.at, zipped.at + n);
    CHECK(mismatches(z, [&](int64_t i) { return x[size_t(i)] * y[size_t(i)]; }) == 0);
    CHECK(zipped.guards_intact());

    // Planes of 1000 elements cycling through 3 values; the first block
    // (up to the 64-byte boundary) ends inside the first plane.
    Placed planes(n, offset);
    const k::DenseLayout per_plane{k::DenseBinary::kChannelA, 3, 1000};
    const float c3[3] = {1.5f, -2.0f, 0.0f};
    const int64_t whole = n / 3000 * 3000;  // whole cycles of planes
    k::dense_zip(per_plane, c3, y.data(), planes.at, whole, [](float u, float v) { return u - v; });
    const std::vector<float> p(planes.at, planes.at + whole);
    CHECK(mismatches(p, [&](int64_t i) { return c3[(i / 1000) % 3] - y[size_t(i)]; }) == 0);
  }
}

TEST_CASE("dense_map with out one element past its input keeps the element order", "[kernels][dense][stream]") {
  // out = in + 1 element: each out[i] = in[i] + 1 reads the value the call
  // wrote one step before, so element k ends as in[0] + k. Such a partial
  // overlap is not streamed (a block would read values not yet written).
  const int64_t n = kBig;
  std::vector<float> buf(size_t(n) + 1, -1.0f);
  buf[0] = 0.0f;
  k::dense_map(buf.data(), buf.data() + 1, n, [](float v) { return v + 1.0f; });
  int64_t wrong = 0;
  for (int64_t i = 0; i <= n; ++i) wrong += buf[size_t(i)] != float(i);
  CHECK(wrong == 0);
}
