// aten::mm.out, aten::bmm.out, aten::addmm.out on float32 (through sgemm)
// and, for exactness on other real dtypes, a plain loop in the dtype.
#include "runner/kernels/elementwise.h"
#include "runner/kernels/linalg/gemm.h"
#include "runner/kernels/linalg/linalg_ops.h"

namespace etkit::rt::kernels {
namespace {

MatrixView view2d(const Tensor& t, size_t row_dim, size_t col_dim, int64_t offset = 0) {
  return MatrixView{t.data_as<float>() + offset, t.strides()[row_dim], t.strides()[col_dim]};
}

// out[b] = alpha * a[b] @ w[b] (+ beta * out[b], out already holding self).
template <typename T>
void matmul_loop(const Tensor& a, const Tensor& w, Tensor& out, int64_t batch, int64_t m, int64_t n, int64_t k,
                 double alpha, double beta, bool batched) {
  const size_t base = batched ? 1 : 0;
  for (int64_t bi = 0; bi < batch; ++bi) {
    const int64_t oa = batched ? bi * a.strides()[0] : 0, ow = batched ? bi * w.strides()[0] : 0;
    const int64_t oo = batched ? bi * out.strides()[0] : 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        T acc{};
        for (int64_t p = 0; p < k; ++p) {
          acc = static_cast<T>(acc + a.data_as<T>()[oa + i * a.strides()[base] + p * a.strides()[base + 1]] *
                                         w.data_as<T>()[ow + p * w.strides()[base] + j * w.strides()[base + 1]]);
        }
        T& o = out.data_as<T>()[oo + i * out.strides()[base] + j * out.strides()[base + 1]];
        o = static_cast<T>(beta * double(o) + alpha * double(acc));
      }
    }
  }
}

Status matmul(KernelContext& ctx, const Tensor& a, const Tensor& w, Tensor& out, double alpha, double beta, bool batched) {
  // Shapes were checked by check_operands.
  const size_t base = batched ? 1 : 0;
  const int64_t batch = batched ? a.size(0) : 1;
  const int64_t m = a.size(base), k = a.size(base + 1), n = w.size(base + 1);
  if (a.dtype() != w.dtype() || a.dtype() != out.dtype()) {
    return ctx.fail("operands and out must have one dtype, got " + std::string(scalar_type_name(int(a.dtype()))) + ", " +
                    std::string(scalar_type_name(int(w.dtype()))) + " and " + std::string(scalar_type_name(int(out.dtype()))));
  }
  if (a.dtype() == ScalarType::kFloat && out.is_contiguous()) {
    for (int64_t bi = 0; bi < batch; ++bi) {
      const int64_t oa = batched ? bi * a.strides()[0] : 0, ow = batched ? bi * w.strides()[0] : 0;
      sgemm(m, n, k, float(alpha), view2d(a, base, base + 1, oa), view2d(w, base, base + 1, ow), float(beta),
            out.data_as<float>() + bi * m * n, n);
    }
    return {};
  }
  bool ok = dispatch_real_and_bool(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) matmul_loop<T>(a, w, out, batch, m, n, k, alpha, beta, batched);
  });
  if (!ok || a.dtype() == ScalarType::kBool) return ctx.fail("unsupported dtype " + std::string(scalar_type_name(int(a.dtype()))));
  return {};
}

// The operands' shapes, checked before out is resized so that the message
// names the real problem.
Status check_operands(KernelContext& ctx, const Tensor& a, const Tensor& w, bool batched) {
  const size_t rank = batched ? 3 : 2;
  if (a.dim() != rank || w.dim() != rank) {
    return ctx.fail("expected rank-" + std::to_string(rank) + " operands, got " + a.shape_string() + " and " + w.shape_string());
  }
  const size_t base = batched ? 1 : 0;
  if (w.size(base) != a.size(base + 1) || (batched && w.size(0) != a.size(0))) {
    return ctx.fail("cannot multiply " + a.shape_string() + " by " + w.shape_string());
  }
  return {};
}

Status mm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[1], "mat2"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_operands(ctx, *a, *w, false));
  {
    const int64_t shape[2] = {a->size(0), w->size(1)};
    ETKIT_TRY(resize_out(ctx, *out, shape));
  }
  return matmul(ctx, *a, *w, *out, 1.0, 0.0, false);
}

Status bmm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[1], "mat2"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_operands(ctx, *a, *w, true));
  {
    const int64_t shape[3] = {a->size(0), a->size(1), w->size(2)};
    ETKIT_TRY(resize_out(ctx, *out, shape));
  }
  return matmul(ctx, *a, *w, *out, 1.0, 0.0, true);
}

// out = beta * self + alpha * (mat1 @ mat2), self broadcast to [m, n].
Status addmm_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[1], "mat1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * w, tensor_arg(ctx, *args[2], "mat2"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* beta, scalar_arg(ctx, *args[3], "beta"));
  ETKIT_ASSIGN_OR_RETURN(const EValue* alpha, scalar_arg(ctx, *args[4], "alpha"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[5], "out"));
  ETKIT_TRY(check_operands(ctx, *a, *w, false));
  const int64_t shape[2] = {a->size(0), w->size(1)};
  ETKIT_TRY(resize_out(ctx, *out, shape));
  // out <- self broadcast to [m, n], then out = beta * out + alpha * mat1 @ mat2.
  ETKIT_ASSIGN_OR_RETURN(auto bshape, broadcast_shape(ctx, self->sizes(), out->sizes()));
  if (bshape.size() != 2 || bshape[0] != shape[0] || bshape[1] != shape[1]) {
    return ctx.fail("self " + self->shape_string() + " does not broadcast to " + out->shape_string());
  }
  if (self->dtype() != out->dtype()) return ctx.fail("self and out must have one dtype");
  const size_t elem = out->element_size();
  for_each_element(*out, *self, [&](int64_t o, int64_t s) {
    std::memcpy(static_cast<uint8_t*>(out->data()) + o * int64_t(elem), static_cast<const uint8_t*>(self->data()) + s * int64_t(elem), elem);
  });
  return matmul(ctx, *a, *w, *out, alpha->scalar_as_double(), beta->scalar_as_double(), false);
}

}  // namespace

void linalg::add_matmul_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::mm.out", mm_out, 4, {2}});
  table.push_back({"aten::bmm.out", bmm_out, 4, {2}});
  table.push_back({"aten::addmm.out", addmm_out, 7, {5}});
}

}  // namespace etkit::rt::kernels
