// A loaded method: every value materialised, planned tensors placed in their
// arenas exactly where the program says (aliasing included), constants
// pointing into the program, kernels and backends resolved, argument lists
// built. Executing it does no lookups (executor.h).
//
// Memory: arenas are zero-filled, 64-byte aligned blocks, one per
// non_const_buffer_sizes[1..]; unplanned tensors get a runtime buffer of
// their declared (upper-bound) size. Together they must fit
// LoadOptions::memory_limit. The Program must outlive the method.
//
// What the file cannot be trusted with is checked here, once: every size in
// checked arithmetic, every planned offset inside its arena and aligned for
// its dtype, constants never written (kernel out arguments, delegate
// outputs and method inputs that are constants are refused), and a bound on
// the instructions one execution may run.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"
#include "runner/backend.h"
#include "runner/buffer.h"
#include "runner/evalue.h"
#include "runner/kernel_registry.h"

namespace etkit::rt {

// External constants (.ptd), looked up by fully qualified name.
class ExternalData {
 public:
  virtual ~ExternalData() = default;
  struct Entry {
    ByteSpan bytes;
    int8_t scalar_type = 0;
    std::vector<int32_t> sizes;
    std::vector<uint8_t> dim_order;
  };
  virtual const Entry* find(std::string_view key) const = 0;
};

// Default bound on the memory a method allocates (arenas plus unplanned
// tensors); constants stay in the program file and do not count.
inline constexpr uint64_t kDefaultMemoryLimit = uint64_t(4) << 30;

struct LoadOptions {
  const KernelRegistry* kernels = nullptr;    // default: the portable kernels
  const BackendRegistry* backends = nullptr;  // default: none
  const ExternalData* external_data = nullptr;
  uint64_t memory_limit = kDefaultMemoryLimit;
};

struct CompiledInstruction {
  enum class Kind : uint8_t { kKernel, kDelegate, kMove, kJumpFalse, kFree };
  Kind kind = Kind::kKernel;
  const KernelInfo* kernel = nullptr;
  std::string event_name;  // "native_call_add.out" (empty for prim ops)
  std::string op_name;     // "aten::add.out", for messages
  std::vector<EValue*> args;
  // Logged as intermediate outputs: a kernel's out arguments (which must
  // never be constants), every argument of a delegate call.
  std::vector<EValue*> logged_outputs;
  size_t delegate = 0;
  int32_t a = 0, b = 0;  // move from/to, jump cond/destination, free value
};

class LoadedMethod {
 public:
  const pte::ExecutionPlan& plan() const { return *plan_; }
  const std::string& name() const { return plan_->name; }
  size_t num_inputs() const { return plan_->inputs.size(); }
  size_t num_outputs() const { return plan_->outputs.size(); }
  EValue& input(size_t i) { return values_[size_t(plan_->inputs[i])]; }
  const EValue& input(size_t i) const { return values_[size_t(plan_->inputs[i])]; }
  const EValue& output(size_t i) const { return values_[size_t(plan_->outputs[i])]; }
  std::span<EValue> values() { return values_; }
  // Bytes of planned memory (the arenas).
  uint64_t arena_bytes() const;
  // Instructions over all chains, as the program lists them.
  size_t instruction_count() const;

  // Copies `bytes` into input i (a tensor), resizing it to `sizes` first.
  Status set_input_tensor(size_t i, ScalarType dtype, std::span<const int32_t> sizes, ByteSpan bytes);
  // Sets a scalar input (Int/Double/Bool), which must match the traced value.
  Status set_input_scalar(size_t i, const EValue& value);

 private:
  friend Result<std::unique_ptr<LoadedMethod>> load_method(const pte::Program&, std::string_view,
                                                           const LoadOptions&);
  friend class Executor;
  LoadedMethod() = default;
  const pte::ExecutionPlan* plan_ = nullptr;
  std::vector<EValue> values_;
  std::deque<Tensor> tensors_;
  std::deque<std::vector<Tensor*>> tensor_lists_;
  std::vector<Buffer> memory_;  // arenas and runtime buffers
  std::vector<uint64_t> arena_sizes_;
  std::vector<std::vector<CompiledInstruction>> chains_;
  std::vector<std::shared_ptr<void>> delegate_handles_;
  std::vector<Backend*> delegate_backends_;
  std::unique_ptr<KernelContext> context_;
  // FreeCalls: tensors released during the current execution. Only methods
  // with a FreeCall pay for checking their arguments against it.
  bool has_free_calls_ = false;
  std::vector<Tensor*> released_;
};

// Fails with one message listing every missing operator, or naming the
// backend and instruction of a delegate that is not registered.
Result<std::unique_ptr<LoadedMethod>> load_method(const pte::Program& program, std::string_view method_name,
                                                  const LoadOptions& options = {});

}  // namespace etkit::rt
