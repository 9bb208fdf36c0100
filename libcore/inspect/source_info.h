// Where a linked event comes from in the exported model, in the short forms
// tables, reports and comparisons show: the innermost module path
// ("features.conv1") and the calling source line ("lenet.py:27").
#pragma once

#include <string>

#include "libcore/inspect/event_blocks.h"

namespace etkit::inspect {

// From the first of the event's graph nodes that has the information; "" for
// an unlinked event.
std::string event_module_path(const Event& event);
std::string event_source_line(const Event& event);

}  // namespace etkit::inspect
