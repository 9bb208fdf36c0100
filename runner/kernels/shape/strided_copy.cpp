#include "runner/kernels/shape/strided_copy.h"

#include "runner/kernels/shape/transpose.h"
#include "runner/kernels/stream_store.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace etkit::rt::kernels {

// ---- View ------------------------------------------------------------------

View View::of(const Tensor& t) {
  View v;
  v.data = static_cast<uint8_t*>(const_cast<void*>(t.data()));
  v.dtype = t.dtype();
  v.element_size = t.element_size();
  for (size_t d = 0; d < t.dim(); ++d) {
    v.sizes.push_back(t.size(d));
    v.strides.push_back(t.strides()[d]);
  }
  return v;
}

int64_t View::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

View View::select(size_t dim, int64_t index) const {
  View v = *this;
  v.offset += index * strides[dim];
  v.sizes = Shape();
  v.strides = Shape();
  for (size_t d = 0; d < rank(); ++d) {
    if (d == dim) continue;
    v.sizes.push_back(sizes[d]);
    v.strides.push_back(strides[d]);
  }
  return v;
}

View View::narrow(size_t dim, int64_t start, int64_t length, int64_t step) const {
  View v = *this;
  v.offset += start * strides[dim];
  v.sizes[dim] = length;
  v.strides[dim] = strides[dim] * step;
  return v;
}

View View::flipped(size_t dim) const {
  View v = *this;
  if (sizes[dim] > 0) v.offset += (sizes[dim] - 1) * strides[dim];
  v.strides[dim] = -strides[dim];
  return v;
}

View View::with_broadcast_dim(size_t dim, int64_t size) const {
  View v = *this;
  v.sizes = Shape();
  v.strides = Shape();
  for (size_t d = 0; d <= rank(); ++d) {
    if (d == dim) {
      v.sizes.push_back(size);
      v.strides.push_back(0);
    }
    if (d < rank()) {
      v.sizes.push_back(sizes[d]);
      v.strides.push_back(strides[d]);
    }
  }
  return v;
}

namespace {

// ---- Walking two views of one shape ----------------------------------------

// Two views over the same sizes, with size-1 dims dropped and neighbouring
// dims merged where both views step through them as one (rank >= 1).
struct Walk {
  size_t rank = 0;
  int64_t sizes[kMaxRank];
  int64_t dst[kMaxRank];
  int64_t src[kMaxRank];
};

Walk coalesce(const int64_t* sizes, size_t rank, const int64_t* dst, const int64_t* src) {
  Walk w;
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (w.rank > 0 && w.dst[w.rank - 1] == dst[d] * sizes[d] && w.src[w.rank - 1] == src[d] * sizes[d]) {
      w.sizes[w.rank - 1] *= sizes[d];
      w.dst[w.rank - 1] = dst[d];
      w.src[w.rank - 1] = src[d];
      continue;
    }
    w.sizes[w.rank] = sizes[d];
    w.dst[w.rank] = dst[d];
    w.src[w.rank] = src[d];
    ++w.rank;
  }
  if (w.rank == 0) {  // a single element
    w.sizes[0] = 1;
    w.dst[0] = w.src[0] = 1;
    w.rank = 1;
  }
  return w;
}

// Calls fn(dst_offset, src_offset) for every index of the first `rank` dims
// of w, row-major (once when rank is 0).
template <typename F>
void walk_outer(const Walk& w, size_t rank, int64_t od, int64_t os, F&& fn) {
  int64_t index[kMaxRank];  // only the first `rank` are used: zeroing all 16 costs more than a small copy
  std::fill_n(index, rank, int64_t(0));
  for (;;) {
    fn(od, os);
    size_t d = rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < w.sizes[d]) {
        od += w.dst[d];
        os += w.src[d];
        break;
      }
      od -= w.dst[d] * (w.sizes[d] - 1);
      os -= w.src[d] * (w.sizes[d] - 1);
      index[d] = 0;
    }
  }
}

// Calls fn(dst_offset, src_offset) for every element, in logical order.
template <typename F>
void walk_elements(const Walk& w, int64_t od, int64_t os, F&& fn) {
  const size_t inner = w.rank - 1;
  const int64_t n = w.sizes[inner], sd = w.dst[inner], ss = w.src[inner];
  walk_outer(w, inner, od, os, [&](int64_t d, int64_t s) {
    for (int64_t j = 0; j < n; ++j) fn(d + j * sd, s + j * ss);
  });
}

// Advances a row-major odometer over `sizes`, keeping `offset` in step.
inline void advance(int64_t* index, const Shape& sizes, const Shape& strides, int64_t& offset) {
  for (size_t d = sizes.size(); d-- > 0;) {
    if (++index[d] < sizes[d]) {
      offset += strides[d];
      return;
    }
    offset -= strides[d] * (sizes[d] - 1);
    index[d] = 0;
  }
}

// Whether the view's elements are consecutive in memory in logical order.
bool dense(const View& v) {
  int64_t expected = 1;
  for (size_t d = v.rank(); d-- > 0;) {
    if (v.sizes[d] == 1) continue;
    if (v.strides[d] != expected) return false;
    expected *= v.sizes[d];
  }
  return true;
}

// `v` (dense) re-described with `sizes` (same numel), row-major.
View reshaped(const View& v, const Shape& sizes) {
  View r = v;
  r.sizes = sizes;
  r.strides = Shape(sizes.size());
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    r.strides[d] = stride;
    stride *= sizes[d] == 0 ? 1 : sizes[d];
  }
  return r;
}

template <size_t N>
inline void copy_one(uint8_t* dst, const uint8_t* src) {
  std::memmove(dst, src, N);
}

// Same dtype, same shape: whole runs by memcpy where both are dense along
// the innermost dim; a transpose by transpose_matrix where one dim is
// contiguous in src and another in dst (NCHW <-> NHWC, any swap of a 3-D
// tensor's outer and inner dims), walked around the other dims; else
// element by element (in 32x32 tiles over the two inner dims, so that a
// transpose touches each cache line once per tile).
template <size_t N>
void copy_same_shape(const Walk& w, uint8_t* dst, int64_t od, const uint8_t* src, int64_t os) {
  const size_t r = w.rank;
  const int64_t n = w.sizes[r - 1];
  if (w.dst[r - 1] == 1 && w.src[r - 1] == 1) {
    walk_outer(w, r - 1, od, os, [&](int64_t d, int64_t s) {
      std::memmove(dst + d * int64_t(N), src + s * int64_t(N), size_t(n) * N);
    });
    return;
  }
  if (r >= 2) {
    size_t di = r, dj = r;  // the dims along which src and dst step by one element
    for (size_t d = r; d-- > 0;) {
      if (w.src[d] == 1 && di == r) di = d;
      if (w.dst[d] == 1 && dj == r) dj = d;
    }
    // Neither side may step onto its own elements within the matrix, and
    // the two must not overlap (the tiles write in another order than the
    // general loop).
    if (di < r && dj < r && di != dj && w.dst[di] >= w.sizes[dj] && w.src[dj] >= w.sizes[di]) {
      int64_t lo_d = od, hi_d = od, lo_s = os, hi_s = os;
      for (size_t d = 0; d < r; ++d) {
        const int64_t reach_d = w.dst[d] * (w.sizes[d] - 1), reach_s = w.src[d] * (w.sizes[d] - 1);
        (reach_d < 0 ? lo_d : hi_d) += reach_d;
        (reach_s < 0 ? lo_s : hi_s) += reach_s;
      }
      const bool apart = dst + (hi_d + 1) * int64_t(N) <= src + lo_s * int64_t(N) ||
                         src + (hi_s + 1) * int64_t(N) <= dst + lo_d * int64_t(N);
      if (apart) {
        Walk outer;  // the other dims, in order
        for (size_t d = 0; d < r; ++d) {
          if (d == di || d == dj) continue;
          outer.sizes[outer.rank] = w.sizes[d];
          outer.dst[outer.rank] = w.dst[d];
          outer.src[outer.rank] = w.src[d];
          ++outer.rank;
        }
        const int64_t rows = w.sizes[di], cols = w.sizes[dj], dst_row = w.dst[di], src_col = w.src[dj];
        walk_outer(outer, outer.rank, od, os, [&](int64_t d, int64_t s) {
          transpose_matrix(N, dst + d * int64_t(N), dst_row, src + s * int64_t(N), src_col, rows, cols);
        });
        return;
      }
    }
    const int64_t rows = w.sizes[r - 2];
    const int64_t drs = w.dst[r - 2], dcs = w.dst[r - 1], srs = w.src[r - 2], scs = w.src[r - 1];
    constexpr int64_t kTile = 32;
    walk_outer(w, r - 2, od, os, [&](int64_t d, int64_t s) {
      for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
        const int64_t i1 = std::min(rows, i0 + kTile);
        for (int64_t j0 = 0; j0 < n; j0 += kTile) {
          const int64_t j1 = std::min(n, j0 + kTile);
          for (int64_t i = i0; i < i1; ++i) {
            for (int64_t j = j0; j < j1; ++j) {
              copy_one<N>(dst + (d + i * drs + j * dcs) * int64_t(N), src + (s + i * srs + j * scs) * int64_t(N));
            }
          }
        }
      }
    });
    return;
  }
  walk_elements(w, od, os, [&](int64_t d, int64_t s) { copy_one<N>(dst + d * int64_t(N), src + s * int64_t(N)); });
}

// Calls fn(dst_offset, src_offset) for every element of two views of the
// same numel (their shapes may differ).
template <typename F>
void walk_pair(const View& dst, const View& src, F&& fn) {
  if (std::equal(dst.sizes.begin(), dst.sizes.end(), src.sizes.begin(), src.sizes.end())) {
    walk_elements(coalesce(dst.sizes.begin(), dst.rank(), dst.strides.begin(), src.strides.begin()), dst.offset, src.offset, fn);
    return;
  }
  int64_t di[kMaxRank] = {}, si[kMaxRank] = {};
  int64_t d = dst.offset, s = src.offset;
  const int64_t n = dst.numel();
  for (int64_t i = 0; i < n; ++i) {
    fn(d, s);
    advance(di, dst.sizes, dst.strides, d);
    advance(si, src.sizes, src.strides, s);
  }
}

// ---- Dtype conversion ------------------------------------------------------

template <typename T>
inline auto load_value(const uint8_t* p) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return std::is_same_v<T, Half> ? half_to_float(bits) : bfloat16_to_float(bits);
  } else {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
}

template <typename T, typename V>
inline void store_value(uint8_t* p, V v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    const float f = static_cast<float>(v);
    const uint16_t bits = std::is_same_v<T, Half> ? float_to_half(f) : float_to_bfloat16(f);
    std::memcpy(p, &bits, 2);
  } else {
    const T t = static_cast<T>(v);
    std::memcpy(p, &t, sizeof(T));
  }
}

Status convert_view(KernelContext& ctx, const View& dst, const View& src) {
  bool handled = false;
  dispatch_all_types(src.dtype, [&](auto s_tag) {
    using S = decltype(s_tag);
    handled = dispatch_all_types(dst.dtype, [&](auto d_tag) {
      using D = decltype(d_tag);
      const size_t es = src.element_size, ed = dst.element_size;
      if (dense(dst) && dense(src) && std::equal(dst.sizes.begin(), dst.sizes.end(), src.sizes.begin(), src.sizes.end())) {
        // Both in logical order in memory: one loop of fixed-size loads and
        // stores, which the compiler vectorizes for the plain types.
        uint8_t* d = dst.at(dst.offset);
        const uint8_t* p = src.at(src.offset);
        const int64_t n = dst.numel();
        for (int64_t i = 0; i < n; ++i) store_value<D>(d + i * int64_t(sizeof(D)), load_value<S>(p + i * int64_t(sizeof(S))));
        return;
      }
      walk_pair(dst, src, [&](int64_t d, int64_t s) {
        store_value<D>(dst.data + d * int64_t(ed), load_value<S>(src.data + s * int64_t(es)));
      });
    });
  });
  if (!handled) {
    return ctx.fail("cannot convert " + std::string(scalar_type_name(int(src.dtype))) + " to " +
                    std::string(scalar_type_name(int(dst.dtype))));
  }
  return {};
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

bool convert_elements(uint8_t* dst, ScalarType to, const uint8_t* src, ScalarType from, int64_t n) {
  bool handled = false;
  dispatch_all_types(from, [&](auto s_tag) {
    using S = decltype(s_tag);
    handled = dispatch_all_types(to, [&](auto d_tag) {
      using D = decltype(d_tag);
      for (int64_t i = 0; i < n; ++i) {
        store_value<D>(dst + i * int64_t(sizeof(D)), load_value<S>(src + i * int64_t(sizeof(S))));
      }
    });
  });
  return handled;
}

bool copy_elements(size_t element_size, size_t rank, const int64_t* sizes, uint8_t* dst, const int64_t* dst_strides,
                   const uint8_t* src, const int64_t* src_strides) {
  if (element_size != 1 && element_size != 2 && element_size != 4 && element_size != 8) return false;
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return true;
  }
  const Walk w = coalesce(sizes, rank, dst_strides, src_strides);
  switch (element_size) {
    case 1: copy_same_shape<1>(w, dst, 0, src, 0); break;
    case 2: copy_same_shape<2>(w, dst, 0, src, 0); break;
    case 4: copy_same_shape<4>(w, dst, 0, src, 0); break;
    default: copy_same_shape<8>(w, dst, 0, src, 0); break;
  }
  return true;
}

Status copy_view(KernelContext& ctx, const View& dst_in, const View& src_in) {
  const int64_t n = src_in.numel();
  if (n != dst_in.numel()) {
    return ctx.fail("cannot copy " + std::to_string(n) + " elements into " + std::to_string(dst_in.numel()));
  }
  if (n == 0) return {};
  // Both dense, same dtype (unsqueeze, view, select of a row, clone): one
  // block, whatever the shapes; building and coalescing views cost more
  // than the copy on the fixtures' small tensors (yolox's 26-element
  // unsqueeze_copy took 5x ExecuTorch's memcpy).
  if (dst_in.dtype == src_in.dtype && dense(dst_in) && dense(src_in)) {
    move_bytes(dst_in.at(dst_in.offset), src_in.at(src_in.offset), size_t(n) * dst_in.element_size);
    return {};
  }
  // Different shapes: bring one side to the other's shape when it is dense.
  View dst = dst_in, src = src_in;
  if (!std::equal(dst.sizes.begin(), dst.sizes.end(), src.sizes.begin(), src.sizes.end())) {
    if (dense(src)) {
      src = reshaped(src, dst.sizes);
    } else if (dense(dst)) {
      dst = reshaped(dst, src.sizes);
    }
  }
  if (dst.dtype != src.dtype) return convert_view(ctx, dst, src);
  const bool same_shape = std::equal(dst.sizes.begin(), dst.sizes.end(), src.sizes.begin(), src.sizes.end());
  if (same_shape && copy_elements(dst.element_size, dst.rank(), dst.sizes.begin(), dst.at(dst.offset),
                                   dst.strides.begin(), src.at(src.offset), src.strides.begin())) {
    return {};
  }
  const size_t e = dst.element_size;
  walk_pair(dst, src, [&](int64_t d, int64_t s) { std::memmove(dst.at(d), src.at(s), e); });
  return {};
}

Result<ElementBytes> scalar_bytes(KernelContext& ctx, const EValue& value, ScalarType dtype, std::string_view what) {
  {
    ElementBytes out;
    if (float_scalar_bytes(value, dtype, out)) return out;
  }
  if (!value.is_scalar()) {
    return ctx.fail(std::string(what) + " must be a scalar, not " + std::string(tag_name(value.tag)));
  }
  // Messages are built only on failure: a successful call allocates nothing.
  enum class Problem { kNone, kOverflow, kFraction } problem = Problem::kNone;
  ElementBytes out;
  const bool handled = dispatch_all_types(dtype, [&](auto tag) {
    using T = decltype(tag);
    out.size = sizeof(T);
    constexpr bool kFloating = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
    if (value.tag == Tag::kBool || std::is_same_v<T, bool>) {
      store_value<T>(out.bytes, value.tag == Tag::kBool ? value.b : value.scalar_as_double() != 0);
    } else if constexpr (kFloating) {
      const double v = value.scalar_as_double();
      double max = std::numeric_limits<float>::max();
      if constexpr (std::is_same_v<T, Half>) max = 65504.0;
      if constexpr (std::is_same_v<T, BFloat16>) max = 3.3895313892515355e38;
      if constexpr (std::is_same_v<T, double>) max = std::numeric_limits<double>::max();
      if (std::isfinite(v) && std::fabs(v) > max) {
        problem = Problem::kOverflow;
        return;
      }
      store_value<T>(out.bytes, v);
    } else {
      // Integer types: [lowest, 2^digits) holds exactly the representable values.
      constexpr int kDigits = std::numeric_limits<T>::digits;
      if (value.tag == Tag::kInt) {
        const int64_t v = value.i;
        bool fits;
        if constexpr (std::is_signed_v<T>) {
          fits = v >= int64_t(std::numeric_limits<T>::min()) && v <= int64_t(std::numeric_limits<T>::max());
        } else {
          fits = v >= 0 && uint64_t(v) <= uint64_t(std::numeric_limits<T>::max());
        }
        if (!fits) {
          problem = Problem::kOverflow;
          return;
        }
        store_value<T>(out.bytes, v);
      } else {
        const double v = value.d;
        const double lo = std::is_signed_v<T> ? -std::ldexp(1.0, kDigits) : 0.0;
        if (!std::isfinite(v) || v < lo || v >= std::ldexp(1.0, kDigits)) {
          problem = Problem::kOverflow;
          return;
        }
        if (std::trunc(v) != v) {
          problem = Problem::kFraction;
          return;
        }
        store_value<T>(out.bytes, v);
      }
    }
  });
  if (handled && problem == Problem::kNone) [[likely]] return out;
  const std::string type_name(scalar_type_name(int(dtype)));
  if (!handled) return ctx.fail("unsupported dtype " + type_name);
  const std::string shown = value.tag == Tag::kDouble ? format_number(value.d) : std::to_string(value.i);
  if (problem == Problem::kFraction) {
    return ctx.fail(std::string(what) + " " + shown + " has a fractional part and cannot be stored in " + type_name);
  }
  return ctx.fail(std::string(what) + " " + shown + " cannot be converted to " + type_name + " without overflow");
}


void fill_view(const View& dst, const ElementBytes& value) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  const size_t e = dst.element_size;
  if (dense(dst)) {
    fill_elements(dst.at(dst.offset), n, e, value);
    return;
  }
  const Walk w = coalesce(dst.sizes.begin(), dst.rank(), dst.strides.begin(), dst.strides.begin());
  walk_elements(w, dst.offset, dst.offset, [&](int64_t d, int64_t) { std::memcpy(dst.at(d), value.bytes, e); });
}

}  // namespace etkit::rt::kernels
