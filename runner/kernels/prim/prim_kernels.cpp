#include "runner/kernels/kernel_groups.h"
#include "runner/kernels/prim/prim_ops.h"

namespace etkit::rt::kernels {
namespace prim {
namespace {

Status writable_slot(KernelContext& ctx, const EValue& out) {
  if (out.tag == Tag::kNone || out.is_scalar()) return {};
  return ctx.fail("the result slot holds a " + std::string(tag_name(out.tag)) + ", not a scalar");
}

}  // namespace

Status set_int(KernelContext& ctx, EValue& out, int64_t value) {
  ETKIT_TRY(writable_slot(ctx, out));
  out = EValue{};
  out.tag = Tag::kInt;
  out.i = value;
  return {};
}

Status set_double(KernelContext& ctx, EValue& out, double value) {
  ETKIT_TRY(writable_slot(ctx, out));
  out = EValue{};
  out.tag = Tag::kDouble;
  out.d = value;
  return {};
}

Status set_bool(KernelContext& ctx, EValue& out, bool value) {
  ETKIT_TRY(writable_slot(ctx, out));
  out = EValue{};
  out.tag = Tag::kBool;
  out.b = value;
  return {};
}

}  // namespace prim

std::vector<KernelInfo> prim_kernels() {
  std::vector<KernelInfo> table;
  prim::add_tensor_query_kernels(table);
  prim::add_scalar_kernels(table);
  prim::add_view_kernels(table);
  return table;
}

}  // namespace etkit::rt::kernels
