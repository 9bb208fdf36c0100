// Fills the Inspector's RecordLinks (record_links.h) from a read ETRecord:
// the runtime-link maps of one method and the OperatorNodes of its
// reference graph (etrecord_spec.md §7, inspector_spec.md §6).
#pragma once

#include <string_view>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/inspect/record_links.h"
#include "libcore/support/result.h"

namespace etkit::inspect {

// The reference graph is the edge program of `method`, or the only edge
// program when there is no such method (as the Python Inspector, which
// hard-codes "forward", effectively does). Op nodes are its call_function
// nodes except memory.alloc (getitem is never serialized), in graph order:
// create_debug_handle_to_op_node_mapping with the default
// enable_module_hierarchy=False. Missing maps, a missing method or a missing
// graph are `warnings`, never errors.
Result<RecordLinks> links_from_etrecord(const etrecord::EtRecord& record, std::string_view method = "forward");

}  // namespace etkit::inspect
