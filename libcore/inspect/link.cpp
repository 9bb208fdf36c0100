#include "libcore/inspect/link.h"

#include <algorithm>
#include <unordered_map>

#include "libcore/formats/etrecord/etrecord_reader.h"
#include "libcore/inspect/etrecord_links.h"

namespace etkit::inspect {

namespace {

// RESERVED_FRAMEWORK_EVENT_NAMES (_inspector_utils.py).
bool is_framework_event(const std::string& name) {
  return name == "Method::init" || name == "Program::load_method" || name == "Method::execute";
}

struct LinkCounts {
  size_t unknown_instruction = 0;
  int32_t first_unknown = 0;
  size_t no_delegate_entry = 0;
  int32_t first_no_delegate_entry = 0;
};

// The delegated branch of _gen_resolve_debug_handles: the id as given
// (an int never equals the JSON's string keys), then str(id), then every key
// that is a substring of str(id), the last such key winning.
std::optional<DebugHandles> delegate_handles(const DelegateEntry& entry, const DelegateId& id) {
  const std::string text = id.str();
  std::optional<DebugHandles> found;
  if (id.kind == DelegateId::Kind::kStr) {
    for (const auto& [key, handles] : entry.delegate_map) {
      if (key == text) return handles;
    }
  }
  for (const auto& [key, handles] : entry.delegate_map) {
    if (key == text) {
      found = handles;
      break;
    }
  }
  for (const auto& [key, handles] : entry.delegate_map) {
    if (text.find(key) != std::string::npos) found = handles;
  }
  return found;
}

// etkit's delegate events carry {"node":N,"debug_handle":H,...} as metadata
// (docs/xnnpack.md): the edge graph handle of the delegated node, which
// links it when the backend's own delegate_map is empty (XNNPACK's is).
// 65535 marks nodes the delegate inserted, which have no source.
std::optional<int64_t> metadata_debug_handle(const Event& event) {
  static constexpr std::string_view kKey = "\"debug_handle\":";
  for (const auto& bytes : event.delegate_debug_metadatas) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const size_t at = text.find(kKey);
    if (at == std::string_view::npos) continue;
    int64_t value = 0;
    size_t i = at + kKey.size(), digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9' && digits < 10; ++i, ++digits) value = value * 10 + (text[i] - '0');
    if (digits == 0 || value == 65535) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

void resolve_handles(Event& event, const RecordLinks& links, LinkCounts& counts) {
  const std::string k = std::to_string(event.instruction_id);
  const auto handles = links.debug_handle_map.find(k);
  if (handles == links.debug_handle_map.end()) {
    if (!is_framework_event(event.name) && counts.unknown_instruction++ == 0) {
      counts.first_unknown = event.instruction_id;
    }
    return;
  }
  const auto outs = links.num_outs_map.find(k);
  event.num_outputs = outs == links.num_outs_map.end() ? 1 : outs->second;

  const DelegateEntry* entry = nullptr;
  if (links.delegate_map) {
    const auto it = links.delegate_map->find(k);
    if (it != links.delegate_map->end()) entry = &it->second;
  }
  if (event.delegate_debug_identifier.is_none()) {
    event.debug_handles = handles->second;
    if (event.name == "DELEGATE_CALL" && entry != nullptr) event.delegate_backend_name = entry->name.value_or("");
    return;
  }
  if (entry == nullptr) {
    // Python logs "No delegate mapping found for delegate with instruction id".
    event.debug_handles = handles->second;
    if (counts.no_delegate_entry++ == 0) counts.first_no_delegate_entry = event.instruction_id;
    return;
  }
  event.delegate_backend_name = entry->name.value_or("");
  event.debug_handles = delegate_handles(*entry, event.delegate_debug_identifier);
  if (!event.debug_handles) {
    if (auto handle = metadata_debug_handle(event)) event.debug_handles = DebugHandles{false, {*handle}};
  }
}

// _associate_with_op_graph_nodes.
void attach_nodes(Event& event, const std::unordered_map<int64_t, std::vector<const OpNode*>>& nodes_by_handle) {
  if (is_framework_event(event.name) || !event.debug_handles) return;
  for (int64_t handle : event.debug_handles->values) {
    const auto it = nodes_by_handle.find(handle);
    if (it == nodes_by_handle.end()) continue;
    for (const OpNode* node : it->second) {
      const bool seen = std::any_of(event.stack_traces.begin(), event.stack_traces.end(),
                                    [&](const auto& entry) { return entry.first == node->name; });
      if (!seen) {
        event.stack_traces.emplace_back(node->name, node->stack_trace);
        event.module_hierarchy.emplace_back(node->name, node->nn_module_stack);
      }
      if (!node->op.empty()) event.op_types.push_back(node->op);
    }
  }
}

}  // namespace

Result<RecordLinks> load_record_links(const std::string& path, std::string_view method) {
  etrecord::EtRecordLimits limits;
  limits.read_side_cars = false;
  ETKIT_ASSIGN_OR_RETURN(const etrecord::EtRecord record, etrecord::read_etrecord_file(path, limits));
  auto links = links_from_etrecord(record, method);
  if (!links) return std::move(links).error().at_file(path);
  return links;
}

LinkSummary link_events(Inspection& inspection, const RecordLinks& links) {
  for (const std::string& warning : links.warnings) inspection.warnings.push_back(warning);
  std::unordered_map<int64_t, std::vector<const OpNode*>> nodes_by_handle;
  for (const OpNode& node : links.op_nodes) {
    if (node.debug_handle) nodes_by_handle[*node.debug_handle].push_back(&node);
  }
  LinkCounts counts;
  LinkSummary summary;
  for (EventBlock& block : inspection.blocks) {
    for (Event& event : block.events) {
      resolve_handles(event, links, counts);
      attach_nodes(event, nodes_by_handle);
      if (!is_framework_event(event.name)) {
        ++summary.linkable;
        if (event.debug_handles) ++summary.linked;
      }
    }
  }
  // With no handle map at all, the links' own warning already says so.
  if (counts.unknown_instruction > 0 && !links.debug_handle_map.empty()) {
    inspection.warnings.push_back(std::to_string(counts.unknown_instruction) +
                                  " events have instruction ids the ETRecord's debug_handle_map for '" +
                                  links.method + "' does not know (first: " + std::to_string(counts.first_unknown) +
                                  "); they stay unlinked (does the ETRecord belong to this ETDump?)");
  }
  if (counts.no_delegate_entry > 0) {
    inspection.warnings.push_back(std::to_string(counts.no_delegate_entry) +
                                  " delegated events have no delegate_map entry for their instruction (first: " +
                                  std::to_string(counts.first_no_delegate_entry) +
                                  "); they get the instruction's debug handles");
  }
  return summary;
}

double find_total_for_module(const Inspection& inspection, std::string_view module_name) {
  double total = 0.0;
  for (const EventBlock& block : inspection.blocks) {
    for (const Event& event : block.events) {
      if (event.name == "OPERATOR_CALL") continue;
      const bool in_module = std::any_of(event.module_hierarchy.begin(), event.module_hierarchy.end(), [&](const auto& h) {
        return h.second && std::any_of(h.second->begin(), h.second->end(), [&](const ModuleStackEntry& m) {
                 return m.key.find(module_name) != std::string::npos;
               });
      });
      if (in_module && event.has_perf_data()) total += event.stats().avg;
    }
  }
  return total;
}

}  // namespace etkit::inspect
