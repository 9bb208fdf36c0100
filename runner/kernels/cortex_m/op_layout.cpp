// cortex_m::transpose.out (input.permute(perm), copied) and cortex_m::pad.out
// (constant padding) on int8, as arm_transpose_s8 / arm_pad_s8.
#include <algorithm>
#include <array>

#include "runner/kernels/cortex_m/cortex_m_ops.h"
#include "runner/kernels/cortex_m/cortex_m_util.h"

namespace etkit::rt::kernels::cortex_m {
namespace {

Status check_int8_pair(KernelContext& ctx, const Tensor& in, const Tensor& out) {
  ETKIT_TRY(check_dtype(ctx, in, ScalarType::kChar, "input"));
  ETKIT_TRY(check_dtype(ctx, out, ScalarType::kChar, "out"));
  if (overlaps(in, out)) return ctx.fail("out must not overlap input");
  return {};
}

// (input, perm, out, ret)
Status transpose_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const size_t rank = in->dim();
  ETKIT_ASSIGN_OR_RETURN(auto perm, int_list_arg(ctx, *args[1], "perm", rank, 0, int64_t(rank) - 1));
  bool seen[kMaxRank] = {};
  Shape shape(rank);
  int64_t in_strides[kMaxRank] = {};  // input stride of each output dim
  for (size_t d = 0; d < rank; ++d) {
    const auto p = size_t(perm[d]);
    if (seen[p]) return ctx.fail("perm repeats dimension " + std::to_string(p));
    seen[p] = true;
    shape[d] = in->size(p);
    in_strides[d] = in->strides()[p];
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(check_int8_pair(ctx, *in, *out));
  // Odometer over out's logical indices.
  const int8_t* src = in->data_as<int8_t>();
  int8_t* dst = out->data_as<int8_t>();
  const auto os = out->strides();
  int64_t index[kMaxRank] = {};
  int64_t io = 0, oo = 0;
  for (int64_t i = 0, n = out->numel(); i < n; ++i) {
    dst[oo] = src[io];
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        io += in_strides[d];
        oo += os[d];
        break;
      }
      io -= in_strides[d] * (shape[d] - 1);
      oo -= os[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  return {};
}

// Pads are given in memory order of a 4-D view: the tensor's dims in its
// dim order (N, H, W, C for channels-last), preceded by 1s up to rank 4.
constexpr size_t kPadRank = 4;
constexpr int64_t kMaxPad = int64_t(1) << 20;

// (input, pre_pad, post_pad, pad_value, out, ret)
Status pad_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * in, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  const size_t rank = in->dim();
  if (rank == 0 || rank > kPadRank) return ctx.fail("input rank must be 1 to 4, got " + std::to_string(rank));
  std::array<int64_t, kPadRank> pre{}, post{};
  {
    ETKIT_ASSIGN_OR_RETURN(auto list, int_list_arg(ctx, *args[1], "pre_pad", kPadRank, 0, kMaxPad));
    std::copy(list.begin(), list.end(), pre.begin());
  }
  {
    ETKIT_ASSIGN_OR_RETURN(auto list, int_list_arg(ctx, *args[2], "post_pad", kPadRank, 0, kMaxPad));
    std::copy(list.begin(), list.end(), post.begin());
  }
  ETKIT_ASSIGN_OR_RETURN(int32_t value, int_in_range(ctx, *args[3], "pad_value", -128, 127));
  const size_t lead = kPadRank - rank;
  for (size_t k = 0; k < lead; ++k) {
    if (pre[k] != 0 || post[k] != 0) {
      return ctx.fail("pre_pad/post_pad[" + std::to_string(k) + "] must be 0 for a rank-" + std::to_string(rank) +
                      " input");
    }
  }
  // Physical (memory-order) sizes of input and out.
  std::array<int64_t, kPadRank> in_phys{1, 1, 1, 1}, out_phys{1, 1, 1, 1};
  Shape out_shape(rank);
  const auto order = in->dim_order();
  for (size_t k = 0; k < rank; ++k) {
    in_phys[lead + k] = in->size(order[k]);
    out_phys[lead + k] = in_phys[lead + k] + pre[lead + k] + post[lead + k];
    out_shape[order[k]] = out_phys[lead + k];
  }
  if (!std::equal(order.begin(), order.end(), out->dim_order().begin(), out->dim_order().end())) {
    return ctx.fail("out must have the dim order of input");
  }
  ETKIT_TRY(resize_out(ctx, *out, out_shape));
  ETKIT_TRY(check_int8_pair(ctx, *in, *out));
  const int8_t* src = in->data_as<int8_t>();
  int8_t* dst = out->data_as<int8_t>();
  std::fill(dst, dst + out->numel(), static_cast<int8_t>(value));
  // Copy the input's innermost rows into place.
  const int64_t row = in_phys[3];
  for (int64_t a = 0; a < in_phys[0]; ++a) {
    for (int64_t b = 0; b < in_phys[1]; ++b) {
      for (int64_t c = 0; c < in_phys[2]; ++c) {
        const int64_t in_off = ((a * in_phys[1] + b) * in_phys[2] + c) * row;
        const int64_t out_off =
            (((a + pre[0]) * out_phys[1] + (b + pre[1])) * out_phys[2] + (c + pre[2])) * out_phys[3] + pre[3];
        std::copy(src + in_off, src + in_off + row, dst + out_off);
      }
    }
  }
  return {};
}

}  // namespace

void add_layout_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"cortex_m::transpose.out", transpose_out, 4, {2}});
  table.push_back({"cortex_m::pad.out", pad_out, 6, {4}});
}

}  // namespace etkit::rt::kernels::cortex_m
