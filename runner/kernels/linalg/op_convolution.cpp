// aten::convolution.out for 1-D and 2-D convolutions (groups, stride,
// padding, dilation, optional bias), plain and transposed. float32 is
// lowered to GEMM: the weight as a [Cout/groups, Cin/groups*kH*kW] matrix
// times the im2col matrix of the input (skipped for 1x1 kernels, whose input
// already is that matrix); convolutions with one input channel per group
// (depthwise, single-channel images) run directly, and so do those with one
// group and at most 32 output channels (direct_conv.h). Other real
// dtypes run a plain loop. Inputs and weights may have any dim order (read
// through strides); out may be contiguous or channels-last, in which case
// the GEMM computes the transposed product straight into it.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "runner/kernels/linalg/depthwise.h"
#include "runner/kernels/linalg/direct_conv.h"
#include "runner/kernels/linalg/gemm.h"
#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"
#include "runner/kernels/linalg/copy_stride2.h"

namespace etkit::rt::kernels::linalg {
namespace {

struct ConvGeometry {
  int64_t n, cin, h, w, cout, kh, kw, oh, ow, groups;
  int64_t sh, sw, ph, pw, dh, dw;
  int64_t cin_g() const { return cin / groups; }
  int64_t cout_g() const { return cout / groups; }
  int64_t patch() const { return cin_g() * kh * kw; }  // GEMM depth
  int64_t pixels() const { return oh * ow; }
};

// Element strides of a rank-3 (N, C, W) or rank-4 (N, C, H, W) tensor; a 1-D
// tensor gets a height stride of 0 (its height is 1).
struct Strides4 {
  int64_t n, c, y, x;
};
Strides4 strides4(const Tensor& t) {
  const auto s = t.strides();
  if (t.dim() == 3) return {s[0], s[1], 0, s[2]};
  return {s[0], s[1], s[2], s[3]};
}

// A weight [A, B, kH, (kW)] as a dense row-major [A, B * kH * kW] matrix:
// the tensor itself when contiguous, else a copy in `scratch`. (A, B) is
// (Cout, Cin/groups), or (Cin, Cout/groups) for a transposed convolution.
const float* weight_matrix(const Tensor& weight, std::vector<float>& scratch) {
  if (weight.is_contiguous()) return weight.data_as<float>();
  const bool one_d = weight.dim() == 3;
  const int64_t rows = weight.size(0), cols = weight.size(1), kh = one_d ? 1 : weight.size(2),
                kw = weight.size(weight.dim() - 1);
  scratch.resize(size_t(weight.numel()));
  const Strides4 ws = strides4(weight);
  const float* src = weight.data_as<float>();
  float* dst = scratch.data();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) *dst++ = src[r * ws.n + c * ws.c + ky * ws.y + kx * ws.x];
      }
    }
  }
  return scratch.data();
}

// The im2col and col2im buffers hold at most this many floats (16 MiB): a
// convolution whose buffer would be larger works through its output rows
// (input rows when transposed) in chunks, so scratch memory stays bounded
// whatever the kernel size.
constexpr int64_t kColumnBudget = int64_t(1) << 22;

// Rows per chunk when one row of the buffer holds `per_row` floats.
int64_t chunk_rows(int64_t per_row, int64_t rows) {
  return std::min(rows, std::max<int64_t>(1, kColumnBudget / std::max<int64_t>(1, per_row)));
}

// Copies one row of floats; the rows of small images (LeNet's 28 floats)
// are too short for a memmove call, so those go in 16-byte moves.
inline void copy_row(const float* src, int64_t n, float* dst) {
  if (n > 64) {
    std::memcpy(dst, src, size_t(n) * sizeof(float));
    return;
  }
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) std::memcpy(dst + i, src + i, 4 * sizeof(float));
  for (; i < n; ++i) dst[i] = src[i];
}

// columns[(c, ky, kx), (oy - oy0, ox)] = input[c, oy*sh - ph + ky*dh, ox*sw - pw + kx*dw]
// (zero outside the input) for output rows [oy0, oy0 + rows) of one image
// and group; `in` points at its first channel.
void im2col(const ConvGeometry& g, const float* in, const Strides4& is, int64_t oy0, int64_t rows, float* columns) {
  float* col = columns;
  for (int64_t c = 0; c < g.cin_g(); ++c) {
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        // Input column of output column ox: ox * sw + x_off. The outputs
        // whose column lies inside the input form the range [lo, hi).
        const int64_t x_off = kx * g.dw - g.pw;
        const int64_t lo = std::min(g.ow, x_off >= 0 ? 0 : (-x_off + g.sw - 1) / g.sw);
        const int64_t hi = std::max(lo, std::min(g.ow, x_off >= g.w ? 0 : (g.w - 1 - x_off) / g.sw + 1));
        for (int64_t oy = oy0; oy < oy0 + rows; ++oy, col += g.ow) {
          const int64_t y = oy * g.sh - g.ph + ky * g.dh;
          if (y < 0 || y >= g.h) {
            std::fill(col, col + g.ow, 0.0f);
            continue;
          }
          const float* row = in + c * is.c + y * is.y;
          std::fill(col, col + lo, 0.0f);
          if (is.x == 1 && g.sw == 1) {
            copy_row(row + lo + x_off, hi - lo, col + lo);
          } else if (is.x == 1 && g.sw == 2) {
            copy_stride2(row + lo * 2 + x_off, col + lo, hi - lo);
          } else {
            for (int64_t ox = lo; ox < hi; ++ox) col[ox] = row[(ox * g.sw + x_off) * is.x];
          }
          std::fill(col + hi, col + g.ow, 0.0f);
        }
      }
    }
  }
}

DepthwiseWindow depthwise_window(const ConvGeometry& g) {
  return DepthwiseWindow{g.h, g.w, g.oh, g.ow, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

// Depthwise convolutions (one input channel per group) have GEMMs of a
// single row and a depth of kH*kW, so they run directly, plane by plane
// (output channel co reads input channel co / multiplier).
void depthwise_planes(const ConvGeometry& g, const Tensor& input, const float* wmat, const Tensor* bias, Tensor& out) {
  thread_local std::vector<float> scratch;
  const Strides4 is = strides4(input), os = strides4(out);
  const float* in = input.data_as<float>();
  float* o = out.data_as<float>();
  const int64_t taps = g.kh * g.kw, cout_g = g.cout_g();
  const DepthwiseWindow win = depthwise_window(g);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const float b = bias ? bias->data_as<float>()[co * bias->strides()[0]] : 0.0f;
      depthwise_plane(win, in + n * is.n + (co / cout_g) * is.c, is.y, is.x, wmat + co * taps, b,
                      o + n * os.n + co * os.c, os.y, os.x, scratch);
    }
  }
}

// The same for channels-last input and out with one output channel per
// group: vectorised across channels, with the weight transposed to
// [kH*kW, C] so they are contiguous too.
void depthwise_channels_last(const ConvGeometry& g, const Tensor& input, const float* wmat, const Tensor* bias,
                             Tensor& out) {
  thread_local std::vector<float> taps_by_channel, bias_values;
  const int64_t taps = g.kh * g.kw, channels = g.cout;
  taps_by_channel.resize(size_t(taps * channels));
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) taps_by_channel[size_t(t * channels + c)] = wmat[c * taps + t];
  }
  if (bias) {
    bias_values.resize(size_t(channels));
    for (int64_t c = 0; c < channels; ++c) bias_values[size_t(c)] = bias->data_as<float>()[c * bias->strides()[0]];
  }
  const Strides4 is = strides4(input), os = strides4(out);
  const float* in = input.data_as<float>();
  float* o = out.data_as<float>();
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n = 0; n < g.n; ++n) {
    depthwise_nhwc(depthwise_window(g), channels, in + n * is.n, is.y, is.x, taps_by_channel.data(),
                   bias ? bias_values.data() : nullptr, -inf, inf, o + n * os.n);
  }
}

// The cache's layout tag for direct_conv's packed filters (op_convolution's
// own; other kernels pick theirs).
constexpr uint32_t kPackedDirectFilter = 1;

// The weight packed for direct_conv: a program constant is packed once and
// kept in the method's cache (keyed by its address, shape and strides);
// any other weight, which may change between executions, per call.
const float* packed_direct_filter(const ConvGeometry& g, const Tensor& weight, ConstantCache& cache) {
  thread_local std::vector<float> weight_scratch, packed;
  const int64_t patch = g.patch();
  const size_t floats = size_t(direct_conv_packed_floats(g.cout, patch));
  float* dst = nullptr;
  if (weight.read_only()) {
    const Strides4 ws = strides4(weight);
    const int64_t params[] = {g.cout, g.cin, g.kh, g.kw, ws.n, ws.c, ws.y, ws.x};
    const ConstantCache::Entry e = cache.floats(weight.data(), kPackedDirectFilter, params, floats);
    if (e.data && !e.fresh) return e.data;
    dst = e.data;
  }
  if (!dst) {
    packed.resize(floats);
    dst = packed.data();
  }
  pack_direct_conv_filter(weight_matrix(weight, weight_scratch), g.cout, patch, dst);
  return dst;
}

// Few output channels (LeNet's 6 -> 16) run the direct kernel, which reads
// the input in place.
void conv_few_outputs(const ConvGeometry& g, const Tensor& input, const Tensor& weight, const Tensor* bias,
                      Tensor& out, bool pixel_major_out, ConstantCache& cache) {
  thread_local std::vector<float> bias_values;
  const Strides4 is = strides4(input), os = strides4(out);
  if (bias) {
    bias_values.resize(size_t(g.cout));
    for (int64_t c = 0; c < g.cout; ++c) bias_values[size_t(c)] = bias->data_as<float>()[c * bias->strides()[0]];
  }
  const float* packed = packed_direct_filter(g, weight, cache);
  const DirectConv d{g.h,  g.w,   g.oh,  g.ow,  g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh,
                     g.dw, g.cin, g.cout, is.c, is.y, is.x, false};
  const float* in = input.data_as<float>();
  float* o = out.data_as<float>();
  for (int64_t n = 0; n < g.n; ++n) {
    direct_conv(d, in + n * is.n, packed, bias ? bias_values.data() : nullptr, false, 0.0f, 0.0f, o + n * os.n,
                pixel_major_out ? g.cout : 1, pixel_major_out ? 1 : g.pixels());
  }
}

// A 1x1 kernel with unit stride and no padding reads the input as it is,
// provided its pixels are evenly spaced (contiguous or channels-last).
bool pointwise_input(const ConvGeometry& g, const Strides4& is) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 &&
         (g.h == 1 || is.y == g.w * is.x);
}

void conv_float(const ConvGeometry& g, const Tensor& input, const Tensor& weight, const Tensor* bias, Tensor& out,
                bool pixel_major_out, ConstantCache& cache) {
  thread_local std::vector<float> weight_scratch, columns;
  const Strides4 is = strides4(input), os = strides4(out);
  // One group, few output channels: the direct kernel packs the weight
  // itself (or finds it packed), so no weight matrix is made first.
  const bool direct_input = pointwise_input(g, is);
  if (g.cin_g() != 1 && g.groups == 1 && g.cout <= kDirectConvMaxOutputChannels && !direct_input) {
    conv_few_outputs(g, input, weight, bias, out, pixel_major_out, cache);
    return;
  }
  const float* wmat = weight_matrix(weight, weight_scratch);
  // One input channel per group: depthwise, and single-channel inputs such
  // as LeNet's first layer (a GEMM of depth kH*kW over a few rows, where
  // im2col and packing cost about as much as the products).
  if (g.cin_g() == 1) {
    if (pixel_major_out && is.c == 1 && g.cout_g() == 1) {
      depthwise_channels_last(g, input, wmat, bias, out);
    } else {
      depthwise_planes(g, input, wmat, bias, out);
    }
    return;
  }
  const int64_t cin_g = g.cin_g(), cout_g = g.cout_g(), patch = g.patch(), pixels = g.pixels();
  const int64_t chunk = direct_input ? g.oh : chunk_rows(patch * g.ow, g.oh);
  if (!direct_input) columns.resize(size_t(patch * chunk * g.ow));
  const float* in = input.data_as<float>();
  float* o = out.data_as<float>();
  const float* b = bias ? bias->data_as<float>() : nullptr;
  const int64_t bs = bias ? bias->strides()[0] : 0;
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* in_g = in + n * is.n + grp * cin_g * is.c;
      const MatrixView wg{wmat + grp * cout_g * patch, patch, 1};  // [cout_g, patch]
      float* dst_g = o + n * os.n + grp * cout_g * os.c;
      for (int64_t oy0 = 0; oy0 < g.oh; oy0 += chunk) {
        const int64_t count = std::min(chunk, g.oh - oy0) * g.ow;  // output pixels in this chunk
        const int64_t p0 = oy0 * g.ow;
        // The right-hand matrix [patch, count].
        MatrixView cols{columns.data(), count, 1};
        if (direct_input) {
          cols = MatrixView{in_g, is.c, is.x};
        } else {
          im2col(g, in_g, is, oy0, count / g.ow, columns.data());
        }
        if (!pixel_major_out) {
          // dst[co, p] (row stride `pixels`) = wg @ cols (+ bias[co]).
          float* dst = dst_g + p0;
          if (b) {
            for (int64_t co = 0; co < cout_g; ++co) {
              std::fill(dst + co * pixels, dst + co * pixels + count, b[(grp * cout_g + co) * bs]);
            }
          }
          sgemm(cout_g, count, patch, 1.0f, wg, cols, b ? 1.0f : 0.0f, dst, pixels);
        } else {
          // Channels-last out: dst[p, co] (row stride Cout) = cols^T @ wg^T (+ bias[co]).
          float* dst = dst_g + p0 * g.cout;
          if (b) {
            for (int64_t p = 0; p < count; ++p) {
              for (int64_t co = 0; co < cout_g; ++co) dst[p * g.cout + co] = b[(grp * cout_g + co) * bs];
            }
          }
          sgemm(count, cout_g, patch, 1.0f, MatrixView{cols.data, cols.col_stride, cols.row_stride},
                MatrixView{wg.data, 1, patch}, b ? 1.0f : 0.0f, dst, g.cout);
        }
      }
    }
  }
}

// The straightforward loop for the other real dtypes, accumulating in
// double (floating) or int64 (integers).
template <typename T>
void conv_direct(const ConvGeometry& g, const Tensor& input, const Tensor& weight, const Tensor* bias, Tensor& out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const Strides4 is = strides4(input), ws = strides4(weight), os = strides4(out);
  const T* in = input.data_as<T>();
  const T* wt = weight.data_as<T>();
  T* o = out.data_as<T>();
  const int64_t cin_g = g.cin_g(), cout_g = g.cout_g();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const int64_t grp = co / cout_g;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          Acc acc = bias ? Acc(bias->data_as<T>()[co * bias->strides()[0]]) : Acc(0);
          for (int64_t c = 0; c < cin_g; ++c) {
            for (int64_t ky = 0; ky < g.kh; ++ky) {
              const int64_t y = oy * g.sh - g.ph + ky * g.dh;
              if (y < 0 || y >= g.h) continue;
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                const int64_t x = ox * g.sw - g.pw + kx * g.dw;
                if (x < 0 || x >= g.w) continue;
                acc += Acc(in[n * is.n + (grp * cin_g + c) * is.c + y * is.y + x * is.x]) *
                       Acc(wt[co * ws.n + c * ws.c + ky * ws.y + kx * ws.x]);
              }
            }
          }
          o[n * os.n + co * os.c + oy * os.y + ox * os.x] = static_cast<T>(acc);
        }
      }
    }
  }
}

// ---- Transposed convolution ------------------------------------------------
// out[n, g*Cout_g + co, iy*sh - ph + ky*dh, ix*sw - pw + kx*dw] +=
//     input[n, g*Cin_g + ci, iy, ix] * weight[g*Cin_g + ci, co, ky, kx]
// with weight [Cin, Cout/groups, kH, kW]. float32: per image and group one
// GEMM gives columns[(co, ky, kx), (iy, ix)] = weight_g^T @ input_g, which
// col2im then adds into the (bias-initialised) out.

void conv_transposed_float(const ConvGeometry& g, const Tensor& input, const Tensor& weight, const Tensor* bias,
                           Tensor& out) {
  thread_local std::vector<float> weight_scratch, input_scratch, columns;
  const float* wmat = weight_matrix(weight, weight_scratch);  // [Cin, Cout_g * kH * kW]
  const Strides4 is = strides4(input), os = strides4(out);
  const int64_t cin_g = g.cin_g(), cout_g = g.cout_g(), rows = cout_g * g.kh * g.kw;
  // Input rows per GEMM: the columns buffer is [rows, chunk * W].
  const int64_t chunk = chunk_rows(rows * g.w, g.h);
  columns.resize(size_t(rows * chunk * g.w));
  const bool even_pixels = g.h == 1 || is.y == g.w * is.x;
  if (!even_pixels) input_scratch.resize(size_t(cin_g * chunk * g.w));
  const float* in = input.data_as<float>();
  float* o = out.data_as<float>();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const float b = bias ? bias->data_as<float>()[co * bias->strides()[0]] : 0.0f;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) o[n * os.n + co * os.c + oy * os.y + ox * os.x] = b;
      }
    }
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const float* in_g = in + n * is.n + grp * cin_g * is.c;
      for (int64_t iy0 = 0; iy0 < g.h; iy0 += chunk) {
        const int64_t in_rows = std::min(chunk, g.h - iy0), count = in_rows * g.w;
        MatrixView x{in_g + iy0 * is.y, is.c, is.x};  // [cin_g, count]
        if (!even_pixels) {
          float* dst = input_scratch.data();
          for (int64_t c = 0; c < cin_g; ++c) {
            for (int64_t y = iy0; y < iy0 + in_rows; ++y) {
              for (int64_t xx = 0; xx < g.w; ++xx) *dst++ = in_g[c * is.c + y * is.y + xx * is.x];
            }
          }
          x = MatrixView{input_scratch.data(), count, 1};
        }
        // columns [rows, count] = A [rows, cin_g] @ x, A[r, ci] = wmat[(grp*cin_g + ci) * rows + r].
        sgemm(rows, count, cin_g, 1.0f, MatrixView{wmat + grp * cin_g * rows, 1, rows}, x, 0.0f, columns.data(), count);
        // col2im: column (iy - iy0, ix) of row (co, ky, kx) adds into out[co, oy, ox].
        const float* col = columns.data();
        for (int64_t co = 0; co < cout_g; ++co) {
          float* plane = o + n * os.n + (grp * cout_g + co) * os.c;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx, col += count) {
              for (int64_t iy = iy0; iy < iy0 + in_rows; ++iy) {
                const int64_t oy = iy * g.sh - g.ph + ky * g.dh;
                if (oy < 0 || oy >= g.oh) continue;
                const float* src = col + (iy - iy0) * g.w;
                for (int64_t ix = 0; ix < g.w; ++ix) {
                  const int64_t ox = ix * g.sw - g.pw + kx * g.dw;
                  if (ox >= 0 && ox < g.ow) plane[oy * os.y + ox * os.x] += src[ix];
                }
              }
            }
          }
        }
      }
    }
  }
}

// Other real dtypes: each output gathers the inputs that land on it.
template <typename T>
void conv_transposed_direct(const ConvGeometry& g, const Tensor& input, const Tensor& weight, const Tensor* bias,
                            Tensor& out) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const Strides4 is = strides4(input), ws = strides4(weight), os = strides4(out);
  const T* in = input.data_as<T>();
  const T* wt = weight.data_as<T>();
  T* o = out.data_as<T>();
  const int64_t cin_g = g.cin_g(), cout_g = g.cout_g();
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t co = 0; co < g.cout; ++co) {
      const int64_t grp = co / cout_g, cg = co % cout_g;
      for (int64_t oy = 0; oy < g.oh; ++oy) {
        for (int64_t ox = 0; ox < g.ow; ++ox) {
          Acc acc = bias ? Acc(bias->data_as<T>()[co * bias->strides()[0]]) : Acc(0);
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            const int64_t ty = oy + g.ph - ky * g.dh;
            if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.h) continue;
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const int64_t tx = ox + g.pw - kx * g.dw;
              if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.w) continue;
              for (int64_t ci = grp * cin_g; ci < (grp + 1) * cin_g; ++ci) {
                acc += Acc(in[n * is.n + ci * is.c + (ty / g.sh) * is.y + (tx / g.sw) * is.x]) *
                       Acc(wt[ci * ws.n + cg * ws.c + ky * ws.y + kx * ws.x]);
              }
            }
          }
          o[n * os.n + co * os.c + oy * os.y + ox * os.x] = static_cast<T>(acc);
        }
      }
    }
  }
}

// A stride/padding/dilation list as (height, width): 1 entry for a 1-D
// convolution (height gets `one_d_height`), 1 or 2 entries for a 2-D one.
Result<std::pair<int64_t, int64_t>> conv_pair(KernelContext& ctx, std::span<const int64_t> list, std::string_view what,
                                              bool one_d, int64_t one_d_height) {
  if (one_d) {
    ETKIT_TRY(check_int32_entries(ctx, list, what));
    if (list.size() != 1) {
      return ctx.fail(std::string(what) + " must have 1 entry for a 1-D convolution, got " + list_string(list));
    }
    return std::make_pair(one_d_height, list[0]);
  }
  return hw_pair(ctx, list, what);
}

// The direct (non-GEMM) loops for every real dtype but float, which takes
// the GEMM path; bool has no convolution.
template <typename Run>
Status run_direct(KernelContext& ctx, ScalarType dtype, Run run) {
  bool ok = false;
  dispatch_real_and_bool(dtype, [&](auto tag) {
    if constexpr (!std::is_same_v<decltype(tag), bool>) {
      run(tag);
      ok = true;
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + dtype_name(dtype));
  return {};
}

// (input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, out, ret)
Status convolution_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(auto stride_list, ctx.int_list(*args[3], "stride"));
  ETKIT_ASSIGN_OR_RETURN(auto padding_list, ctx.int_list(*args[4], "padding"));
  ETKIT_ASSIGN_OR_RETURN(auto dilation_list, ctx.int_list(*args[5], "dilation"));
  ETKIT_ASSIGN_OR_RETURN(bool transposed, bool_arg(ctx, *args[6], "transposed"));
  ETKIT_ASSIGN_OR_RETURN(int64_t groups, int_arg(ctx, *args[8], "groups"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  if (input->dim() != 3 && input->dim() != 4) {
    return ctx.fail("input must be 3-D (N, C, W) or 4-D (N, C, H, W), got " + input->shape_string());
  }
  const bool one_d = input->dim() == 3;
  if (weight->dim() != input->dim()) {
    return ctx.fail("weight " + weight->shape_string() + " must have the rank of input " + input->shape_string());
  }
  ConvGeometry g{};
  ETKIT_ASSIGN_OR_RETURN(std::tie(g.sh, g.sw), conv_pair(ctx, stride_list, "stride", one_d, 1));
  ETKIT_ASSIGN_OR_RETURN(std::tie(g.ph, g.pw), conv_pair(ctx, padding_list, "padding", one_d, 0));
  ETKIT_ASSIGN_OR_RETURN(std::tie(g.dh, g.dw), conv_pair(ctx, dilation_list, "dilation", one_d, 1));
  if (g.sh < 1 || g.sw < 1) return ctx.fail("stride " + list_string(stride_list) + " must be positive");
  if (g.ph < 0 || g.pw < 0) return ctx.fail("padding " + list_string(padding_list) + " must be non-negative");
  if (g.dh < 1 || g.dw < 1) return ctx.fail("dilation " + list_string(dilation_list) + " must be positive");
  g.n = input->size(0);
  g.cin = input->size(1);
  g.h = one_d ? 1 : input->size(2);
  g.w = input->size(one_d ? 2 : 3);
  g.kh = one_d ? 1 : weight->size(2);
  g.kw = weight->size(one_d ? 2 : 3);
  g.groups = groups;
  if (groups < 1) return ctx.fail("groups must be positive, got " + std::to_string(groups));
  if (g.kh < 1 || g.kw < 1) return ctx.fail("weight " + weight->shape_string() + " has an empty kernel");
  if (transposed) {
    // weight [Cin, Cout/groups, kH, kW]
    if (g.cin % groups != 0 || weight->size(0) != g.cin) {
      return ctx.fail("weight " + weight->shape_string() + " and groups " + std::to_string(groups) + " do not fit " +
                      std::to_string(g.cin) + " input channels of a transposed convolution");
    }
    g.cout = weight->size(1) * groups;
    ETKIT_ASSIGN_OR_RETURN(auto output_padding_list, ctx.int_list(*args[7], "output_padding"));
    int64_t oph = 0, opw = 0;
    ETKIT_ASSIGN_OR_RETURN(std::tie(oph, opw), conv_pair(ctx, output_padding_list, "output_padding", one_d, 0));
    // PyTorch's rule: each output padding below the stride or the dilation.
    if (oph < 0 || opw < 0 || (oph >= g.sh && oph >= g.dh) || (opw >= g.sw && opw >= g.dw)) {
      return ctx.fail("output_padding " + list_string(output_padding_list) + " must be non-negative and smaller than stride " +
                      list_string(stride_list) + " or dilation " + list_string(dilation_list));
    }
    g.oh = (g.h - 1) * g.sh - 2 * g.ph + g.dh * (g.kh - 1) + oph + 1;
    g.ow = (g.w - 1) * g.sw - 2 * g.pw + g.dw * (g.kw - 1) + opw + 1;
    if (g.oh < 1 || g.ow < 1) {
      return ctx.fail("transposed convolution of input " + input->shape_string() + " gives an empty output [" +
                      (one_d ? "" : std::to_string(g.oh) + ", ") + std::to_string(g.ow) + "]");
    }
  } else {
    g.cout = weight->size(0);
    if (g.cin % groups != 0 || weight->size(1) * groups != g.cin) {
      return ctx.fail("weight " + weight->shape_string() + " and groups " + std::to_string(groups) + " do not fit " +
                      std::to_string(g.cin) + " input channels");
    }
    if (g.cout % groups != 0) {
      return ctx.fail("weight " + weight->shape_string() + ": " + std::to_string(g.cout) +
                      " output channels are not divisible by groups " + std::to_string(groups));
    }
    g.oh = floor_div(g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1, g.sh) + 1;
    g.ow = floor_div(g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1, g.sw) + 1;
  }
  if (!transposed && (g.oh < 1 || g.ow < 1)) {
    const std::string padded = one_d ? "[" + std::to_string(g.w + 2 * g.pw) + "]"
                                     : "[" + std::to_string(g.h + 2 * g.ph) + ", " + std::to_string(g.w + 2 * g.pw) + "]";
    const std::string kernel = one_d ? "[" + std::to_string(g.kw) + "]"
                                     : "[" + std::to_string(g.kh) + ", " + std::to_string(g.kw) + "]";
    return ctx.fail("kernel " + kernel + " with dilation " + list_string(dilation_list) +
                    " does not fit the padded input " + padded);
  }
  if (bias && (bias->dim() != 1 || bias->size(0) != g.cout)) {
    return ctx.fail("bias " + bias->shape_string() + " must be 1-D of size " + std::to_string(g.cout) +
                    " (one per output channel)");
  }
  const ScalarType dtype = input->dtype();
  if (weight->dtype() != dtype) {
    return ctx.fail("weight dtype " + dtype_name(weight->dtype()) + " does not match input dtype " + dtype_name(dtype));
  }
  if (bias && bias->dtype() != dtype) {
    return ctx.fail("bias dtype " + dtype_name(bias->dtype()) + " does not match input dtype " + dtype_name(dtype));
  }
  if (out->dtype() != dtype) {
    return ctx.fail("out dtype " + dtype_name(out->dtype()) + " does not match input dtype " + dtype_name(dtype));
  }
  Shape shape;
  shape.push_back(g.n);
  shape.push_back(g.cout);
  if (!one_d) shape.push_back(g.oh);
  shape.push_back(g.ow);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->numel() == 0) return {};
  if (transposed) {
    if (dtype == ScalarType::kFloat) {
      conv_transposed_float(g, *input, *weight, bias, *out);
      return {};
    }
    return run_direct(ctx, dtype, [&](auto tag) {
      conv_transposed_direct<decltype(tag)>(g, *input, *weight, bias, *out);
    });
  }
  // out's layout: channel-major (contiguous) or pixel-major (channels-last).
  const Strides4 os = strides4(*out);
  const int64_t pixels = g.pixels();
  const bool channel_major = os.x == 1 && (one_d || os.y == g.ow) && os.c == pixels && os.n == g.cout * pixels;
  const bool pixel_major = os.c == 1 && os.x == g.cout && (one_d || os.y == g.ow * g.cout) && os.n == g.cout * pixels;
  if (!channel_major && !pixel_major) {
    return ctx.fail("out with dim order " + dim_order_string(*out) + " is not supported (contiguous or channels-last only)");
  }
  if (dtype == ScalarType::kFloat) {
    conv_float(g, *input, *weight, bias, *out, !channel_major, ctx.constant_cache());
    return {};
  }
  return run_direct(ctx, dtype, [&](auto tag) { conv_direct<decltype(tag)>(g, *input, *weight, bias, *out); });
}

}  // namespace

void add_convolution_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::convolution.out", convolution_out, 11, {9}});
}

}  // namespace etkit::rt::kernels::linalg
