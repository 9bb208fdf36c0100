#include "libcore/inspect/etrecord_links.h"

#include <string>

namespace etkit::inspect {
namespace {

DebugHandles convert(const etrecord::Handles& h) { return DebugHandles{h.is_list, h.values}; }

std::string method_list(const auto& map) {
  std::string out;
  for (const auto& [name, value] : map) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// The method's entry of a {method: ...} map, with a warning when absent.
template <typename Map>
const typename Map::mapped_type* method_entry(const std::optional<Map>& map, std::string_view method,
                                              std::string_view map_name, std::string_view consequence,
                                              std::vector<std::string>& warnings) {
  if (!map) {
    warnings.push_back("the etrecord has no " + std::string(map_name) + ": " + std::string(consequence));
    return nullptr;
  }
  const auto it = map->find(std::string(method));
  if (it == map->end()) {
    warnings.push_back(std::string(map_name) + " has no method '" + std::string(method) + "' (methods: " +
                       method_list(*map) + "): " + std::string(consequence));
    return nullptr;
  }
  return &it->second;
}

const etrecord::Program* reference_program(const etrecord::EtRecord& record, std::string_view method,
                                           std::vector<std::string>& warnings) {
  if (const etrecord::Program* p = record.edge_program(method)) return p;
  const std::string wanted(method);
  if (record.edge_program_count() == 1) {
    for (const etrecord::Program& p : record.programs) {
      if (p.kind != etrecord::EntryKind::kEdgeProgram) continue;
      warnings.push_back("no edge program for method '" + wanted + "': linking against the only one, '" + p.entry + "'");
      return &p;
    }
  }
  warnings.push_back("no edge program for method '" + wanted + "' (" + std::to_string(record.edge_program_count()) +
                     " edge programs): events get no stack traces or module paths");
  return nullptr;
}

}  // namespace

Result<RecordLinks> links_from_etrecord(const etrecord::EtRecord& record, std::string_view method) {
  RecordLinks links;
  links.method = std::string(method);

  if (const auto* handles = method_entry(record.debug_handle_map, method, "debug_handle_map",
                                         "no event can be linked to graph nodes", links.warnings)) {
    for (const auto& [instruction, h] : *handles) links.debug_handle_map[instruction] = convert(h);
  }
  if (record.delegate_map) {
    links.delegate_map.emplace();
    if (const auto* delegates = method_entry(record.delegate_map, method, "delegate_map",
                                             "delegated events fall back to debug_handle_map", links.warnings)) {
      for (const auto& [instruction, info] : *delegates) {
        DelegateEntry entry;
        entry.name = info.name;
        for (const auto& [id, h] : info.delegate_map) entry.delegate_map.emplace_back(id, convert(h));
        (*links.delegate_map)[instruction] = std::move(entry);
      }
    }
  }
  if (const auto* outs = method_entry(record.num_outs_map, method, "instruction_id_to_num_outs_map",
                                      "every event counts one output", links.warnings)) {
    links.num_outs_map = *outs;
  }

  if (const etrecord::Program* program = reference_program(record, method, links.warnings)) {
    for (const etrecord::Node& n : program->program.graph.nodes) {
      if (n.kind == etrecord::OpKind::kMemoryAlloc) continue;
      OpNode op;
      op.name = n.name + "_";
      op.op = n.op;
      op.debug_handle = n.metadata.debug_handle;
      op.stack_trace = n.metadata.stack_trace;
      op.nn_module_stack = n.metadata.nn_module_stack;
      links.op_nodes.push_back(std::move(op));
    }
  }
  return links;
}

}  // namespace etkit::inspect
