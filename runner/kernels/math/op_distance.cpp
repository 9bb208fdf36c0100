// Pairwise p-norm distances: _pdist_forward (between the rows of one [N, M]
// matrix, i < j in row-major order) and _cdist_forward (between the rows
// of x1 [*, P, M] and x2 [*, R, M], batch dims broadcast). p = 0 counts
// the differing coordinates, p = inf takes the largest difference, other
// p use (sum |d|^p)^(1/p), with 1 and 2 as plain sums (op_cdist_forward.cpp's
// norms). Floating inputs only; computed in float for float/half, double
// for double.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// |a - b| folded into a p-norm accumulator, and the final value.
template <typename T>
struct Norm {
  double p;
  T map(T diff) const {
    if (p == 0) return diff != 0 ? T(1) : T(0);
    if (p == 1 || std::isinf(p)) return diff;
    if (p == 2) return diff * diff;
    return std::pow(diff, static_cast<T>(p));
  }
  T reduce(T acc, T v) const { return std::isinf(p) ? std::max(acc, v) : acc + v; }
  T finish(T acc) const {
    if (p == 0 || p == 1 || std::isinf(p)) return acc;
    if (p == 2) return std::sqrt(acc);
    return std::pow(acc, static_cast<T>(1.0 / p));
  }
};

Result<double> p_arg(KernelContext& ctx, const EValue& v) {
  ETKIT_ASSIGN_OR_RETURN(double p, double_arg(ctx, v, "p"));
  if (!(p >= 0)) return ctx.fail("p must be non-negative, got " + std::to_string(p));
  return p;
}

// Distance between `m` coordinates read at a + k * sa and b + k * sb.
template <typename T>
T distance(const Reader<T>& ra, int64_t a, int64_t sa, const Reader<T>& rb, int64_t b, int64_t sb, int64_t m,
           const Norm<T>& norm) {
  T acc = 0;
  for (int64_t k = 0; k < m; ++k) acc = norm.reduce(acc, norm.map(std::abs(ra(a + k * sa) - rb(b + k * sb))));
  return norm.finish(acc);
}

// (self, float p, out, ret)
Status pdist_forward_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(double p, p_arg(ctx, *args[1]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(require_floating(ctx, *self, "self"));
  ETKIT_TRY(require_same_dtype(ctx, *self, *out));
  if (self->dim() != 2) return ctx.fail("self must have 2 dims, got " + self->shape_string());
  const int64_t n = self->size(0), m = self->size(1);
  const int64_t pairs[1] = {n < 2 ? 0 : n * (n - 1) / 2};  // n < 2^31: no overflow
  ETKIT_TRY(resize_out(ctx, *out, pairs));
  const int64_t s0 = self->strides()[0], s1 = self->strides()[1], so = out->dim() ? out->strides()[0] : 0;
  return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const Reader<T> read(*self);
      const Writer<T> write(*out);
      const Norm<T> norm{p};
      int64_t k = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j, ++k) write(k * so, distance(read, i * s0, s1, read, j * s0, s1, m, norm));
      }
    }
  });
}

// (x1, x2, float p, int? compute_mode, out, ret); compute_mode only picks
// an algorithm in ATen and does not change the result's meaning.
Status cdist_forward_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * x1, tensor_arg(ctx, *args[0], "x1"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * x2, tensor_arg(ctx, *args[1], "x2"));
  ETKIT_ASSIGN_OR_RETURN(double p, p_arg(ctx, *args[2]));
  if (!args[3]->is_none()) {
    ETKIT_ASSIGN_OR_RETURN(int64_t mode, int_arg(ctx, *args[3], "compute_mode"));
    (void)mode;
  }
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  ETKIT_TRY(require_floating(ctx, *x1, "x1"));
  if (x2->dtype() != x1->dtype()) return ctx.fail("x2 dtype " + dtype_name(x2->dtype()) + " differs from x1's");
  ETKIT_TRY(require_same_dtype(ctx, *x1, *out));
  if (x1->dim() < 2 || x2->dim() < 2) return ctx.fail("x1 and x2 must have at least 2 dims");
  const int64_t m = x1->size(x1->dim() - 1);
  if (x2->size(x2->dim() - 1) != m) {
    return ctx.fail("x1 " + x1->shape_string() + " and x2 " + x2->shape_string() + " differ in their last dim");
  }
  const int64_t rows1 = x1->size(x1->dim() - 2), rows2 = x2->size(x2->dim() - 2);
  // Broadcast the batch dims.
  const auto sizes1 = x1->sizes().first(x1->dim() - 2), sizes2 = x2->sizes().first(x2->dim() - 2);
  ETKIT_ASSIGN_OR_RETURN(Shape batch, broadcast_shape(ctx, sizes1, sizes2));
  Shape shape = batch;
  shape.push_back(rows1);
  shape.push_back(rows2);
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->numel() == 0) return {};
  // Batch strides of each tensor over `batch` (0 where broadcast).
  auto batch_strides = [&](const Tensor& t) {
    std::array<int64_t, kMaxRank> s{};
    const size_t tb = t.dim() - 2, shift = batch.size() - tb;
    for (size_t d = 0; d < tb; ++d) s[shift + d] = t.size(d) == 1 && batch[shift + d] != 1 ? 0 : t.strides()[d];
    return s;
  };
  const StrideTable<3> strides = {batch_strides(*x1), batch_strides(*x2), strides_of(*out)};
  const int64_t a0 = x1->strides()[x1->dim() - 2], a1 = x1->strides()[x1->dim() - 1];
  const int64_t b0 = x2->strides()[x2->dim() - 2], b1 = x2->strides()[x2->dim() - 1];
  const int64_t o0 = out->strides()[out->dim() - 2], o1 = out->strides()[out->dim() - 1];
  return dispatch_compute(ctx, x1->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const Reader<T> r1(*x1), r2(*x2);
      const Writer<T> write(*out);
      const Norm<T> norm{p};
      strided_loop(batch, strides, [&](const std::array<int64_t, 3>& off) {
        for (int64_t i = 0; i < rows1; ++i) {
          for (int64_t j = 0; j < rows2; ++j) {
            write(off[2] + i * o0 + j * o1, distance(r1, off[0] + i * a0, a1, r2, off[1] + j * b0, b1, m, norm));
          }
        }
      });
    }
  });
}

}  // namespace

void add_distance_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::_pdist_forward.out", pdist_forward_out, 4, {2}});
  table.push_back({"aten::_cdist_forward.out", cdist_forward_out, 6, {4}});
}

}  // namespace etkit::rt::kernels::math
