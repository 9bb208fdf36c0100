// Rearranging copies: pixel_shuffle / pixel_unshuffle (channels to and
// from spatial blocks, as strided views of self) and tril (the lower
// triangle of the last two dims, the rest zeroed).
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// The trailing [C, H, W] of self plus its batch dims.
struct Image {
  View view;
  size_t c = 0;  // index of the channel dim
};

Result<Image> image_arg(KernelContext& ctx, const Tensor& self, int64_t factor, std::string_view factor_name) {
  if (self.dim() < 3) return ctx.fail("self must have at least 3 dims, got " + self.shape_string());
  if (self.dim() + 2 > kMaxRank) return ctx.fail("self of rank " + std::to_string(self.dim()) + " is too large");
  // 46340^2 < 2^31: factor^2 and the products below stay far from overflow.
  if (factor <= 0 || factor > 46340) {
    return ctx.fail(std::string(factor_name) + " must be in [1, 46340], got " + std::to_string(factor));
  }
  return Image{View::of(self), self.dim() - 3};
}

// Replaces dims [c, c + 3) of `v` with the given sizes and strides.
View with_tail(const View& v, size_t c, std::initializer_list<std::pair<int64_t, int64_t>> dims) {
  View r = v;
  r.sizes = Shape();
  r.strides = Shape();
  for (size_t d = 0; d < c; ++d) {
    r.sizes.push_back(v.sizes[d]);
    r.strides.push_back(v.strides[d]);
  }
  for (const auto& [size, stride] : dims) {
    r.sizes.push_back(size);
    r.strides.push_back(stride);
  }
  return r;
}

// (self, int upscale_factor, out, ret): [*, C r^2, H, W] -> [*, C, H r, W r]
// with out[c, h r + i, w r + j] = self[c r^2 + i r + j, h, w].
Status pixel_shuffle_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t r, int_arg(ctx, *args[1], "upscale_factor"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_ASSIGN_OR_RETURN(Image img, image_arg(ctx, *self, r, "upscale_factor"));
  const View& v = img.view;
  const size_t c = img.c;
  const int64_t channels = v.sizes[c], h = v.sizes[c + 1], w = v.sizes[c + 2];
  if (channels % (r * r) != 0) {
    return ctx.fail("channels " + std::to_string(channels) + " are not divisible by upscale_factor^2 = " +
                    std::to_string(r * r));
  }
  Shape shape = shape_of(*self);
  shape[c] = channels / (r * r);
  shape[c + 1] = h * r;  // < 2^47; resize_out rejects sizes beyond int32
  shape[c + 2] = w * r;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->numel() == 0) return {};  // then the view strides below could be huge
  const int64_t sc = v.strides[c], sh = v.strides[c + 1], sw = v.strides[c + 2];
  // Logical order [C, H, i, W, j] of self, read row-major, is out's order.
  View source = with_tail(v, c, {{channels / (r * r), sc * r * r}, {h, sh}, {r, sc * r}});
  source.sizes.push_back(w);
  source.strides.push_back(sw);
  source.sizes.push_back(r);
  source.strides.push_back(sc);
  return copy_view(ctx, View::of(*out), source);
}

// (self, int downscale_factor, out, ret): [*, C, H r, W r] -> [*, C r^2, H, W]
// with out[c r^2 + i r + j, h, w] = self[c, h r + i, w r + j].
Status pixel_unshuffle_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t r, int_arg(ctx, *args[1], "downscale_factor"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  ETKIT_ASSIGN_OR_RETURN(Image img, image_arg(ctx, *self, r, "downscale_factor"));
  const View& v = img.view;
  const size_t c = img.c;
  const int64_t channels = v.sizes[c], h = v.sizes[c + 1], w = v.sizes[c + 2];
  if (h % r != 0 || w % r != 0) {
    return ctx.fail("height " + std::to_string(h) + " and width " + std::to_string(w) +
                    " must be divisible by downscale_factor " + std::to_string(r));
  }
  Shape shape = shape_of(*self);
  shape[c] = channels * r * r;  // < 2^62; resize_out rejects sizes beyond int32
  shape[c + 1] = h / r;
  shape[c + 2] = w / r;
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const int64_t sc = v.strides[c], sh = v.strides[c + 1], sw = v.strides[c + 2];
  // Logical order [C, i, j, H, W] of self is out's order.
  View source = with_tail(v, c, {{channels, sc}, {r, sh}, {r, sw}});
  source.sizes.push_back(h / r);
  source.strides.push_back(sh * r);
  source.sizes.push_back(w / r);
  source.strides.push_back(sw * r);
  return copy_view(ctx, View::of(*out), source);
}

// (self, int diagonal, out, ret): keeps element (i, j) of the last two dims
// where j - i <= diagonal, zeroes the others.
Status tril_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(int64_t diagonal, int_arg(ctx, *args[1], "diagonal"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (self->dim() < 2) return ctx.fail("self must have at least 2 dims, got " + self->shape_string());
  ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
  const View src = View::of(*self), dst = View::of(*out);
  const size_t e = src.element_size, rank = src.rank();
  for_each_index(src.sizes, [&](const int64_t* c) {
    uint8_t* to = dst.at(offset_at(c, dst.strides));
    // j - i lies in (-2^31, 2^31): no overflow against any diagonal.
    if (c[rank - 1] - c[rank - 2] <= diagonal) std::memmove(to, src.at(offset_at(c, src.strides)), e);
    else std::memset(to, 0, e);
  });
  return {};
}

}  // namespace

void add_rearrange_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::pixel_shuffle.out", pixel_shuffle_out, 4, {2}});
  table.push_back({"aten::pixel_unshuffle.out", pixel_unshuffle_out, 4, {2}});
  table.push_back({"aten::tril.out", tril_out, 4, {2}});
}

}  // namespace etkit::rt::kernels
