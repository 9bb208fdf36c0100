#include "runner/kernels/elementwise.h"

namespace etkit::rt::kernels {

namespace {

// Whether t's bytes and out's bytes overlap.
bool overlaps(const Tensor& t, const Tensor& out) {
  const auto* p = static_cast<const uint8_t*>(t.data());
  const auto* q = static_cast<const uint8_t*>(out.data());
  return p < q + out.nbytes() && q < p + t.nbytes();
}

bool identity_order(const Tensor& t) { return t.is_contiguous(); }

// Whether `row` (rank <= out's, contiguous) holds exactly out's trailing
// dims after its leading size-1 dims, with at least two elements.
bool is_row_of(const Tensor& row, const Tensor& out) {
  if (row.dim() > out.dim() || row.numel() < 2 || !identity_order(row)) return false;
  const size_t offset = out.dim() - row.dim();
  size_t d = 0;
  while (d < row.dim() && row.size(d) == 1) ++d;
  for (; d < row.dim(); ++d) {
    if (row.size(d) != out.size(offset + d)) return false;
  }
  return true;
}

}  // namespace

DenseLayout dense_binary_layout(const Tensor& a, const Tensor& b, const Tensor& out) {
  const bool a_like = same_layout(a, out), b_like = same_layout(b, out);
  if (a_like && b_like) return {DenseBinary::kSame, 0};
  // Broadcasting a single element keeps the other operand's shape only when
  // its rank is not larger.
  if (a_like && b.numel() == 1 && b.dim() <= a.dim() && !overlaps(b, out)) return {DenseBinary::kScalarB, 0};
  if (b_like && a.numel() == 1 && a.dim() <= b.dim() && !overlaps(a, out)) return {DenseBinary::kScalarA, 0};
  if (!identity_order(out)) return {};
  if (a_like && is_row_of(b, out) && !overlaps(b, out)) return {DenseBinary::kRowB, b.numel()};
  if (b_like && is_row_of(a, out) && !overlaps(a, out)) return {DenseBinary::kRowA, a.numel()};
  return {};
}

Status prepare_binary(KernelContext& ctx, const Tensor& a, const Tensor& b, Tensor& out, ScalarType compute) {
  ETKIT_ASSIGN_OR_RETURN(auto shape, broadcast_shape(ctx, a.sizes(), b.sizes()));
  ETKIT_TRY(resize_out(ctx, out, shape));
  if (!can_cast(compute, out.dtype())) {
    return ctx.fail("result type " + std::string(scalar_type_name(int(compute))) + " cannot be stored in out of type " +
                    std::string(scalar_type_name(int(out.dtype()))));
  }
  return {};
}

}  // namespace etkit::rt::kernels
