#include "runner/executor.h"

#include "runner/kernels/kernel_util.h"

namespace etkit::rt {
namespace {

std::string at_instruction(const LoadedMethod& m, size_t chain, size_t pc) {
  return "method '" + m.name() + "'.chains[" + std::to_string(chain) + "].instructions[" + std::to_string(pc) + "]";
}

// A JumpFalseCall condition: a Bool, or a BOOL tensor that is true only when
// all its elements are.
Result<bool> condition(const EValue& v) {
  if (v.tag == Tag::kBool) return v.b;
  if (v.tag == Tag::kTensor && v.tensor->dtype() == ScalarType::kBool) {
    const void* p = v.tensor->data();
    if (p == nullptr && v.tensor->numel() > 0) return Error{ErrorKind::kRuntime, {}, {}, "condition tensor has no data"};
    for (int64_t i = 0; i < v.tensor->numel(); ++i) {
      if (!kernels::load_bool(p, i)) return false;
    }
    return true;
  }
  return Error{ErrorKind::kRuntime, {}, {}, "condition must be a Bool or a BOOL tensor, not " + std::string(tag_name(v.tag))};
}

Error bad_program(const LoadedMethod& m, size_t chain, size_t pc, std::string message) {
  return Error{ErrorKind::kBadInput, {}, at_instruction(m, chain, pc), std::move(message)};
}

// What an instruction may not be given, which only shows at run time (a
// MoveCall can hand any value to any slot): a tensor a FreeCall released,
// or a constant as the memory a kernel writes.
Status check_arguments(const LoadedMethod& m, const CompiledInstruction& instr, bool check_released, size_t chain,
                       size_t pc) {
  if (check_released) {
    for (const EValue* arg : instr.args) {
      if (holds_released(*arg)) return bad_program(m, chain, pc, "uses a tensor after a FreeCall released it");
    }
  }
  if (instr.kind == CompiledInstruction::Kind::kKernel) {
    for (const EValue* out : instr.logged_outputs) {
      if (holds_read_only(*out)) return bad_program(m, chain, pc, instr.op_name + " would write into a constant of the program");
    }
  }
  return {};
}

}  // namespace

Status Executor::execute(LoadedMethod& method, EventTracer* tracer, const ExecuteLimits& limits) {
  for (Tensor* t : method.released_) t->set_released(false);
  method.released_.clear();
  const bool check_released = method.has_free_calls_;
  const bool timed = limits.timeout.count() > 0;
  // The clock is read only for a deadline: at ~22 ns a read costs more than
  // an untraced instruction does (docs/performance.md).
  const auto deadline =
      timed ? std::chrono::steady_clock::now() + limits.timeout : std::chrono::steady_clock::time_point{};
  const bool log_intermediates = tracer && tracer->debug_level() >= DebugLevel::kIntermediateOutputs;
  uint64_t execute_start = 0;
  if (tracer) {
    tracer->create_block("Execute");
    execute_start = EventTracer::ticks();
  }
  KernelContext& ctx = *method.context_;
  uint64_t executed = 0;
  for (size_t c = 0; c < method.chains_.size(); ++c) {
    const auto& chain = method.chains_[c];
    const int32_t chain_id = static_cast<int32_t>(c);
    size_t pc = 0;
    while (pc < chain.size()) {
      if (++executed > limits.max_instructions) {
        return Error{ErrorKind::kRuntime, {}, at_instruction(method, c, pc),
                     "more than " + std::to_string(limits.max_instructions) + " instructions executed (endless loop?)"};
      }
      if (timed && std::chrono::steady_clock::now() > deadline) {
        return Error{ErrorKind::kRuntime, {}, at_instruction(method, c, pc),
                     "execution exceeded its time limit after " + std::to_string(executed - 1) + " instructions"};
      }
      if (tracer && tracer->over_limit()) {
        return Error{ErrorKind::kRuntime, {}, at_instruction(method, c, pc),
                     "the ETDump would exceed its size limit of " + std::to_string(tracer->max_bytes()) + " bytes"};
      }
      const CompiledInstruction& instr = chain[pc];
      if (instr.kind == CompiledInstruction::Kind::kKernel || instr.kind == CompiledInstruction::Kind::kDelegate) {
        ETKIT_TRY(check_arguments(method, instr, check_released, c, pc));
      }
      const int32_t id = static_cast<int32_t>(pc);
      size_t next = pc + 1;
      const uint64_t start = tracer ? EventTracer::ticks() : 0;
      // A kernel's event and its OPERATOR_CALL share their clock reads:
      // nothing of the instruction runs between the two starts or the two
      // ends, and a read costs about 22 ns here (docs/performance.md).
      uint64_t kernel_end = 0;
      const char* scope = nullptr;
      switch (instr.kind) {
        case CompiledInstruction::Kind::kKernel: {
          scope = "OPERATOR_CALL";
          ctx.begin_call(instr.op_name);
          Status status = instr.kernel->fn(ctx, instr.args);
          // Outputs are logged inside the kernel's scope, even on failure.
          if (log_intermediates && !instr.kernel->prim) {
            for (const EValue* out : instr.logged_outputs) tracer->log_value(chain_id, id, *out, false);
          }
          if (tracer) {
            kernel_end = EventTracer::ticks();
            if (!instr.kernel->prim) tracer->profile(instr.event_name, chain_id, id, start, kernel_end);
          }
          if (!status) {
            if (tracer) tracer->profile(scope, chain_id, id, start, kernel_end);
            return std::move(status).error().in(at_instruction(method, c, pc));
          }
          break;
        }
        case CompiledInstruction::Kind::kDelegate: {
          scope = "DELEGATE_CALL";
          Status status = method.delegate_backends_[instr.delegate]->execute(
              method.delegate_handles_[instr.delegate].get(), instr.args, DelegateCallContext{tracer, chain_id, id});
          if (log_intermediates) {
            for (const EValue* arg : instr.logged_outputs) tracer->log_value(chain_id, id, *arg, false);
          }
          if (!status) {
            if (tracer) tracer->profile(scope, chain_id, id, start, EventTracer::ticks());
            Error e = std::move(status).error();
            // A backend failing is a runtime failure, unless what it ran was malformed
            // (an XNNPACK node whose shapes do not fit, say): that stays bad input.
            if (e.kind != ErrorKind::kBadInput) e.kind = ErrorKind::kRuntime;
            return std::move(e).in(at_instruction(method, c, pc));
          }
          break;
        }
        case CompiledInstruction::Kind::kMove:
          scope = "MOVE_CALL";
          // An EValue assignment: both slots then share the same tensor.
          method.values_[size_t(instr.b)] = method.values_[size_t(instr.a)];
          break;
        case CompiledInstruction::Kind::kJumpFalse: {
          scope = "JF_CALL";
          auto cond = condition(method.values_[size_t(instr.a)]);
          if (!cond) return std::move(cond).error().in(at_instruction(method, c, pc));
          // A destination outside the chain simply ends it (never range-checked upstream).
          if (!*cond) next = instr.b < 0 ? chain.size() : size_t(instr.b);
          break;
        }
        case CompiledInstruction::Kind::kFree: {
          scope = "FREE_CALL";
          EValue& v = method.values_[size_t(instr.a)];
          if (v.tag != Tag::kTensor) {
            return Error{ErrorKind::kRuntime, {}, at_instruction(method, c, pc), "FreeCall on a non-tensor value"};
          }
          // The memory stays the method's; what ends is the value's life in
          // this execution (a later use is an error, see check_arguments).
          if (!v.tensor->released()) {
            v.tensor->set_released(true);
            method.released_.push_back(v.tensor);
          }
          break;
        }
      }
      if (tracer) tracer->profile(scope, chain_id, id, start,
                                  instr.kind == CompiledInstruction::Kind::kKernel ? kernel_end : EventTracer::ticks());
      pc = next;
    }
  }
  if (check_released) {
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      if (holds_released(method.output(i))) {
        return Error{ErrorKind::kBadInput, {}, "method '" + method.name() + "'.outputs[" + std::to_string(i) + "]",
                     "the output was released by a FreeCall"};
      }
    }
  }
  if (tracer) {
    tracer->profile("Method::execute", kUnsetChain, kUnsetInstruction, execute_start, EventTracer::ticks());
    if (tracer->debug_level() >= DebugLevel::kProgramOutputs) {
      for (size_t i = 0; i < method.num_outputs(); ++i) {
        const EValue& out = method.output(i);
        tracer->log_value(kUnsetChain, kUnsetInstruction, out, out.tag == Tag::kTensor || out.tag == Tag::kTensorList);
      }
    }
  }
  return {};
}

}  // namespace etkit::rt
