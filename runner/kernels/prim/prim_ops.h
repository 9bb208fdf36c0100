// The prim group's operator families (kernels/prim_ops/register_prim_ops.cpp
// in ExecuTorch), each adding its kernels to the table. Prim ops are
// functional: the last slot receives the result (scalar ops overwrite the
// placeholder EValue there), except et_copy_index, which has no result slot.
#pragma once

#include <vector>

#include "runner/kernel_registry.h"

// A nested namespace: other groups have their own add_*_kernels.
namespace etkit::rt::kernels::prim {

void add_tensor_query_kernels(std::vector<KernelInfo>& table);  // sym_size, sym_numel, _local_scalar_dense
void add_scalar_kernels(std::vector<KernelInfo>& table);        // executorch_prim::*.Scalar / *.int
void add_view_kernels(std::vector<KernelInfo>& table);          // et_view, et_copy_index

// Writes a result into the slot `out` (the placeholder the program stores
// there is replaced). Fails if that slot holds a tensor or list, which the
// method still owns.
Status set_int(KernelContext& ctx, EValue& out, int64_t value);
Status set_double(KernelContext& ctx, EValue& out, double value);
Status set_bool(KernelContext& ctx, EValue& out, bool value);

}  // namespace etkit::rt::kernels::prim
