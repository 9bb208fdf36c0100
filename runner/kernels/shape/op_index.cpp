// index.Tensor_out: PyTorch's advanced indexing, self[indices...]; its
// writing forms index_put.out / index_put_ (self[indices] = values), and
// masked_scatter.out.
//
// indices is a Tensor?[] list; entry k indexes the next dim(s) of self:
//   None          the dim is kept whole;
//   int64/int32   one dim, by value (negative counts from the end);
//   bool/uint8    a mask over as many dims as it has, equal to nonzero(mask)
//                 (one index tensor of shape [count] per masked dim).
// Dims after the last entry are kept whole. All index tensors broadcast to
// one shape B. If the indexed dims are adjacent, B replaces them in place
// (x[:, idx] of [2, 5] with idx [3] gives [2, 3]); otherwise B comes first,
// followed by the kept dims (x[idx, :, idx] of [4, 5, 6] gives [3, 5]).
// One int index tensor and no mask takes a fast path: one block copy per
// index value.
#include <algorithm>
#include <iterator>

#include "runner/kernels/shape/accumulate.h"
#include "runner/kernels/shape/shape_ops.h"

namespace etkit::rt::kernels {
namespace {

// What indexes one dim of self.
struct Slot {
  const Tensor* tensor = nullptr;  // nullptr: the dim is kept whole
  bool mask = false;
  size_t component = 0;  // masks: which dim of the mask this slot follows
  size_t cursor = 0;     // masks: its MaskCursor
};

// Finds the k-th true element of a mask (logical row-major order),
// resuming from the previous answer when k does not go backwards.
class MaskCursor {
 public:
  void reset(const Tensor& mask) {
    view_ = View::of(mask);
    count_ = 0;
    for_each_index(view_.sizes, [&](const int64_t* i) { count_ += is_set(i) ? 1 : 0; });
    rewind();
  }
  int64_t count() const { return count_; }
  // Logical coordinates of the k-th true element (k < count).
  const int64_t* find(int64_t k) {
    if (k < k_) rewind();
    while (k_ < k) {
      step();
      while (!is_set(index_)) step();
      ++k_;
    }
    return index_;
  }

 private:
  bool is_set(const int64_t* i) const { return *view_.at(offset_at(i, view_.strides)) != 0; }
  void rewind() {
    std::fill(std::begin(index_), std::end(index_), 0);
    k_ = -1;
    // Position on "before the first element": step() moves to (0, ..., 0).
    started_ = false;
  }
  void step() {
    if (!started_) {
      started_ = true;
      return;
    }
    for (size_t d = view_.rank(); d-- > 0;) {
      if (++index_[d] < view_.sizes[d]) return;
      index_[d] = 0;
    }
  }
  View view_;
  int64_t count_ = 0;
  int64_t k_ = -1;
  bool started_ = false;
  int64_t index_[kMaxRank] = {};
};

struct Plan {
  size_t rank = 0;  // of self
  Slot slots[kMaxRank];
  MaskCursor cursors[kMaxRank];
  size_t num_indexed = 0;
  size_t first = 0, last = 0;  // first and last indexed dims
  bool adjacent = true;
  Shape broadcast;  // B
  size_t b_start = 0;  // where B sits in out
};

// The shape an index slot contributes to the broadcast.
Shape slot_shape(const Plan& plan, const Slot& slot) {
  Shape s;
  if (slot.mask) {
    s.push_back(plan.cursors[slot.cursor].count());
  } else {
    for (int32_t v : slot.tensor->sizes()) s.push_back(v);
  }
  return s;
}

Status make_plan(KernelContext& ctx, const Tensor& self, std::span<Tensor* const> indices, Plan& plan) {
  plan.rank = self.dim();
  size_t used = 0, masks = 0;
  auto too_many = [&]() {
    return ctx.fail("too many indices for a tensor of rank " + std::to_string(plan.rank));
  };
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor* t = indices[k];
    if (t == nullptr) {
      if (used >= plan.rank) return too_many();
      ++used;
      continue;
    }
    const ScalarType type = t->dtype();
    if (type == ScalarType::kBool || type == ScalarType::kByte) {
      if (t->dim() == 0) return ctx.fail("indices[" + std::to_string(k) + "] is a 0-dim mask, which is not supported");
      if (used + t->dim() > plan.rank) return too_many();
      for (size_t j = 0; j < t->dim(); ++j) {
        if (t->size(j) != self.size(used + j)) {
          return ctx.fail("mask indices[" + std::to_string(k) + "] of shape " + t->shape_string() +
                          " does not match self " + self.shape_string() + " at dim " + std::to_string(used + j));
        }
      }
      plan.cursors[masks].reset(*t);
      for (size_t j = 0; j < t->dim(); ++j) plan.slots[used + j] = Slot{t, true, j, masks};
      ++masks;
      used += t->dim();
    } else if (type == ScalarType::kLong || type == ScalarType::kInt) {
      if (used >= plan.rank) return too_many();
      plan.slots[used++] = Slot{t, false, 0, 0};
    } else {
      return ctx.fail("indices[" + std::to_string(k) + "] must be an int64, int32 or bool tensor, not " + dtype_name(type));
    }
  }
  // Which dims are indexed, and are they one block?
  for (size_t d = 0; d < plan.rank; ++d) {
    if (!plan.slots[d].tensor) continue;
    if (plan.num_indexed == 0) plan.first = d;
    plan.last = d;
    ++plan.num_indexed;
  }
  if (plan.num_indexed == 0) return {};
  plan.adjacent = plan.last - plan.first + 1 == plan.num_indexed;
  // Broadcast the index shapes (right-aligned, size 1 stretches).
  for (size_t d = plan.first; d <= plan.last; ++d) {
    if (!plan.slots[d].tensor) continue;
    const Shape s = slot_shape(plan, plan.slots[d]);
    Shape& b = plan.broadcast;
    if (s.size() > b.size()) {
      Shape wider;
      for (size_t i = 0; i < s.size() - b.size(); ++i) wider.push_back(1);
      for (int64_t v : b) wider.push_back(v);
      b = wider;
    }
    const size_t shift = b.size() - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& have = b[shift + i];
      if (have == s[i] || s[i] == 1) continue;
      if (have != 1) {
        return ctx.fail("index shapes cannot be broadcast together: " + list_string(b) + " and " + list_string(s));
      }
      have = s[i];
    }
  }
  plan.b_start = plan.adjacent ? plan.first : 0;
  return {};
}

// Every int index value must be in [-size, size) for the dim it indexes.
Status check_index_values(KernelContext& ctx, const Tensor& self, const Plan& plan) {
  Status status;
  for (size_t d = 0; d < plan.rank && status; ++d) {
    const Slot& slot = plan.slots[d];
    if (!slot.tensor || slot.mask) continue;
    const View v = View::of(*slot.tensor);
    for_each_index(v.sizes, [&](const int64_t* i) {
      int64_t value = load_index(*slot.tensor, offset_at(i, v.strides));
      const int64_t original = value;
      if (status && !wrap_index(value, self.size(d))) {
        status = ctx.fail("index " + std::to_string(original) + " is out of range for dimension " + std::to_string(d) +
                          " of size " + std::to_string(self.size(d)));
      }
    });
  }
  return status;
}

// One int index tensor on dim d: out[pre, i..., post] = self[pre, idx[i...], post].
Status single_index(KernelContext& ctx, const Tensor& self, const Plan& plan, Tensor& out) {
  const size_t d = plan.first;
  const Tensor& index = *plan.slots[d].tensor;
  const View src = View::of(self), dst_all = View::of(out), idx = View::of(index);
  const size_t ir = index.dim();
  // out without the index dims [d, d + ir): the block one index value fills.
  View block = dst_all;
  block.sizes = Shape();
  block.strides = Shape();
  for (size_t k = 0; k < dst_all.rank(); ++k) {
    if (k >= d && k < d + ir) continue;
    block.sizes.push_back(dst_all.sizes[k]);
    block.strides.push_back(dst_all.strides[k]);
  }
  Status status;
  for_each_index(idx.sizes, [&](const int64_t* i) {
    if (!status) return;
    int64_t value = load_index(index, offset_at(i, idx.strides));
    wrap_index(value, self.size(d));  // checked before
    View dst = block;
    for (size_t k = 0; k < ir; ++k) dst.offset += i[k] * dst_all.strides[d + k];
    status = copy_view(ctx, dst, src.select(d, value));
  });
  return status;
}

// Offset in `target` (a view of self's shape) of the element that result
// coordinate `c` of self[indices] names.
int64_t indexed_offset(const Tensor& self, Plan& plan, const View& target, const int64_t* c) {
  const size_t nb = plan.broadcast.size();
  const int64_t* b = c + plan.b_start;  // coordinates in B
  int64_t at = target.offset;
  size_t kept = 0;  // kept dims seen so far
  for (size_t d = 0; d < plan.rank; ++d) {
    const Slot& slot = plan.slots[d];
    int64_t coord;
    if (!slot.tensor) {
      // Kept dim: its place in the result.
      if (plan.adjacent) {
        coord = d < plan.first ? c[d] : c[d - plan.num_indexed + nb];
      } else {
        coord = c[nb + kept];
      }
      ++kept;
    } else if (slot.mask) {
      MaskCursor& cursor = plan.cursors[slot.cursor];
      const int64_t k = cursor.count() == 1 ? 0 : b[nb - 1];
      coord = cursor.find(k)[slot.component];
    } else {
      const Tensor& t = *slot.tensor;
      const size_t shift = nb - t.dim();
      int64_t off = 0;
      for (size_t j = 0; j < t.dim(); ++j) {
        if (t.size(j) != 1) off += b[shift + j] * t.strides()[j];
      }
      coord = load_index(t, off);
      if (coord < 0) coord += self.size(d);
    }
    at += coord * target.strides[d];
  }
  return at;
}

// The general case: each out element looks up its source element.
void gather_elements(const Tensor& self, Plan& plan, Tensor& out) {
  const View src = View::of(self), dst = View::of(out);
  const size_t e = src.element_size;
  for_each_index(dst.sizes, [&](const int64_t* c) {
    std::memmove(dst.at(dst.offset + offset_at(c, dst.strides)), src.at(indexed_offset(self, plan, src, c)), e);
  });
}

// Int index tensors only (no mask) on adjacent dims: out[pre, b, post] =
// self[pre, idx(b), post]. The source offset of each position b of the
// broadcast B is worked out once per chunk of B and reused for every pre
// and post position, where the general loop redoes it per element (yolox's
// nearest upsampling by index, [1, 64, 26, 26] -> [1, 64, 52, 52], spent
// most of its time there).
template <typename E>
void gather_adjacent(const Tensor& self, const Plan& plan, Tensor& out) {
  const View src = View::of(self), dst = View::of(out);
  const size_t nb = plan.broadcast.size(), span = plan.last - plan.first + 1;
  Shape pre_sizes, pre_src, pre_dst, post_sizes, post_src, post_dst;
  for (size_t d = 0; d < plan.first; ++d) {
    pre_sizes.push_back(src.sizes[d]);
    pre_src.push_back(src.strides[d]);
    pre_dst.push_back(dst.strides[d]);
  }
  for (size_t d = plan.last + 1; d < plan.rank; ++d) {
    post_sizes.push_back(src.sizes[d]);
    post_src.push_back(src.strides[d]);
    post_dst.push_back(dst.strides[d - span + nb]);
  }
  const E* from = reinterpret_cast<const E*>(src.data) + src.offset;
  E* to = reinterpret_cast<E*>(dst.data) + dst.offset;
  constexpr int64_t kChunk = 256;  // offsets kept on the stack: execute() does not allocate
  int64_t src_off[kChunk], dst_off[kChunk];
  int64_t b[kMaxRank] = {};  // the next position of B, row-major
  int64_t b_numel = 1;
  for (int64_t v : plan.broadcast) b_numel *= v;
  for (int64_t start = 0; start < b_numel; start += kChunk) {
    const int64_t count = std::min(kChunk, b_numel - start);
    for (int64_t k = 0; k < count; ++k) {
      int64_t at = 0, out_at = 0;
      for (size_t d = plan.first; d <= plan.last; ++d) {
        const Tensor& t = *plan.slots[d].tensor;
        const size_t shift = nb - t.dim();
        int64_t off = 0;
        for (size_t j = 0; j < t.dim(); ++j) {
          if (t.size(j) != 1) off += b[shift + j] * t.strides()[j];
        }
        int64_t coord = load_index(t, off);
        if (coord < 0) coord += self.size(d);  // in range: checked before
        at += coord * src.strides[d];
      }
      for (size_t j = 0; j < nb; ++j) out_at += b[j] * dst.strides[plan.first + j];
      src_off[k] = at;
      dst_off[k] = out_at;
      for (size_t j = nb; j-- > 0;) {  // advance b
        if (++b[j] < plan.broadcast[j]) break;
        b[j] = 0;
      }
    }
    for_each_index(pre_sizes, [&](const int64_t* i) {
      const E* f = from + offset_at(i, pre_src);
      E* t = to + offset_at(i, pre_dst);
      if (post_sizes.size() == 0) {
        for (int64_t k = 0; k < count; ++k) t[dst_off[k]] = f[src_off[k]];
        return;
      }
      for (int64_t k = 0; k < count; ++k) {
        for_each_index(post_sizes, [&](const int64_t* q) {
          t[dst_off[k] + offset_at(q, post_dst)] = f[src_off[k] + offset_at(q, post_src)];
        });
      }
    });
  }
}

// gather_adjacent for self's element size; false for sizes it does not cover.
bool gather_adjacent_by_size(const Tensor& self, const Plan& plan, Tensor& out) {
  switch (self.element_size()) {
    case 1: gather_adjacent<uint8_t>(self, plan, out); return true;
    case 2: gather_adjacent<uint16_t>(self, plan, out); return true;
    case 4: gather_adjacent<uint32_t>(self, plan, out); return true;
    case 8: gather_adjacent<uint64_t>(self, plan, out); return true;
    default: return false;
  }
}

// The shape of self[indices] (plan.num_indexed > 0).
Result<Shape> indexed_shape(KernelContext& ctx, const Tensor& self, const Plan& plan) {
  Shape shape;
  const size_t out_rank = plan.rank - plan.num_indexed + plan.broadcast.size();
  if (out_rank > kMaxRank) return ctx.fail("the result would have rank " + std::to_string(out_rank) + ", over 16");
  if (!plan.adjacent) {
    for (int64_t v : plan.broadcast) shape.push_back(v);
  }
  for (size_t d = 0; d < plan.rank; ++d) {
    if (plan.adjacent && d == plan.first) {
      for (int64_t v : plan.broadcast) shape.push_back(v);
    }
    if (!plan.slots[d].tensor) shape.push_back(self.size(d));
  }
  return shape;
}

Result<std::span<Tensor* const>> index_list_arg(KernelContext& ctx, const EValue& list) {
  if (list.tag != Tag::kOptionalTensorList && list.tag != Tag::kTensorList) {
    return ctx.fail("indices must be a list of optional tensors, not " + std::string(tag_name(list.tag)));
  }
  return list.tensor_list;
}

// (self, indices, out, ret)
Status index_tensor_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(std::span<Tensor* const> indices, index_list_arg(ctx, *args[1]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[2], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  Plan plan;
  ETKIT_TRY(make_plan(ctx, *self, indices, plan));
  if (plan.num_indexed == 0) {  // nothing indexed: a copy
    ETKIT_TRY(resize_out(ctx, *out, self->sizes()));
    return copy_view(ctx, View::of(*out), View::of(*self));
  }
  ETKIT_TRY(check_index_values(ctx, *self, plan));
  ETKIT_ASSIGN_OR_RETURN(Shape shape, indexed_shape(ctx, *self, plan));
  ETKIT_TRY(resize_out(ctx, *out, shape));
  if (out->numel() == 0) return {};
  if (plan.num_indexed == 1 && !plan.slots[plan.first].mask) return single_index(ctx, *self, plan, *out);
  bool any_mask = false;
  for (size_t d = 0; d < plan.rank; ++d) any_mask = any_mask || (plan.slots[d].tensor && plan.slots[d].mask);
  if (plan.adjacent && !any_mask && gather_adjacent_by_size(*self, plan, *out)) return {};
  gather_elements(*self, plan, *out);
  return {};
}

// target[indices] = values (or += with accumulate), where target is self
// or an out of self's dtype that first receives a copy of self (after all
// checks, so a failed call leaves it untouched). values (self's dtype)
// broadcasts to the shape of self[indices]; with repeated indices and no
// accumulate the last write wins, as ATen's CPU loop does.
Status put_indexed(KernelContext& ctx, const Tensor& self, std::span<Tensor* const> indices, const Tensor& values,
                   bool accumulate, Tensor& target) {
  if (values.dtype() != self.dtype()) {
    return ctx.fail("values has dtype " + dtype_name(values.dtype()) + ", expected " + dtype_name(self.dtype()));
  }
  if (accumulate) ETKIT_TRY(check_can_accumulate(ctx, self.dtype()));
  Plan plan;
  ETKIT_TRY(make_plan(ctx, self, indices, plan));
  ETKIT_TRY(check_index_values(ctx, self, plan));
  Shape shape = shape_of(self);  // no index tensors: self[indices] is self
  if (plan.num_indexed > 0) {
    ETKIT_ASSIGN_OR_RETURN(shape, indexed_shape(ctx, self, plan));
  }
  View from = View::of(values);
  // Broadcast values to `shape` (right-aligned; size 1 repeats).
  if (from.rank() > shape.size()) {
    return ctx.fail("values of shape " + values.shape_string() + " cannot be broadcast to " + list_string(shape));
  }
  while (from.rank() < shape.size()) from = from.with_broadcast_dim(0, 1);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (from.sizes[d] == shape[d]) continue;
    if (from.sizes[d] != 1) {
      return ctx.fail("values of shape " + values.shape_string() + " cannot be broadcast to " + list_string(shape));
    }
    from.sizes[d] = shape[d];
    from.strides[d] = 0;
  }
  if (&target != &self) {
    ETKIT_TRY(check_same_dtype(ctx, self, target));
    ETKIT_TRY(resize_out(ctx, target, self.sizes()));
    ETKIT_TRY(copy_view(ctx, View::of(target), View::of(self)));
  }
  const View dst = View::of(target);
  const size_t e = dst.element_size;
  for_each_index(shape, [&](const int64_t* c) {
    uint8_t* to = dst.at(plan.num_indexed > 0 ? indexed_offset(self, plan, dst, c) : offset_at(c, dst.strides));
    const uint8_t* value = from.at(from.offset + offset_at(c, from.strides));
    if (accumulate) accumulate_element(dst.dtype, to, value);
    else std::memmove(to, value, e);
  });
  return {};
}

// (self, indices, values, accumulate, out, ret): out = self, then
// out[indices] = values.
Status index_put_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(std::span<Tensor* const> indices, index_list_arg(ctx, *args[1]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(ctx, *args[2], "values"));
  ETKIT_ASSIGN_OR_RETURN(bool accumulate, bool_arg(ctx, *args[3], "accumulate"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[4], "out"));
  return put_indexed(ctx, *self, indices, *values, accumulate, *out);
}

// (self, indices, values, accumulate, ret): in place on self; a return
// slot holding another tensor receives a copy of the result.
Status index_put_inplace(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(std::span<Tensor* const> indices, index_list_arg(ctx, *args[1]));
  ETKIT_ASSIGN_OR_RETURN(Tensor * values, tensor_arg(ctx, *args[2], "values"));
  ETKIT_ASSIGN_OR_RETURN(bool accumulate, bool_arg(ctx, *args[3], "accumulate"));
  ETKIT_TRY(put_indexed(ctx, *self, indices, *values, accumulate, *self));
  return copy_to_return_slot(ctx, *self, *args[4]);
}

// (self, mask, source, out, ret): self and the BOOL mask broadcast to
// out's shape; walking out in row-major order, each true mask element
// takes the next element of source (in source's row-major order), the
// others keep self's. source needs at least as many elements as the mask
// has true ones.
Status masked_scatter_out(KernelContext& ctx, std::span<EValue* const> args) {
  ETKIT_ASSIGN_OR_RETURN(Tensor * self, tensor_arg(ctx, *args[0], "self"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * mask, tensor_arg(ctx, *args[1], "mask"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * source, tensor_arg(ctx, *args[2], "source"));
  ETKIT_ASSIGN_OR_RETURN(Tensor * out, tensor_arg(ctx, *args[3], "out"));
  ETKIT_TRY(check_same_dtype(ctx, *self, *out));
  if (mask->dtype() != ScalarType::kBool) return ctx.fail("mask must be BOOL, not " + dtype_name(mask->dtype()));
  if (source->dtype() != self->dtype()) {
    return ctx.fail("source has dtype " + dtype_name(source->dtype()) + ", expected " + dtype_name(self->dtype()));
  }
  ETKIT_ASSIGN_OR_RETURN(Shape shape, broadcast_shape(ctx, self->sizes(), mask->sizes()));
  // Broadcast views of self and mask over `shape`.
  auto broadcast_to = [&](const Tensor& t) {
    View v = View::of(t);
    while (v.rank() < shape.size()) v = v.with_broadcast_dim(0, 1);
    for (size_t d = 0; d < shape.size(); ++d) {
      if (v.sizes[d] != shape[d]) {
        v.sizes[d] = shape[d];
        v.strides[d] = 0;
      }
    }
    return v;
  };
  const View base = broadcast_to(*self), flags = broadcast_to(*mask);
  int64_t needed = 0;
  for_each_index(shape, [&](const int64_t* c) { needed += *flags.at(offset_at(c, flags.strides)) != 0 ? 1 : 0; });
  if (needed > source->numel()) {
    return ctx.fail("mask has " + std::to_string(needed) + " true elements but source has only " +
                    std::to_string(source->numel()));
  }
  ETKIT_TRY(resize_out(ctx, *out, shape));
  const View dst = View::of(*out), src = View::of(*source);
  ETKIT_TRY(copy_view(ctx, dst, base));
  // Walk source in row-major order alongside.
  int64_t source_index[kMaxRank] = {};
  const size_t e = dst.element_size;
  for_each_index(shape, [&](const int64_t* c) {
    if (*flags.at(offset_at(c, flags.strides)) == 0) return;
    std::memmove(dst.at(offset_at(c, dst.strides)), src.at(offset_at(source_index, src.strides)), e);
    for (size_t d = src.rank(); d-- > 0;) {
      if (++source_index[d] < src.sizes[d]) break;
      source_index[d] = 0;
    }
  });
  return {};
}

}  // namespace

void add_index_kernels(std::vector<KernelInfo>& table) {
  table.push_back({"aten::index.Tensor_out", index_tensor_out, 4, {2}});
  table.push_back({"aten::index_put.out", index_put_out, 6, {4}});
  table.push_back({"aten::index_put_", index_put_inplace, 5, {0}});
  table.push_back({"aten::masked_scatter.out", masked_scatter_out, 5, {3}});
}

}  // namespace etkit::rt::kernels
