// Builds Programs in code, for tests, demos and benchmarks: values,
// constants (one constant segment, 16-byte aligned entries as the ExecuTorch
// serializer writes them), a bump memory plan in arena 1 (16-byte aligned
// offsets, or explicit offsets for deliberate aliasing) and instructions,
// for one or more methods.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/formats/scalar_type.h"

namespace etkit::pte {

class ProgramBuilder;

class MethodBuilder {
 public:
  int32_t add_null();
  int32_t add_int(int64_t v);
  int32_t add_double(double v);
  int32_t add_bool(bool v);
  int32_t add_string(std::string v);
  // Boxes each integer as an Int value (IntList holds value indices).
  int32_t add_int_list(const std::vector<int64_t>& values);
  int32_t add_double_list(std::vector<double> values);
  int32_t add_bool_list(std::vector<bool> values);
  int32_t add_tensor_list(std::vector<int32_t> tensor_values);
  int32_t add_optional_tensor_list(std::vector<int32_t> tensor_values);

  // A constant tensor whose bytes go into the program's constant segment.
  int32_t add_constant_tensor(ScalarType type, std::vector<int32_t> sizes, ByteSpan data);
  int32_t add_constant_tensor(std::vector<int32_t> sizes, const std::vector<float>& data);
  // A memory-planned tensor at the next free 16-byte aligned offset.
  int32_t add_planned_tensor(ScalarType type, std::vector<int32_t> sizes,
                             ShapeDynamism dynamism = ShapeDynamism::kStatic);
  // A memory-planned tensor at an explicit offset (may alias others).
  int32_t add_planned_tensor_at(ScalarType type, std::vector<int32_t> sizes, uint64_t offset,
                                std::vector<uint8_t> dim_order = {});
  // A tensor without memory: the caller or a kernel provides it.
  int32_t add_unplanned_tensor(ScalarType type, std::vector<int32_t> sizes);

  void set_inputs(std::vector<int32_t> inputs) { plan_.inputs = std::move(inputs); }
  void set_outputs(std::vector<int32_t> outputs) { plan_.outputs = std::move(outputs); }

  // Operators are deduplicated by (name, overload).
  void kernel_call(const std::string& name, const std::string& overload, std::vector<int32_t> args);
  int32_t add_delegate(std::string id, std::vector<uint8_t> blob, std::vector<CompileSpec> specs = {});
  void delegate_call(int32_t delegate_index, std::vector<int32_t> args);
  void move(int32_t from, int32_t to);
  void jump_false(int32_t cond_value, int32_t destination_instruction);
  void free_value(int32_t value);
  // The index the next instruction will get in the chain.
  int32_t next_instruction() const { return static_cast<int32_t>(plan_.chains[0].instructions.size()); }

  const ExecutionPlan& plan() const { return plan_; }

 private:
  friend class ProgramBuilder;
  MethodBuilder(ProgramBuilder& owner, std::string name);
  int32_t push(EValue v);
  Tensor make_tensor(ScalarType type, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order) const;

  ProgramBuilder& owner_;
  ExecutionPlan plan_;
  uint64_t arena_used_ = 0;
};

class ProgramBuilder {
 public:
  ProgramBuilder();
  ProgramBuilder(const ProgramBuilder&) = delete;
  ProgramBuilder& operator=(const ProgramBuilder&) = delete;

  MethodBuilder& add_method(std::string name);
  // Returns the constant buffer index (>= 1) of `data`.
  uint32_t add_constant(ByteSpan data);
  // A program whose spans point into storage this builder hands over.
  Program build();

 private:
  friend class MethodBuilder;
  std::deque<MethodBuilder> methods_;
  std::vector<uint8_t> constants_;           // the constant segment
  std::vector<uint64_t> constant_offsets_{0};  // entry 0: placeholder
  std::vector<std::vector<uint8_t>> delegate_blobs_;
};

}  // namespace etkit::pte
