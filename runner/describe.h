// What a program needs before it runs (et-run --describe): per method, the
// inputs and outputs, the delegates and operators, each marked supported or
// not by the given kernel and backend registries. Reads the verified
// program only; nothing is loaded or executed.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "libcore/formats/program/program.h"
#include "runner/backend.h"
#include "runner/kernel_registry.h"

namespace etkit::rt {

struct DescribedValue {
  std::string type;                 // "Tensor", "Int", "Double", "Bool", "String", "TensorList", ...
  int scalar_type = -1;             // tensors: the dtype, else -1
  std::vector<int32_t> sizes;       // tensors: the shape (the upper bound when dynamic_bound)
  pte::ShapeDynamism dynamism = pte::ShapeDynamism::kStatic;
};

struct DescribedUse {
  std::string name;  // "aten::add.out", or a delegate's backend id
  size_t calls = 0;  // instructions that use it
  bool supported = false;
};

struct DescribedMethod {
  std::string name;
  std::vector<DescribedValue> inputs, outputs;
  std::vector<DescribedUse> delegates;  // one per backend id, first-use order
  std::vector<DescribedUse> operators;  // the method's operator table, in order
};

struct ProgramDescription {
  std::vector<DescribedMethod> methods;
  bool all_supported() const;
};

ProgramDescription describe_program(const pte::Program& program, const KernelRegistry& kernels,
                                    const BackendRegistry& backends);

// "static", "dynamic_bound", "dynamic_unbound".
std::string_view dynamism_name(pte::ShapeDynamism dynamism);

std::string describe_text(const ProgramDescription& description);

// {"format": "etkit.describe/1", "all_supported": ..., "methods": [...]}
// (docs/json.md). Errors: kIo, kBrokenPipe.
Status write_describe_json(const ProgramDescription& description, std::FILE* out, bool pretty);

}  // namespace etkit::rt
