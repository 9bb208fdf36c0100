// aten::mm.out, aten::bmm.out, aten::addmm.out and aten::linear.out. float32
// goes through the blocked sgemm (operands of any strides, no copies);
// float64 and the integer dtypes run a plain loop that accumulates in double
// or int64.
#include <algorithm>

#include "runner/kernels/linalg/gemm.h"
#include "runner/kernels/linalg/linalg_ops.h"
#include "runner/kernels/linalg/linalg_util.h"

namespace etkit::rt::kernels::linalg {
namespace {

// One operand of a (batched) product: element (b, i, j) is at
// data + b*sb + i*si + j*sj.
struct Operand {
  const void* data;
  int64_t sb, si, sj;
};

Operand operand(const Tensor& t, bool batched) {
  const auto s = t.strides();
  if (batched) return {t.data(), s[0], s[1], s[2]};
  return {t.data(), 0, s[0], s[1]};
}

// The product's shape: out[b] = alpha * a[b] @ w[b] + beta * out[b].
struct Product {
  int64_t batch, m, n, k;
  double alpha = 1, beta = 0;
};

template <typename T>
void matmul_loop(const Product& p, const Operand& a, const Operand& w, T* out, int64_t sb, int64_t si, int64_t sj) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const T* pa = static_cast<const T*>(a.data);
  const T* pw = static_cast<const T*>(w.data);
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t j = 0; j < p.n; ++j) {
        Acc acc = 0;
        for (int64_t q = 0; q < p.k; ++q) {
          acc += Acc(pa[b * a.sb + i * a.si + q * a.sj]) * Acc(pw[b * w.sb + q * w.si + j * w.sj]);
        }
        T& o = out[b * sb + i * si + j * sj];
        if constexpr (std::is_floating_point_v<T>) {
          double v = p.alpha * acc;
          if (p.beta != 0) v += p.beta * double(o);  // beta == 0 ignores out, NaN included
          o = static_cast<T>(v);
        } else {  // integral alpha and beta (checked by addmm)
          int64_t v = acc * int64_t(p.alpha);
          if (p.beta != 0) v += int64_t(p.beta) * int64_t(o);
          o = static_cast<T>(v);
        }
      }
    }
  }
}

// out (already holding beta's addend when beta != 0) = alpha * a @ w + beta * out.
Status matmul(KernelContext& ctx, const Product& p, const Tensor& a, const Tensor& w, Tensor& out, bool batched) {
  const ScalarType dtype = a.dtype();
  const Operand oa = operand(a, batched), ow = operand(w, batched), oo = operand(out, batched);
  if (dtype == ScalarType::kFloat && oo.sj == 1 && (p.m <= 1 || oo.si >= p.n)) {
    for (int64_t b = 0; b < p.batch; ++b) {
      const float* ab = static_cast<const float*>(oa.data) + b * oa.sb;
      const float* wb = static_cast<const float*>(ow.data) + b * ow.sb;
      sgemm(p.m, p.n, p.k, float(p.alpha), MatrixView{ab, oa.si, oa.sj}, MatrixView{wb, ow.si, ow.sj},
            float(p.beta), out.data_as<float>() + b * oo.sb, oo.si);
    }
    return {};
  }
  bool ok = false;
  dispatch_real_and_bool(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      matmul_loop<T>(p, oa, ow, out.data_as<T>(), oo.sb, oo.si, oo.sj);
      ok = true;
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + dtype_name(dtype));
  return {};
}

Status check_dtypes(KernelContext& ctx, const Tensor& a, std::string_view a_name, const Tensor& w,
                    std::string_view w_name, const Tensor& out) {
  if (w.dtype() != a.dtype()) {
    return ctx.fail(std::string(w_name) + " dtype " + dtype_name(w.dtype()) + " does not match " + std::string(a_name) +
                    " dtype " + dtype_name(a.dtype()));
  }
  if (out.dtype() != a.dtype()) {
    return ctx.fail("out dtype " + dtype_name(out.dtype()) + " does not match " + std::string(a_name) + " dtype " +
                    dtype_name(a.dtype()));
  }
  return {};
}

// The operands' shapes, checked before out is resized so that the message
// names the real problem.
Status check_operands(KernelContext& ctx, const Tensor& a, const Tensor& w, bool batched) {
  const size_t rank = batched ? 3 : 2;
  if (a.dim() != rank || w.dim() != rank) {
    return ctx.fail("expected rank-" + std::to_string(rank) + " operands, got " + a.shape_string() + " and " +
                    w.shape_string());
  }
  const size_t base = batched ? 1 : 0;
  if (w.size(base) != a.size(base + 1) || (batched && w.size(0) != a.size(0))) {
    return ctx.fail("cannot multiply " + a.shape_string() + " by " + w.shape_string());
  }
  return {};
}

// (self, mat2, out, ret)
Status mm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[1], "mat2"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_operands(ctx, *a, *w, false));
  ETKIT_TRY(check_dtypes(ctx, *a, "self", *w, "mat2", *out));
  const int64_t shape[2] = {a->size(0), w->size(1)};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  return matmul(ctx, Product{1, a->size(0), w->size(1), a->size(1)}, *a, *w, *out, false);
}

// (self, mat2, out, ret)
Status bmm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[1], "mat2"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_operands(ctx, *a, *w, true));
  ETKIT_TRY(check_dtypes(ctx, *a, "self", *w, "mat2", *out));
  const int64_t shape[3] = {a->size(0), a->size(1), w->size(2)};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  return matmul(ctx, Product{a->size(0), a->size(1), w->size(2), a->size(2)}, *a, *w, *out, true);
}

// Copies `src`, broadcast to out's shape, into out (same dtype).
void broadcast_copy(const Tensor& src, Tensor& out) {
  const int64_t elem = int64_t(out.element_size());
  auto* dst = static_cast<uint8_t*>(out.data());
  const auto* from = static_cast<const uint8_t*>(src.data());
  for_each_element(out, src, [&](int64_t o, int64_t s) { std::memmove(dst + o * elem, from + s * elem, size_t(elem)); });
}

// (self, mat1, mat2, beta, alpha, out, ret): out = beta * self + alpha * (mat1 @ mat2),
// self broadcast to [m, n].
Status addmm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[1], "mat1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[2], "mat2"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* beta, scalar_arg(ctx, *args[3], "beta"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* alpha, scalar_arg(ctx, *args[4], "alpha"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  ETKIT_TRY(check_operands(ctx, *a, *w, false));
  ETKIT_TRY(check_dtypes(ctx, *a, "mat1", *w, "mat2", *out));
  if (self->dtype() != a->dtype()) {
    return ctx.fail("self dtype " + dtype_name(self->dtype()) + " does not match mat1 dtype " + dtype_name(a->dtype()));
  }
  const int32_t shape[2] = {a->size(0), w->size(1)};
  bool broadcasts = self->dim() <= 2;
  for (size_t d = 0; d < self->dim() && broadcasts; ++d) {
    const int32_t target = shape[2 - self->dim() + d];
    broadcasts = self->size(d) == target || self->size(d) == 1;
  }
  if (!broadcasts) {
    return ctx.fail("self " + self->shape_string() + " does not broadcast to [" + std::to_string(shape[0]) + ", " +
                    std::to_string(shape[1]) + "]");
  }
  if (!is_floating(a->dtype()) && (alpha->tag == Tag::kDouble || beta->tag == Tag::kDouble)) {
    return ctx.fail("alpha and beta must be integers for " + dtype_name(a->dtype()) + " operands");
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const double beta_value = beta->scalar_as_double();
  if (beta_value != 0) broadcast_copy(*self, *out);
  Product p{1, a->size(0), w->size(1), a->size(1)};
  p.alpha = alpha->scalar_as_double();
  p.beta = beta_value;
  return matmul(ctx, p, *a, *w, *out, false);
}

// (input, weight, bias?, out, ret): out[..., j] = sum_k input[..., k] * weight[j, k] + bias[j].
Status linear_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * input, tensor_arg(ctx, *args[0], "input"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * weight, tensor_arg(ctx, *args[1], "weight"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * bias, optional_tensor_arg(ctx, *args[2], "bias"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  if (weight->dim() != 2) return ctx.fail("weight must be 2-D (out_features, in_features), got " + weight->shape_string());
  if (input->dim() < 1) return ctx.fail("input must have at least 1 dimension, got " + input->shape_string());
  const int64_t k = weight->size(1), n = weight->size(0);
  if (input->size(input->dim() - 1) != k) {
    return ctx.fail("input " + input->shape_string() + " does not match weight " + weight->shape_string() +
                    " (in_features " + std::to_string(k) + ")");
  }
  if (bias && (bias->dim() != 1 || bias->size(0) != n)) {
    return ctx.fail("bias " + bias->shape_string() + " must be 1-D of size " + std::to_string(n));
  }
  ETKIT_TRY(check_dtypes(ctx, *input, "input", *weight, "weight", *out));
  if (bias && bias->dtype() != input->dtype()) {
    return ctx.fail("bias dtype " + dtype_name(bias->dtype()) + " does not match input dtype " + dtype_name(input->dtype()));
  }
  // Leading dims flatten into the rows of one [m, k] matrix, which needs a
  // contiguous input unless it is 2-D.
  if (input->dim() > 2 && !input->is_contiguous()) {
    return ctx.fail("input with dim order " + dim_order_string(*input) + " is not supported (contiguous only)");
  }
  Shape shape;
  for (size_t d = 0; d + 1 < input->dim(); ++d) shape.push_back(input->size(d));
  shape.push_back(n);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->dim() > 2 && !out->is_contiguous()) {
    return ctx.fail("out with dim order " + dim_order_string(*out) + " is not supported (contiguous only)");
  }
  const int64_t m = n == 0 ? 0 : out->numel() / n;
  // 2-D views: input [m, k] and out [m, n] (a 1-D input is one row); the
  // weight read transposed, [k, n].
  const auto is = input->strides();
  const auto os = out->strides();
  const bool two_d = input->dim() == 2;
  const Operand a{input->data(), 0, two_d ? is[0] : k, two_d ? is[1] : 1};
  const Operand w{weight->data(), 0, weight->strides()[1], weight->strides()[0]};
  const Operand o{out->data(), 0, out->dim() == 2 ? os[0] : n, out->dim() == 2 ? os[1] : 1};
  Product p{1, m, n, k};
  if (bias) {
    p.beta = 1;
    const int64_t elem = int64_t(out->element_size());
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        std::memmove(static_cast<uint8_t*>(out->data()) + (i * o.si + j * o.sj) * elem,
                    static_cast<const uint8_t*>(bias->data()) + j * bias->strides()[0] * elem, size_t(elem));
      }
    }
  }
  const ScalarType dtype = input->dtype();
  if (dtype == ScalarType::kFloat && o.sj == 1) {
    sgemm(m, n, k, 1.0f, MatrixView{static_cast<const float*>(a.data), a.si, a.sj},
          MatrixView{static_cast<const float*>(w.data), w.si, w.sj}, float(p.beta), out->data_as<float>(), o.si);
    return {};
  }
  bool ok = false;
  dispatch_real_and_bool(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      matmul_loop<T>(p, a, w, out->data_as<T>(), 0, o.si, o.sj);
      ok = true;
    }
  });
  if (!ok) return ctx.fail("unsupported dtype " + dtype_name(dtype));
  return {};
}

}  // namespace

void add_matmul_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::mm.out", mm_out, 4, {2}});
  table.push_back({"aten::bmm.out", bmm_out, 4, {2}});
  table.push_back({"aten::addmm.out", addmm_out, 7, {5}});
  table.push_back({"aten::linear.out", linear_out, 5, {3}});
}

}  // namespace etkit::rt::kernels::linalg
