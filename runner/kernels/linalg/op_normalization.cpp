// Normalisation: aten::native_batch_norm.out, aten::_native_batch_norm_legit
// (.out, .no_stats_out, _no_training.out), aten::native_layer_norm.out and
// aten::native_group_norm.out, on float32 and float64. Statistics are
// accumulated in double (two passes: mean, then the biased variance); rstd =
// 1 / sqrt(var + eps). An empty channel, group or row has mean 0 and
// variance 0.
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
    return ctx.fail(std::string(what) + " " + t->shape_string() + " must be 1-D of size " + std::to_string(size) +
                    " (one per " + std::string(per) + ")");
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
// In a dense tensor of any dim order, with cs the channel dim's stride,
// storage splits into blocks of C * cs elements, each holding C runs of cs
// elements of one channel: the loops below walk those runs.

// Per-channel mean and biased variance over every element of the channel
// (an empty channel has mean 0 and variance 0).
template <typename T>
void channel_moments(const Tensor& input, double* mean, double* var) {
  const int64_t channels = input.size(1), cs = input.strides()[1];
  const int64_t blocks = input.numel() / (channels * cs);
  const double count = double(blocks * cs);
  const T* x = input.data_as<T>();
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const T* run = x + (blk * channels + c) * cs;
      for (int64_t i = 0; i < cs; ++i) sum += double(run[i]);
    }
    mean[c] = count > 0 ? sum / count : 0.0;
    double squares = 0;
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const T* run = x + (blk * channels + c) * cs;
      for (int64_t i = 0; i < cs; ++i) squares += (double(run[i]) - mean[c]) * (double(run[i]) - mean[c]);
    }
    var[c] = count > 0 ? squares / count : 0.0;
  }
}

// out = input * scale[c] + shift[c], scale = weight * rstd, shift = bias -
// mean * scale (the form PyTorch's CPU kernel uses).
template <typename T>
void batch_norm_apply(const Tensor& input, const Tensor* weight, const Tensor* bias, const double* mean,
                      const double* rstd, Tensor& out) {
  const int64_t channels = input.size(1), cs = input.strides()[1];
  const Param<T> w = param<T>(weight), b = param<T>(bias);
  const T* x = input.data_as<T>();
  T* y = out.data_as<T>();
  const int64_t blocks = input.numel() / (channels * cs);
  for (int64_t c = 0; c < channels; ++c) {
    const double scale_d = double(w.at(c, 1)) * rstd[c];
    const T scale = static_cast<T>(scale_d), shift = static_cast<T>(double(b.at(c, 0)) - mean[c] * scale_d);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t base = (blk * channels + c) * cs;
      for (int64_t i = base; i < base + cs; ++i) y[i] = x[i] * scale + shift;
    }
  }
}

// The arguments of every batch norm overload; running statistics may be
// absent (training without them, or the no_stats overload).
struct BatchNormArgs {
  Tensor* input;
  Tensor* weight;
  Tensor* bias;
  Tensor* running_mean;
  Tensor* running_var;
  bool training;
  double momentum, eps;
  Tensor* out;
  Tensor* save_mean;
  Tensor* save_invstd;
  std::string_view out_names[3];  // for messages: "out", "save_mean", "save_invstd"
};

template <typename T>
void batch_norm_run(const BatchNormArgs& a) {
  const int64_t channels = a.input->size(1);
  thread_local std::vector<double> mean, var, rstd;
  mean.resize(size_t(channels));
  var.resize(size_t(channels));
  rstd.resize(size_t(channels));
  if (a.training) {
    channel_moments<T>(*a.input, mean.data(), var.data());
  } else {
    const Param<T> m = param<T>(a.running_mean), v = param<T>(a.running_var);
    for (int64_t c = 0; c < channels; ++c) {
      mean[size_t(c)] = double(m.at(c, 0));
      var[size_t(c)] = double(v.at(c, 0));
    }
  }
  for (int64_t c = 0; c < channels; ++c) rstd[size_t(c)] = 1.0 / std::sqrt(var[size_t(c)] + a.eps);
  batch_norm_apply<T>(*a.input, a.weight, a.bias, mean.data(), rstd.data(), *a.out);
  if (!a.training) return;
  T* save_mean = a.save_mean->data_as<T>();
  T* save_invstd = a.save_invstd->data_as<T>();
  for (int64_t c = 0; c < channels; ++c) {
    save_mean[c] = static_cast<T>(mean[size_t(c)]);
    save_invstd[c] = static_cast<T>(rstd[size_t(c)]);
  }
  // Running statistics move towards the batch's, the variance unbiased
  // (count / (count - 1), count > 1 checked by the caller).
  if (a.running_mean && a.input->numel() > 0) {
    const double count = double(a.input->numel() / channels);
    const Param<T> m = param<T>(a.running_mean), v = param<T>(a.running_var);
    for (int64_t c = 0; c < channels; ++c) {
      T& rm = a.running_mean->data_as<T>()[c * m.stride];
      T& rv = a.running_var->data_as<T>()[c * v.stride];
      rm = static_cast<T>((1 - a.momentum) * double(rm) + a.momentum * mean[size_t(c)]);
      rv = static_cast<T>((1 - a.momentum) * double(rv) + a.momentum * var[size_t(c)] * count / (count - 1));
    }
  }
}

// Validates, resizes the outs and runs. Not training, the statistics outs
// become empty ([0]), as ExecuTorch's portable kernel and ATen's CPU kernel
// leave them; training, they are [C]: the batch mean and 1 / sqrt(var + eps).
Status batch_norm(KernelContext& ctx, const BatchNormArgs& a) {
  const Tensor& input = *a.input;
  if (input.dim() < 2) return ctx.fail("input must have at least 2 dimensions (N, C, ...), got " + input.shape_string());
  ETKIT_TRY(check_float_dtype(ctx, input, *a.out, a.out_names[0]));
  ETKIT_TRY(check_float_dtype(ctx, input, *a.save_mean, a.out_names[1]));
  ETKIT_TRY(check_float_dtype(ctx, input, *a.save_invstd, a.out_names[2]));
  const int64_t channels = input.size(1);
  const ScalarType dtype = input.dtype();
  ETKIT_TRY(check_vector(ctx, a.weight, "weight", channels, "channel", dtype));
  ETKIT_TRY(check_vector(ctx, a.bias, "bias", channels, "channel", dtype));
  ETKIT_TRY(check_vector(ctx, a.running_mean, "running_mean", channels, "channel", dtype));
  ETKIT_TRY(check_vector(ctx, a.running_var, "running_var", channels, "channel", dtype));
  if ((a.running_mean == nullptr) != (a.running_var == nullptr)) {
    return ctx.fail("running_mean and running_var must both be given or both be None");
  }
  if (!a.training && !a.running_mean) return ctx.fail("running_mean and running_var are required when not training");
  const int64_t per_channel = channels == 0 ? 0 : input.numel() / channels;
  if (a.training && a.running_mean && per_channel == 1) {
    return ctx.fail("expected more than 1 value per channel when training, got input " + input.shape_string());
  }
  ETKIT_TRY(resize_named(ctx, *a.out, input.sizes(), a.out_names[0]));
  const int64_t stats[1] = {a.training ? channels : 0};
  ETKIT_TRY(resize_named(ctx, *a.save_mean, stats, a.out_names[1]));
  ETKIT_TRY(resize_named(ctx, *a.save_invstd, stats, a.out_names[2]));
  if (!std::equal(a.out->strides().begin(), a.out->strides().end(), input.strides().begin())) {
    return ctx.fail(std::string(a.out_names[0]) + " dim order " + dim_order_string(*a.out) +
                    " does not match input dim order " + dim_order_string(input));
  }
  if (channels == 0) return {};
  if (dtype == ScalarType::kFloat) {
    batch_norm_run<float>(a);
  } else {
    batch_norm_run<double>(a);
  }
  return {};
}

// (input, weight?, bias?, running_mean, running_var, momentum, eps, out0, out1, out2, ret)
Status batch_norm_no_training_out(KernelContext& ctx, std::span<EValue* const> args) {
  BatchNormArgs a{};
  ETKIT_ASSIGN_OR_RETURN(a.input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(a.weight, optional_tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(a.bias, optional_tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(a.running_mean, tensor_arg(ctx, *args[3], "running_mean"));
  ETKIT_ASSIGN_OR_RETURN(a.running_var, tensor_arg(ctx, *args[4], "running_var"));
  ETKIT_ASSIGN_OR_RETURN(a.momentum, double_arg(ctx, *args[5], "momentum"));
  ETKIT_ASSIGN_OR_RETURN(a.eps, double_arg(ctx, *args[6], "eps"));
  ETKIT_ASSIGN_OR_RETURN(a.out, tensor_arg(ctx, *args[7], "out0"));
  ETKIT_ASSIGN_OR_RETURN(a.save_mean, tensor_arg(ctx, *args[8], "out1"));
  ETKIT_ASSIGN_OR_RETURN(a.save_invstd, tensor_arg(ctx, *args[9], "out2"));
  a.training = false;
  a.out_names[0] = "out0";
  a.out_names[1] = "out1";
  a.out_names[2] = "out2";
  return batch_norm(ctx, a);
}

// The overloads with a `training` flag: `with_stats` says whether the schema
// has running statistics, `stats_optional` whether they may be None
// (native_batch_norm's may, _native_batch_norm_legit's may not).
Status batch_norm_training_form(KernelContext& ctx, std::span<EValue* const> args, bool with_stats,
                                bool stats_optional) {
  BatchNormArgs a{};
  size_t i = 0;
  ETKIT_ASSIGN_OR_RETURN(a.input, tensor_arg(ctx, *args[i++], "input"));
  ETKIT_ASSIGN_OR_RETURN(a.weight, optional_tensor_arg(ctx, *args[i++], "weight"));
  ETKIT_ASSIGN_OR_RETURN(a.bias, optional_tensor_arg(ctx, *args[i++], "bias"));
  if (with_stats) {
    if (stats_optional) {
      ETKIT_ASSIGN_OR_RETURN(a.running_mean, optional_tensor_arg(ctx, *args[i++], "running_mean"));
      ETKIT_ASSIGN_OR_RETURN(a.running_var, optional_tensor_arg(ctx, *args[i++], "running_var"));
    } else {
      ETKIT_ASSIGN_OR_RETURN(a.running_mean, tensor_arg(ctx, *args[i++], "running_mean"));
      ETKIT_ASSIGN_OR_RETURN(a.running_var, tensor_arg(ctx, *args[i++], "running_var"));
    }
  }
  ETKIT_ASSIGN_OR_RETURN(a.training, bool_arg(ctx, *args[i++], "training"));
  ETKIT_ASSIGN_OR_RETURN(a.momentum, double_arg(ctx, *args[i++], "momentum"));
  ETKIT_ASSIGN_OR_RETURN(a.eps, double_arg(ctx, *args[i++], "eps"));
  ETKIT_ASSIGN_OR_RETURN(a.out, tensor_arg(ctx, *args[i++], "out"));
  ETKIT_ASSIGN_OR_RETURN(a.save_mean, tensor_arg(ctx, *args[i++], "save_mean"));
  ETKIT_ASSIGN_OR_RETURN(a.save_invstd, tensor_arg(ctx, *args[i++], "save_invstd"));
  a.out_names[0] = "out";
  a.out_names[1] = "save_mean";
  a.out_names[2] = "save_invstd";
  return batch_norm(ctx, a);
}

// (input, weight?, bias?, running_mean?, running_var?, training, momentum, eps, out, save_mean, save_invstd, ret)
Status native_batch_norm_out(KernelContext& ctx, std::span<EValue* const> args) {
  return batch_norm_training_form(ctx, args, true, true);
}

// (input, weight?, bias?, running_mean, running_var, training, momentum, eps, out, save_mean, save_invstd, ret)
Status batch_norm_legit_out(KernelContext& ctx, std::span<EValue* const> args) {
  return batch_norm_training_form(ctx, args, true, false);
}

// (input, weight?, bias?, training, momentum, eps, out, save_mean, save_invstd, ret)
Status batch_norm_legit_no_stats_out(KernelContext& ctx, std::span<EValue* const> args) {
  return batch_norm_training_form(ctx, args, false, false);
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
  ETKIT_TRY(check_normalized_shape(ctx, *input, normalized));
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
  // Once N and C equal the input's first sizes, N * C cannot overflow; HxW
  // is compared by division.
  bool matches = g.n >= 0 && g.c >= 0 && g.hxw >= 0 && input->size(0) == g.n && input->size(1) == g.c;
  if (matches) {
    const int64_t nc = g.n * g.c;
    matches = nc == 0 ? input->numel() == 0 : input->numel() % nc == 0 && input->numel() / nc == g.hxw;
  }
  if (!matches) {
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
  table.push_back({"aten::_native_batch_norm_legit.out", batch_norm_legit_out, 12, {8, 9, 10}});
  table.push_back({"aten::_native_batch_norm_legit.no_stats_out", batch_norm_legit_no_stats_out, 10, {6, 7, 8}});
  table.push_back({"aten::native_batch_norm.out", native_batch_norm_out, 12, {8, 9, 10}});
  table.push_back({"aten::native_layer_norm.out", native_layer_norm_out, 9, {5, 6, 7}});
  table.push_back({"aten::native_group_norm.out", native_group_norm_out, 12, {8, 9, 10}});
}

}  // namespace etkit::rt::kernels::linalg
