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

// Where `part` (rank <= out's, contiguous, at least two elements) sits in
// out when its dims of size > 1 are a run of out's dims, from dim k to dim
// l - 1 aligned at the right, and every other dim of part has size 1: then
// part's element c covers `inner` consecutive elements of out (the product
// of out's dims from l on), `row` (= part's numel) of them in turn, repeated
// along out's leading dims. inner is 1 for a row ([N, C] + [C]), H * W for
// a per-channel operand ([C, 1, 1] against [N, C, H, W]); 0 when part does
// not sit in out this way.
struct Placement {
  int64_t row = 0;
  int64_t inner = 0;
};

Placement placement_in(const Tensor& part, const Tensor& out) {
  if (part.dim() > out.dim() || part.numel() < 2 || !identity_order(part)) return {};
  const size_t offset = out.dim() - part.dim();
  size_t k = 0, l = part.dim();
  while (part.size(k) == 1) ++k;  // numel >= 2: some dim is larger
  while (part.size(l - 1) == 1) --l;
  for (size_t d = k; d < l; ++d) {
    if (part.size(d) != out.size(offset + d)) return {};
  }
  int64_t inner = 1;
  for (size_t d = offset + l; d < out.dim(); ++d) inner *= out.size(d);
  return {part.numel(), inner};
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
  if (a_like && !overlaps(b, out)) {
    const Placement p = placement_in(b, out);
    if (p.inner == 1) return {DenseBinary::kRowB, p.row};
    if (p.inner > 1) return {DenseBinary::kChannelB, p.row, p.inner};
  }
  if (b_like && !overlaps(a, out)) {
    const Placement p = placement_in(a, out);
    if (p.inner == 1) return {DenseBinary::kRowA, p.row};
    if (p.inner > 1) return {DenseBinary::kChannelA, p.row, p.inner};
  }
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
