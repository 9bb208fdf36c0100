// The float helpers of the Cadence AOT flow, as the generic reference
// kernels (or, for rms_norm, ref_implementations.py) compute them:
//  * cadence::_softmax_f32_f32: exp(x - max) / sum over `dim`, in float.
//  * cadence::rope / rope_rotate_stacked_halves: rotary embedding of a
//    [1, seq, heads, hd] (or [1, seq, heads, hd / 2, 2]) float tensor; pairs
//    are adjacent elements (rope) or element i and i + hd / 2 (stacked
//    halves); token s uses row pos[s] (or s) of the [*, hd / 2] sin and cos
//    tables: (x0 cos - x1 sin, x0 sin + x1 cos).
//  * cadence::sdpa_bitwise_mask_gen: packs 8 mask elements of the last dim
//    into a byte, element j in bit j; a bit is 1 where attention is blocked
//    (bool false, or float below `threshold`).
//  * aten::rms_norm.out: x / sqrt(mean(x^2) + eps) * weight over the
//    trailing normalized_shape dims; eps None is float32's epsilon, weight
//    None scales by one.
//  * aten::_cat_nop, _select_copy_nop, _slice_copy_nop: on the device these
//    alias memory the planner already arranged; on the host they are the
//    copies cat, select_copy and slice_copy compute.
//  * cadence::slice_scatter_: slice_scatter in place (self's window
//    overwritten with src), as ref_implementations.py defines it.
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/linalg/linalg_util.h"
#include "runner/kernels/kernel_util_inl.h"

namespace etkit::rt::kernels::cadence {
namespace {

Status require_float(KernelContext& ctx, const Tensor& t, std::string_view what) {
  if (t.dtype() != ScalarType::kFloat) return ctx.fail(std::string(what) + " must be FLOAT, not " + dtype_name(t.dtype()));
  return {};
}

// (self, dim, half_to_float?, out, ret)
Status softmax_f32_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  if (!args[2]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(bool half_to_float, bool_arg(ctx, *args[2], "half_to_float"));
    if (half_to_float) return ctx.fail("half_to_float must be false (the op is float to float)");
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(require_float(ctx, *self, "self"));
  ETKIT_TRY(require_float(ctx, *out, "out"));
  const size_t rank = std::max<size_t>(self->dim(), 1);
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, rank));
  ETKIT_TRY(require_contiguous(ctx, *self, "self"));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  int64_t outer = 1, n = 1, inner = 1;
  for (size_t d = 0; d < self->dim(); ++d) (d < dim ? outer : d == dim ? n : inner) *= self->size(d);
  const float* x = self->data_as<float>();
  float* y = out->data_as<float>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * n * inner + i;
      float max_x = -INFINITY;
      for (int64_t k = 0; k < n; ++k) max_x = std::max(max_x, x[base + k * inner]);
      float sum = 0.0f;
      for (int64_t k = 0; k < n; ++k) {
        y[base + k * inner] = std::exp(x[base + k * inner] - max_x);
        sum += y[base + k * inner];
      }
      for (int64_t k = 0; k < n; ++k) y[base + k * inner] /= sum;
    }
  }
  return {};
}

// (input, sin_tensor, cos_tensor, pos?, out, ret). kStacked: pairs are
// (i, i + hd / 2) instead of (2i, 2i + 1).
template <bool kStacked>
Status rope_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * sin_t, tensor_arg(ctx, *args[1], "sin_tensor"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * cos_t, tensor_arg(ctx, *args[2], "cos_tensor"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * pos, optional_tensor_arg(ctx, *args[3], "pos"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(require_float(ctx, *input, "input"));
  ETKIT_TRY(require_float(ctx, *sin_t, "sin_tensor"));
  ETKIT_TRY(require_float(ctx, *cos_t, "cos_tensor"));
  ETKIT_TRY(require_float(ctx, *out, "out"));
  if ((input->dim() != 4 && input->dim() != 5) || input->size(0) != 1) {
    return ctx.fail("input must be [1, seq, heads, hd] or [1, seq, heads, hd / 2, 2], got " + input->shape_string());
  }
  const int64_t seq = input->size(1), heads = input->size(2);
  const int64_t hd = seq * heads == 0 ? 0 : input->numel() / (seq * heads);
  if (hd % 2 != 0) return ctx.fail("input's head dimension " + std::to_string(hd) + " must be even");
  const int64_t half = hd / 2;
  if (sin_t->numel() != cos_t->numel()) {
    return ctx.fail("sin_tensor " + sin_t->shape_string() + " and cos_tensor " + cos_t->shape_string() +
                    " must have as many elements");
  }
  const int64_t table_rows = half == 0 ? 0 : sin_t->numel() / half;
  if (pos) {
    if (pos->dtype() != ScalarType::kInt && pos->dtype() != ScalarType::kLong) {
      return ctx.fail("pos must be INT or LONG, not " + dtype_name(pos->dtype()));
    }
    if (pos->numel() < seq) return ctx.fail("pos has " + std::to_string(pos->numel()) + " elements, fewer than seq " + std::to_string(seq));
    ETKIT_TRY(require_contiguous(ctx, *pos, "pos"));
  }
  auto token = [&](int64_t s) -> int64_t {
    if (!pos) return s;
    return pos->dtype() == ScalarType::kInt ? pos->data_as<int32_t>()[s] : pos->data_as<int64_t>()[s];
  };
  for (int64_t s = 0; s < seq && half > 0; ++s) {
    if (token(s) < 0 || token(s) >= table_rows) {
      return ctx.fail((pos ? "pos[" + std::to_string(s) + "] = " : std::string("token ")) + std::to_string(token(s)) +
                      " is past the " + std::to_string(table_rows) + " rows of sin_tensor/cos_tensor");
    }
  }
  for (auto [t, name] : {std::pair{input, "input"}, std::pair{sin_t, "sin_tensor"}, std::pair{cos_t, "cos_tensor"}}) {
    ETKIT_TRY(require_contiguous(ctx, *t, name));
  }
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  const float* x = input->data_as<float>();
  const float* sn = sin_t->data_as<float>();
  const float* cs = cos_t->data_as<float>();
  float* y = out->data_as<float>();
  for (int64_t s = 0; s < seq; ++s) {
    const int64_t row = token(s) * half;
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (s * heads + h) * hd;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t i0 = base + (kStacked ? i : 2 * i), i1 = base + (kStacked ? half + i : 2 * i + 1);
        const float x0 = x[i0], x1 = x[i1], sv = sn[row + i], cv = cs[row + i];
        y[i0] = x0 * cv - x1 * sv;
        y[i1] = x0 * sv + x1 * cv;
      }
    }
  }
  return {};
}

// (mask, float threshold, out, ret)
Status sdpa_bitwise_mask_gen_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(ctx, *args[0], "mask"));
  ETKIT_ASSIGN_OR_RETURN(double threshold, double_arg(ctx, *args[1], "threshold"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  const ScalarType t = mask->dtype();
  if (t != ScalarType::kBool && t != ScalarType::kFloat) return ctx.fail("mask must be BOOL or FLOAT, not " + dtype_name(t));
  if (mask->dim() == 0) return ctx.fail("mask must have at least one dimension");
  const int64_t last = mask->size(mask->dim() - 1);
  if (last % 8 != 0) return ctx.fail("mask's last dimension " + std::to_string(last) + " is not a multiple of 8");
  if (out->dtype() != ScalarType::kByte) return ctx.fail("out must be BYTE, not " + dtype_name(out->dtype()));
  ETKIT_TRY(require_contiguous(ctx, *mask, "mask"));
  Shape shape = shape_of(*mask);
  shape[shape.size() - 1] = last / 8;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  const int64_t n = mask->numel();
  uint8_t* y = out->data_as<uint8_t>();
  const auto* b = static_cast<const uint8_t*>(mask->data());
  const float* f = t == ScalarType::kFloat ? mask->data_as<float>() : nullptr;
  for (int64_t i = 0; i < n; i += 8) {
    uint8_t packed = 0;
    for (int64_t j = 0; j < 8; ++j) {
      const bool blocked = f ? double(f[i + j]) < threshold : b[i + j] == 0;
      packed |= uint8_t(blocked) << j;
    }
    y[i / 8] = packed;
  }
  return {};
}

// (input, normalized_shape, weight?, eps?, out, ret)
Status rms_norm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(auto normalized, ctx.int_list(*args[1], "normalized_shape"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, optional_tensor_arg(ctx, *args[2], "weight"));
  double eps = FLT_EPSILON;
  if (!args[3]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(eps, double_arg(ctx, *args[3], "eps"));
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(require_float(ctx, *input, "input"));
  ETKIT_TRY(require_float(ctx, *out, "out"));
  ETKIT_TRY(linalg::check_normalized_shape(ctx, *input, normalized));
  int64_t cols = 1;
  for (int64_t v : normalized) cols *= v;
  if (weight) {
    ETKIT_TRY(require_float(ctx, *weight, "weight"));
    if (weight->numel() != cols) {
      return ctx.fail("weight " + weight->shape_string() + " must have " + std::to_string(cols) +
                      " elements (normalized_shape " + list_string(normalized) + ")");
    }
    ETKIT_TRY(require_contiguous(ctx, *weight, "weight"));
  }
  ETKIT_TRY(require_contiguous(ctx, *input, "input"));
  ETKIT_TRY(resize_out(ctx, *out, input->sizes()));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  const int64_t rows = cols == 0 ? 0 : input->numel() / cols;
  const float* x = input->data_as<float>();
  const float* w = weight ? weight->data_as<float>() : nullptr;
  float* y = out->data_as<float>();
  const float e = narrow_float(eps);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float sum = 0.0f;
    for (int64_t c = 0; c < cols; ++c) sum += xr[c] * xr[c];
    const float inv_rms = 1.0f / std::sqrt(sum / float(cols) + e);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = xr[c] * inv_rms * (w ? w[c] : 1.0f);
  }
  return {};
}

// The kernel `name` of the portable shape table, registered again as `alias`.
KernelInfo alias_of(const std::vector<KernelInfo>& shape, std::string_view name, const char* alias) {
  for (const KernelInfo& k : shape) {
    if (k.name == name) {
      KernelInfo copy = k;
      copy.name = alias;
      return copy;
    }
  }
  std::abort();  // the shape table defines every aliased kernel
}

}  // namespace

std::vector<KernelInfo> float_kernels() {
  std::vector<KernelInfo> table = {
      {"cadence::_softmax_f32_f32.out", softmax_f32_out, 5, {3}},
      {"cadence::rope.out", rope_out<false>, 6, {4}},
      {"cadence::rope_rotate_stacked_halves.out", rope_out<true>, 6, {4}},
      {"cadence::sdpa_bitwise_mask_gen.out", sdpa_bitwise_mask_gen_out, 4, {2}},
      {"aten::rms_norm.out", rms_norm_out, 6, {4}},
  };
  std::vector<KernelInfo> shape;
  add_cat_kernels(shape);
  add_slice_kernels(shape);
  table.push_back(alias_of(shape, "aten::cat.out", "aten::_cat_nop.out"));
  table.push_back(alias_of(shape, "aten::select_copy.int_out", "aten::_select_copy_nop.int_out"));
  table.push_back(alias_of(shape, "aten::slice_copy.Tensor_out", "aten::_slice_copy_nop.Tensor_out"));
  // In place: the flow's out-variant pass keeps it (to_out_var_pass.py), so programs call it as is.
  table.push_back({"cadence::slice_scatter_", slice_scatter_in_place, 7, {0}});
  return table;
}

}  // namespace etkit::rt::kernels::cadence
