// Where an instruction comes from in the exported model, from the maps an
// ETRecord provides (libcore/inspect/record_links.h): instruction id ->
// debug handles (debug_handle_map["forward"]) -> graph nodes carrying
// those handles -> their innermost nn_module_stack path and the last frame
// of their stack trace, e.g. "layer1.0.conv1 at model.py:42".
#pragma once

#include <string>
#include <string_view>

#include "libcore/compare/intermediates.h"
#include "libcore/inspect/record_links.h"

namespace etkit::compare {

// "path/to/model.py:42" from the last `File "...", line N` frame of a
// Python traceback; empty when there is none.
std::string last_source_line(std::string_view stack_trace);

// A locator for compare_intermediates. The chain index is not part of the
// ETRecord's key (the Python Inspector looks up the instruction id alone).
// `links` must outlive the locator.
InstructionLocator locator_from_links(const inspect::RecordLinks& links);

}  // namespace etkit::compare
