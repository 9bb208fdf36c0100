// Normalisation: aten::_native_batch_norm_legit_no_training.out,
// aten::native_layer_norm.out and aten::native_group_norm.out, on float32
// and float64. Statistics are accumulated in double (two passes: mean, then
// the biased variance); rstd = 1 / sqrt(var + eps). An empty group or row
// has mean 0 and variance 0.
#include <cmath>
#include <vector>

#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"

namespace etkit::rt::kernels::linalg {
namespace {

// A Tensor? per-channel (or per-element) parameter: absent, or 1-D.
template <typename T>
struct Param {
  const T* data = nullptr;
  int64_t stride = 0;
  T at(int64_t i, T if_absent) const { return data ? data[i * stride] : if_absent; }
};

template <typename T>
Param<T> param(const Tensor* t) {
  if (!t) return {};
  return {t->data_as<T>(), t->dim() == 0 ? 0 : t->strides()[t->dim() - 1]};
}

// A 1-D [size] parameter of the input's dtype, or an error naming it.
Status check_vector(KernelContext& ctx, const Tensor* t, std::string_view what, int64_t size, std::string_view per,
                    ScalarType dtype) {
  if (!t) return {};
  if (t->dim() != 1 || t->size(0) != size) {
    return ctx.fail(std::string(what) + " " + t->shape_string() + " must be 1-D with " + std::to_string(size) +
                    " elements (one per " + std::string(per) + ")");
  }
  if (t->dtype() != dtype) {
    return ctx.fail(std::string(what) + " dtype " + dtype_name(t->dtype()) + " does not match input dtype " +
                    dtype_name(dtype));
  }
  return {};
}

Status check_float_dtype(KernelContext& ctx, const Tensor& input, const Tensor& out, std::string_view out_name) {
  if (!is_float_or_double(input.dtype())) {
    return ctx.fail("unsupported dtype " + dtype_name(input.dtype()) + " (float32 or float64 only)");
  }
  if (out.dtype() != input.dtype()) {
    return ctx.fail(std::string(out_name) + " dtype " + dtype_name(out.dtype()) + " does not match input dtype " +
                    dtype_name(input.dtype()));
  }
  return {};
}

// ---- batch norm -------------------------------------------------------------

// out = input * scale[c] + shift[c], scale = weight * rstd, shift = bias -
// mean * scale (the inference form PyTorch's CPU kernel uses). In a dense
// tensor of any dim order, with cs the channel dim's stride, storage splits
// into blocks of C * cs elements, each holding C runs of cs elements of one
// channel.
template <typename T>
void batch_norm(const Tensor& input, const Tensor* weight, const Tensor* bias, const Tensor& mean, const Tensor& var,
                double eps, Tensor& out) {
  const int64_t channels = input.size(1), cs = input.strides()[1];
  thread_local std::vector<T> scale_shift;
  scale_shift.resize(size_t(2 * channels));
  const Param<T> w = param<T>(weight), b = param<T>(bias), m = param<T>(&mean), v = param<T>(&var);
  for (int64_t c = 0; c < channels; ++c) {
    const double rstd = 1.0 / std::sqrt(double(v.at(c, 0)) + eps);
    const double scale = double(w.at(c, 1)) * rstd;
    scale_shift[size_t(2 * c)] = static_cast<T>(scale);
    scale_shift[size_t(2 * c + 1)] = static_cast<T>(double(b.at(c, 0)) - double(m.at(c, 0)) * scale);
  }
  const T* x = input.data_as<T>();
  T* y = out.data_as<T>();
  const int64_t blocks = input.numel() / (channels * cs);
  for (int64_t blk = 0; blk < blocks; ++blk) {
    for (int64_t c = 0; c < channels; ++c) {
      const T scale = scale_shift[size_t(2 * c)], shift = scale_shift[size_t(2 * c + 1)];
      const int64_t base = (blk * channels + c) * cs;
      for (int64_t i = base; i < base + cs; ++i) y[i] = x[i] * scale + shift;
    }
  }
}

// (input, weight?, bias?, running_mean, running_var, momentum, eps, out0, out1, out2, ret)
Status batch_norm_no_training_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, optional_tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mean, tensor_arg(ctx, *args[3], "running_mean"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * var, tensor_arg(ctx, *args[4], "running_var"));
  ETKIT_ASSIGN_OR_RETURN(double momentum, double_arg(ctx, *args[5], "momentum"));
  (void)momentum;  // only training updates the running statistics
  ETKIT_ASSIGN_OR_RETURN(double eps, double_arg(ctx, *args[6], "eps"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[7], "out0"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out1, tensor_arg(ctx, *args[8], "out1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out2, tensor_arg(ctx, *args[9], "out2"));
  if (input->dim() < 2) return ctx.fail("input must have at least 2 dimensions (N, C, ...), got " + input->shape_string());
  ETKIT_TRY(check_float_dtype(ctx, *input, *out, "out0"));
  const int64_t channels = input->size(1);
  ETKIT_TRY(check_vector(ctx, weight, "weight", channels, "channel", input->dtype()));
  ETKIT_TRY(check_vector(ctx, bias, "bias", channels, "channel", input->dtype()));
  ETKIT_TRY(check_vector(ctx, mean, "running_mean", channels, "channel", input->dtype()));
  ETKIT_TRY(check_vector(ctx, var, "running_var", channels, "channel", input->dtype()));
  ETKIT_TRY(resize_named(ctx, *out, input->sizes(), "out0"));
  // ExecuTorch's no-training variant returns empty statistics.
  const int64_t empty[1] = {0};
  ETKIT_TRY(resize_named(ctx, *out1, empty, "out1"));
  ETKIT_TRY(resize_named(ctx, *out2, empty, "out2"));
  if (!std::equal(out->strides().begin(), out->strides().end(), input->strides().begin())) {
    return ctx.fail("out0 dim order " + dim_order_string(*out) + " does not match input dim order " +
                    dim_order_string(*input));
  }
  if (input->numel() == 0) return {};
  if (input->dtype() == ScalarType::kFloat) {
    batch_norm<float>(*input, weight, bias, *mean, *var, eps, *out);
  } else {
    batch_norm<double>(*input, weight, bias, *mean, *var, eps, *out);
  }
  return {};
}

// ---- layer norm -------------------------------------------------------------

// Each of `rows` rows of `cols` contiguous elements normalised on its own;
// weight and bias are flat [cols].
template <typename T>
void layer_norm(const T* x, T* y, int64_t rows, int64_t cols, const T* weight, const T* bias, double eps, T* mean_out,
                T* rstd_out) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    double sum = 0;
    for (int64_t j = 0; j < cols; ++j) sum += double(xr[j]);
    const double mean = cols ? sum / double(cols) : 0.0;
    double squares = 0;
    for (int64_t j = 0; j < cols; ++j) squares += (double(xr[j]) - mean) * (double(xr[j]) - mean);
    const double var = cols ? squares / double(cols) : 0.0;
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t j = 0; j < cols; ++j) {
      double v = (double(xr[j]) - mean) * rstd;
      if (weight) v *= double(weight[j]);
      if (bias) v += double(bias[j]);
      yr[j] = static_cast<T>(v);
    }
    mean_out[r] = static_cast<T>(mean);
    rstd_out[r] = static_cast<T>(rstd);
  }
}

// weight or bias of a layer norm: normalized_shape exactly, contiguous.
Status check_affine(KernelContext& ctx, const Tensor* t, std::string_view what, std::span<const int64_t> shape,
                    ScalarType dtype) {
  if (!t) return {};
  bool same = t->dim() == shape.size();
  for (size_t d = 0; same && d < shape.size(); ++d) same = t->size(d) == shape[d];
  if (!same) {
    return ctx.fail(std::string(what) + " " + t->shape_string() + " must have shape " + list_string(shape) +
                    " (normalized_shape)");
  }
  if (t->dtype() != dtype) {
    return ctx.fail(std::string(what) + " dtype " + dtype_name(t->dtype()) + " does not match input dtype " +
                    dtype_name(dtype));
  }
  if (!t->is_contiguous()) {
    return ctx.fail(std::string(what) + " with dim order " + dim_order_string(*t) + " is not supported (contiguous only)");
  }
  return {};
}

// (input, normalized_shape, weight?, bias?, eps, out0, out1, out2, ret):
// out1 (mean) and out2 (rstd) have the input's leading dims followed by 1s.
Status native_layer_norm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(auto normalized, ctx.int_list(*args[1], "normalized_shape"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, optional_tensor_arg(ctx, *args[2], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[3], "bias"));
  ETKIT_ASSIGN_OR_RETURN(double eps, double_arg(ctx, *args[4], "eps"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out0"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mean, tensor_arg(ctx, *args[6], "out1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * rstd, tensor_arg(ctx, *args[7], "out2"));
  const size_t rank = input->dim();
  if (normalized.empty()) return ctx.fail("normalized_shape must not be empty");
  bool matches = normalized.size() <= rank;
  for (size_t d = 0; matches && d < normalized.size(); ++d) {
    matches = input->size(rank - normalized.size() + d) == normalized[d];
  }
  if (!matches) {
    return ctx.fail("normalized_shape " + list_string(normalized) + " does not match the trailing dimensions of input " +
                    input->shape_string());
  }
  ETKIT_TRY(check_float_dtype(ctx, *input, *out, "out0"));
  ETKIT_TRY(check_float_dtype(ctx, *input, *mean, "out1"));
  ETKIT_TRY(check_float_dtype(ctx, *input, *rstd, "out2"));
  ETKIT_TRY(check_affine(ctx, weight, "weight", normalized, input->dtype()));
  ETKIT_TRY(check_affine(ctx, bias, "bias", normalized, input->dtype()));
  if (!input->is_contiguous()) {
    return ctx.fail("input with dim order " + dim_order_string(*input) + " is not supported (contiguous only)");
  }
  ETKIT_TRY(resize_named(ctx, *out, input->sizes(), "out0"));
  Shape stats;
  const size_t axis = rank - normalized.size();
  int64_t rows = 1, cols = 1;
  for (size_t d = 0; d < rank; ++d) {
    stats.push_back(d < axis ? input->size(d) : 1);
    (d < axis ? rows : cols) *= input->size(d);
  }
  ETKIT_TRY(resize_named(ctx, *mean, stats, "out1"));
  ETKIT_TRY(resize_named(ctx, *rstd, stats, "out2"));
  for (const Tensor* t : {out, mean, rstd}) {
    if (!t->is_contiguous()) {
      return ctx.fail(std::string(t == out ? "out0" : t == mean ? "out1" : "out2") + " with dim order " +
                      dim_order_string(*t) + " is not supported (contiguous only)");
    }
  }
  if (input->dtype() == ScalarType::kFloat) {
    layer_norm<float>(input->data_as<float>(), out->data_as<float>(), rows, cols,
                      weight ? weight->data_as<float>() : nullptr, bias ? bias->data_as<float>() : nullptr, eps,
                      mean->data_as<float>(), rstd->data_as<float>());
  } else {
    layer_norm<double>(input->data_as<double>(), out->data_as<double>(), rows, cols,
                       weight ? weight->data_as<double>() : nullptr, bias ? bias->data_as<double>() : nullptr, eps,
                       mean->data_as<double>(), rstd->data_as<double>());
  }
  return {};
}

// ---- group norm -------------------------------------------------------------

struct GroupShape {
  int64_t n, c, hxw, groups;
  int64_t sn, sc, sp;  // strides of the batch, channel and (flattened) spatial index
};

// Statistics per (n, group) over C/groups channels x HxW positions, then
// out = input * scale + shift with scale = rstd * weight[c], shift =
// bias[c] - mean * scale.
template <typename T>
void group_norm(const GroupShape& g, const T* x, const Tensor* weight, const Tensor* bias, double eps, T* y,
                T* mean_out, T* rstd_out) {
  const Param<T> w = param<T>(weight), b = param<T>(bias);
  const int64_t per_group = g.c / g.groups;
  const double count = double(per_group * g.hxw);
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t grp = 0; grp < g.groups; ++grp) {
      const int64_t c0 = grp * per_group;
      double sum = 0;
      for (int64_t c = c0; c < c0 + per_group; ++c) {
        const T* xc = x + n * g.sn + c * g.sc;
        for (int64_t i = 0; i < g.hxw; ++i) sum += double(xc[i * g.sp]);
      }
      const double mean = count > 0 ? sum / count : 0.0;
      double squares = 0;
      for (int64_t c = c0; c < c0 + per_group; ++c) {
        const T* xc = x + n * g.sn + c * g.sc;
        for (int64_t i = 0; i < g.hxw; ++i) squares += (double(xc[i * g.sp]) - mean) * (double(xc[i * g.sp]) - mean);
      }
      const double rstd = 1.0 / std::sqrt((count > 0 ? squares / count : 0.0) + eps);
      for (int64_t c = c0; c < c0 + per_group; ++c) {
        const double scale = rstd * double(w.at(c, 1));
        const double shift = double(b.at(c, 0)) - mean * scale;
        const T* xc = x + n * g.sn + c * g.sc;
        T* yc = y + n * g.sn + c * g.sc;
        for (int64_t i = 0; i < g.hxw; ++i) yc[i * g.sp] = static_cast<T>(double(xc[i * g.sp]) * scale + shift);
      }
      mean_out[n * g.groups + grp] = static_cast<T>(mean);
      rstd_out[n * g.groups + grp] = static_cast<T>(rstd);
    }
  }
}

// (input, weight?, bias?, N, C, HxW, group, eps, out0, out1, out2, ret):
// out1 (mean) and out2 (rstd) are [N, group].
Status native_group_norm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, optional_tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[2], "bias"));
  GroupShape g{};
  ETKIT_ASSIGN_OR_RETURN(g.n, int_arg(ctx, *args[3], "N"));
  ETKIT_ASSIGN_OR_RETURN(g.c, int_arg(ctx, *args[4], "C"));
  ETKIT_ASSIGN_OR_RETURN(g.hxw, int_arg(ctx, *args[5], "HxW"));
  ETKIT_ASSIGN_OR_RETURN(g.groups, int_arg(ctx, *args[6], "group"));
  ETKIT_ASSIGN_OR_RETURN(double eps, double_arg(ctx, *args[7], "eps"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[8], "out0"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mean, tensor_arg(ctx, *args[9], "out1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * rstd, tensor_arg(ctx, *args[10], "out2"));
  const size_t rank = input->dim();
  if (rank < 2) return ctx.fail("input must have at least 2 dimensions (N, C, ...), got " + input->shape_string());
  if (g.n < 0 || g.c < 0 || g.hxw < 0 || input->size(0) != g.n || input->size(1) != g.c ||
      input->numel() != g.n * g.c * g.hxw) {
    return ctx.fail("input " + input->shape_string() + " does not match N " + std::to_string(g.n) + ", C " +
                    std::to_string(g.c) + ", HxW " + std::to_string(g.hxw));
  }
  if (g.groups < 1 || g.c % g.groups != 0) {
    return ctx.fail("C " + std::to_string(g.c) + " is not divisible by group " + std::to_string(g.groups));
  }
  ETKIT_TRY(check_float_dtype(ctx, *input, *out, "out0"));
  ETKIT_TRY(check_float_dtype(ctx, *input, *mean, "out1"));
  ETKIT_TRY(check_float_dtype(ctx, *input, *rstd, "out2"));
  ETKIT_TRY(check_vector(ctx, weight, "weight", g.c, "channel", input->dtype()));
  ETKIT_TRY(check_vector(ctx, bias, "bias", g.c, "channel", input->dtype()));
  // The spatial dims must flatten to one evenly spaced index (true of
  // contiguous and channels-last tensors).
  const auto s = input->strides();
  for (size_t d = 2; d + 1 < rank; ++d) {
    if (s[d] != s[d + 1] * input->size(d + 1)) {
      return ctx.fail("input with dim order " + dim_order_string(*input) + " is not supported");
    }
  }
  g.sn = s[0];
  g.sc = s[1];
  g.sp = rank > 2 ? s[rank - 1] : 0;
  ETKIT_TRY(resize_named(ctx, *out, input->sizes(), "out0"));
  if (!std::equal(out->strides().begin(), out->strides().end(), s.begin())) {
    return ctx.fail("out0 dim order " + dim_order_string(*out) + " does not match input dim order " +
                    dim_order_string(*input));
  }
  const int64_t stats[2] = {g.n, g.groups};
  ETKIT_TRY(resize_named(ctx, *mean, stats, "out1"));
  ETKIT_TRY(resize_named(ctx, *rstd, stats, "out2"));
  if (!mean->is_contiguous() || !rstd->is_contiguous()) {
    return ctx.fail("out1 and out2 must be contiguous");
  }
  if (input->dtype() == ScalarType::kFloat) {
    group_norm<float>(g, input->data_as<float>(), weight, bias, eps, out->data_as<float>(), mean->data_as<float>(),
                      rstd->data_as<float>());
  } else {
    group_norm<double>(g, input->data_as<double>(), weight, bias, eps, out->data_as<double>(), mean->data_as<double>(),
                       rstd->data_as<double>());
  }
  return {};
}

}  // namespace

void add_normalization_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::_native_batch_norm_legit_no_training.out", batch_norm_no_training_out, 11, {7, 8, 9}});
  table.push_back({"aten::native_layer_norm.out", native_layer_norm_out, 9, {5, 6, 7}});
  table.push_back({"aten::native_group_norm.out", native_group_norm_out, 12, {8, 9, 10}});
}

}  // namespace etkit::rt::kernels::linalg
