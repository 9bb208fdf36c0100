// The string encodings of node metadata (etrecord_spec.md §4.5): module
// stacks, source-function stacks, torch_fn, debug handles, from_node
// provenance, and Python stack traces.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/formats/etrecord/json_value.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

// "key,path,type;key,path,type": entries split on ';' and fields on ',' at
// bracket depth 0 ('[' and '(' open, ']' and ')' close); exactly three
// fields per entry. "" is an empty stack.
Result<std::vector<ModuleStackEntry>> parse_nn_module_stack(std::string_view text);
// "name,qualified_callable;...": each entry split at its first comma.
Result<std::vector<SourceFn>> parse_source_fn_stack(std::string_view text);
// The JSON list of provenance records.
Result<std::vector<NodeSource>> parse_from_node(std::string_view json);
// The frames of a Python traceback, outermost first: `File "f", line N, in fn`
// lines, each with the code line that follows it.
std::vector<SourceLocation> parse_stack_trace(std::string_view text);
// The innermost frame (the last `File "...", line N`), if any.
std::optional<SourceLocation> last_frame(std::string_view stack_trace);
// "file:line" of the innermost frame, the short form tables show; "" without one.
std::string source_line(std::string_view stack_trace);

// A node's `metadata` object: every key kept as written, the known ones
// parsed; text that does not parse is named in `problems`, never fatal.
NodeMetadata parse_node_metadata(const JsonValue& metadata);

// The innermost module path of a stack ("" for the root or no stack).
std::string module_path(const std::vector<ModuleStackEntry>& stack);

}  // namespace etkit::etrecord
