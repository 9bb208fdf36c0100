// The operator registration an ExecuTorch build normally generates with
// torchgen (Python and PyTorch, which this machine does not have), written by
// hand for the operators the fixtures' portable programs call: one boxed
// wrapper per operator, registered under the name and overload the program's
// operator table spells. Each wrapper does what the generated one does at
// ExecuTorch cff6f4d (codegen/gen.py): check the stack's size (arguments plus
// the returned value; 0.x stacks have none to check), open the event tracer's "native_call_<op>" scope, call
// the portable `*_out` function with the unboxed arguments, then hand the out
// arguments to the tracer. Compiled only by scripts/build_official_runner.sh,
// against the user's checkout; no ExecuTorch code is in this repository.
#include <executorch/runtime/core/event_tracer_hooks.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <tuple>
#include <type_traits>

namespace torch::executor::native {

using executorch::aten::ArrayRef;
using executorch::aten::MemoryFormat;
using executorch::aten::OptionalArrayRef;
using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;
using IntArrayRef = ArrayRef<int64_t>;

// The portable operators' signatures (kernels/portable/cpu/op_*.cpp; the
// generated NativeFunctions.h would declare them).
Tensor& add_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Scalar&, Tensor&);
Tensor& sub_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Scalar&, Tensor&);
Tensor& mul_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor&);
Tensor& div_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor&);
Tensor& mm_out(KernelRuntimeContext&, const Tensor&, const Tensor&, Tensor&);
Tensor& where_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Tensor&, Tensor&);
Tensor& addmm_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&,
                  Tensor&);
Tensor& convolution_out(KernelRuntimeContext&, const Tensor&, const Tensor&, const std::optional<Tensor>&,
                        IntArrayRef, IntArrayRef, IntArrayRef, bool, IntArrayRef, int64_t, Tensor&);
std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(KernelRuntimeContext&, const Tensor&, IntArrayRef,
                                                         IntArrayRef, IntArrayRef, IntArrayRef, bool, Tensor&,
                                                         Tensor&);
Tensor& relu_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& neg_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& exp_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& sigmoid_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& alias_copy_out(KernelRuntimeContext&, const Tensor&, Tensor&);
Tensor& clone_out(KernelRuntimeContext&, const Tensor&, std::optional<MemoryFormat>, Tensor&);
Tensor& full_like_out(KernelRuntimeContext&, const Tensor&, const Scalar&, std::optional<MemoryFormat>, Tensor&);
Tensor& scalar_tensor_out(KernelRuntimeContext&, const Scalar&, Tensor&);
Tensor& eq_scalar_out(KernelRuntimeContext&, const Tensor&, const Scalar&, Tensor&);
Tensor& ne_scalar_out(KernelRuntimeContext&, const Tensor&, const Scalar&, Tensor&);
Tensor& softmax_out(KernelRuntimeContext&, const Tensor&, int64_t, bool, Tensor&);
Tensor& log_softmax_out(KernelRuntimeContext&, const Tensor&, int64_t, bool, Tensor&);
Tensor& mean_dim_out(KernelRuntimeContext&, const Tensor&, std::optional<IntArrayRef>, bool,
                     std::optional<ScalarType>, Tensor&);
Tensor& sum_dim_out(KernelRuntimeContext&, const Tensor&, std::optional<IntArrayRef>, bool,
                    std::optional<ScalarType>, Tensor&);
Tensor& argmax_out(KernelRuntimeContext&, const Tensor&, std::optional<int64_t>, bool, Tensor&);
Tensor& permute_copy_out(KernelRuntimeContext&, const Tensor&, IntArrayRef, Tensor&);
Tensor& view_copy_out(KernelRuntimeContext&, const Tensor&, IntArrayRef, Tensor&);
Tensor& expand_copy_out(KernelRuntimeContext&, const Tensor&, IntArrayRef, bool, Tensor&);
Tensor& squeeze_copy_dims_out(KernelRuntimeContext&, const Tensor&, IntArrayRef, Tensor&);
Tensor& unsqueeze_copy_out(KernelRuntimeContext&, const Tensor&, int64_t, Tensor&);
Tensor& gather_out(KernelRuntimeContext&, const Tensor&, int64_t, const Tensor&, bool, Tensor&);
Tensor& scatter_value_out(KernelRuntimeContext&, const Tensor&, int64_t, const Tensor&, const Scalar&, Tensor&);
Tensor& _to_dim_order_copy_out(KernelRuntimeContext&, const Tensor&, bool, OptionalArrayRef<int64_t>, Tensor&);

}  // namespace torch::executor::native

namespace {

namespace native = torch::executor::native;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::internal::event_tracer_log_evalue;
using executorch::runtime::internal::EventTracerProfileOpScope;

// The boxed stack is whatever the checkout's OpFunction takes: a Span since
// 1.0, a bare EValue** in 0.x (whose generated wrappers had no size to check).
template <typename F>
struct StackOf;
template <typename R, typename Context, typename S>
struct StackOf<R (*)(Context, S)> {
  using type = S;
};
using Stack = StackOf<executorch::runtime::OpFunction>::type;

// A program whose instruction has another argument count than the schema is
// refused through the context, as the generated wrapper's check does.
template <typename S>
bool arity(KernelRuntimeContext& ctx, S stack, size_t expected) {
  if constexpr (std::is_pointer_v<S>) {
    return true;
  } else {
    if (stack.size() == expected) return true;
    ctx.fail(Error::InvalidProgram);
    return false;
  }
}

void log_outputs(KernelRuntimeContext& ctx, Stack stack, std::initializer_list<size_t> outs) {
  for (size_t i : outs) event_tracer_log_evalue(ctx.internal_event_tracer(), *stack[i]);
}

// One wrapper per operator: N is the stack size, NAME the scope's event name,
// CALL the call of the portable function on `s` (the stack), then the out
// argument positions. The outputs are logged before the scope closes, as in
// the generated wrapper, so a logged tensor's copy is part of the op's time.
#define ETKIT_WRAPPER(fn, N, NAME, CALL, ...)                               \
  void fn(KernelRuntimeContext& ctx, Stack s) {                             \
    if (!arity(ctx, s, N)) return;                                          \
    EventTracerProfileOpScope scope(ctx.internal_event_tracer(), NAME);     \
    CALL;                                                                   \
    log_outputs(ctx, s, {__VA_ARGS__});                                     \
  }

ETKIT_WRAPPER(add_out, 5, "native_call_add.out",
              native::add_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toScalar(), s[3]->toTensor()), 3)
ETKIT_WRAPPER(sub_out, 5, "native_call_sub.out",
              native::sub_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toScalar(), s[3]->toTensor()), 3)
ETKIT_WRAPPER(mul_out, 4, "native_call_mul.out",
              native::mul_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(div_out, 4, "native_call_div.out",
              native::div_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(mm_out, 4, "native_call_mm.out",
              native::mm_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(where_out, 5, "native_call_where.self_out",
              native::where_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toTensor(), s[3]->toTensor()), 3)
ETKIT_WRAPPER(addmm_out, 7, "native_call_addmm.out",
              native::addmm_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toTensor(), s[3]->toScalar(),
                                s[4]->toScalar(), s[5]->toTensor()),
              5)
ETKIT_WRAPPER(convolution_out, 11, "native_call_convolution.out",
              native::convolution_out(ctx, s[0]->toTensor(), s[1]->toTensor(), s[2]->toOptional<executorch::aten::Tensor>(),
                                      s[3]->toIntList(), s[4]->toIntList(), s[5]->toIntList(), s[6]->toBool(),
                                      s[7]->toIntList(), s[8]->toInt(), s[9]->toTensor()),
              9)
ETKIT_WRAPPER(max_pool2d_with_indices_out, 9, "native_call_max_pool2d_with_indices.out",
              native::max_pool2d_with_indices_out(ctx, s[0]->toTensor(), s[1]->toIntList(), s[2]->toIntList(),
                                                  s[3]->toIntList(), s[4]->toIntList(), s[5]->toBool(),
                                                  s[6]->toTensor(), s[7]->toTensor()),
              6, 7)
ETKIT_WRAPPER(relu_out, 3, "native_call_relu.out", native::relu_out(ctx, s[0]->toTensor(), s[1]->toTensor()), 1)
ETKIT_WRAPPER(neg_out, 3, "native_call_neg.out", native::neg_out(ctx, s[0]->toTensor(), s[1]->toTensor()), 1)
ETKIT_WRAPPER(exp_out, 3, "native_call_exp.out", native::exp_out(ctx, s[0]->toTensor(), s[1]->toTensor()), 1)
ETKIT_WRAPPER(sigmoid_out, 3, "native_call_sigmoid.out", native::sigmoid_out(ctx, s[0]->toTensor(), s[1]->toTensor()),
              1)
ETKIT_WRAPPER(alias_copy_out, 3, "native_call_alias_copy.out",
              native::alias_copy_out(ctx, s[0]->toTensor(), s[1]->toTensor()), 1)
ETKIT_WRAPPER(clone_out, 4, "native_call_clone.out",
              native::clone_out(ctx, s[0]->toTensor(), s[1]->toOptional<executorch::aten::MemoryFormat>(),
                                s[2]->toTensor()),
              2)
ETKIT_WRAPPER(full_like_out, 5, "native_call_full_like.out",
              native::full_like_out(ctx, s[0]->toTensor(), s[1]->toScalar(),
                                    s[2]->toOptional<executorch::aten::MemoryFormat>(), s[3]->toTensor()),
              3)
ETKIT_WRAPPER(scalar_tensor_out, 3, "native_call_scalar_tensor.out",
              native::scalar_tensor_out(ctx, s[0]->toScalar(), s[1]->toTensor()), 1)
ETKIT_WRAPPER(eq_scalar_out, 4, "native_call_eq.Scalar_out",
              native::eq_scalar_out(ctx, s[0]->toTensor(), s[1]->toScalar(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(ne_scalar_out, 4, "native_call_ne.Scalar_out",
              native::ne_scalar_out(ctx, s[0]->toTensor(), s[1]->toScalar(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(softmax_out, 5, "native_call__softmax.out",
              native::softmax_out(ctx, s[0]->toTensor(), s[1]->toInt(), s[2]->toBool(), s[3]->toTensor()), 3)
ETKIT_WRAPPER(log_softmax_out, 5, "native_call__log_softmax.out",
              native::log_softmax_out(ctx, s[0]->toTensor(), s[1]->toInt(), s[2]->toBool(), s[3]->toTensor()), 3)
ETKIT_WRAPPER(mean_dim_out, 6, "native_call_mean.out",
              native::mean_dim_out(ctx, s[0]->toTensor(), s[1]->toOptional<executorch::aten::ArrayRef<int64_t>>(),
                                   s[2]->toBool(), s[3]->toOptional<executorch::aten::ScalarType>(), s[4]->toTensor()),
              4)
ETKIT_WRAPPER(sum_dim_out, 6, "native_call_sum.IntList_out",
              native::sum_dim_out(ctx, s[0]->toTensor(), s[1]->toOptional<executorch::aten::ArrayRef<int64_t>>(),
                                  s[2]->toBool(), s[3]->toOptional<executorch::aten::ScalarType>(), s[4]->toTensor()),
              4)
ETKIT_WRAPPER(argmax_out, 5, "native_call_argmax.out",
              native::argmax_out(ctx, s[0]->toTensor(), s[1]->toOptional<int64_t>(), s[2]->toBool(),
                                 s[3]->toTensor()),
              3)
ETKIT_WRAPPER(permute_copy_out, 4, "native_call_permute_copy.out",
              native::permute_copy_out(ctx, s[0]->toTensor(), s[1]->toIntList(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(view_copy_out, 4, "native_call_view_copy.out",
              native::view_copy_out(ctx, s[0]->toTensor(), s[1]->toIntList(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(expand_copy_out, 5, "native_call_expand_copy.out",
              native::expand_copy_out(ctx, s[0]->toTensor(), s[1]->toIntList(), s[2]->toBool(), s[3]->toTensor()),
              3)
ETKIT_WRAPPER(squeeze_copy_dims_out, 4, "native_call_squeeze_copy.dims_out",
              native::squeeze_copy_dims_out(ctx, s[0]->toTensor(), s[1]->toIntList(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(unsqueeze_copy_out, 4, "native_call_unsqueeze_copy.out",
              native::unsqueeze_copy_out(ctx, s[0]->toTensor(), s[1]->toInt(), s[2]->toTensor()), 2)
ETKIT_WRAPPER(gather_out, 6, "native_call_gather.out",
              native::gather_out(ctx, s[0]->toTensor(), s[1]->toInt(), s[2]->toTensor(), s[3]->toBool(),
                                 s[4]->toTensor()),
              4)
ETKIT_WRAPPER(scatter_value_out, 6, "native_call_scatter.value_out",
              native::scatter_value_out(ctx, s[0]->toTensor(), s[1]->toInt(), s[2]->toTensor(), s[3]->toScalar(),
                                        s[4]->toTensor()),
              4)
ETKIT_WRAPPER(to_dim_order_copy_out, 5, "native_call__to_dim_order_copy.out",
              native::_to_dim_order_copy_out(ctx, s[0]->toTensor(), s[1]->toBool(),
                                             s[2]->toOptional<executorch::aten::ArrayRef<int64_t>>(), s[3]->toTensor()),
              3)

#undef ETKIT_WRAPPER

const Kernel kKernels[] = {
    Kernel("aten::add.out", add_out),
    Kernel("aten::sub.out", sub_out),
    Kernel("aten::mul.out", mul_out),
    Kernel("aten::div.out", div_out),
    Kernel("aten::mm.out", mm_out),
    Kernel("aten::where.self_out", where_out),
    Kernel("aten::addmm.out", addmm_out),
    Kernel("aten::convolution.out", convolution_out),
    Kernel("aten::max_pool2d_with_indices.out", max_pool2d_with_indices_out),
    Kernel("aten::relu.out", relu_out),
    Kernel("aten::neg.out", neg_out),
    Kernel("aten::exp.out", exp_out),
    Kernel("aten::sigmoid.out", sigmoid_out),
    Kernel("aten::alias_copy.out", alias_copy_out),
    Kernel("aten::clone.out", clone_out),
    Kernel("aten::full_like.out", full_like_out),
    Kernel("aten::scalar_tensor.out", scalar_tensor_out),
    Kernel("aten::eq.Scalar_out", eq_scalar_out),
    Kernel("aten::ne.Scalar_out", ne_scalar_out),
    Kernel("aten::_softmax.out", softmax_out),
    Kernel("aten::_log_softmax.out", log_softmax_out),
    Kernel("aten::mean.out", mean_dim_out),
    Kernel("aten::sum.IntList_out", sum_dim_out),
    Kernel("aten::argmax.out", argmax_out),
    Kernel("aten::permute_copy.out", permute_copy_out),
    Kernel("aten::view_copy.out", view_copy_out),
    Kernel("aten::expand_copy.out", expand_copy_out),
    Kernel("aten::squeeze_copy.dims_out", squeeze_copy_dims_out),
    Kernel("aten::unsqueeze_copy.out", unsqueeze_copy_out),
    Kernel("aten::gather.out", gather_out),
    Kernel("aten::scatter.value_out", scatter_value_out),
    Kernel("dim_order_ops::_to_dim_order_copy.out", to_dim_order_copy_out),
};

// Registered during static initialisation, before executor_runner's main, as
// the generated registration is.
const Error kRegistered = executorch::runtime::register_kernels({kKernels, sizeof(kKernels) / sizeof(kKernels[0])});

}  // namespace
