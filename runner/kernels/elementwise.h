// Element-wise binary and unary loops with broadcasting, type promotion and
// a computation type, shared by the arithmetic, comparison and activation
// kernels. Values are converted to the computation type per element, so
// mixed dtypes (int32 tensor + float tensor -> float out) work; the common
// case (all one dtype, operands laid out like out, or a scalar, a row
// repeated along out's leading dims, or one value per channel plane) runs a plain loop over consecutive
// elements that the compiler vectorizes (dense_map, dense_zip).
#pragma once

#include <algorithm>

#include "runner/kernels/kernel_util.h"
#include "runner/kernels/linalg/cpu.h"
#include "runner/kernels/stream_store.h"

namespace etkit::rt::kernels {

// ---- Dense loops -------------------------------------------------------------

// Same sizes and same dim order: element i of one is element i of the
// other in memory, whatever the dim order.
inline bool same_layout(const Tensor& a, const Tensor& b) {
  return same_items(a.sizes(), b.sizes()) &&
         ((a.is_contiguous() && b.is_contiguous()) || same_items(a.dim_order(), b.dim_order()));
}

// How the operands of a binary op map onto out's memory when they can be
// walked as consecutive elements: a and b like out (kSame), one of them a
// single element (kScalarA/B), or one of them a contiguous row repeated
// along out's leading dims of a contiguous out ([N, C] + [C]: kRowA/B), or
// one of them holding one value per plane of `inner` consecutive elements of
// a contiguous out, repeated along out's leading dims ([N, C, H, W] +
// [C, 1, 1]: kChannelA/B, inner = H * W).
enum class DenseBinary { kNone, kSame, kScalarA, kScalarB, kRowA, kRowB, kChannelA, kChannelB };

struct DenseLayout {
  DenseBinary kind = DenseBinary::kNone;
  int64_t row = 0;    // elements of the repeated row or of the per-plane operand
  int64_t inner = 1;  // elements of out per value of the per-plane operand (kChannelA/B)
};

// The layout of out = op(a, b) when out already has the broadcast shape of
// a and b (then no resize is needed), else kNone. A single-element or row
// operand must not overlap out: the general loop would see out's new values
// through it.
DenseLayout dense_binary_layout(const Tensor& a, const Tensor& b, const Tensor& out);

// dense_map's loop for outputs of kStreamBytes or more, written with
// streaming stores (stream_store.h); out of line so that the small calls'
// loop compiles as before. Once the stores no longer read each line, the
// loop through the block buffer is bound by instructions, not memory, on a
// core shared with another thread, so everything is inlined into it
// (flatten: with the operator and the range loop left as calls, a
// same-shape add on 4M floats took 1.45 ms instead of 0.80) and it is
// compiled twice, for the baseline ISA and for AVX2 (32-byte vectors, 0.70
// ms), picked at run time. Without FMA the AVX2 code computes the same
// values.
template <typename T, typename U, typename Op>
[[gnu::noinline, gnu::flatten]] void dense_map_streamed_base(const T* in, U* out, int64_t n, Op op) {
  stream_blocks(out, n, [&](U* buf, int64_t begin, int64_t len) {
    const T* x = in + begin;
    for (int64_t i = 0; i < len; ++i) buf[i] = op(x[i]);
  });
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename T, typename U, typename Op>
[[gnu::noinline, gnu::target("avx2"), gnu::flatten]] void dense_map_streamed_avx2(const T* in, U* out, int64_t n, Op op) {
  stream_blocks(out, n, [&](U* buf, int64_t begin, int64_t len) {
    const T* x = in + begin;
    for (int64_t i = 0; i < len; ++i) buf[i] = op(x[i]);
  });
}
#endif

template <typename T, typename U, typename Op>
void dense_map_streamed(const T* in, U* out, int64_t n, Op op) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (linalg::cpu_has_avx2_fma()) return dense_map_streamed_avx2(in, out, n, op);
#endif
  dense_map_streamed_base(in, out, n, op);
}

// out[i] = op(in[i]) over n consecutive elements. No __restrict: out may be
// in (in place); the compiler checks overlap at run time before its
// vector loop, so overlapping buffers see the scalar loop's order.
template <typename T, typename U, typename Op>
inline void dense_map(const T* in, U* out, int64_t n, Op op) {
  if (n * int64_t(sizeof(U)) >= kStreamBytes && stream_fits(in, out, n)) [[unlikely]] {
    return dense_map_streamed(in, out, n, op);
  }
  for (int64_t i = 0; i < n; ++i) out[i] = op(in[i]);
}

// The per-plane cases of dense_zip, out of line: inlined there, they made
// GCC compile the same-shape loop into slower code (same-shape add on
// 3,456 floats went from 0.28 to 0.38 us).
template <typename T, typename Op>
[[gnu::noinline]] void dense_zip_planes(const DenseLayout& layout, const T* a, const T* b, T* out, int64_t n, Op op) {
  const int64_t m = layout.row, inner = layout.inner;
  for (int64_t r = 0; r < n; r += m * inner) {
    for (int64_t c = 0; c < m; ++c) {
      const int64_t at = r + c * inner;
      if (layout.kind == DenseBinary::kChannelB) {
        const T y = b[c];
        for (int64_t i = 0; i < inner; ++i) out[at + i] = op(a[at + i], y);
      } else {
        const T x = a[c];
        for (int64_t i = 0; i < inner; ++i) out[at + i] = op(x, b[at + i]);
      }
    }
  }
}

// Elements [begin, begin + len) of dense_zip's result into dst[0, len).
template <typename T, typename Op>
void dense_zip_range(const DenseLayout& layout, const T* a, const T* b, T* dst, int64_t begin, int64_t len, Op op) {
  switch (layout.kind) {
    case DenseBinary::kSame:
      for (int64_t i = 0; i < len; ++i) dst[i] = op(a[begin + i], b[begin + i]);
      return;
    case DenseBinary::kScalarB: {
      const T y = b[0];
      for (int64_t i = 0; i < len; ++i) dst[i] = op(a[begin + i], y);
      return;
    }
    case DenseBinary::kScalarA: {
      const T x = a[0];
      for (int64_t i = 0; i < len; ++i) dst[i] = op(x, b[begin + i]);
      return;
    }
    case DenseBinary::kRowB:
    case DenseBinary::kRowA: {
      // The row's element j goes with out's elements j, j + m, j + 2m, ...
      const int64_t m = layout.row;
      for (int64_t k = 0, j = begin % m; k < len; j = 0) {
        const int64_t run = std::min(m - j, len - k), at = begin + k;
        if (layout.kind == DenseBinary::kRowB) {
          for (int64_t i = 0; i < run; ++i) dst[k + i] = op(a[at + i], b[j + i]);
        } else {
          for (int64_t i = 0; i < run; ++i) dst[k + i] = op(a[j + i], b[at + i]);
        }
        k += run;
      }
      return;
    }
    case DenseBinary::kChannelA:
    case DenseBinary::kChannelB: {
      // The operand's element c goes with out's plane c of each cycle of
      // `row` planes of `inner` elements.
      const int64_t m = layout.row, inner = layout.inner;
      int64_t c = begin / inner % m;
      for (int64_t k = 0, p = begin % inner; k < len; p = 0, c = c + 1 == m ? 0 : c + 1) {
        const int64_t run = std::min(inner - p, len - k), at = begin + k;
        if (layout.kind == DenseBinary::kChannelB) {
          const T y = b[c];
          for (int64_t i = 0; i < run; ++i) dst[k + i] = op(a[at + i], y);
        } else {
          const T x = a[c];
          for (int64_t i = 0; i < run; ++i) dst[k + i] = op(x, b[at + i]);
        }
        k += run;
      }
      return;
    }
    case DenseBinary::kNone: return;
  }
}

// dense_zip for outputs of kStreamBytes or more, with streaming stores, out
// of line like dense_zip_planes, in AVX2 where the CPU has it (as
// dense_map_streamed).
template <typename T, typename Op>
[[gnu::noinline, gnu::flatten]] void dense_zip_streamed_base(const DenseLayout& layout, const T* a, const T* b, T* out, int64_t n, Op op) {
  stream_blocks(out, n, [&](T* buf, int64_t begin, int64_t len) { dense_zip_range(layout, a, b, buf, begin, len, op); });
}

#if defined(__x86_64__) && defined(__GNUC__)
template <typename T, typename Op>
[[gnu::noinline, gnu::target("avx2"), gnu::flatten]] void dense_zip_streamed_avx2(const DenseLayout& layout, const T* a,
                                                                                  const T* b, T* out, int64_t n, Op op) {
  stream_blocks(out, n, [&](T* buf, int64_t begin, int64_t len) { dense_zip_range(layout, a, b, buf, begin, len, op); });
}
#endif

template <typename T, typename Op>
void dense_zip_streamed(const DenseLayout& layout, const T* a, const T* b, T* out, int64_t n, Op op) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (linalg::cpu_has_avx2_fma()) return dense_zip_streamed_avx2(layout, a, b, out, n, op);
#endif
  dense_zip_streamed_base(layout, a, b, out, n, op);
}

// Whether dense_zip's large out may be streamed: each operand that
// runs along out either is out or lies apart from it (the others never
// overlap out: dense_binary_layout).
template <typename T>
bool zip_streams(const DenseLayout& layout, const T* a, const T* b, const T* out, int64_t n) {
  const bool a_runs = layout.kind == DenseBinary::kSame || layout.kind == DenseBinary::kScalarB ||
                      layout.kind == DenseBinary::kRowB || layout.kind == DenseBinary::kChannelB;
  const bool b_runs = layout.kind == DenseBinary::kSame || layout.kind == DenseBinary::kScalarA ||
                      layout.kind == DenseBinary::kRowA || layout.kind == DenseBinary::kChannelA;
  return (!a_runs || stream_fits(a, out, n)) && (!b_runs || stream_fits(b, out, n));
}

template <typename T, typename Op>
void dense_zip(const DenseLayout& layout, const T* a, const T* b, T* out, int64_t n, Op op) {
  if (n * int64_t(sizeof(T)) >= kStreamBytes && zip_streams(layout, a, b, out, n)) [[unlikely]] {
    return dense_zip_streamed(layout, a, b, out, n, op);
  }
  switch (layout.kind) {
    case DenseBinary::kSame:
      for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], b[i]);
      return;
    case DenseBinary::kScalarB: {
      const T y = b[0];
      for (int64_t i = 0; i < n; ++i) out[i] = op(a[i], y);
      return;
    }
    case DenseBinary::kScalarA: {
      const T x = a[0];
      for (int64_t i = 0; i < n; ++i) out[i] = op(x, b[i]);
      return;
    }
    case DenseBinary::kRowB: {
      const int64_t m = layout.row;
      for (int64_t r = 0; r < n; r += m) {
        for (int64_t j = 0; j < m; ++j) out[r + j] = op(a[r + j], b[j]);
      }
      return;
    }
    case DenseBinary::kRowA: {
      const int64_t m = layout.row;
      for (int64_t r = 0; r < n; r += m) {
        for (int64_t j = 0; j < m; ++j) out[r + j] = op(a[j], b[r + j]);
      }
      return;
    }
    case DenseBinary::kChannelA:
    case DenseBinary::kChannelB: dense_zip_planes(layout, a, b, out, n, op); return;
    case DenseBinary::kNone: return;
  }
}

// The ScalarType of a C++ computation type (float, double, the integers,
// bool).
template <typename T>
constexpr ScalarType native_dtype() {
  if constexpr (std::is_same_v<T, float>) return ScalarType::kFloat;
  else if constexpr (std::is_same_v<T, double>) return ScalarType::kDouble;
  else if constexpr (std::is_same_v<T, bool>) return ScalarType::kBool;
  else if constexpr (std::is_same_v<T, uint8_t>) return ScalarType::kByte;
  else if constexpr (std::is_same_v<T, int8_t>) return ScalarType::kChar;
  else if constexpr (std::is_same_v<T, int16_t>) return ScalarType::kShort;
  else if constexpr (std::is_same_v<T, int32_t>) return ScalarType::kInt;
  else return ScalarType::kLong;
}

template <typename CT>
inline CT load_as(ScalarType dtype, const void* p, int64_t i) {
  CT out{};
  dispatch_all_types(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      out = static_cast<CT>(load_as_double<T>(p, i));
    } else if constexpr (std::is_same_v<T, bool>) {
      out = static_cast<CT>(load_bool(p, i));
    } else {
      out = static_cast<CT>(static_cast<const T*>(p)[i]);
    }
  });
  return out;
}

template <typename CT>
inline void store_as(ScalarType dtype, void* p, int64_t i, CT v) {
  dispatch_all_types(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      store_from_double<T>(p, i, double(v));
    } else {
      static_cast<T*>(p)[i] = static_cast<T>(v);
    }
  });
}

// Calls fn(CT{}) for the computation type of `type` (Half/BFloat16 compute
// in float).
template <typename F>
bool dispatch_compute_type(ScalarType type, F&& fn) {
  if (type == ScalarType::kHalf || type == ScalarType::kBFloat16) {
    fn(float{});
    return true;
  }
  return dispatch_real_and_bool(type, fn);
}

// out[i] = op(a[i], b[i]) computed in `compute` (broadcasting a and b to
// out's shape, which the caller has set).
template <typename Op>
Status binary_loop(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out, ScalarType compute, Op op) {
  bool handled = dispatch_compute_type(compute, [&](auto tag) {
    using CT = decltype(tag);
    // BOOL goes through load_as: its bytes are read as bytes (load_bool).
    const bool direct = !std::is_same_v<CT, bool> && a.dtype() == compute && b.dtype() == compute && out.dtype() == compute;
    if (direct) {
      const CT* pa = a.data_as<CT>();
      const CT* pb = b.data_as<CT>();
      CT* po = out.data_as<CT>();
      const DenseLayout layout = dense_binary_layout(a, b, out);
      if (layout.kind != DenseBinary::kNone) {
        dense_zip(layout, pa, pb, po, out.numel(), [&](CT x, CT y) { return static_cast<CT>(op(x, y)); });
        return;
      }
      for_each_broadcast(out, a, b, [&](int64_t o, int64_t ia, int64_t ib) { po[o] = static_cast<CT>(op(pa[ia], pb[ib])); });
    } else {
      const ScalarType ta = a.dtype(), tb = b.dtype(), to = out.dtype();
      for_each_broadcast(out, a, b, [&](int64_t o, int64_t ia, int64_t ib) {
        store_as<CT>(to, out.data(), o, static_cast<CT>(op(load_as<CT>(ta, a.data(), ia), load_as<CT>(tb, b.data(), ib))));
      });
    }
  });
  if (!handled) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(compute))));
  return {};
}

template <typename Op>
Status unary_loop(KernelContext& ctx, const Tensor& a, Tensor& out, ScalarType compute, Op op) {
  return binary_loop(ctx, a, a, out, compute, [&](auto x, auto) { return op(x); });
}

// Checks shapes, resizes out to the broadcast shape, and validates that the
// computation type can be stored in out.
Status prepare_binary(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out, ScalarType compute);

}  // namespace etkit::rt::kernels
