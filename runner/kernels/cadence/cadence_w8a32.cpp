// The Cadence flow's mixed int8-weight / float-activation ops, as
// ref_implementations.py defines them (there is no generic C++ kernel). The
// int8 weights and biases are dequantized as float(q) * float(scale) and the
// arithmetic is float:
//  * quantized_w8a32_linear: weight [in, out] (ref_implementations.py
//    transposes it; the op's meta function assumes [out, in], which only
//    agrees for square weights), input [..., 1, in] or [in]:
//    out[j] = bias[j] * b_scale + sum_i x[i] * w[i, j] * w_scale.
//  * quantized_w8a32_conv: input [N, L, C] (channels last), weight
//    [3, OC, C], stride 1, no padding; out [N, OC, L - 2] (channels first):
//    bias, then the sum over taps and input channels.
//  * quantized_w8a32_gru: one GRU cell step for batch 1: gates from
//    x W_i^T + b_i and h W_h^T + b_h (both biases scaled by b_scale), chunked
//    as (reset, update, new); h' = (1 - z) * n + z * h. inputs [1, 1, I],
//    hidden [H] with any leading 1s, H a multiple of 4; out [2, 1, 1, H]
//    holds h' twice (the output and the new hidden state).
#include <cmath>
#include <string>
#include <vector>

#include "runner/kernels/cadence/cadence_util.h"
#include "runner/kernels/kernel_util_inl.h"

namespace etkit::rt::kernels::cadence {
namespace {

Status require_dtype(KernelContext& ctx, const Tensor& t, std::string_view what, ScalarType want) {
  if (t.dtype() != want) return ctx.fail(std::string(what) + " must be " + dtype_name(want) + ", not " + dtype_name(t.dtype()));
  return require_contiguous(ctx, t, what);
}

// The dequantized values of an int8 tensor.
std::vector<float> dequantize(const Tensor& t, float scale) {
  const int8_t* q = t.data_as<int8_t>();
  std::vector<float> v(size_t(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(q[i]) * scale;
  return v;
}

// (input, weight, float w_scale, bias, float b_scale, output, ret): float
// input and output, int8 weight and bias.
struct W8A32Args {
  Tensor *input, *weight, *bias, *out;
  double w_scale, b_scale;
};

Result<W8A32Args> w8a32_args(KernelContext& ctx, std::span<EValue* const> args) {
  W8A32Args a{};
  ETKIT_ASSIGN_OR_RETURN(a.input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(a.weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(a.w_scale, double_arg(ctx, *args[2], "w_scale"));
  ETKIT_ASSIGN_OR_RETURN(a.bias, tensor_arg(ctx, *args[3], "bias"));
  ETKIT_ASSIGN_OR_RETURN(a.b_scale, double_arg(ctx, *args[4], "b_scale"));
  ETKIT_ASSIGN_OR_RETURN(a.out, tensor_arg(ctx, *args[5], "output"));
  ETKIT_TRY(require_dtype(ctx, *a.input, "input", ScalarType::kFloat));
  ETKIT_TRY(require_dtype(ctx, *a.weight, "weight", ScalarType::kChar));
  ETKIT_TRY(require_dtype(ctx, *a.bias, "bias", ScalarType::kChar));
  if (a.out->dtype() != ScalarType::kFloat) return ctx.fail("output must be FLOAT, not " + dtype_name(a.out->dtype()));
  return a;
}

Status w8a32_linear_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(W8A32Args a, w8a32_args(ctx, args));
  Tensor *input = a.input, *weight = a.weight, *bias = a.bias, *out = a.out;
  const double w_scale = a.w_scale, b_scale = a.b_scale;
  const size_t rank = input->dim();
  if (rank == 0) return ctx.fail("input must have at least one dimension");
  if (rank >= 2 && input->size(rank - 2) != 1) {
    return ctx.fail("input " + input->shape_string() + " must have 1 row (vector-matrix multiplication only)");
  }
  if (weight->dim() != 2 || weight->size(0) != input->size(rank - 1)) {
    return ctx.fail("weight " + weight->shape_string() + " must be [in, out] with in = " + std::to_string(input->size(rank - 1)));
  }
  const int64_t k = weight->size(0), m = weight->size(1);
  if (bias->numel() != m) return ctx.fail("bias " + bias->shape_string() + " must have " + std::to_string(m) + " elements");
  Shape shape = shape_of(*input);
  shape[rank - 1] = m;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "output"));
  const std::vector<float> w = dequantize(*weight, narrow_float(w_scale)), b = dequantize(*bias, narrow_float(b_scale));
  const int64_t rows = k == 0 ? 0 : input->numel() / k;
  const float* x = input->data_as<float>();
  float* y = out->data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < m; ++j) {
      float acc = b[j];
      for (int64_t i = 0; i < k; ++i) acc += x[r * k + i] * w[i * m + j];
      y[r * m + j] = acc;
    }
  }
  return {};
}

Status w8a32_conv_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(W8A32Args a, w8a32_args(ctx, args));
  Tensor *input = a.input, *weight = a.weight, *bias = a.bias, *out = a.out;
  const double w_scale = a.w_scale, b_scale = a.b_scale;
  if (input->dim() != 3) return ctx.fail("input must be [N, L, C], got " + input->shape_string());
  if (weight->dim() != 3) return ctx.fail("weight must be [3, OC, C], got " + weight->shape_string());
  const int64_t n = input->size(0), len = input->size(1), c = input->size(2);
  const int64_t taps = weight->size(0), oc = weight->size(1);
  if (taps != 3) return ctx.fail("weight " + weight->shape_string() + " must have kernel size 3");
  if (oc % 4 != 0 || c % 4 != 0) {
    return ctx.fail("weight " + weight->shape_string() + " must have output and input channels that are multiples of 4");
  }
  if (weight->size(2) != c) return ctx.fail("weight " + weight->shape_string() + " must have the input's " + std::to_string(c) + " channels");
  if (len < taps) return ctx.fail("input length " + std::to_string(len) + " is shorter than the kernel");
  if (bias->numel() != oc) return ctx.fail("bias " + bias->shape_string() + " must have " + std::to_string(oc) + " elements");
  const int64_t ol = len - taps + 1;
  Shape shape;
  for (int64_t d : {n, oc, ol}) shape.push_back(d);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "output"));
  const std::vector<float> w = dequantize(*weight, narrow_float(w_scale)), b = dequantize(*bias, narrow_float(b_scale));
  const float* x = input->data_as<float>();
  float* y = out->data_as<float>();
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t l = 0; l < ol; ++l) {
        float acc = b[o];
        for (int64_t ic = 0; ic < c; ++ic)
          for (int64_t t = 0; t < taps; ++t) acc += x[(bn * len + l + t) * c + ic] * w[(t * oc + o) * c + ic];
        y[(bn * oc + o) * ol + l] = acc;
      }
  return {};
}

float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

// (inputs, hidden, weights_inputs, float w_i_scale, weights_hidden, float
// w_h_scale, bias_inputs, float b_scale, bias_hidden, out, ret)
Status w8a32_gru_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * inputs, tensor_arg(ctx, *args[0], "inputs"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * hidden, tensor_arg(ctx, *args[1], "hidden"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * wi_t, tensor_arg(ctx, *args[2], "weights_inputs"));
  ETKIT_ASSIGN_OR_RETURN(double wi_scale, double_arg(ctx, *args[3], "w_i_scale"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * wh_t, tensor_arg(ctx, *args[4], "weights_hidden"));
  ETKIT_ASSIGN_OR_RETURN(double wh_scale, double_arg(ctx, *args[5], "w_h_scale"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bi_t, tensor_arg(ctx, *args[6], "bias_inputs"));
  ETKIT_ASSIGN_OR_RETURN(double b_scale, double_arg(ctx, *args[7], "b_scale"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bh_t, tensor_arg(ctx, *args[8], "bias_hidden"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[9], "out"));
  ETKIT_TRY(require_dtype(ctx, *inputs, "inputs", ScalarType::kFloat));
  ETKIT_TRY(require_dtype(ctx, *hidden, "hidden", ScalarType::kFloat));
  for (auto [t, name] : {std::pair{wi_t, "weights_inputs"}, std::pair{wh_t, "weights_hidden"}, std::pair{bi_t, "bias_inputs"},
                         std::pair{bh_t, "bias_hidden"}}) {
    ETKIT_TRY(require_dtype(ctx, *t, name, ScalarType::kChar));
  }
  if (out->dtype() != ScalarType::kFloat) return ctx.fail("out must be FLOAT, not " + dtype_name(out->dtype()));
  if (inputs->dim() != 3 || inputs->size(0) != 1 || inputs->size(1) != 1) {
    return ctx.fail("inputs must be [1, 1, input_size] (batch 1, one step), got " + inputs->shape_string());
  }
  if (hidden->dim() == 0) return ctx.fail("hidden must have at least one dimension");
  for (size_t d = 0; d + 1 < hidden->dim(); ++d) {
    if (hidden->size(d) != 1) return ctx.fail("hidden " + hidden->shape_string() + " must have leading dimensions of 1");
  }
  const int64_t in_size = inputs->size(2), h = hidden->size(hidden->dim() - 1);
  if (h % 4 != 0) return ctx.fail("hidden size " + std::to_string(h) + " must be a multiple of 4");
  if (wi_t->dim() != 2 || wi_t->size(0) != 3 * h || wi_t->size(1) != in_size) {
    return ctx.fail("weights_inputs " + wi_t->shape_string() + " must be [3 * " + std::to_string(h) + ", " + std::to_string(in_size) + "]");
  }
  if (wh_t->dim() != 2 || wh_t->size(0) != 3 * h || wh_t->size(1) != h) {
    return ctx.fail("weights_hidden " + wh_t->shape_string() + " must be [3 * " + std::to_string(h) + ", " + std::to_string(h) + "]");
  }
  if (bi_t->numel() != 3 * h) return ctx.fail("bias_inputs " + bi_t->shape_string() + " must have " + std::to_string(3 * h) + " elements");
  if (bh_t->numel() != 3 * h) return ctx.fail("bias_hidden " + bh_t->shape_string() + " must have " + std::to_string(3 * h) + " elements");
  Shape shape;
  for (int64_t d : {int64_t(2), int64_t(1), int64_t(1), h}) shape.push_back(d);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  ETKIT_TRY(require_contiguous(ctx, *out, "out"));
  const float bs = narrow_float(b_scale);
  const std::vector<float> wi = dequantize(*wi_t, narrow_float(wi_scale)), wh = dequantize(*wh_t, narrow_float(wh_scale));
  const std::vector<float> bi = dequantize(*bi_t, bs), bh = dequantize(*bh_t, bs);
  const float* x = inputs->data_as<float>();
  const float* hp = hidden->data_as<float>();
  std::vector<float> gi(size_t(3 * h)), gh(size_t(3 * h));
  for (int64_t j = 0; j < 3 * h; ++j) {
    float a = bi[j];
    for (int64_t i = 0; i < in_size; ++i) a += x[i] * wi[j * in_size + i];
    gi[j] = a;
    float b = bh[j];
    for (int64_t i = 0; i < h; ++i) b += hp[i] * wh[j * h + i];
    gh[j] = b;
  }
  float* y = out->data_as<float>();
  for (int64_t j = 0; j < h; ++j) {
    const float r = sigmoid(gi[j] + gh[j]);
    const float z = sigmoid(gi[h + j] + gh[h + j]);
    const float nv = std::tanh(gi[2 * h + j] + r * gh[2 * h + j]);
    y[j] = y[h + j] = (1.0f - z) * nv + z * hp[j];
  }
  return {};
}

}  // namespace

std::vector<KernelInfo> w8a32_kernels() {
  return {
      {"cadence::quantized_w8a32_linear.out", w8a32_linear_out, 7, {5}},
      {"cadence::quantized_w8a32_conv.out", w8a32_conv_out, 7, {5}},
      {"cadence::quantized_w8a32_gru.out", w8a32_gru_out, 11, {9}},
  };
}

}  // namespace etkit::rt::kernels::cadence
