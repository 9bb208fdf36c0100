// aten::_softmax.out and aten::_log_softmax.out along one dim, numerically
// stable (the maximum is subtracted first), for float and double.
#include <cmath>

#include "runner/kernels/elementwise.h"
#include "runner/kernels/math/math_ops.h"

namespace etkit::rt::kernels {
namespace {

KernelFn softmax(bool log) {
  return [log](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * a, tensor_arg(ctx, *args[0], "self"));
    ETKIT_ASSIGN_OR_RETURN(int64_t dim_value, int_arg(ctx, *args[1], "dim"));
    ETKIT_ASSIGN_OR_RETURN(bool half_to_float, bool_arg(ctx, *args[2], "half_to_float"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
    if (half_to_float) return ctx.fail("half_to_float is not supported");
    ETKIT_ASSIGN_OR_RETURN(size_t dim, dim_arg(ctx, dim_value, a->dim()));
    ETKIT_TRY(resize_out(ctx, *out, a->sizes()));
    if (!is_floating(a->dtype()) || out->dtype() != a->dtype()) return ctx.fail("self and out must be one floating-point dtype");
    if (a->numel() == 0) return {};
    const int64_t n = a->dim() == 0 ? 1 : a->size(dim);
    const int64_t sa = a->dim() == 0 ? 0 : a->strides()[dim], so = out->dim() == 0 ? 0 : out->strides()[dim];
    // Visit each line along `dim` once, from its first element.
    const int64_t lines = a->numel() / n;
    int64_t index[kMaxRank] = {};
    for (int64_t line = 0; line < lines; ++line) {
      int64_t base_a = 0, base_o = 0;
      for (size_t d = 0; d < a->dim(); ++d) {
        base_a += index[d] * a->strides()[d];
        base_o += index[d] * out->strides()[d];
      }
      double max = -INFINITY;
      for (int64_t i = 0; i < n; ++i) max = std::max(max, load_as<double>(a->dtype(), a->data(), base_a + i * sa));
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) sum += std::exp(load_as<double>(a->dtype(), a->data(), base_a + i * sa) - max);
      for (int64_t i = 0; i < n; ++i) {
        const double x = load_as<double>(a->dtype(), a->data(), base_a + i * sa) - max;
        store_as<double>(out->dtype(), out->data(), base_o + i * so, log ? x - std::log(sum) : std::exp(x) / sum);
      }
      // Next line: odometer over every dim except `dim`.
      for (size_t d = a->dim(); d-- > 0;) {
        if (d == dim) continue;
        if (++index[d] < a->size(d)) break;
        index[d] = 0;
      }
    }
    return {};
  };
}

}  // namespace

void add_softmax_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::_softmax.out", softmax(false), 5, {3}});
  table.push_back({"aten::_log_softmax.out", softmax(true), 5, {3}});
}

}  // namespace etkit::rt::kernels
