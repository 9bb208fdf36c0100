// Linking Inspector events to an ETRecord's graph (inspector_spec.md §6,
// etrecord_spec.md §7): debug handles from the instruction id (and, for
// delegated events, the delegate id with the Inspector's substring quirk),
// num_outputs, backend names, then op_types, stack_traces and
// module_hierarchy from the graph nodes carrying those handles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "libcore/inspect/event_blocks.h"
#include "libcore/inspect/record_links.h"

namespace etkit::inspect {

// The links of the ETRecord file at `path` ("-" is standard input) for
// `method` ("forward", the only one the Python Inspector uses): read_etrecord_file (its
// side-cars left unopened: the Inspector needs only maps and the graph), then
// links_from_etrecord. Errors name the file; what the file lacks is in the
// links' warnings.
Result<RecordLinks> load_record_links(const std::string& path, std::string_view method = "forward");

// Applies `links` to every event of `inspection` (_gen_resolve_debug_handles
// then _associate_with_op_graph_nodes). Framework events (Method::init,
// Program::load_method, Method::execute) get handles but no graph metadata.
// What does not fit (instruction ids the ETRecord does not know, delegated
// events without a delegate entry, the links' own warnings) is appended to
// inspection.warnings, one line per kind; the events concerned stay
// unlinked.
struct LinkSummary {
  size_t linkable = 0;  // events other than the framework events
  size_t linked = 0;    // of those, the ones the ETRecord gave debug handles
};
LinkSummary link_events(Inspection& inspection, const RecordLinks& links);

// Inspector.find_total_for_module: the sum of perf_data.avg (target unit) over
// the events not named exactly "OPERATOR_CALL" that have a module_hierarchy
// entry whose nn_module_stack has a key containing `module_name`; events
// without perf data add nothing. 0.0 without links.
double find_total_for_module(const Inspection& inspection, std::string_view module_name);

}  // namespace etkit::inspect
