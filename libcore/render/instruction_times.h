// Each instruction's share of the time spent executing, straight from an
// ETDump's profile events (no Inspector needed): for every "Execute" block,
// an instruction's time is its longest non-delegate event (the enclosing
// OPERATOR_CALL / DELEGATE_CALL, or the kernel event alone when that is all
// there is); shares are the instruction's total over all blocks divided by
// the total of all instructions.
#pragma once

#include <map>

#include "libcore/formats/etdump/etdump.h"
#include "libcore/render/program_graph.h"

namespace etkit::render {

// Empty when the dump has no per-instruction profile events.
std::map<InstructionRef, double> instruction_time_shares(const etdump::EtDump& dump);

}  // namespace etkit::render
