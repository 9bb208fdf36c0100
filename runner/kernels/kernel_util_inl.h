// Template definitions for kernel_util.h.
#pragma once

namespace etkit::rt::kernels {

namespace detail {

// Strides of `t` aligned to an output of rank `rank` (leading dims missing
// in t and size-1 dims of t that the output expands get stride 0).
inline void aligned_strides(const Tensor& t, std::span<const int32_t> out_sizes, int64_t* strides) {
  const size_t rank = out_sizes.size();
  const size_t offset = rank - t.dim();
  for (size_t d = 0; d < rank; ++d) {
    if (d < offset) {
      strides[d] = 0;
    } else {
      const size_t td = d - offset;
      strides[d] = (t.size(td) == 1 && out_sizes[d] != 1) ? 0 : t.strides()[td];
    }
  }
}

}  // namespace detail

template <typename F>
void for_each_broadcast(const Tensor& out, const Tensor& a, const Tensor& b, F&& fn) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const auto sizes = out.sizes();
  const size_t rank = sizes.size();
  // Fast path: same shape, all contiguous.
  if (a.numel() == n && b.numel() == n && a.dim() == rank && b.dim() == rank && out.is_contiguous() &&
      a.is_contiguous() && b.is_contiguous()) {
    bool same = true;
    for (size_t d = 0; d < rank; ++d) same = same && a.size(d) == sizes[d] && b.size(d) == sizes[d];
    if (same) {
      for (int64_t i = 0; i < n; ++i) fn(i, i, i);
      return;
    }
  }
  int64_t sa[kMaxRank], sb[kMaxRank], index[kMaxRank];
  std::fill_n(index, rank, int64_t(0));
  detail::aligned_strides(a, sizes, sa);
  detail::aligned_strides(b, sizes, sb);
  const auto so = out.strides();
  int64_t oo = 0, oa = 0, ob = 0;
  for (int64_t i = 0; i < n; ++i) {
    fn(oo, oa, ob);
    // Odometer over the output's logical indices, innermost dim fastest.
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        oo += so[d];
        oa += sa[d];
        ob += sb[d];
        break;
      }
      oo -= so[d] * (sizes[d] - 1);
      oa -= sa[d] * (sizes[d] - 1);
      ob -= sb[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

template <typename F>
void for_each_element(const Tensor& out, const Tensor& a, F&& fn) {
  for_each_broadcast(out, a, a, [&](int64_t o, int64_t x, int64_t) { fn(o, x); });
}

}  // namespace etkit::rt::kernels
