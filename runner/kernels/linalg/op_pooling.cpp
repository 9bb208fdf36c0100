// aten::max_pool2d_with_indices.out (and its backward), aten::avg_pool2d.out
// and aten::_adaptive_avg_pool2d.out over [N, C, H, W] or [C, H, W] inputs. Every
// tensor is addressed through its strides, so inputs and outs may be
// contiguous, channels-last or any other dim order.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/linalg_util.h"
#include "runner/kernels/linalg/cpu.h"
#include "runner/kernels/linalg/vec_f32.h"

namespace etkit::rt::kernels::linalg {
namespace {

struct Window {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
  bool ceil_mode = false;
};

// The planes of a pooling input or output: (n, c) pairs of H x W images.
// A 3-D [C, H, W] tensor is one image (n stride 0).
struct Layout {
  int64_t n, c, h, w;
  int64_t sn, sc, sy, sx;  // element strides
  int64_t at(int64_t in, int64_t ic, int64_t y, int64_t x) const { return in * sn + ic * sc + y * sy + x * sx; }
};

Layout layout_of(const Tensor& t) {
  const auto s = t.strides();
  if (t.dim() == 3) return {1, t.size(0), t.size(1), t.size(2), 0, s[0], s[1], s[2]};
  return {t.size(0), t.size(1), t.size(2), t.size(3), s[0], s[1], s[2], s[3]};
}

// 3-D or 4-D with non-empty channel and spatial dims (only the batch may be
// empty, as in PyTorch).
Status check_input(KernelContext& ctx, const Tensor& in) {
  if (in.dim() != 3 && in.dim() != 4) {
    return ctx.fail("input must be 3-D (C, H, W) or 4-D (N, C, H, W), got " + in.shape_string());
  }
  for (size_t d = in.dim() - 3; d < in.dim(); ++d) {
    if (in.size(d) == 0) {
      return ctx.fail("input " + in.shape_string() + " must have non-zero size in its non-batch dimensions");
    }
  }
  return {};
}

// PyTorch's pooling output size (aten/src/ATen/native/Pool.h): in ceil mode
// the last window must still start inside the input or its left padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = floor_div(span + (ceil_mode ? s - 1 : 0), s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// kernel_size, stride, padding[, dilation] and ceil_mode from args[1..].
Result<Window> read_window(KernelContext& ctx, std::span<EValue* const> args, bool with_dilation) {
  Window w;
  ETKIT_ASSIGN_OR_RETURN(auto kernel_list, ctx.int_list(*args[1], "kernel_size"));
  ETKIT_ASSIGN_OR_RETURN(auto stride_list, ctx.int_list(*args[2], "stride"));
  ETKIT_ASSIGN_OR_RETURN(auto padding_list, ctx.int_list(*args[3], "padding"));
  ETKIT_ASSIGN_OR_RETURN(std::tie(w.kh, w.kw), hw_pair(ctx, kernel_list, "kernel_size"));
  const std::pair<int64_t, int64_t> kernel{w.kh, w.kw}, zero{0, 0}, one{1, 1};
  ETKIT_ASSIGN_OR_RETURN(std::tie(w.sh, w.sw), hw_pair(ctx, stride_list, "stride", &kernel));  // [] = kernel_size
  ETKIT_ASSIGN_OR_RETURN(std::tie(w.ph, w.pw), hw_pair(ctx, padding_list, "padding", &zero));
  std::span<const int64_t> dilation_list;
  if (with_dilation) {
    ETKIT_ASSIGN_OR_RETURN(dilation_list, ctx.int_list(*args[4], "dilation"));
    ETKIT_ASSIGN_OR_RETURN(std::tie(w.dh, w.dw), hw_pair(ctx, dilation_list, "dilation", &one));
  }
  ETKIT_ASSIGN_OR_RETURN(w.ceil_mode, bool_arg(ctx, *args[with_dilation ? 5 : 4], "ceil_mode"));
  if (w.kh < 1 || w.kw < 1) return ctx.fail("kernel_size " + list_string(kernel_list) + " must be positive");
  if (w.sh < 1 || w.sw < 1) return ctx.fail("stride " + list_string(stride_list) + " must be positive");
  if (w.dh < 1 || w.dw < 1) return ctx.fail("dilation " + list_string(dilation_list) + " must be positive");
  if (w.ph < 0 || w.pw < 0 || w.ph * 2 > w.kh || w.pw * 2 > w.kw) {
    return ctx.fail("padding " + list_string(padding_list) + " must be non-negative and at most half of kernel_size " +
                    list_string(kernel_list));
  }
  return w;
}

// The output layout for `in` pooled by `w`, or an error when the window
// does not fit.
Result<std::pair<int64_t, int64_t>> pooled_hw(KernelContext& ctx, const Tensor& in, const Window& w) {
  const Layout l = layout_of(in);
  const int64_t oh = pooled_size(l.h, w.kh, w.sh, w.ph, w.dh, w.ceil_mode);
  const int64_t ow = pooled_size(l.w, w.kw, w.sw, w.pw, w.dw, w.ceil_mode);
  if (oh < 1 || ow < 1) {
    return ctx.fail("kernel [" + std::to_string(w.kh) + ", " + std::to_string(w.kw) + "] with dilation [" +
                    std::to_string(w.dh) + ", " + std::to_string(w.dw) + "] does not fit the padded input [" +
                    std::to_string(l.h + 2 * w.ph) + ", " + std::to_string(l.w + 2 * w.pw) + "]");
  }
  return std::make_pair(oh, ow);
}

Shape pooled_shape(const Tensor& in, int64_t oh, int64_t ow) {
  Shape s;
  for (size_t d = 0; d + 2 < in.dim(); ++d) s.push_back(in.size(d));
  s.push_back(oh);
  s.push_back(ow);
  return s;
}

// The taps k in [begin, end) of a window starting at `origin` (step `dilation`)
// that land inside [0, size); `first` is origin + begin * dilation.
struct Taps {
  int64_t begin, end, first;
};

Taps taps_inside(int64_t origin, int64_t kernel, int64_t dilation, int64_t size) {
  // Positive operands only; dilation 1 (nearly every model) needs no division.
  const auto ceil_div = [dilation](int64_t a) { return dilation == 1 ? a : (a + dilation - 1) / dilation; };
  const int64_t begin = origin < 0 ? ceil_div(-origin) : 0;
  const int64_t past = size - origin;  // taps with origin + k * dilation < size
  const int64_t end = past <= 0 ? 0 : std::min(kernel, ceil_div(past));
  return {begin, std::max(begin, end), origin + begin * dilation};
}

// The running maximum of one window and its flat position in the plane,
// by ExecuTorch's portable rule (kernel_ops_util.h), not ATen's: it starts
// at the window's first tap inside the input and takes a later tap only
// when that is greater, an ordered compare. So a NaN first tap stays, a
// later NaN is never taken, and ties keep the first. Considering the first
// tap again changes nothing (v > v is false, NaN included), which lets the
// loops start at it. A window without taps inside the input (dilated taps
// straddling a narrow input) gives what the official loop leaves in its
// unset accumulator: 0 at index 0 (ATen: -inf).
template <typename T>
struct Best {
  T value;
  int64_t index;
  void consider(T v, int64_t position) {
    const bool take = v > value;
    // Selects rather than branches: which tap wins is data-dependent and a
    // mispredicted branch costs more than the select.
    value = take ? v : value;
    index = take ? position : index;
  }
};

// UnitX: the input's W stride is 1 (contiguous rows), so the compiler sees
// consecutive loads.
template <typename T, bool UnitX>
void max_pool_planes(const Tensor& input, const Window& w, Tensor& output, Tensor& indices) {
  const Layout in = layout_of(input), out = layout_of(output), idx = layout_of(indices);
  const T* src = input.data_as<T>();
  T* dst = output.data_as<T>();
  int64_t* index_out = indices.data_as<int64_t>();
  const int64_t sx = UnitX ? 1 : in.sx;
  for (int64_t n = 0; n < out.n; ++n) {
    for (int64_t c = 0; c < out.c; ++c) {
      const T* plane = src + n * in.sn + c * in.sc;
      T* out_plane = dst + n * out.sn + c * out.sc;
      int64_t* idx_plane = index_out + n * idx.sn + c * idx.sc;
      for (int64_t oy = 0; oy < out.h; ++oy) {
        const Taps rows = taps_inside(oy * w.sh - w.ph, w.kh, w.dh, in.h);
        const auto single = [&](int64_t ox) {
          const Taps xs = taps_inside(ox * w.sw - w.pw, w.kw, w.dw, in.w);
          const bool any = rows.begin < rows.end && xs.begin < xs.end;
          Best<T> best{any ? plane[rows.first * in.sy + xs.first * sx] : T(0), any ? rows.first * in.w + xs.first : 0};
          for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
            const int64_t y = rows.first + (ky - rows.begin) * w.dh;
            const T* row = plane + y * in.sy;
            for (int64_t kx = xs.begin; kx < xs.end; ++kx) {
              const int64_t x = xs.first + (kx - xs.begin) * w.dw;
              best.consider(row[x * sx], y * in.w + x);
            }
          }
          out_plane[oy * out.sy + ox * out.sx] = best.value;
          idx_plane[oy * idx.sy + ox * idx.sx] = best.index;
        };
        const auto whole = [&](int64_t ox) {
          const Taps xs = taps_inside(ox * w.sw - w.pw, w.kw, w.dw, in.w);
          return xs.begin == 0 && xs.end == w.kw;
        };
        int64_t ox = 0;
        for (; ox < out.w && !whole(ox); ++ox) single(ox);  // windows clipped by the left padding
        // Outputs whose windows lie whole inside the row run kGroup at a
        // time: each keeps its own taps' order, and their compare chains
        // overlap in the pipeline (one chain alone waits on each select).
        constexpr int kGroup = 4;  // 2: 944 us, 4: 790 us, 8: 830 us on maxpool2d.pte
        for (; ox + kGroup - 1 < out.w && whole(ox + kGroup - 1); ox += kGroup) {
          const int64_t xa = ox * w.sw - w.pw;
          Best<T> group[kGroup];
          for (int g = 0; g < kGroup; ++g) {
            group[g] = rows.begin < rows.end
                           ? Best<T>{plane[rows.first * in.sy + (xa + g * w.sw) * sx], rows.first * in.w + xa + g * w.sw}
                           : Best<T>{T(0), 0};
          }
          for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
            const int64_t y = rows.first + (ky - rows.begin) * w.dh;
            const T* row = plane + y * in.sy;
            for (int64_t kx = 0; kx < w.kw; ++kx) {
              const int64_t x = xa + kx * w.dw;
              for (int g = 0; g < kGroup; ++g) group[g].consider(row[(x + g * w.sw) * sx], y * in.w + x + g * w.sw);
            }
          }
          for (int g = 0; g < kGroup; ++g) {
            out_plane[oy * out.sy + (ox + g) * out.sx] = group[g].value;
            idx_plane[oy * idx.sy + (ox + g) * idx.sx] = group[g].index;
          }
        }
        for (; ox < out.w; ++ox) single(ox);
      }
    }
  }
}

#ifdef ETKIT_VEC_X86
// Float planes with unit column strides, eight outputs of a row per vector.
// Each lane visits its window's taps in the scalar path's order with the
// same rule (start at the first tap, take a later one only when greater,
// ordered), so values and indices are identical to it; compares and blends
// replace the select, which GCC turns into branches that mispredict on
// random data. Indices are carried as
// int32 (the caller checks that a plane has fewer than 2^31 elements) and
// widened at the store.
ETKIT_AVX2_FMA_BEGIN
namespace avx2 {

// Lanes x, x + s, ..., x + 7s of a row. Stride 2 reads one float past the
// last lane; the caller keeps that inside the row.
template <int Stride>
inline __m256 load_strided(const float* p, __m256i gather_offsets) {
  if constexpr (Stride == 1) {
    return _mm256_loadu_ps(p);
  } else if constexpr (Stride == 2) {
    const __m256 evens = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8), _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(evens), _MM_SHUFFLE(3, 1, 2, 0)));
  } else {
    return _mm256_i32gather_ps(p, gather_offsets, 4);
  }
}

inline void store_indices(int64_t* p, __m256i idx) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_cvtepi32_epi64(_mm256_castsi256_si128(idx)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 4), _mm256_cvtepi32_epi64(_mm256_extracti128_si256(idx, 1)));
}

// Outputs [ox, ox + 8 * Vectors) of row oy: every window lies whole inside
// the row (and, for stride 2, the float after the last lane's last tap
// too). Each vector's compare-and-blend chain waits on its previous blend;
// two vectors in flight overlap their chains.
template <int Stride, int Vectors>
inline void block(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows, int64_t ox,
                  float* values, int64_t* indices) {
  const int64_t xa = ox * w.sw - w.pw;
  const __m256i lanes = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(int32_t(w.sw)));
  const int32_t vector_step = int32_t(8 * w.sw);
  __m256 best[Vectors];
  __m256i best_idx[Vectors];
  const bool any = rows.begin < rows.end;
  for (int v = 0; v < Vectors; ++v) {
    best[v] = any ? load_strided<Stride>(plane + rows.first * in_sy + xa + v * vector_step, lanes) : _mm256_setzero_ps();
    best_idx[v] = any ? _mm256_add_epi32(_mm256_set1_epi32(int32_t(rows.first * in_w + xa) + v * vector_step), lanes)
                      : _mm256_setzero_si256();
  }
  for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
    const int64_t y = rows.first + (ky - rows.begin) * w.dh;
    const float* row = plane + y * in_sy;
    for (int64_t kx = 0; kx < w.kw; ++kx) {
      const int64_t x = xa + kx * w.dw;
      const __m256i idx0 = _mm256_add_epi32(_mm256_set1_epi32(int32_t(y * in_w + x)), lanes);
      for (int v = 0; v < Vectors; ++v) {
        const __m256 t = load_strided<Stride>(row + x + v * vector_step, lanes);
        const __m256 take = _mm256_cmp_ps(t, best[v], _CMP_GT_OQ);  // false when either is NaN
        const __m256i idx = _mm256_add_epi32(idx0, _mm256_set1_epi32(v * vector_step));
        best[v] = _mm256_blendv_ps(best[v], t, take);
        best_idx[v] =
            _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(best_idx[v]), _mm256_castsi256_ps(idx), take));
      }
    }
  }
  for (int v = 0; v < Vectors; ++v) {
    _mm256_storeu_ps(values + 8 * v, best[v]);
    store_indices(indices + 8 * v, best_idx[v]);
  }
}

// One output whose window the padding clips, with the same rule in lane 0
// of a vector register: compare and blend, no data-dependent branch.
inline void edge(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows, int64_t ox,
                 float* value, int64_t* index) {
  const Taps xs = taps_inside(ox * w.sw - w.pw, w.kw, w.dw, in_w);
  const bool any = rows.begin < rows.end && xs.begin < xs.end;
  __m128 best = any ? _mm_load_ss(plane + rows.first * in_sy + xs.first) : _mm_setzero_ps();
  __m128i best_idx = _mm_cvtsi32_si128(any ? int32_t(rows.first * in_w + xs.first) : 0);
  for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
    const int64_t y = rows.first + (ky - rows.begin) * w.dh;
    const float* row = plane + y * in_sy;
    for (int64_t kx = xs.begin; kx < xs.end; ++kx) {
      const int64_t x = xs.first + (kx - xs.begin) * w.dw;
      const __m128 v = _mm_load_ss(row + x);
      const __m128 take = _mm_cmpgt_ss(v, best);  // ordered: false when either is NaN
      best = _mm_blendv_ps(best, v, take);
      const __m128 idx = _mm_castsi128_ps(_mm_cvtsi32_si128(int32_t(y * in_w + x)));
      best_idx = _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(best_idx), idx, take));
    }
  }
  *value = _mm_cvtss_f32(best);
  *index = _mm_cvtsi128_si32(best_idx);
}

// The outputs of row oy whose windows the vector blocks cover: [first, end)
// with end - first a multiple of 8.
template <int Stride>
void row_blocks(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows, int64_t first,
                int64_t end, float* values, int64_t* indices) {
  int64_t ox = first;
  for (; ox + 16 <= end; ox += 16) block<Stride, 2>(plane, in_w, in_sy, w, rows, ox, values + ox, indices + ox);
  if (ox < end) block<Stride, 1>(plane, in_w, in_sy, w, rows, ox, values + ox, indices + ox);
}

}  // namespace avx2
ETKIT_AVX2_FMA_END
#endif

// Float planes with unit column strides on every CPU: four outputs of a row
// per vector of GCC's generic vector type (SSE2 on x86-64, NEON on AArch64,
// plain code elsewhere). Two kernels serve what the AVX2 kernel does not
// take (CPUs without AVX2, rows too narrow for eight lanes): by rows, four
// outputs of a row per vector, and by planes (below), one output position
// in four planes per vector. Each lane visits its window's taps in the
// scalar path's order with the same rule (start at the first tap, take a
// later one only when greater, ordered) and selects with bit masks, so
// values and indices are identical to it and no branch depends on the
// data; int32 indices as in the AVX2 kernel.
namespace lanes4 {

using F4 = float __attribute__((vector_size(16)));
using I4 = int32_t __attribute__((vector_size(16)));

inline F4 load4(const float* p) {
  F4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Lanes x, x + step, x + 2 step, x + 3 step of a row. Stride 2 reads p[7],
// one float past the last lane; the caller keeps that inside the row.
template <int Stride>
inline F4 load_strided(const float* p, int64_t step) {
  if constexpr (Stride == 1) {
    return load4(p);
  } else if constexpr (Stride == 2) {
    return __builtin_shufflevector(load4(p), load4(p + 4), 0, 2, 4, 6);
  } else {
    return F4{p[0], p[step], p[2 * step], p[3 * step]};
  }
}

// The rule: take = t > best, an ordered compare (false when either is
// NaN); best and best_idx follow take. On x86 `best` is maxps(t, best),
// which returns its second operand unless the first is greater (NaNs, ties
// and -0.0 included): the rule in one instruction, so the dependency chain
// from tap to tap is that instruction alone.
inline void consider(F4& best, I4& best_idx, F4 t, I4 idx) {
  const I4 take = t > best;
#ifdef ETKIT_VEC_X86
  best = F4(_mm_max_ps(__m128(t), __m128(best)));
#else
  best = F4(((I4)t & take) | ((I4)best & ~take));
#endif
  best_idx = (idx & take) | (best_idx & ~take);
}

// Lanes x, x + 2, x + 4, x + 6 read from p[-1] to p[6]: the stride-2 load
// for the last whole windows of a row, which may end at its last float.
inline F4 load_stride2_back(const float* p) {
  return __builtin_shufflevector(load4(p - 1), load4(p + 3), 1, 3, 5, 7);
}

// Blocks of four outputs of one row, [ox[v], ox[v] + 4) for each v, whose
// windows lie whole inside the row (for stride 2, the float after the last
// lane's last tap too; with BackLast, the last block's float before its
// first lane's first tap instead). The blocks' chains are independent and
// overlap. KW: the kernel width when known at compile time (0: w.kw), so
// that the taps of a row unroll.
template <int Stride, int Vectors, int KW, bool BackLast = false>
inline void block(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows,
                       const int64_t* ox, float* values, int64_t* indices) {
  const int64_t kw = KW ? KW : w.kw;
  const int32_t sw = int32_t(w.sw);
  const I4 lanes = I4{0, 1, 2, 3} * sw;
  F4 best[Vectors];
  I4 best_idx[Vectors];
  int64_t xa[Vectors];
  const auto load = [&](int v, const float* p) {
    return BackLast && v == Vectors - 1 ? load_stride2_back(p) : load_strided<Stride>(p, w.sw);
  };
  const bool any = rows.begin < rows.end;
  for (int v = 0; v < Vectors; ++v) {
    xa[v] = ox[v] * w.sw - w.pw;
    best[v] = any ? load(v, plane + rows.first * in_sy + xa[v]) : F4{};
    best_idx[v] = any ? lanes + int32_t(rows.first * in_w + xa[v]) : I4{};
  }
  for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
    const int64_t y = rows.first + (ky - rows.begin) * w.dh;
    const float* row = plane + y * in_sy;
    for (int64_t kx = 0; kx < kw; ++kx) {
      for (int v = 0; v < Vectors; ++v) {
        const int64_t x = xa[v] + kx * w.dw;
        consider(best[v], best_idx[v], load(v, row + x), lanes + int32_t(y * in_w + x));
      }
    }
  }
  for (int v = 0; v < Vectors; ++v) {
    std::memcpy(values + ox[v], &best[v], sizeof best[v]);
    for (int lane = 0; lane < 4; ++lane) indices[ox[v] + lane] = best_idx[v][lane];
  }
}

// One output whose window the padding clips, with the same rule in lane 0.
inline void edge(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows, int64_t ox,
                 float* value, int64_t* index) {
  const Taps xs = taps_inside(ox * w.sw - w.pw, w.kw, w.dw, in_w);
  const bool any = rows.begin < rows.end && xs.begin < xs.end;
  // Lane 0 only (F4{} + v would turn -0.0 into +0.0).
  F4 best = F4{any ? plane[rows.first * in_sy + xs.first] : 0.0f};
  I4 best_idx = I4{any ? int32_t(rows.first * in_w + xs.first) : 0};
  for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
    const int64_t y = rows.first + (ky - rows.begin) * w.dh;
    const float* row = plane + y * in_sy;
    for (int64_t kx = xs.begin; kx < xs.end; ++kx) {
      const int64_t x = xs.first + (kx - xs.begin) * w.dw;
      consider(best, best_idx, F4{row[x]}, I4{int32_t(y * in_w + x)});
    }
  }
  *value = best[0];
  *index = best_idx[0];
}

// The whole windows of one row: blocks at first, first + 4, ..., end - 4,
// then the tail block when tail >= 0 (for stride 2 loaded backwards with
// TailBack, else gathered), two blocks at a time.
template <int Stride, int KW, bool TailBack>
void row_blocks(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows, int64_t first,
                int64_t end, int64_t tail, float* values, int64_t* indices) {
  int64_t ox = first;
  for (; ox + 8 <= end; ox += 8) {
    const int64_t pair[2] = {ox, ox + 4};
    block<Stride, 2, KW>(plane, in_w, in_sy, w, rows, pair, values, indices);
  }
  const int64_t pair[2] = {ox, tail};
  // Only the stride-2 load reads past its last tap; the tail block
  // takes the others' loads as they are.
  constexpr bool kTailLoads = Stride != 2 || TailBack;
  if (ox < end && tail >= 0 && kTailLoads) {
    block<Stride, 2, KW, TailBack>(plane, in_w, in_sy, w, rows, pair, values, indices);
    return;
  }
  if (ox < end) block<Stride, 1, KW>(plane, in_w, in_sy, w, rows, pair, values, indices);
  if (tail >= 0) {
    if constexpr (kTailLoads) block<Stride, 1, KW, TailBack>(plane, in_w, in_sy, w, rows, pair + 1, values, indices);
    else block<0, 1, KW>(plane, in_w, in_sy, w, rows, pair + 1, values, indices);
  }
}

// Row blocks with the kernel width known at compile time for 2 and 3.
template <int Stride, bool TailBack>
void row_blocks_kw(const float* plane, int64_t in_w, int64_t in_sy, const Window& w, const Taps& rows, int64_t first,
                   int64_t end, int64_t tail, float* values, int64_t* indices) {
  if (w.kw == 2) row_blocks<Stride, 2, TailBack>(plane, in_w, in_sy, w, rows, first, end, tail, values, indices);
  else if (w.kw == 3) row_blocks<Stride, 3, TailBack>(plane, in_w, in_sy, w, rows, first, end, tail, values, indices);
  else row_blocks<Stride, 0, TailBack>(plane, in_w, in_sy, w, rows, first, end, tail, values, indices);
}

// By planes: lane j holds plane j of a group of four, every lane the same
// window position, so the taps inside the input are found once for four
// outputs and each tap is four scalar loads, in any layout (channels-last
// puts the four side by side). For rows with no block of four and short
// rows (max_pool picks). A group of fewer than four planes repeats its
// last one in the spare lanes, whose results are not stored.
struct PlaneGroup {
  const float* in[4];
  float* out[4];
  int64_t* idx[4];
  int count;
};

inline void window_across(const PlaneGroup& g, int64_t in_w, int64_t in_sy, int64_t in_sx, const Window& w,
                          const Taps& rows, const Taps& xs, int64_t out_at, int64_t idx_at) {
  const auto taps = [&](int64_t at) { return F4{g.in[0][at], g.in[1][at], g.in[2][at], g.in[3][at]}; };
  const bool any = rows.begin < rows.end && xs.begin < xs.end;
  F4 best = any ? taps(rows.first * in_sy + xs.first * in_sx) : F4{};
  I4 best_idx = I4{} + (any ? int32_t(rows.first * in_w + xs.first) : 0);
  for (int64_t ky = rows.begin; ky < rows.end; ++ky) {
    const int64_t y = rows.first + (ky - rows.begin) * w.dh;
    for (int64_t kx = xs.begin; kx < xs.end; ++kx) {
      const int64_t x = xs.first + (kx - xs.begin) * w.dw, at = y * in_sy + x * in_sx;
      consider(best, best_idx, taps(at), I4{} + int32_t(y * in_w + x));
    }
  }
  for (int j = 0; j < g.count; ++j) {
    g.out[j][out_at] = best[j];
    g.idx[j][idx_at] = best_idx[j];
  }
}

}  // namespace lanes4

// The four-plane kernel for every output, any strides.
void max_pool_f32_planes4(const Tensor& input, const Window& w, Tensor& output, Tensor& indices) {
  const Layout in = layout_of(input), out = layout_of(output), idx = layout_of(indices);
  const float* src = input.data_as<float>();
  float* dst = output.data_as<float>();
  int64_t* index_out = indices.data_as<int64_t>();
  const int64_t planes = out.n * out.c;
  for (int64_t first = 0; first < planes; first += 4) {
    lanes4::PlaneGroup g{};
    g.count = int(std::min<int64_t>(4, planes - first));
    for (int j = 0; j < 4; ++j) {
      const int64_t p = first + std::min(j, g.count - 1), n = p / out.c, c = p % out.c;
      g.in[j] = src + n * in.sn + c * in.sc;
      g.out[j] = dst + n * out.sn + c * out.sc;
      g.idx[j] = index_out + n * idx.sn + c * idx.sc;
    }
    for (int64_t oy = 0; oy < out.h; ++oy) {
      const Taps rows = taps_inside(oy * w.sh - w.ph, w.kh, w.dh, in.h);
      for (int64_t ox = 0; ox < out.w; ++ox) {
        const Taps xs = taps_inside(ox * w.sw - w.pw, w.kw, w.dw, in.w);
        const int64_t out_at = oy * out.sy + ox * out.sx, idx_at = oy * idx.sy + ox * idx.sx;
        lanes4::window_across(g, in.w, in.sy, in.sx, w, rows, xs, out_at, idx_at);
      }
    }
  }
}

// Whether the vector kernels take these tensors: float, unit column strides
// everywhere, and flat plane indices that fit in int32 (with a row to
// spare).
bool vector_max_pool_fits(const Tensor& input, const Tensor& output, const Tensor& indices) {
  if (input.dtype() != ScalarType::kFloat) return false;
  const Layout in = layout_of(input), out = layout_of(output), idx = layout_of(indices);
  return in.sx == 1 && out.sx == 1 && idx.sx == 1 && (in.h + 1) * in.w < (int64_t(1) << 31);
}

// Whether the four-plane kernel takes them in any layout (channels-last):
// float and int32 plane indices.
bool planes4_fits(const Tensor& input) {
  const Layout in = layout_of(input);
  return input.dtype() == ScalarType::kFloat && (in.h + 1) * in.w < (int64_t(1) << 31);
}

// How a row of outputs splits for a kernel of `lanes` outputs per vector:
// columns [0, first) and [max(end, tail + lanes), out_w) have windows the
// padding clips (or no room for a load) and go one at a time; [first, end)
// is a whole number of vector blocks; when tail >= 0, one gathered block
// covers [tail, tail + lanes), the last whole windows, overlapping the
// blocks before it (those columns get the same results again).
struct RowSplit {
  int64_t first, end, tail;
};

RowSplit split_row(int64_t in_w, int64_t out_w, const Window& w, int64_t lanes) {
  // Output column ox has a whole window when ox * sw >= pw and its last
  // tap, ox * sw + last, is inside the row; the stride-2 loads read one
  // float further.
  const int64_t last = (w.kw - 1) * w.dw - w.pw;
  const auto columns_until = [&](int64_t reach) {
    return std::min(in_w - 1 - reach < 0 ? int64_t(0) : (in_w - 1 - reach) / w.sw + 1, out_w);
  };
  const int64_t first = std::min((w.pw + w.sw - 1) / w.sw, out_w);
  const int64_t loadable = columns_until(last + (w.sw == 2 ? 1 : 0)), whole = columns_until(last);
  const int64_t end = first + std::max<int64_t>(loadable - first, 0) / lanes * lanes;
  const int64_t tail = end < whole && whole - lanes >= first ? whole - lanes : -1;
  return {first, end, tail};
}

// Calls row(plane, rows, values, indices) for each output row of each
// plane of a float max pool: its input plane, the window rows inside the
// input, and where its outputs and indices go.
template <typename Row>
void for_each_output_row(const Tensor& input, const Window& w, Tensor& output, Tensor& indices, Row&& row) {
  const Layout in = layout_of(input), out = layout_of(output), idx = layout_of(indices);
  const float* src = input.data_as<float>();
  float* dst = output.data_as<float>();
  int64_t* index_out = indices.data_as<int64_t>();
  for (int64_t n = 0; n < out.n; ++n) {
    for (int64_t c = 0; c < out.c; ++c) {
      const float* plane = src + n * in.sn + c * in.sc;
      float* out_plane = dst + n * out.sn + c * out.sc;
      int64_t* idx_plane = index_out + n * idx.sn + c * idx.sc;
      for (int64_t oy = 0; oy < out.h; ++oy) {
        row(plane, taps_inside(oy * w.sh - w.ph, w.kh, w.dh, in.h), out_plane + oy * out.sy, idx_plane + oy * idx.sy);
      }
    }
  }
}

// The AVX2 kernel for the outputs whose windows lie whole inside their
// row; `edge` for the windows the padding clips. False, having written
// nothing, when the rows are too narrow for a vector block.
bool max_pool_f32_avx2(const Tensor& input, const Window& w, Tensor& output, Tensor& indices) {
#ifdef ETKIT_VEC_X86
  if (!cpu_has_avx2_fma()) return false;
  const Layout in = layout_of(input), out = layout_of(output);
  const RowSplit split = split_row(in.w, out.w, w, 8);
  const int64_t first = split.first, end = split.end, tail = split.tail;
  // Rows too narrow for a block of eight: the four-lane kernel.
  if (end == first && tail < 0) return false;
  for_each_output_row(input, w, output, indices, [&](const float* plane, const Taps& rows, float* values, int64_t* row_idx) {
    for (int64_t ox = 0; ox < first; ++ox) avx2::edge(plane, in.w, in.sy, w, rows, ox, values + ox, row_idx + ox);
    if (w.sw == 1) avx2::row_blocks<1>(plane, in.w, in.sy, w, rows, first, end, values, row_idx);
    else if (w.sw == 2) avx2::row_blocks<2>(plane, in.w, in.sy, w, rows, first, end, values, row_idx);
    else avx2::row_blocks<0>(plane, in.w, in.sy, w, rows, first, end, values, row_idx);
    int64_t ox = end;
    if (tail >= 0) {
      avx2::block<0, 1>(plane, in.w, in.sy, w, rows, tail, values + tail, row_idx + tail);
      ox = tail + 8;
    }
    for (; ox < out.w; ++ox) avx2::edge(plane, in.w, in.sy, w, rows, ox, values + ox, row_idx + ox);
  });
  return true;
#else
  (void)input, (void)w, (void)output, (void)indices;
  return false;
#endif
}

// The four-lane kernel: the same split of every row, four outputs a block.
void max_pool_f32_lanes4(const Tensor& input, const Window& w, Tensor& output, Tensor& indices) {
  const Layout in = layout_of(input), out = layout_of(output);
  const RowSplit split = split_row(in.w, out.w, w, 4);
  const int64_t first = split.first, end = split.end, tail = split.tail;
  // A stride-2 tail block loads from the float before its first tap when
  // there is one (LeNet's 10 -> 5 columns: x = 2), rather than gathering.
  const bool tail_back = tail >= 0 && w.sw == 2 && tail * w.sw - w.pw >= 1;
  for_each_output_row(input, w, output, indices, [&](const float* plane, const Taps& rows, float* values, int64_t* row_idx) {
    for (int64_t ox = 0; ox < first; ++ox) lanes4::edge(plane, in.w, in.sy, w, rows, ox, values + ox, row_idx + ox);
    const auto blocks = [&](auto stride, auto back) {
      lanes4::row_blocks_kw<stride(), back()>(plane, in.w, in.sy, w, rows, first, end, tail, values, row_idx);
    };
    using One = std::integral_constant<int, 1>;
    using Two = std::integral_constant<int, 2>;
    using Other = std::integral_constant<int, 0>;
    if (w.sw == 1) blocks(One{}, std::false_type{});
    else if (w.sw == 2 && tail_back) blocks(Two{}, std::true_type{});
    else if (w.sw == 2) blocks(Two{}, std::false_type{});
    else blocks(Other{}, std::false_type{});
    int64_t ox = tail >= 0 ? tail + 4 : end;
    for (; ox < out.w; ++ox) lanes4::edge(plane, in.w, in.sy, w, rows, ox, values + ox, row_idx + ox);
  });
}

template <typename T>
void max_pool(const Tensor& input, const Window& w, Tensor& output, Tensor& indices) {
  if constexpr (std::is_same_v<T, float>) {
    if (vector_max_pool_fits(input, output, indices)) {
      if (max_pool_f32_avx2(input, w, output, indices)) return;
      // Four planes at a time when the rows have no block of four, and
      // when rows of under eight outputs would leave lanes of their
      // blocks idle (LeNet's 5 -> 1.00 us against 1.18 us by rows) and
      // there are four planes to fill the lanes; rows of eight outputs and
      // more run by rows (maxpool2d.pte's 56: 474 us against 692 us).
      const Layout out = layout_of(output);  // out.h and out.w are at least 1 (pooled_hw)
      const RowSplit split = split_row(input.size(input.dim() - 1), out.w, w, 4);
      const bool blocks = split.end > split.first || split.tail >= 0;
      if (blocks && (out.w >= 8 || out.n * out.c < 4)) {
        max_pool_f32_lanes4(input, w, output, indices);
      } else {
        max_pool_f32_planes4(input, w, output, indices);
      }
      return;
    }
    // Columns not contiguous (channels-last): four planes at a time, which
    // NHWC puts side by side.
    if (planes4_fits(input)) {
      max_pool_f32_planes4(input, w, output, indices);
      return;
    }
  }
  if (input.dim() > 0 && input.strides().back() == 1) max_pool_planes<T, true>(input, w, output, indices);
  else max_pool_planes<T, false>(input, w, output, indices);
}

// (self, kernel_size, stride, padding, dilation, ceil_mode, out, indices, ret)
Status max_pool2d_with_indices_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[6], "out"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[7], "indices"));
  ETKIT_TRY(check_input(ctx, *in));
  ETKIT_ASSIGN_OR_RETURN(Window w, read_window(ctx, args, true));
  if (out->dtype() != in->dtype()) {
    return ctx.fail("out dtype " + dtype_name(out->dtype()) + " does not match input dtype " + dtype_name(in->dtype()));
  }
  if (indices->dtype() != ScalarType::kLong) return ctx.fail("indices must be LONG, not " + dtype_name(indices->dtype()));
  ETKIT_ASSIGN_OR_RETURN(auto ohw, pooled_hw(ctx, *in, w));
  const Shape shape = pooled_shape(*in, ohw.first, ohw.second);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(resize_named(ctx, *indices, shape, "indices"));
  bool ok = false;
  dispatch_real_and_bool(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      max_pool<T>(*in, w, *out, *indices);
      ok = true;
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + dtype_name(in->dtype()));
  return {};
}

// Sums in double (floating) or int64 (integers; the mean then truncates, as
// PyTorch's integer average pooling does).
template <typename T>
using SumType = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;

template <typename T>
void avg_pool(const Tensor& input, const Window& w, bool count_include_pad, int64_t divisor_override, Tensor& output) {
  const Layout in = layout_of(input), out = layout_of(output);
  const T* src = input.data_as<T>();
  T* dst = output.data_as<T>();
  for (int64_t n = 0; n < out.n; ++n) {
    for (int64_t c = 0; c < out.c; ++c) {
      for (int64_t oy = 0; oy < out.h; ++oy) {
        // The window clipped to the padded input (its size is the divisor
        // with count_include_pad), then to the input.
        const int64_t y0 = oy * w.sh - w.ph, y1 = std::min(y0 + w.kh, in.h + w.ph);
        const int64_t ya = std::max<int64_t>(y0, 0), yb = std::min(y1, in.h);
        for (int64_t ox = 0; ox < out.w; ++ox) {
          const int64_t x0 = ox * w.sw - w.pw, x1 = std::min(x0 + w.kw, in.w + w.pw);
          const int64_t xa = std::max<int64_t>(x0, 0), xb = std::min(x1, in.w);
          SumType<T> sum = 0;
          for (int64_t y = ya; y < yb; ++y) {
            for (int64_t x = xa; x < xb; ++x) sum += SumType<T>(src[in.at(n, c, y, x)]);
          }
          const int64_t count = std::max<int64_t>(yb - ya, 0) * std::max<int64_t>(xb - xa, 0);
          const int64_t divisor = divisor_override ? divisor_override : count_include_pad ? (y1 - y0) * (x1 - x0) : count;
          dst[out.at(n, c, oy, ox)] = count == 0 ? T(0) : static_cast<T>(sum / SumType<T>(divisor));
        }
      }
    }
  }
}

// (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override?, out, ret)
Status avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(bool count_include_pad, bool_arg(ctx, *args[5], "count_include_pad"));
  int64_t divisor_override = 0;
  if (!args[6]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(divisor_override, int_arg(ctx, *args[6], "divisor_override"));
    if (divisor_override == 0) return ctx.fail("divisor_override must not be 0");
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  ETKIT_TRY(check_input(ctx, *in));
  ETKIT_ASSIGN_OR_RETURN(Window w, read_window(ctx, args, false));
  if (out->dtype() != in->dtype()) {
    return ctx.fail("out dtype " + dtype_name(out->dtype()) + " does not match input dtype " + dtype_name(in->dtype()));
  }
  ETKIT_ASSIGN_OR_RETURN(auto ohw, pooled_hw(ctx, *in, w));
  ETKIT_TRY(resize_out(ctx, *out, pooled_shape(*in, ohw.first, ohw.second)));
  bool ok = false;
  dispatch_real_and_bool(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      avg_pool<T>(*in, w, count_include_pad, divisor_override, *out);
      ok = true;
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + dtype_name(in->dtype()));
  return {};
}

// Output cell i of n covers input rows [floor(i*in/n), ceil((i+1)*in/n)).
template <typename T>
void adaptive_avg_pool(const Tensor& input, Tensor& output) {
  const Layout in = layout_of(input), out = layout_of(output);
  const T* src = input.data_as<T>();
  T* dst = output.data_as<T>();
  for (int64_t n = 0; n < out.n; ++n) {
    for (int64_t c = 0; c < out.c; ++c) {
      for (int64_t oy = 0; oy < out.h; ++oy) {
        const int64_t y0 = oy * in.h / out.h, y1 = ((oy + 1) * in.h + out.h - 1) / out.h;
        for (int64_t ox = 0; ox < out.w; ++ox) {
          const int64_t x0 = ox * in.w / out.w, x1 = ((ox + 1) * in.w + out.w - 1) / out.w;
          double sum = 0;
          for (int64_t y = y0; y < y1; ++y) {
            for (int64_t x = x0; x < x1; ++x) sum += double(src[in.at(n, c, y, x)]);
          }
          dst[out.at(n, c, oy, ox)] = static_cast<T>(sum / double((y1 - y0) * (x1 - x0)));
        }
      }
    }
  }
}

// (self, output_size, out, ret)
Status adaptive_avg_pool2d_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(auto size_list, ctx.int_list(*args[1], "output_size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_input(ctx, *in));
  if (size_list.size() != 2 || size_list[0] < 0 || size_list[1] < 0) {
    return ctx.fail("output_size must be two non-negative sizes, got " + list_string(size_list));
  }
  if (!is_float_or_double(in->dtype())) return ctx.fail("unsupported dtype " + dtype_name(in->dtype()));
  if (out->dtype() != in->dtype()) {
    return ctx.fail("out dtype " + dtype_name(out->dtype()) + " does not match input dtype " + dtype_name(in->dtype()));
  }
  ETKIT_TRY(resize_out(ctx, *out, pooled_shape(*in, size_list[0], size_list[1])));
  if (in->dtype() == ScalarType::kFloat) {
    adaptive_avg_pool<float>(*in, *out);
  } else {
    adaptive_avg_pool<double>(*in, *out);
  }
  return {};
}

// Shapes of grad_output and indices must be what pooling self by `w` gives.
Status check_pooled_shape(KernelContext& ctx, const Tensor& t, const Shape& shape, std::string_view what) {
  const auto sizes = t.sizes();
  if (std::equal(sizes.begin(), sizes.end(), shape.begin(), shape.end())) return {};
  return ctx.fail(std::string(what) + " " + t.shape_string() + " does not match the pooled shape " + list_string(shape));
}

// (grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
// indices, grad_input, ret): grad_input = zeros like self, then each
// grad_output element is added at the input position its index names
// (y * W + x within its plane); overlapping windows add up. Floating only.
Status max_pool2d_with_indices_backward(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * grad_out, tensor_arg(ctx, *args[0], "grad_output"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[1], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[7], "indices"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * grad_in, tensor_arg(ctx, *args[8], "grad_input"));
  ETKIT_TRY(check_input(ctx, *in));
  ETKIT_ASSIGN_OR_RETURN(Window w, read_window(ctx, args.subspan(1), true));  // args[2..6] as the forward's [1..5]
  const ScalarType t = in->dtype();
  if (!is_floating(t)) return ctx.fail("self must be floating point, not " + dtype_name(t));
  if (grad_out->dtype() != t || grad_in->dtype() != t) {
    return ctx.fail("grad_output and grad_input must have self's dtype " + dtype_name(t));
  }
  if (indices->dtype() != ScalarType::kLong) return ctx.fail("indices must be LONG, not " + dtype_name(indices->dtype()));
  ETKIT_ASSIGN_OR_RETURN(auto ohw, pooled_hw(ctx, *in, w));
  const Shape shape = pooled_shape(*in, ohw.first, ohw.second);
  ETKIT_TRY(check_pooled_shape(ctx, *grad_out, shape, "grad_output"));
  ETKIT_TRY(check_pooled_shape(ctx, *indices, shape, "indices"));
  const Layout il = layout_of(*in), gl = layout_of(*grad_out), xl = layout_of(*indices);
  const int64_t* index = indices->data_as<int64_t>();
  const int64_t plane = il.h * il.w;
  for (int64_t n = 0; n < gl.n; ++n) {  // every index must name a position of its plane
    for (int64_t c = 0; c < gl.c; ++c) {
      for (int64_t y = 0; y < gl.h; ++y) {
        for (int64_t x = 0; x < gl.w; ++x) {
          const int64_t i = index[xl.at(n, c, y, x)];
          if (i < 0 || i >= plane) {
            return ctx.fail("index " + std::to_string(i) + " is outside the " + std::to_string(il.h) + "x" +
                            std::to_string(il.w) + " input plane");
          }
        }
      }
    }
  }
  ETKIT_TRY(resize_out(ctx, *grad_in, in->sizes()));
  const Layout ol = layout_of(*grad_in);
  auto accumulate = [&](auto zero) {
    using CT = decltype(zero);  // float for float/half/bfloat16, double for double
    for (int64_t n = 0; n < ol.n; ++n) {
      for (int64_t c = 0; c < ol.c; ++c) {
        for (int64_t y = 0; y < ol.h; ++y) {
          for (int64_t x = 0; x < ol.w; ++x) store_as<CT>(t, grad_in->data(), ol.at(n, c, y, x), zero);
        }
        for (int64_t y = 0; y < gl.h; ++y) {
          for (int64_t x = 0; x < gl.w; ++x) {
            const int64_t i = index[xl.at(n, c, y, x)];
            const int64_t at = ol.at(n, c, i / il.w, i % il.w);
            const CT sum = load_as<CT>(t, grad_in->data(), at) + load_as<CT>(t, grad_out->data(), gl.at(n, c, y, x));
            store_as<CT>(t, grad_in->data(), at, sum);
          }
        }
      }
    }
  };
  if (t == ScalarType::kDouble) accumulate(0.0);
  else accumulate(0.0f);
  return {};
}

}  // namespace

void add_pooling_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out, 9, {6, 7}});
  table.push_back({"aten::max_pool2d_with_indices_backward.grad_input", max_pool2d_with_indices_backward, 10, {8}});
  table.push_back({"aten::avg_pool2d.out", avg_pool2d_out, 9, {7}});
  table.push_back({"aten::_adaptive_avg_pool2d.out", adaptive_avg_pool2d_out, 4, {2}});
}

}  // namespace etkit::rt::kernels::linalg
