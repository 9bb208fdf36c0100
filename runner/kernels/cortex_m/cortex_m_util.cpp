#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

// Every multiplier in (INT32_MIN, INT32_MAX] and shift in [-31, 31].
Status check_requant(KernelContext& ctx, const Requant& q, std::string_view mult_name, std::string_view shift_name) {
  for (int64_t i = 0; i < q.multipliers.size(); ++i) {
    const int64_t m = q.multipliers[i], s = q.shifts[i];
    if (m <= kInt32Min || m > kInt32Max) {
      return ctx.fail(std::string(mult_name) + "[" + std::to_string(i) + "] " + std::to_string(m) +
                      " out of range (INT32_MIN, INT32_MAX]");
    }
    if (s < -31 || s > 31) {
      return ctx.fail(std::string(shift_name) + "[" + std::to_string(i) + "] " + std::to_string(s) +
                      " out of range [-31, 31]");
    }
  }
  return {};
}

Result<ChannelParams> channel_tensor(KernelContext& ctx, const EValue& v, std::string_view what, int64_t channels) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * t, tensor_arg(ctx, v, what));
  ETKIT_TRY(check_dtype(ctx, *t, ScalarType::kInt, what));
  if (t->dim() != 1 || t->numel() != channels) {
    return ctx.fail(std::string(what) + " must have one value per output channel (" + std::to_string(channels) +
                    "), got shape " + t->shape_string());
  }
  return ChannelParams(t->data_as<int32_t>(), t->strides()[0], channels);
}

}  // namespace

Result<Requant> per_channel_tensors(KernelContext& ctx, const EValue& mult_v, const EValue& shift_v, int64_t channels) {
  ETKIT_ASSIGN_OR_RETURN(ChannelParams m, channel_tensor(ctx, mult_v, "requantize_multipliers", channels));
  ETKIT_ASSIGN_OR_RETURN(ChannelParams s, channel_tensor(ctx, shift_v, "requantize_shifts", channels));
  Requant q{m, s};
  ETKIT_TRY(check_requant(ctx, q, "requantize_multipliers", "requantize_shifts"));
  return q;
}

Result<Requant> per_channel_lists(KernelContext& ctx, const EValue& mult_v, const EValue& shift_v, int64_t channels) {
  ETKIT_ASSIGN_OR_RETURN(auto m, ctx.int_list(mult_v, "requantize_multipliers"));
  ETKIT_ASSIGN_OR_RETURN(auto s, ctx.int_list(shift_v, "requantize_shifts"));
  // One value applies to every channel (per-tensor); otherwise one each.
  for (auto [list, name] : {std::pair{m, "requantize_multipliers"}, std::pair{s, "requantize_shifts"}}) {
    if (list.size() != 1 && int64_t(list.size()) != channels) {
      return ctx.fail(std::string(name) + " must have 1 or " + std::to_string(channels) + " values, got " +
                      std::to_string(list.size()));
    }
  }
  Requant q{ChannelParams(m), ChannelParams(s)};
  ETKIT_TRY(check_requant(ctx, q, "requantize_multipliers", "requantize_shifts"));
  return q;
}

Result<std::span<const int64_t>> int_list_arg(KernelContext& ctx, const EValue& v, std::string_view what, size_t n,
                                              int64_t lo, int64_t hi) {
  ETKIT_ASSIGN_OR_RETURN(auto list, ctx.int_list(v, what));
  if (list.size() != n) {
    return ctx.fail(std::string(what) + " must have " + std::to_string(n) + " values, got " +
                    std::to_string(list.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (list[i] < lo || list[i] > hi) {
      return ctx.fail(std::string(what) + "[" + std::to_string(i) + "] " + std::to_string(list[i]) +
                      " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  }
  return list;
}

}  // namespace etkit::rt::kernels::cortex_m
