// The tensors a run logged into its ETDump (inspector_spec.md §12): program
// outputs are debug events whose value carries `output = true`; every other
// debug event is an intermediate output of the instruction (chain_index,
// instruction_id) that logged it. Values are inflated from the debug buffer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/tensor_values.h"
#include "libcore/formats/etdump/etdump.h"

namespace etkit::compare {

struct LoggedTensor {
  size_t run = 0;            // index into EtDump::run_data
  int64_t chain_index = -1;  // the u64 field read as signed: program outputs carry -1
  int32_t instruction_id = -1;
  std::string delegate_id;   // delegate_debug_id_int or _str; empty for runtime events
  // The k-th value logged under (chain, instruction, delegate id) in this
  // run: out0, out1, ... of a kernel, or later executions of a loop.
  size_t occurrence = 0;
  std::optional<size_t> list_index;  // element of a logged tensor list
  // The instruction's profile event name (e.g. "native_call_add.out"),
  // empty when the run was not profiled per operator.
  std::string op_name;
  TensorValues tensor;
};

// The program outputs of the first run that logged any (the Python
// Inspector's run_output, §3.1 step 6), in logging order.
Result<std::vector<LoggedTensor>> program_outputs(const etdump::EtDump& dump, ByteSpan debug_buffer);

// The intermediate outputs of the first run that logged any, in logging
// (execution) order.
Result<std::vector<LoggedTensor>> intermediate_outputs(const etdump::EtDump& dump, ByteSpan debug_buffer);

// "output 0", "output 1[2]" for program outputs; "out 0", "out 1[2]" for
// intermediates (occurrence and list element).
std::string value_label(const LoggedTensor& t, bool program_output);

}  // namespace etkit::compare
