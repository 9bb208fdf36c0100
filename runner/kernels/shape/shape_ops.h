// The shape group: views and copies, dim-order and dtype conversion,
// cat/stack/split, slicing, padding, indexing and gathers, fills. Each
// operator family (op_<family>.cpp) adds its kernels to the group's table;
// all of them move data through views (strided_copy.h), so they work for
// any dtype (bytes are copied) and any dim order on inputs and outputs.
#pragma once

#include <vector>

#include "runner/kernels/shape/strided_copy.h"

namespace etkit::rt::kernels {

void add_reshape_kernels(std::vector<KernelInfo>& table);  // view_copy, alias_copy, (un)squeeze_copy
void add_permute_kernels(std::vector<KernelInfo>& table);  // permute_copy, transpose_copy, t_copy
void add_expand_kernels(std::vector<KernelInfo>& table);   // expand_copy, repeat
void add_clone_kernels(std::vector<KernelInfo>& table);    // clone, dim-order copies, _to_copy, copy(_), _empty_dim_order, native_dropout
void add_slice_kernels(std::vector<KernelInfo>& table);    // select_copy, slice_copy, narrow_copy, *_scatter
void add_strided_view_kernels(std::vector<KernelInfo>& table);  // diagonal_copy, unfold_copy, as_strided_copy
void add_split_kernels(std::vector<KernelInfo>& table);    // split_with_sizes_copy, split_copy, unbind_copy
void add_cat_kernels(std::vector<KernelInfo>& table);      // cat, stack
void add_pad_kernels(std::vector<KernelInfo>& table);      // constant_pad_nd
void add_index_kernels(std::vector<KernelInfo>& table);    // index.Tensor, index_put(_), masked_scatter
void add_gather_kernels(std::vector<KernelInfo>& table);   // gather, scatter(_add), index_select, embedding
void add_fill_kernels(std::vector<KernelInfo>& table);     // full, zeros, ones, arange, scalar_tensor, masked_fill
void add_flip_kernels(std::vector<KernelInfo>& table);     // flip, roll
void add_pad_mode_kernels(std::vector<KernelInfo>& table);  // reflection_pad{1,2,3}d, replication_pad{1,2,3}d
void add_rearrange_kernels(std::vector<KernelInfo>& table);  // pixel_shuffle, pixel_unshuffle, tril
void add_select_dynamic_kernels(std::vector<KernelInfo>& table);  // nonzero, masked_select, repeat_interleave

// ---- Helpers shared by the families (shape_kernels.cpp) --------------------

// out must have self's dtype (the pure copies never convert). The checks
// below are inline with their messages out of line (issue #15).
[[gnu::cold]] Error dtype_mismatch_error(KernelContext& ctx, const Tensor& self, const Tensor& out);
inline Status check_same_dtype(KernelContext& ctx, const Tensor& self, const Tensor& out) {
  if (self.dtype() == out.dtype()) [[likely]] return {};
  return dtype_mismatch_error(ctx, self, out);
}

// A Tensor[] argument (no None items).
Result<std::span<Tensor* const>> tensor_list_arg(KernelContext& ctx, const EValue& v, std::string_view what);

// A MemoryFormat? argument: None, 0 (contiguous_format) or 1
// (preserve_format). Either way the kernel writes out's own dim order.
[[gnu::cold]] Error memory_format_error(KernelContext& ctx, const EValue& v);
inline Status check_memory_format(KernelContext& ctx, const EValue& v) {
  // c10::MemoryFormat: 0 Contiguous, 1 Preserve, 2 ChannelsLast, 3 ChannelsLast3d.
  if (v.is_none() || (v.tag == Tag::kInt && (v.i == 0 || v.i == 1))) [[likely]] return {};
  return memory_format_error(ctx, v);
}

// The end of an in-place kernel: a return slot holding a tensor other than
// self (the planner gave the result its own memory) receives a copy of self.
Status copy_to_return_slot(KernelContext& ctx, const Tensor& self, const EValue& ret);

// slice_scatter in place: (self, src, dim, start?, end?, step, ret), self's
// window overwritten with src (op_slice.cpp; the Cadence flow's slice_scatter_).
Status slice_scatter_in_place(KernelContext& ctx, std::span<EValue* const> args);

// Index tensors are int64 or int32.
Status check_index_dtype(KernelContext& ctx, const Tensor& index, std::string_view what);
inline int64_t load_index(const Tensor& index, int64_t offset) {
  if (index.dtype() == ScalarType::kInt) return index.data_as<int32_t>()[offset];
  return index.data_as<int64_t>()[offset];
}
// Wraps a negative index against `size`; false when out of range.
inline bool wrap_index(int64_t& index, int64_t size) {
  if (index < -size || index >= size) return false;
  if (index < 0) index += size;
  return true;
}

// The sizes of `t` as a Shape.
inline Shape shape_of(const Tensor& t) {
  Shape s;
  for (size_t d = 0; d < t.dim(); ++d) s.push_back(t.size(d));
  return s;
}

// Calls fn(index) for every logical index of `sizes` (an int64_t[rank]),
// row-major; once for rank 0, never when a size is 0.
template <typename F>
void for_each_index(const Shape& sizes, F&& fn) {
  for (int64_t s : sizes) {
    if (s == 0) return;
  }
  int64_t index[kMaxRank] = {};
  const size_t rank = sizes.size();
  for (;;) {
    fn(static_cast<const int64_t*>(index));
    size_t d = rank;
    for (;;) {
      if (d == 0) return;
      --d;
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
}

// Element offset of `index` (rank entries) in a view with `strides`.
inline int64_t offset_at(const int64_t* index, const Shape& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < strides.size(); ++d) off += index[d] * strides[d];
  return off;
}

}  // namespace etkit::rt::kernels
