// aten::_softmax.out and aten::_log_softmax.out along one dim (negative dims
// count from the end), numerically stable: each line's maximum is subtracted
// before exp. Floating dtypes; computed in float for float, half and
// bfloat16 and in double for double, like the portable kernels.
#include <cmath>

#include "runner/kernels/math/math_kernels.h"
#include "runner/kernels/math/math_util.h"

namespace etkit::rt::kernels::math {
namespace {

// Softmax or log-softmax along `dim`, computed in CT (out has self's dtype).
// Softmax computes each exp once and keeps it in out until the sum is known.
template <typename CT>
void softmax_lines(const Tensor& self, Tensor& out, size_t dim, bool log) {
  if (self.numel() == 0) return;
  const bool scalar = self.dim() == 0;
  const int64_t n = scalar ? 1 : self.size(dim);
  const int64_t step_in = scalar ? 0 : self.strides()[dim];
  const int64_t step_out = scalar ? 0 : out.strides()[dim];
  // One visit per line: iterate over every dim but `dim`.
  Shape lines = shape_of(self.sizes());
  if (!scalar) lines[dim] = 1;
  const StrideTable<2> strides = {strides_of(self), strides_of(out)};
  const Reader<CT> read(self);
  const Writer<CT> write(out);
  CT* const keep = log ? nullptr : out.data_as<CT>();
  strided_loop(lines, strides, [&](const std::array<int64_t, 2>& base) {
    CT max = read(base[0]);
    for (int64_t i = 1; i < n; ++i) {
      const CT v = read(base[0] + i * step_in);
      if (std::isnan(v) || v > max) max = v;
    }
    CT sum = 0;
    if (keep) {
      CT* line = keep + base[1];
      for (int64_t i = 0; i < n; ++i) {
        const CT e = std::exp(read(base[0] + i * step_in) - max);
        line[i * step_out] = e;
        sum += e;
      }
      for (int64_t i = 0; i < n; ++i) line[i * step_out] /= sum;
      return;
    }
    for (int64_t i = 0; i < n; ++i) sum += std::exp(read(base[0] + i * step_in) - max);
    const CT log_sum = std::log(sum);
    for (int64_t i = 0; i < n; ++i) write(base[1] + i * step_out, read(base[0] + i * step_in) - max - log_sum);
  });
}

// (self, int dim, bool half_to_float, out, ret)
KernelFn softmax(bool log) {
  return [log](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
    ETKIT_ASSIGN_OR_RETURN(bool half_to_float, bool_arg(ctx, *args[2], "half_to_float"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    // As the portable kernels (check_log_softmax_args): CPU has no such mode.
    if (half_to_float) return ctx.fail("half_to_float is not supported");
    ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, self->dim()));
    ETKIT_TRY(require_floating(ctx, *self, "self"));
    ETKIT_TRY(require_same_dtype(ctx, *self, *out));
    ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
    if (self->dtype() == ScalarType::kDouble) {
      softmax_lines<double>(*self, *out, dim, log);
    } else {
      softmax_lines<float>(*self, *out, dim, log);
    }
    return {};
  };
}

}  // namespace

void add_softmax_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::_softmax.out", softmax(false), 5, {3}});
  table.push_back({"aten::_log_softmax.out", softmax(true), 5, {3}});
}

}  // namespace etkit::rt::kernels::math
