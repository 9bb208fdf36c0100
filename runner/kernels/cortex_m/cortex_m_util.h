// Argument checks the cortex_m:: kernels share. The AoT passes of
// ExecuTorch's Cortex-M backend bake CMSIS-NN parameters into the program
// (offsets, Q31 multipliers, shifts, activation bounds); CMSIS-NN trusts
// them, we check each one and fail with a message naming the argument.
#pragma once

#include <string>

#include "runner/kernels/kernel_util.h"

namespace etkit::rt::kernels::cortex_m {

inline Status check_dtype(KernelContext& ctx, const Tensor& t, ScalarType want, std::string_view what) {
  if (t.dtype() == want) return {};
  return ctx.fail(std::string(what) + " must be " + dtype_name(want) + ", not " + dtype_name(t.dtype()));
}

// An int argument that must lie in [lo, hi].
inline Result<int32_t> int_in_range(KernelContext& ctx, const EValue& v, std::string_view what, int64_t lo,
                                    int64_t hi) {
  ETKIT_ASSIGN_OR_RETURN(int64_t x, int_arg(ctx, v, what));
  if (x < lo || x > hi) {
    return ctx.fail(std::string(what) + " " + std::to_string(x) + " out of range [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  }
  return int32_t(x);
}

inline constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

// A requantization multiplier (Q31, positive in practice; CMSIS-NN accepts
// (INT32_MIN, INT32_MAX]) and shift ([-31, 31]; a left shift of 31 still
// has a defined, wrapping result here).
inline Result<int32_t> multiplier_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  return int_in_range(ctx, v, what, kInt32Min + 1, kInt32Max);
}
inline Result<int32_t> shift_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  return int_in_range(ctx, v, what, -31, 31);
}
// A zero point / offset that is added to int8 values in 32-bit arithmetic.
inline Result<int32_t> offset_arg(KernelContext& ctx, const EValue& v, std::string_view what) {
  return int_in_range(ctx, v, what, -255, 255);
}

// Activation bounds: an int8 range, min <= max.
struct Activation {
  int32_t min, max;
};
inline Result<Activation> activation_args(KernelContext& ctx, const EValue& min_v, const EValue& max_v) {
  ETKIT_ASSIGN_OR_RETURN(int32_t lo, int_in_range(ctx, min_v, "activation_min", -128, 127));
  ETKIT_ASSIGN_OR_RETURN(int32_t hi, int_in_range(ctx, max_v, "activation_max", -128, 127));
  if (lo > hi) {
    return ctx.fail("activation_min " + std::to_string(lo) + " is greater than activation_max " + std::to_string(hi));
  }
  return Activation{lo, hi};
}

// Per-channel requantization parameters, given as INT tensors (conv) or int
// lists (linear). Values are checked when read.
class ChannelParams {
 public:
  ChannelParams() = default;
  ChannelParams(const int32_t* tensor_data, int64_t stride, int64_t count)
      : tensor_(tensor_data), stride_(stride), count_(count) {}
  explicit ChannelParams(std::span<const int64_t> list) : list_(list.data()), count_(int64_t(list.size())) {}
  int64_t size() const { return count_; }
  // A single value applies to every channel (per-tensor parameters).
  int64_t operator[](int64_t i) const {
    if (count_ == 1) i = 0;
    return tensor_ ? tensor_[i * stride_] : list_[i];
  }

 private:
  const int32_t* tensor_ = nullptr;
  const int64_t* list_ = nullptr;
  int64_t stride_ = 1;
  int64_t count_ = 0;
};

struct Requant {
  ChannelParams multipliers, shifts;
};

// The multipliers and shifts (INT tensors of `channels` values), all in
// CMSIS-NN's ranges.
Result<Requant> per_channel_tensors(KernelContext& ctx, const EValue& mult_v, const EValue& shift_v, int64_t channels);
// The same from int lists of `channels` values.
Result<Requant> per_channel_lists(KernelContext& ctx, const EValue& mult_v, const EValue& shift_v, int64_t channels);

// An int list argument of exactly `n` items, each in [lo, hi].
Result<std::span<const int64_t>> int_list_arg(KernelContext& ctx, const EValue& v, std::string_view what, size_t n,
                                              int64_t lo, int64_t hi);

// Element strides of a rank-4 tensor in NCHW logical order (any dim order).
struct Nchw {
  int64_t n, c, h, w;        // sizes
  int64_t sn, sc, sh, sw;    // element strides
};
inline Nchw nchw(const Tensor& t) {
  const auto s = t.strides();
  return {t.size(0), t.size(1), t.size(2), t.size(3), s[0], s[1], s[2], s[3]};
}

// Calls fn(in_offset, out_offset) for every row (all leading indices; the
// last dimension is the row) of two tensors with the same leading sizes,
// through their strides (any dim order).
template <typename F>
void for_each_row(const Tensor& in, const Tensor& out, F&& fn) {
  const size_t rank = in.dim();
  const int64_t n = rank == 0 ? 1 : in.size(rank - 1);
  if (in.numel() == 0 || n == 0) return;
  const auto is = in.strides(), os = out.strides();
  int64_t index[kMaxRank] = {};
  for (int64_t r = 0, rows = in.numel() / n; r < rows; ++r) {
    int64_t io = 0, oo = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      io += index[d] * is[d];
      oo += index[d] * os[d];
    }
    fn(io, oo);
    for (size_t d = rank - 1; d-- > 0;) {  // odometer, innermost leading dim fastest
      if (++index[d] < in.size(d)) break;
      index[d] = 0;
    }
  }
}

// Whether the bytes of two tensors overlap (kernels that cannot run in
// place refuse such an out).
inline bool overlaps(const Tensor& a, const Tensor& b) {
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  if (a.nbytes() == 0 || b.nbytes() == 0) return false;
  return pa < pb + b.nbytes() && pb < pa + a.nbytes();
}

}  // namespace etkit::rt::kernels::cortex_m
