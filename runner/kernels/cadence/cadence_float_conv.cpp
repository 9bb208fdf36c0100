// cadence::conv1d / conv2d / conv3d (.out) and fully_connected.out: the
// float32 convolutions (NCL, NCHW, NCDHW; weight [OC, C / groups, k...])
// and linear layer (weight [out, in], optional bias) of the generic
// reference. Each output starts from its bias and adds input * weight over
// the group's input channels, then the kernel positions in row-major order
// (fully_connected: over the inner dim), in float, so results are bit-exact
// with the reference. The portable aten::convolution / aten::linear kernels
// sum in another order (and convolution has no 3-D case), hence these loops.
#include <array>
#include <string>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_util_inl.h"

namespace etkit::rt::kernels::cadence {
namespace {

constexpr size_t kMaxSpatial = 3;

Status require_float(KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.dtype() != ScalarType::kFloat) return ctx.fail(std::string(what) + " must be FLOAT, not " + dtype_name(t.dtype()));
  return {};
}

// A list argument of exactly `n` entries.
Result<std::array<int64_t, kMaxSpatial>> spatial_list(KernelContext& ctx, const EValue& v, std::string_view what, size_t n,
                                                     int64_t min) {
  ETKIT_ASSIGN_OR_RETURN(auto list, ctx.int_list(v, what));
  if (list.size() != n) return ctx.fail(std::string(what) + " must have " + std::to_string(n) + " entries, got " + list_string(list));
  std::array<int64_t, kMaxSpatial> out{};
  for (size_t i = 0; i < n; ++i) {
    if (list[i] < min || list[i] > INT16_MAX) {
      return ctx.fail(std::string(what) + " " + list_string(list) + " must hold values in [" + std::to_string(min) + ", 32767]");
    }
    out[i] = list[i];
  }
  return out;
}

// (input, weight, bias, stride, padding, dilation, groups, out, ret)
template <size_t kSpatial>
Status conv_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(auto stride, spatial_list(ctx, *args[3], "stride", kSpatial, 1));
  ETKIT_ASSIGN_OR_RETURN(auto padding, spatial_list(ctx, *args[4], "padding", kSpatial, 0));
  ETKIT_ASSIGN_OR_RETURN(auto dilation, spatial_list(ctx, *args[5], "dilation", kSpatial, 1));
  ETKIT_ASSIGN_OR_RETURN(int64_t groups, int_arg(ctx, *args[6], "groups"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out"));
  for (auto [t, name] : {std::pair{input, "input"}, std::pair{weight, "weight"}, std::pair{bias, "bias"}, std::pair{out, "out"}}) {
    ETKIT_TRY(require_float(ctx, *t, name));
  }
  const size_t rank = kSpatial + 2;
  if (input->dim() != rank) return ctx.fail("input must be " + std::to_string(rank) + "-D, got " + input->shape_string());
  if (weight->dim() != rank) return ctx.fail("weight must be " + std::to_string(rank) + "-D, got " + weight->shape_string());
  const int64_t n = input->size(0), c = input->size(1), oc = weight->size(0);
  if (groups < 1 || c % groups != 0 || oc % groups != 0) {
    return ctx.fail("groups " + std::to_string(groups) + " must divide the input channels " + std::to_string(c) +
                    " and the output channels " + std::to_string(oc));
  }
  const int64_t icpg = c / groups, ocpg = oc / groups;
  if (weight->size(1) != icpg) {
    return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(icpg) +
                    " input channels per group (input " + input->shape_string() + ", groups " + std::to_string(groups) + ")");
  }
  if (bias->numel() != oc) return ctx.fail("bias " + bias->shape_string() + " must have " + std::to_string(oc) + " elements");
  std::array<int64_t, kMaxSpatial> in{}, k{}, o{};
  Shape shape;
  shape.push_back(n);
  shape.push_back(oc);
  for (size_t i = 0; i < kSpatial; ++i) {
    in[i] = input->size(2 + i);
    k[i] = weight->size(2 + i);
    const int64_t reach = dilation[i] * (k[i] - 1) + 1;
    const int64_t span = in[i] + 2 * padding[i] - reach;
    if (k[i] < 1 || span < 0) {
      return ctx.fail("kernel " + weight->shape_string() + " with dilation and padding does not fit input " + input->shape_string());
    }
    o[i] = span / stride[i] + 1;
    shape.push_back(o[i]);
  }
  for (auto [t, name] : {std::pair{input, "input"}, std::pair{weight, "weight"}, std::pair{bias, "bias"}}) {
    ETKIT_TRY(require_contiguous(ctx, *t, name));
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  // Missing spatial dims are size 1, so one 3-D loop serves all ranks.
  for (size_t i = kSpatial; i < kMaxSpatial; ++i) in[i] = k[i] = o[i] = stride[i] = dilation[i] = 1;
  const int64_t in_plane = in[0] * in[1] * in[2], k_plane = k[0] * k[1] * k[2], o_plane = o[0] * o[1] * o[2];
  const float* x = input->data_as<float>();
  const float* w = weight->data_as<float>();
  const float* b = bias->data_as<float>();
  float* y = out->data_as<float>();
  for (int64_t bn = 0; bn < n; ++bn) {
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t oci = g * ocpg; oci < (g + 1) * ocpg; ++oci) {
        float* yp = y + (bn * oc + oci) * o_plane;
        for (int64_t o0 = 0; o0 < o[0]; ++o0)
          for (int64_t o1 = 0; o1 < o[1]; ++o1)
            for (int64_t o2 = 0; o2 < o[2]; ++o2) {
              float acc = b[oci];
              for (int64_t ic = 0; ic < icpg; ++ic) {
                const float* xp = x + (bn * c + g * icpg + ic) * in_plane;
                const float* wp = w + (oci * icpg + ic) * k_plane;
                for (int64_t k0 = 0; k0 < k[0]; ++k0) {
                  const int64_t p0 = o0 * stride[0] + k0 * dilation[0] - padding[0];
                  if (p0 < 0 || p0 >= in[0]) continue;
                  for (int64_t k1 = 0; k1 < k[1]; ++k1) {
                    const int64_t p1 = o1 * stride[1] + k1 * dilation[1] - padding[1];
                    if (p1 < 0 || p1 >= in[1]) continue;
                    for (int64_t k2 = 0; k2 < k[2]; ++k2) {
                      const int64_t p2 = o2 * stride[2] + k2 * dilation[2] - padding[2];
                      if (p2 < 0 || p2 >= in[2]) continue;
                      acc += xp[(p0 * in[1] + p1) * in[2] + p2] * wp[(k0 * k[1] + k1) * k[2] + k2];
                    }
                  }
                }
              }
              yp[(o0 * o[1] + o1) * o[2] + o2] = acc;
            }
      }
    }
  }
  return {};
}

// (input, weight, bias?, out, ret): input [..., in], weight [out, in].
Status fully_connected_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(require_float(ctx, *input, "input"));
  ETKIT_TRY(require_float(ctx, *weight, "weight"));
  ETKIT_TRY(require_float(ctx, *out, "out"));
  if (input->dim() == 0) return ctx.fail("input must have at least one dimension");
  if (weight->dim() != 2) return ctx.fail("weight must be 2-D [out, in], got " + weight->shape_string());
  const int64_t m = weight->size(0), k = weight->size(1);
  if (input->size(input->dim() - 1) != k) {
    return ctx.fail("input " + input->shape_string() + " must end in weight's inner dim " + std::to_string(k));
  }
  if (bias) {
    ETKIT_TRY(require_float(ctx, *bias, "bias"));
    if (bias->numel() != m) return ctx.fail("bias " + bias->shape_string() + " must have " + std::to_string(m) + " elements");
    ETKIT_TRY(require_contiguous(ctx, *bias, "bias"));
  }
  ETKIT_TRY(require_contiguous(ctx, *input, "input"));
  ETKIT_TRY(require_contiguous(ctx, *weight, "weight"));
  Shape shape = shape_of(*input);
  shape[shape.size() - 1] = m;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  const int64_t rows = k == 0 ? out->numel() / std::max<int64_t>(m, 1) : input->numel() / k;
  const float* x = input->data_as<float>();
  const float* w = weight->data_as<float>();
  const float* b = bias ? bias->data_as<float>() : nullptr;
  float* y = out->data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < m; ++j) {
      float acc = b ? b[j] : 0.0f;
      for (int64_t i = 0; i < k; ++i) acc += x[r * k + i] * w[j * k + i];
      y[r * m + j] = acc;
    }
  }
  return {};
}

}  // namespace

std::vector<KernelInfo> float_conv_kernels() {
  return {
      {"cadence::conv1d.out", conv_out<1>, 9, {7}},
      {"cadence::conv2d.out", conv_out<2>, 9, {7}},
      {"cadence::conv3d.out", conv_out<3>, 9, {7}},
      {"cadence::fully_connected.out", fully_connected_out, 5, {3}},
  };
}

}  // namespace etkit::rt::kernels::cadence
