// Element-wise binary and unary loops with broadcasting, type promotion and
// a computation type, shared by the arithmetic, comparison and activation
// kernels. Values are converted to the computation type per element, so
// mixed dtypes (int32 tensor + float tensor -> float out) work; the common
// case (all one dtype, contiguous, same shape) runs a plain typed loop.
#pragma once

#include "runner/kernels/kernel_util.h"

namespace etkit::rt::kernels {

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
