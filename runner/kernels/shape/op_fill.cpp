// Tensors made from scalars: full, full_like, zeros, ones (and _like),
// fill, empty, scalar_tensor, arange, masked_fill; and the random fills
// rand / randn. A fill value is
// converted to out's dtype once (scalar_bytes: out-of-range values and
// fractional values for integer dtypes are errors), then copied bytewise.
#include <cmath>
#include <random>

#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// Sizes as int64 (a size argument) or int32 (another tensor's, used as they
// are rather than copied into a Shape).
template <typename Int>
Status fill_out(KernelContext& ctx, Tensor& out, std::span<const Int> sizes, const EValue& value,
                std::string_view what) {
  ElementBytes bytes;
  if (!float_scalar_bytes(value, out.dtype(), bytes)) {
    ETKIT_ASSIGN_OR_RETURN(bytes, scalar_bytes(ctx, value, out.dtype(), what));
  }
  ETKIT_TRY(resize_out(ctx, out, sizes));
  if (out.is_contiguous()) {
    fill_elements(static_cast<uint8_t*>(out.data()), out.numel(), out.element_size(), bytes);  // no view to build
  } else {
    fill_view(View::of(out), bytes);
  }
  return {};
}

EValue int_scalar(int64_t v) {
  EValue e;
  e.tag = Tag::kInt;
  e.i = v;
  return e;
}

// (size, fill_value, out, ret)
Status full_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[0], "size"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  return fill_out<int64_t>(ctx, *out, size, *args[1], "fill_value");
}

// zeros.out / ones.out: (size, out, ret)
KernelFn constant_out(int64_t value) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[0], "size"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
    return fill_out<int64_t>(ctx, *out, size, int_scalar(value), "value");
  };
}

// (self, fill_value, memory_format?, out, ret)
Status full_like_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_TRY(check_memory_format(ctx, *args[2]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return fill_out(ctx, *out, self->sizes(), *args[1], "fill_value");
}

// zeros_like.out / ones_like.out: (self, memory_format?, out, ret)
KernelFn constant_like_out(int64_t value) {
  return [=](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
    ETKIT_TRY(check_memory_format(ctx, *args[1]));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
    return fill_out(ctx, *out, self->sizes(), int_scalar(value), "value");
  };
}

// fill.Scalar_out: (self, value, out, ret)
Status fill_scalar_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  return fill_out(ctx, *out, self->sizes(), *args[1], "value");
}

// fill.Tensor_out: (self, value, out, ret) with a 0-dim value tensor.
Status fill_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * value, tensor_arg(ctx, *args[1], "value"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (value->dim() != 0) return ctx.fail("value must be a 0-dim tensor, got " + value->shape_string());
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  View src = View::of(*value);
  const View dst = View::of(*out);
  for (size_t d = 0; d < dst.rank(); ++d) src = src.with_broadcast_dim(d, dst.sizes[d]);
  return copy_view(ctx, dst, src);
}

// empty.out: (size, memory_format?, out, ret): resized, contents left as they are.
Status empty_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(auto size, ctx.int_list(*args[0], "size"));
  ETKIT_TRY(check_memory_format(ctx, *args[1]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  return resize_out(ctx, *out, size);
}

// (s, out, ret): out is 0-dim.
Status scalar_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  return fill_out<int64_t>(ctx, *out, {}, *args[0], "s");
}

// arange: values start, start + step, ... below end (above it for a
// negative step). All-integer arguments count exactly in int64; otherwise
// the length is ceil((end - start) / step) in double. An integer out takes
// start and step truncated to integers, as PyTorch's int64 accumulation.
Status arange(KernelContext& ctx, const EValue& start_v, const EValue& end_v, const EValue& step_v, Tensor& out) {
  for (auto [v, name] : {std::pair{&start_v, "start"}, std::pair{&end_v, "end"}, std::pair{&step_v, "step"}}) {
    ETKIT_TRY(scalar_arg(ctx, *v, name));
  }
  const bool integers = start_v.tag != Tag::kDouble && end_v.tag != Tag::kDouble && step_v.tag != Tag::kDouble;
  const double start = start_v.scalar_as_double(), end = end_v.scalar_as_double(), step = step_v.scalar_as_double();
  if (step == 0) return ctx.fail("step must be nonzero");
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) return ctx.fail("start, end and step must be finite");
  if ((step > 0 && end < start) || (step < 0 && end > start)) {
    return ctx.fail("the range from start to end goes against the sign of step");
  }
  int64_t n;
  if (integers) {
    const int64_t s = start_v.tag == Tag::kBool ? int64_t(start_v.b) : start_v.i;
    const int64_t e = end_v.tag == Tag::kBool ? int64_t(end_v.b) : end_v.i;
    const int64_t st = step_v.tag == Tag::kBool ? int64_t(step_v.b) : step_v.i;
    n = (e - s + st - (st > 0 ? 1 : -1)) / st;
  } else {
    const double count = std::ceil((end - start) / step);
    if (count > double(INT32_MAX)) return ctx.fail("the range holds too many elements");
    n = int64_t(count);
  }
  const int64_t sizes[1] = {n};
  ETKIT_TRY(resize_out(ctx, out, sizes));
  const ScalarType type = out.dtype();
  const int64_t stride = out.dim() == 1 ? out.strides()[0] : 1;
  // store_as's conversions, with the dtype dispatched once rather than per
  // element (which made yolox's 26-element aranges 3.8x ExecuTorch's).
  auto fill = [&](auto value_of) {
    dispatch_all_types(type, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
          store_from_double<T>(out.data(), i * stride, double(value_of(i)));
        } else {
          static_cast<T*>(out.data())[i * stride] = static_cast<T>(value_of(i));
        }
      }
    });
  };
  if (is_floating(type)) {
    fill([&](int64_t i) { return start + double(i) * step; });
  } else {
    const int64_t s = int64_t(start), st = int64_t(step);
    fill([&](int64_t i) { return s + i * st; });
  }
  return {};
}

// arange.out: (end, out, ret)
Status arange_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
  return arange(ctx, int_scalar(0), *args[0], int_scalar(1), *out);
}

// arange.start_out: (start, end, step, out, ret)
Status arange_start_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  return arange(ctx, *args[0], *args[1], *args[2], *out);
}

// masked_fill.Scalar_out: (self, mask, value, out, ret): out = where(mask,
// value, self), self and mask broadcast together.
Status masked_fill_scalar_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(ctx, *args[1], "mask"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (mask->dtype() != ScalarType::kBool) return ctx.fail("mask must be a bool tensor, not " + dtype_name(mask->dtype()));
  ETKIT_ASSIGN_OR_RETURN(ElementBytes value, scalar_bytes(ctx, *args[2], out->dtype(), "value"));
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, self->sizes(), mask->sizes()));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View src = View::of(*self), dst = View::of(*out), m = View::of(*mask);
  const size_t e = dst.element_size;
  for_each_broadcast(*out, *self, *mask, [&](int64_t o, int64_t s, int64_t k) {
    std::memmove(dst.at(o), *m.at(k) != 0 ? value.bytes : src.at(s), e);
  });
  return {};
}

// (size, out, ret): rand (uniform in [0, 1)) and randn (standard normal),
// floating outs only. As ExecuTorch's op_rand/op_randn, each call draws
// from a Mersenne Twister seeded by std::random_device, so results differ
// between runs (ATen's random stream cannot be reproduced anyway).
KernelFn random_fill(bool normal) {
  return [normal](KernelContext& ctx, std::span<EValue* const> args) -> Status {
    ETKIT_ASSIGN_OR_RETURN(std::span<const int64_t> size, ctx.int_list(*args[0], "size"));
    ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[1], "out"));
    if (!is_floating(out->dtype())) return ctx.fail("out must be floating point, not " + dtype_name(out->dtype()));
    for (int64_t s : size) {
      if (s < 0) return ctx.fail("size " + list_string(size) + " has a negative entry");
    }
    ETKIT_TRY(resize_out(ctx, *out, size));
    std::mt19937 gen{std::random_device{}()};
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    std::normal_distribution<double> gaussian(0.0, 1.0);
    const View v = View::of(*out);
    const ScalarType t = out->dtype();
    // The largest value below 1 in out's dtype: narrowing may round a
    // uniform draw just below 1 up to 1, which rand must not return.
    const double below_one = t == ScalarType::kHalf       ? 1 - std::ldexp(1.0, -11)
                             : t == ScalarType::kBFloat16 ? 1 - std::ldexp(1.0, -8)
                             : t == ScalarType::kFloat    ? double(std::nextafter(1.0f, 0.0f))
                                                          : std::nextafter(1.0, 0.0);
    for_each_index(v.sizes, [&](const int64_t* c) {
      const int64_t at = offset_at(c, v.strides);
      store_as<double>(t, out->data(), at, normal ? gaussian(gen) : uniform(gen));
      if (!normal && load_as<double>(t, out->data(), at) >= 1.0) store_as<double>(t, out->data(), at, below_one);
    });
    return {};
  };
}

}  // namespace

void add_fill_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::full.out", full_out, 4, {2}});
  table.push_back({"aten::full_like.out", full_like_out, 5, {3}});
  table.push_back({"aten::zeros.out", constant_out(0), 3, {1}});
  table.push_back({"aten::ones.out", constant_out(1), 3, {1}});
  table.push_back({"aten::zeros_like.out", constant_like_out(0), 4, {2}});
  table.push_back({"aten::ones_like.out", constant_like_out(1), 4, {2}});
  table.push_back({"aten::fill.Scalar_out", fill_scalar_out, 4, {2}});
  table.push_back({"aten::fill.Tensor_out", fill_tensor_out, 4, {2}});
  table.push_back({"aten::empty.out", empty_out, 4, {2}});
  table.push_back({"aten::scalar_tensor.out", scalar_tensor_out, 3, {1}});
  table.push_back({"aten::arange.out", arange_out, 3, {1}});
  table.push_back({"aten::arange.start_out", arange_start_out, 5, {3}});
  table.push_back({"aten::masked_fill.Scalar_out", masked_fill_scalar_out, 5, {3}});
  table.push_back({"aten::rand.out", random_fill(false), 3, {1}});
  table.push_back({"aten::randn.out", random_fill(true), 3, {1}});
}

}  // namespace etkit::rt::kernels
