// The demo LeNet's ETRecord: the edge-dialect program ExecuTorch would have
// recorded for examples/lenet.py before to_executorch(), derived from the
// demo program's own instruction list (demo::lenet()), so the two cannot
// drift: every kernel instruction of `forward` becomes an edge node (in the
// same order, with its arguments, output shapes and dtypes), the flatten the
// program elides becomes the view_copy node it was, and debug_handle_map links
// each instruction id to its node. lenet.py supplies what a program does not
// hold: module paths, stack traces and parameter names; a program whose
// kernels do not match lenet.py's calls is an error, not a silent mismatch.
#pragma once

#include <cstdint>
#include <vector>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"

namespace etkit::demo {

// The model written to lenet.etrecord: the edge program (v1.2 layout, narrow
// unions), debug_handle_map, instruction_id_to_num_outs_map {"forward": {}}
// and delegate_map {"forward": {}} (what an emitted program without delegates
// yields), and the parameters for the state-dict side-car.
struct LenetRecord {
  etrecord::ExportedProgram edge;
  etrecord::DebugHandleMap debug_handles;
  // By parameter name; the bytes are spans into the program's constant segment.
  std::vector<etrecord::TensorToSave> parameters;
};
Result<LenetRecord> lenet_record(const pte::Program& program);

// The ETRecord file: ETRECORD_V0, edge_dialect_exported_program/forward with
// its _state_dict (the weights), _constants ({}) and _example_inputs (empty),
// debug_handle_map, delegate_map, instruction_id_to_num_outs_map.
Result<std::vector<uint8_t>> lenet_etrecord(const pte::Program& program);

}  // namespace etkit::demo
