// XNNPACK fp32 convolutions (regular, depthwise, transposed) against
// direct double-precision loops written here over the NHWC / OHWI
// definitions, across stride, asymmetric padding, dilation, groups, bias or
// none, a fused clamp, and channel counts and widths that leave vector
// tails (5, 37, 45); and depthwise 3x3 at stride 2 bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "runner/kernels/linalg/cpu.h"
#include "tests/support/xnn_graph_builder.h"

using namespace etkit;
using namespace etkit::test;
using T = xnn::NodeType;

namespace {

struct Case {
  T type;
  uint32_t n, ih, iw, groups, gin, gout, kh, kw, sh, sw, dh, dw, pt, pr, pb, pl;
  bool bias, clamp;
};

constexpr double kLo = -0.75, kHi = 0.5;  // the fused clamp of clamped cases

void run_case(const Case& c) {
  INFO("type " << int(c.type) << " n " << c.n << " in " << c.ih << "x" << c.iw << " groups " << c.groups << " gin "
               << c.gin << " gout " << c.gout << " k " << c.kh << "x" << c.kw << " s " << c.sh << "," << c.sw << " d "
               << c.dh << "," << c.dw << " pad " << c.pt << "," << c.pr << "," << c.pb << "," << c.pl << " bias "
               << c.bias << " clamp " << c.clamp);
  const bool depthwise = c.type == T::kDepthwiseConv2d, transposed = c.type == T::kConvTranspose2d;
  const uint32_t ic = c.groups * c.gin, oc = c.groups * c.gout;  // depthwise: gin 1, gout the multiplier
  uint32_t oh, ow;
  if (transposed) {
    oh = (c.ih - 1) * c.sh + c.dh * (c.kh - 1) + 1 - c.pt - c.pb;
    ow = (c.iw - 1) * c.sw + c.dw * (c.kw - 1) + 1 - c.pl - c.pr;
  } else {
    oh = (c.ih + c.pt + c.pb - c.dh * (c.kh - 1) - 1) / c.sh + 1;
    ow = (c.iw + c.pl + c.pr - c.dw * (c.kw - 1) - 1) / c.sw + 1;
  }
  const std::vector<uint32_t> wdims = depthwise ? std::vector<uint32_t>{1, c.kh, c.kw, oc}
                                                : std::vector<uint32_t>{oc, c.kh, c.kw, c.gin};
  const auto x = random_floats(size_t(c.n) * c.ih * c.iw * ic, 21);
  const auto w = random_floats(size_t(wdims[0]) * wdims[1] * wdims[2] * wdims[3], 22);
  const auto b = random_floats(oc, 23);

  // The definitions, in double; `mag` is the sum of the terms' magnitudes.
  std::vector<double> ref(size_t(c.n) * oh * ow * oc, 0.0), mag(ref.size(), 0.0);
  auto at = [&](uint32_t img, int64_t y, int64_t xx, uint32_t ch) { return ((size_t(img) * oh + size_t(y)) * ow + size_t(xx)) * oc + ch; };
  for (uint32_t img = 0; img < c.n; ++img) {
    for (uint32_t y = 0; y < oh; ++y) {
      for (uint32_t xx = 0; xx < ow; ++xx) {
        for (uint32_t o = 0; o < oc; ++o) {
          ref[at(img, y, xx, o)] = c.bias ? b[o] : 0.0;
          mag[at(img, y, xx, o)] = c.bias ? std::fabs(b[o]) : 0.0;
        }
      }
    }
    if (transposed) {
      for (uint32_t iy = 0; iy < c.ih; ++iy) {
        for (uint32_t ix = 0; ix < c.iw; ++ix) {
          for (uint32_t ky = 0; ky < c.kh; ++ky) {
            for (uint32_t kx = 0; kx < c.kw; ++kx) {
              const int64_t y = int64_t(iy * c.sh + ky * c.dh) - c.pt, xx = int64_t(ix * c.sw + kx * c.dw) - c.pl;
              if (y < 0 || y >= oh || xx < 0 || xx >= ow) continue;
              for (uint32_t g = 0; g < c.groups; ++g) {
                for (uint32_t o = 0; o < c.gout; ++o) {
                  for (uint32_t i = 0; i < c.gin; ++i) {
                    const double t = double(x[((size_t(img) * c.ih + iy) * c.iw + ix) * ic + g * c.gin + i]) *
                                     double(w[((size_t(g * c.gout + o) * c.kh + ky) * c.kw + kx) * c.gin + i]);
                    ref[at(img, y, xx, g * c.gout + o)] += t;
                    mag[at(img, y, xx, g * c.gout + o)] += std::fabs(t);
                  }
                }
              }
            }
          }
        }
      }
      continue;
    }
    for (uint32_t y = 0; y < oh; ++y) {
      for (uint32_t xx = 0; xx < ow; ++xx) {
        for (uint32_t ky = 0; ky < c.kh; ++ky) {
          for (uint32_t kx = 0; kx < c.kw; ++kx) {
            const int64_t iy = int64_t(y * c.sh + ky * c.dh) - c.pt, ix = int64_t(xx * c.sw + kx * c.dw) - c.pl;
            if (iy < 0 || iy >= c.ih || ix < 0 || ix >= c.iw) continue;
            const size_t px = ((size_t(img) * c.ih + size_t(iy)) * c.iw + size_t(ix)) * ic;
            for (uint32_t o = 0; o < oc; ++o) {
              double sum = 0, m = 0;
              if (depthwise) {
                sum = double(x[px + o / c.gout]) * double(w[(size_t(ky) * c.kw + kx) * oc + o]);
                m = std::fabs(sum);
              } else {
                const uint32_t g = o / c.gout;
                for (uint32_t i = 0; i < c.gin; ++i) {
                  const double t = double(x[px + g * c.gin + i]) * double(w[((size_t(o) * c.kh + ky) * c.kw + kx) * c.gin + i]);
                  sum += t;
                  m += std::fabs(t);
                }
              }
              ref[at(img, y, xx, o)] += sum;
              mag[at(img, y, xx, o)] += m;
            }
          }
        }
      }
    }
  }
  if (c.clamp) {
    for (auto& v : ref) v = std::min(std::max(v, kLo), kHi);
  }

  XnnGraphBuilder gb;
  const uint32_t in = gb.input({c.n, c.ih, c.iw, ic});
  const uint32_t wid = gb.constant<float>(wdims, w);
  const uint32_t bid = c.bias ? gb.constant<float>({oc}, b) : xnn::kInvalidId;
  const uint32_t out = gb.output({c.n, oh, ow, oc});
  auto& node = gb.node(c.type, {in, wid, bid}, {out});
  node.window = xnn::Window{c.pt, c.pr, c.pb, c.pl, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw};
  node.groups = c.groups;
  node.group_input_channels = c.gin;
  node.group_output_channels = c.gout;
  if (c.clamp) {
    node.has_output_min_max = true;
    node.output_min = float(kLo);
    node.output_max = float(kHi);
  }
  const auto payload = gb.payload();
  std::vector<XnnArg> args = {xnn_arg<float>({int32_t(c.n), int32_t(c.ih), int32_t(c.iw), int32_t(ic)}, x),
                              xnn_out({int32_t(c.n), int32_t(oh), int32_t(ow), int32_t(oc)})};
  const auto s = run_xnn(payload, args);
  if (!s.ok()) FAIL(s.error().message);
  const auto got = values_of(args[1]);
  CHECK(count_outside_rounding(got, ref, mag, 1e-5, 1e-6) == 0);
}

}  // namespace

TEST_CASE("xnnpack: fp32 convolutions match the direct definitions across parameters", "[xnnpack][conv]") {
  const T conv = T::kConv2d, dw = T::kDepthwiseConv2d, tr = T::kConvTranspose2d;
  //         type  n  ih  iw  grp gin gout kh kw sh sw dh dw pt pr pb pl  bias  clamp
  const Case cases[] = {
      // Regular: the RGB stem's contiguous kernel rows; grouped (tap by tap), dilated, asymmetric padding.
      {conv, 1, 17, 19, 1, 3, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false},
      {conv, 2, 9, 11, 1, 3, 5, 3, 3, 1, 1, 1, 1, 0, 2, 1, 1, false, true},
      {conv, 1, 10, 9, 2, 3, 4, 3, 2, 1, 2, 2, 1, 1, 0, 2, 1, true, false},
      {conv, 1, 8, 8, 1, 4, 6, 3, 3, 1, 1, 1, 2, 2, 2, 2, 2, true, true},
      // More than 32 output channels: im2col + GEMM (the stem's contiguous kernel rows).
      {conv, 1, 17, 19, 1, 3, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, false},
      {conv, 1, 9, 8, 1, 4, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, true},
      // At most 32 output channels, one group: the direct kernel. simpletm's
      // 8 -> 16 3x3; 20 channels at stride 2 with padding and clamp; 6, 13
      // and 32 channels with dilation and asymmetric windows.
      {conv, 1, 12, 19, 1, 8, 16, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false},
      {conv, 2, 11, 10, 1, 5, 20, 3, 3, 2, 2, 1, 1, 1, 0, 2, 1, true, true},
      {conv, 1, 9, 13, 1, 7, 6, 5, 3, 1, 2, 1, 2, 2, 1, 0, 3, false, true},
      {conv, 1, 7, 7, 1, 4, 13, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, true, false},
      {conv, 1, 8, 9, 1, 3, 32, 3, 3, 1, 1, 2, 1, 2, 2, 2, 2, true, false},
      // Padded bands of input rows (three here); border patches gathered
      // on a stem-like 120x120 stride 2 and where padding dwarfs the input.
      {conv, 1, 64, 130, 1, 64, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},
      {conv, 1, 120, 120, 1, 3, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true},
      {conv, 1, 5, 6, 1, 2, 3, 3, 3, 1, 1, 1000, 1000, 1000, 1000, 1000, 1000, true, false},
      // Depthwise: channels 37 and 45 leave 5 after the 32- and 8-wide blocks; 5 is scalar only.
      {dw, 1, 13, 15, 37, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false},
      {dw, 2, 14, 11, 45, 1, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, true},
      {dw, 1, 9, 10, 5, 1, 1, 5, 5, 1, 2, 2, 1, 2, 0, 3, 1, true, true},
      {dw, 1, 12, 12, 64, 1, 1, 3, 3, 2, 1, 1, 2, 0, 1, 1, 0, true, false},
      // Channel multipliers: one input channel to 8 (a first layer on a grayscale image), 3 channels x 3.
      {dw, 1, 17, 19, 1, 1, 8, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false},
      {dw, 2, 10, 9, 3, 1, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, true},
      // Transposed: the 4x4 stride-2 upsampling, groups, dilation, odd channel counts.
      {tr, 1, 6, 5, 1, 16, 8, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, true, false},
      {tr, 2, 4, 5, 2, 3, 5, 3, 3, 2, 1, 1, 2, 1, 0, 1, 2, false, true},
      {tr, 1, 5, 4, 1, 7, 3, 2, 3, 1, 2, 2, 1, 0, 0, 0, 0, true, false},
  };
  for (const auto& c : cases) run_case(c);
}

// Depthwise 3x3 at stride 1 and 2 (its own loop with AVX2: blocks of eight
// pixels sharing columns, the left padding skipped by construction, the
// right padding one pixel at a time) must give the bits of the general
// loop: per output, bias (or +0), then the taps inside the input row by
// row, left to right, each a multiply-add rounded once with FMA (AVX2) or
// a product and a sum rounded apart (the baseline copy), then the clamp.
// The reference here is that sum in scalar float. Widths leave no block,
// one, several and partial last blocks; left padding 0 and 1 (2 takes the
// general loop), right and top/bottom padding 0-2, channels a vector, not
// a multiple of one, and four vectors.
TEST_CASE("xnnpack: depthwise 3x3 stride 1 and 2 give the bits of the taps summed in order", "[xnnpack][conv]") {
  const bool fused = etkit::rt::kernels::linalg::cpu_has_avx2_fma();
  const uint32_t widths[] = {3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18, 19, 31, 33, 34, 35, 55, 56, 57, 112, 113};
  for (uint32_t st : {1u, 2u}) {
    for (uint32_t iw : widths) {
      for (uint32_t ih : {3u, 4u, 7u}) {
        for (uint32_t pt : {0u, 1u, 2u}) {
          for (uint32_t pl : {0u, 1u, 2u}) {
            for (uint32_t pr : {0u, 1u, 2u}) {
              for (uint32_t ch : {8u, 13u, 32u}) {
                const uint32_t pb = (pt + pl) % 3;
                const bool bias = (iw + pr) % 2 == 0, clamp = (ih + pl) % 2 == 1;
                const uint32_t oh = (ih + pt + pb - 3) / st + 1, ow = (iw + pl + pr - 3) / st + 1;
                INFO("stride " << st << " in " << ih << "x" << iw << " channels " << ch << " pad " << pt << "," << pr
                               << "," << pb << "," << pl << " bias " << bias << " clamp " << clamp);
                const auto x = random_floats(size_t(ih) * iw * ch, 31);
                const auto w = random_floats(9 * size_t(ch), 32);
                const auto b = random_floats(ch, 33);
                std::vector<float> want(size_t(oh) * ow * ch);
                for (uint32_t y = 0; y < oh; ++y) {
                  for (uint32_t xx = 0; xx < ow; ++xx) {
                    for (uint32_t c = 0; c < ch; ++c) {
                      float a = bias ? b[c] : 0.0f;
                      for (int64_t ky = 0; ky < 3; ++ky) {
                        for (int64_t kx = 0; kx < 3; ++kx) {
                          const int64_t iy = int64_t(st * y) + ky - pt, ix = int64_t(st * xx) + kx - pl;
                          if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) continue;
                          const float t = x[(size_t(iy) * iw + size_t(ix)) * ch + c];
                          const float k = w[size_t(ky * 3 + kx) * ch + c];
                          if (fused) {
                            a = std::fma(t, k, a);
                          } else {
                            const float product = t * k;
                            a = a + product;
                          }
                        }
                      }
                      if (clamp) a = std::fmin(std::fmax(a, float(kLo)), float(kHi));
                      want[(size_t(y) * ow + xx) * ch + c] = a;
                    }
                  }
                }
                XnnGraphBuilder gb;
                const uint32_t in = gb.input({1, ih, iw, ch});
                const uint32_t wid = gb.constant<float>({1, 3, 3, ch}, w);
                const uint32_t bid = bias ? gb.constant<float>({ch}, b) : xnn::kInvalidId;
                const uint32_t out = gb.output({1, oh, ow, ch});
                auto& node = gb.node(T::kDepthwiseConv2d, {in, wid, bid}, {out});
                node.window = xnn::Window{pt, pr, pb, pl, 3, 3, st, st, 1, 1};
                node.groups = ch;
                node.group_input_channels = 1;
                node.group_output_channels = 1;
                if (clamp) {
                  node.has_output_min_max = true;
                  node.output_min = float(kLo);
                  node.output_max = float(kHi);
                }
                const auto payload = gb.payload();
                std::vector<XnnArg> args = {xnn_arg<float>({1, int32_t(ih), int32_t(iw), int32_t(ch)}, x),
                                            xnn_out({1, int32_t(oh), int32_t(ow), int32_t(ch)})};
                const auto s = run_xnn(payload, args);
                if (!s.ok()) FAIL(s.error().message);
                const auto got = values_of<float>(args[1]);
                REQUIRE(got.size() == want.size());
                CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
              }
            }
          }
        }
      }
    }
  }
}
