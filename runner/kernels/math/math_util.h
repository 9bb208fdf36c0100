// Pieces the math kernels share: typed element access with a direct path
// for the common dtype, strided loops over any number of tensors (for
// three-way broadcasts and reductions), scalars as 0-dim tensors, and the
// ScalarType? argument. Nothing here allocates: shapes and strides live on
// the stack (kMaxRank), so kernels stay allocation-free while executing.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "runner/kernels/elementwise.h"

namespace etkit::rt::kernels::math {

// Reads elements of any dtype as CT (a plain load when the dtype is CT's).
template <typename CT>
class Reader {
 public:
  // BOOL is never read directly: its bytes go through load_bool.
  explicit Reader(const Tensor& t)
      : data_(t.data()), dtype_(t.dtype()), direct_(!std::is_same_v<CT, bool> && t.dtype() == native_dtype<CT>()) {}
  CT operator()(int64_t offset) const {
    return direct_ ? static_cast<const CT*>(data_)[offset] : load_as<CT>(dtype_, data_, offset);
  }

 private:
  const void* data_;
  ScalarType dtype_;
  bool direct_;
};

// Writes CT values into a tensor of any dtype.
template <typename CT>
class Writer {
 public:
  explicit Writer(Tensor& t) : data_(t.data()), dtype_(t.dtype()), direct_(t.dtype() == native_dtype<CT>()) {}
  void operator()(int64_t offset, CT v) const {
    if (direct_) static_cast<CT*>(data_)[offset] = v;
    else store_as<CT>(dtype_, data_, offset, v);
  }

 private:
  void* data_;
  ScalarType dtype_;
  bool direct_;
};

// out = fn(in) as one loop over consecutive elements when both hold CT
// (never BOOL, read through load_bool) and out is laid out like in; false
// otherwise, for the general loop.
template <typename CT, typename Fn>
bool try_dense_map(const Tensor& in, Tensor& out, Fn&& fn) {
  if constexpr (std::is_same_v<CT, bool>) {
    return false;
  } else {
    if (in.dtype() != native_dtype<CT>() || out.dtype() != native_dtype<CT>() || !same_layout(in, out)) return false;
    dense_map(in.data_as<CT>(), out.data_as<CT>(), in.numel(), [&](CT x) { return static_cast<CT>(fn(x)); });
    return true;
  }
}

// Whether element `offset` of `t` is non-zero (NaN counts as true).
inline bool truthy(const Tensor& t, int64_t offset) {
  if (t.dtype() == ScalarType::kBool || t.dtype() == ScalarType::kByte) {
    return static_cast<const uint8_t*>(t.data())[offset] != 0;
  }
  return load_as<double>(t.dtype(), t.data(), offset) != 0;
}

// Per-tensor strides (in elements) over a common iteration shape.
template <size_t N>
using StrideTable = std::array<std::array<int64_t, kMaxRank>, N>;

// Visits every index of `sizes` in row-major order and calls fn(off), where
// off[k] is the element offset sum(index[d] * strides[k][d]).
template <size_t N, typename F>
void strided_loop(const Shape& sizes, const StrideTable<N>& strides, F&& fn) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  if (n == 0) return;
  const size_t rank = sizes.size();
  int64_t index[kMaxRank] = {};
  std::array<int64_t, N> off{};
  for (int64_t i = 0; i < n; ++i) {
    fn(static_cast<const std::array<int64_t, N>&>(off));
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

inline Shape shape_of(std::span<const int32_t> sizes) {
  Shape s;
  for (int32_t v : sizes) s.push_back(v);
  return s;
}

// Strides of `t` broadcast to `shape` (missing leading dims and expanded
// size-1 dims step by 0).
inline std::array<int64_t, kMaxRank> broadcast_strides(const Tensor& t, const Shape& shape) {
  std::array<int64_t, kMaxRank> s{};
  const size_t offset = shape.size() - t.dim();
  for (size_t d = offset; d < shape.size(); ++d) {
    const size_t td = d - offset;
    s[d] = t.size(td) == 1 && shape[d] != 1 ? 0 : t.strides()[td];
  }
  return s;
}

inline std::array<int64_t, kMaxRank> strides_of(const Tensor& t) {
  std::array<int64_t, kMaxRank> s{};
  for (size_t d = 0; d < t.dim(); ++d) s[d] = t.strides()[d];
  return s;
}

// The broadcast shape of three tensors (where, clamp.Tensor_out).
inline Result<Shape> broadcast_shape3(KernelContext& ctx, const Tensor& a, const Tensor& b, const Tensor& c) {
  ETKIT_ASSIGN_OR_RETURN(Shape ab, broadcast_shape(ctx, a.sizes(), b.sizes()));
  int32_t ab32[kMaxRank];
  for (size_t d = 0; d < ab.size(); ++d) ab32[d] = int32_t(ab[d]);
  return broadcast_shape(ctx, std::span<const int32_t>(ab32, ab.size()), c.sizes());
}


// A `ScalarType? dtype` argument: nullopt for None, else a known dtype.
inline Result<std::optional<ScalarType>> dtype_arg(KernelContext& ctx, const EValue& v, std::string_view what = "dtype") {
  if (v.tag == Tag::kNone) return std::optional<ScalarType>();
  ETKIT_ASSIGN_OR_RETURN(int64_t value, int_arg(ctx, v, what));
  if (value < 0 || value > INT32_MAX || !is_valid_scalar_type(int(value))) {
    return ctx.fail(std::string(what) + " " + std::to_string(value) + " is not a scalar type");
  }
  return std::optional<ScalarType>(static_cast<ScalarType>(value));
}

// "result type X cannot be stored in out of type Y" (as prepare_binary).
inline Status check_can_store(KernelContext& ctx, ScalarType result, const Tensor& out) {
  if (can_cast(result, out.dtype())) [[likely]] return {};
  return cannot_store_error(ctx, result, out.dtype());
}

inline Status require_floating(KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (is_floating(t.dtype())) [[likely]] return {};
  return not_floating_error(ctx, what, t.dtype());
}

inline Status require_same_dtype(KernelContext& ctx, const Tensor& self, const Tensor& out) {
  if (self.dtype() == out.dtype()) return {};
  return ctx.fail("out dtype " + dtype_name(out.dtype()) + " differs from self dtype " + dtype_name(self.dtype()));
}

// Runs fn(CT{}) with the computation type of `type`, failing for dtypes the
// kernels do not handle.
template <typename F>
Status dispatch_compute(KernelContext& ctx, ScalarType type, F&& fn) {
  if (!dispatch_compute_type(type, fn)) return ctx.fail("unsupported dtype " + dtype_name(type));
  return {};
}

}  // namespace etkit::rt::kernels::math
