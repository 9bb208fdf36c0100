// Where an instruction comes from in the exported model, read off the
// Inspector's events once inspect::link_events() has joined them to an
// ETRecord: the innermost module path and the source line
// (inspect/source_info.h) of the first event of that instruction id that has
// either, e.g. "features.conv1 at examples/lenet.py:27".
#pragma once

#include "libcore/compare/intermediates.h"
#include "libcore/inspect/event_blocks.h"

namespace etkit::compare {

// A locator for compare_intermediates. The chain index is not looked at: the
// ETRecord keys instruction ids alone, as the Python Inspector does. The
// locator keeps its own copy of what it needs.
InstructionLocator locator_from_linked_events(const inspect::Inspection& linked);

}  // namespace etkit::compare
