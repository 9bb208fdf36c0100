// aten::cumsum.out: running sums along one dim, accumulated in out's
// computation type (self is converted to `dtype` first when one is given).
#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// Calls line(base_self, base_out, n, step_self, step_out) for every line
// along `dim`.
template <typename F>
void for_each_line(const Tensor& self, const Tensor& out, size_t dim, F&& line) {
  if (self.numel() == 0) return;
  const bool scalar = self.dim() == 0;
  Shape lines = shape_of(self.sizes());
  if (!scalar) lines[dim] = 1;
  const StrideTable<2> strides = {strides_of(self), strides_of(out)};
  const int64_t n = scalar ? 1 : self.size(dim);
  const int64_t si = scalar ? 0 : self.strides()[dim], so = scalar ? 0 : out.strides()[dim];
  strided_loop(lines, strides, [&](const std::array<int64_t, 2>& base) { line(base[0], base[1], n, si, so); });
}

// (self, int dim, ScalarType? dtype, out, ret)
Status cumsum_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_ASSIGN_OR_RETURN(std::optional<ScalarType> dtype, dtype_arg(ctx, *args[2]));
  if (dtype && *dtype != out->dtype()) {
    return ctx.fail("dtype " + dtype_name(*dtype) + " does not match out dtype " + dtype_name(out->dtype()));
  }
  if (!dtype) ETKIT_TRY(check_can_store(ctx, self->dtype(), *out));
  ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  if (is_integral(out->dtype(), false)) {
    const Reader<int64_t> read(*self);
    const Writer<int64_t> write(*out);
    for_each_line(*self, *out, dim, [&](int64_t bi, int64_t bo, int64_t n, int64_t si, int64_t so) {
      uint64_t acc = 0;  // wraps like PyTorch's integer sums
      for (int64_t k = 0; k < n; ++k) {
        acc += static_cast<uint64_t>(read(bi + k * si));
        write(bo + k * so, static_cast<int64_t>(acc));
      }
    });
    return {};
  }
  return dispatch_compute(ctx, out->dtype(), [&](auto tag) {
    using ACC = decltype(tag);
    const Reader<ACC> read(*self);
    const Writer<ACC> write(*out);
    for_each_line(*self, *out, dim, [&](int64_t bi, int64_t bo, int64_t n, int64_t si, int64_t so) {
      ACC acc{};
      for (int64_t k = 0; k < n; ++k) {
        if constexpr (std::is_same_v<ACC, bool>) acc = acc || read(bi + k * si);
        else acc += read(bi + k * si);
        write(bo + k * so, acc);
      }
    });
  });
}

}  // namespace

void add_cumsum_kernels(std::vector<KernelInfo>& table) { table.push_back({"aten::cumsum.out", cumsum_out, 5, {3}}); }

}  // namespace etkit::rt::kernels::math
