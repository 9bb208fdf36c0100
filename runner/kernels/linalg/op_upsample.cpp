// aten::upsample_nearest2d.vec_out: nearest-neighbour resize of the last two
// dims of an [N, C, H, W] tensor, any dtype (elements are copied), any dim
// order (addressed through strides).
#include <cmath>
#include <cstring>
#include <type_traits>

#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"

namespace etkit::rt::kernels::linalg {
namespace {

// Source row of output row `dst` (PyTorch's legacy "nearest" mode,
// aten/src/ATen/native/UpSample.h nearest_idx): floor(dst * scale) in float,
// clamped, with scale = 1 / scale_factor when one was given, else in / out.
int64_t nearest_source(int64_t dst, float scale, int64_t in_size) {
  const auto src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return src < in_size - 1 ? src : in_size - 1;
}

// (input, output_size?, scale_factors?, out, ret)
Status upsample_nearest2d_vec_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (input->dim() != 4) return ctx.fail("input must be 4-D (N, C, H, W), got " + input->shape_string());
  if (out->dtype() != input->dtype()) {
    return ctx.fail("out dtype " + dtype_name(out->dtype()) + " does not match input dtype " + dtype_name(input->dtype()));
  }
  const bool has_size = !args[1]->is_none(), has_scales = !args[2]->is_none();
  if (has_size == has_scales) return ctx.fail("exactly one of output_size and scale_factors must be given");
  const int64_t in_h = input->size(2), in_w = input->size(3);
  int64_t out_h = 0, out_w = 0;
  float scale_h = 0, scale_w = 0;
  if (has_size) {
    ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[1], "output_size"));
    if (size.size() != 2 || size[0] < 1 || size[1] < 1) {
      return ctx.fail("output_size must be two positive sizes, got " + list_string(size));
    }
    out_h = size[0];
    out_w = size[1];
    scale_h = float(double(in_h) / double(out_h));
    scale_w = float(double(in_w) / double(out_w));
  } else {
    if (args[2]->tag != Tag::kDoubleList) {
      return ctx.fail("scale_factors must be a float list, not " + std::string(tag_name(args[2]->tag)));
    }
    const auto scales = args[2]->double_list;
    if (scales.size() != 2 || !(scales[0] > 0) || !(scales[1] > 0)) {
      std::string got = "[";
      for (size_t i = 0; i < scales.size(); ++i) got += (i ? ", " : "") + std::to_string(scales[i]);
      return ctx.fail("scale_factors must be two positive factors, got " + got + "]");
    }
    // The output size truncates, as PyTorch's does.
    out_h = static_cast<int64_t>(double(in_h) * scales[0]);
    out_w = static_cast<int64_t>(double(in_w) * scales[1]);
    scale_h = float(1.0 / scales[0]);
    scale_w = float(1.0 / scales[1]);
  }
  if ((out_h < 1 || out_w < 1) && input->numel() > 0) {
    return ctx.fail("output size [" + std::to_string(out_h) + ", " + std::to_string(out_w) + "] of input " +
                    input->shape_string() + " is empty");
  }
  if ((in_h == 0 || in_w == 0) && out_h * out_w > 0 && input->size(0) * input->size(1) > 0) {
    return ctx.fail("cannot upsample the empty input " + input->shape_string());
  }
  const int64_t shape[4] = {input->size(0), input->size(1), out_h, out_w};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->numel() == 0) return {};
  const auto is = input->strides(), os = out->strides();
  const size_t elem = input->element_size();
  const auto* src = static_cast<const uint8_t*>(input->data());
  auto* dst = static_cast<uint8_t*>(out->data());
  auto copy = [&](auto width) {
    constexpr size_t kBytes = decltype(width)::value;  // the element size, a constant per case
    for (int64_t n = 0; n < shape[0]; ++n) {
      for (int64_t c = 0; c < shape[1]; ++c) {
        for (int64_t oy = 0; oy < out_h; ++oy) {
          const int64_t row = n * is[0] + c * is[1] + nearest_source(oy, scale_h, in_h) * is[2];
          const int64_t out_row = n * os[0] + c * os[1] + oy * os[2];
          for (int64_t ox = 0; ox < out_w; ++ox) {
            std::memcpy(dst + (out_row + ox * os[3]) * int64_t(kBytes),
                        src + (row + nearest_source(ox, scale_w, in_w) * is[3]) * int64_t(kBytes), kBytes);
          }
        }
      }
    }
  };
  switch (elem) {
    case 1: copy(std::integral_constant<size_t, 1>{}); break;
    case 2: copy(std::integral_constant<size_t, 2>{}); break;
    case 4: copy(std::integral_constant<size_t, 4>{}); break;
    case 8: copy(std::integral_constant<size_t, 8>{}); break;
    default: return ctx.fail("unsupported dtype " + dtype_name(input->dtype()));
  }
  return {};
}

}  // namespace

void add_upsample_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::upsample_nearest2d.vec_out", upsample_nearest2d_vec_out, 5, {3}});
}

}  // namespace etkit::rt::kernels::linalg
