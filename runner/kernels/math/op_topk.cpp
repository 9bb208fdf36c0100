// aten::topk.values: the k largest (or smallest) elements along one dim,
// with their positions. The order is total and deterministic: NaN counts
// as larger than every number (so it leads a `largest` result and trails
// a smallest one, as in PyTorch), and among equal values the lower
// position comes first. Results are always sorted; `sorted=False` allows
// any order, so sorted output satisfies it too.
// No scratch memory: each row keeps a binary heap of the k best positions
// in its own slice of the indices out, then heap-sorts it in place.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

template <typename T>
bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// x > y with NaN above every number (and NaN not above NaN).
template <typename T>
bool nan_greater(T x, T y) {
  if (is_nan_value(x)) return !is_nan_value(y);
  if (is_nan_value(y)) return false;
  return x > y;
}

// One row: `size` values read at base + i * stride, and a strided slice
// of int64 positions that holds the heap.
template <typename CT>
struct Row {
  const Reader<CT>& read;
  int64_t base, stride;
  int64_t* slots;
  int64_t slot_stride;
  bool largest;

  CT value(int64_t position) const { return read(base + position * stride); }
  int64_t& slot(int64_t j) const { return slots[j * slot_stride]; }
  // Whether position a ranks before position b in the result.
  bool before(int64_t a, int64_t b) const {
    const CT va = value(a), vb = value(b);
    if (largest ? nan_greater(va, vb) : nan_greater(vb, va)) return true;
    if (largest ? nan_greater(vb, va) : nan_greater(va, vb)) return false;
    return a < b;  // equal values (or both NaN): the lower position first
  }
  // Restores the heap below j; the root holds the entry ranked last.
  void sift_down(int64_t j, int64_t n) const {
    for (;;) {
      int64_t worst = j;
      const int64_t left = 2 * j + 1, right = left + 1;
      if (left < n && before(slot(worst), slot(left))) worst = left;
      if (right < n && before(slot(worst), slot(right))) worst = right;
      if (worst == j) return;
      std::swap(slot(j), slot(worst));
      j = worst;
    }
  }
};

// Fills slots 0..k-1 with the k best positions of 0..size-1, best first.
template <typename CT>
void select_top(const Row<CT>& row, int64_t size, int64_t k) {
  for (int64_t j = 0; j < k; ++j) row.slot(j) = j;
  for (int64_t j = k / 2; j-- > 0;) row.sift_down(j, k);
  for (int64_t position = k; position < size; ++position) {
    if (row.before(position, row.slot(0))) {
      row.slot(0) = position;
      row.sift_down(0, k);
    }
  }
  for (int64_t n = k; n-- > 1;) {  // heap sort: the worst goes to the end
    std::swap(row.slot(0), row.slot(n));
    row.sift_down(0, n);
  }
}

// (self, int k, int dim, bool largest, bool sorted, values, indices, ret)
Status topk_values(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t k, int_arg(ctx, *args[1], "k"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[2], "dim"));
  ETKIT_ASSIGN_OR_RETURN(bool largest, bool_arg(ctx, *args[3], "largest"));
  ETKIT_ASSIGN_OR_RETURN(bool sorted, bool_arg(ctx, *args[4], "sorted"));
  (void)sorted;  // the result is always sorted
  ETKIT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(ctx, *args[5], "values"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * indices, tensor_arg(ctx, *args[6], "indices"));
  ETKIT_TRY(require_same_dtype(ctx, *self, *values));
  if (indices->dtype() != ScalarType::kLong) return ctx.fail("indices must be LONG, not " + dtype_name(indices->dtype()));
  if (self->dtype() == ScalarType::kBool) return ctx.fail("self dtype BOOL is not supported");
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  const int64_t size = self->dim() == 0 ? 1 : self->size(dim);
  if (k < 0 || k > size) {
    return ctx.fail("k " + std::to_string(k) + " out of range for dim " + std::to_string(dim) + " of size " +
                    std::to_string(size));
  }
  Shape shape;
  for (size_t d = 0; d < self->dim(); ++d) shape.push_back(d == dim ? k : self->size(d));
  ETKIT_TRY(resize_out(ctx, *values, shape));
  ETKIT_TRY(resize_out(ctx, *indices, shape));
  if (values->numel() == 0) return {};
  // Iterate over every index of the other dims (dim itself held at 0).
  Shape outer = shape;
  StrideTable<3> strides = {strides_of(*self), strides_of(*values), strides_of(*indices)};
  int64_t self_stride = 0, values_stride = 0, indices_stride = 0;
  if (self->dim() > 0) {
    outer[dim] = 1;
    self_stride = strides[0][dim];
    values_stride = strides[1][dim];
    indices_stride = strides[2][dim];
  }
  // A 0-dim self has one element, which the 0-dim outs always receive (as
  // ExecuTorch's topk does, whatever k).
  const int64_t picks = self->dim() == 0 ? 1 : k;
  return dispatch_compute(ctx, self->dtype(), [&](auto tag) {
    using CT = decltype(tag);
    const Reader<CT> read(*self);
    const Writer<CT> write(*values);
    int64_t* positions = indices->data_as<int64_t>();
    strided_loop(outer, strides, [&](const std::array<int64_t, 3>& off) {
      const Row<CT> row{read, off[0], self_stride, positions + off[2], indices_stride, largest};
      select_top(row, size, picks);
      for (int64_t j = 0; j < picks; ++j) write(off[1] + j * values_stride, row.value(row.slot(j)));
    });
  });
}

}  // namespace

void add_topk_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::topk.values", topk_values, 8, {5, 6}});
}

}  // namespace etkit::rt::kernels::math
