#include "libcore/inspect/op_summary.h"

#include <algorithm>

namespace etkit::inspect {

namespace {

constexpr std::string_view kKernelPrefix = "native_call_";

// "<name> #<digits>" -> "<name>".
std::string without_instance_number(const std::string& name) {
  const size_t hash = name.rfind(" #");
  if (hash == std::string::npos || hash + 2 == name.size()) return name;
  for (size_t i = hash + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, hash);
}

struct TypeTotal {
  std::string op_type;
  size_t count = 0;
  double total = 0;
};

}  // namespace

std::string op_type_of(const Event& event) {
  if (!event.op_types.empty()) {
    std::vector<std::string> distinct;
    for (const std::string& op : event.op_types) {
      if (std::find(distinct.begin(), distinct.end(), op) == distinct.end()) distinct.push_back(op);
    }
    std::string joined;
    for (const std::string& op : distinct) joined += (joined.empty() ? "" : " + ") + op;
    return joined;
  }
  if (event.is_delegated_op) return without_instance_number(event.name);
  if (event.name.starts_with(kKernelPrefix)) return event.name.substr(kKernelPrefix.size());
  return event.name;
}

bool counts_in_summary(const EventBlock& block, const Event& event) {
  if (!event.has_perf_data() || event.name.find("OPERATOR_CALL") != std::string::npos) return false;
  if (event.name == "Method::init" || event.name == "Program::load_method" || event.name == "Method::execute") {
    return false;
  }
  if (event.name == "DELEGATE_CALL") {
    return std::none_of(block.events.begin(), block.events.end(), [&](const Event& e) {
      return e.is_delegated_op && e.instruction_id == event.instruction_id && e.has_perf_data();
    });
  }
  return true;
}

Frame op_type_frame(const Inspection& inspection, std::span<const TableRow> rows, size_t top) {
  const std::string unit = unit_suffix(inspection);
  Frame frame;
  frame.columns = {"event_block_name", "op_type", "count", "total" + unit, "avg" + unit, "share (%)",
                   "cumulative (%)"};
  size_t begin = 0;
  while (begin < rows.size()) {
    size_t end = begin;
    while (end < rows.size() && rows[end].block == rows[begin].block) ++end;
    const EventBlock& block = inspection.blocks[rows[begin].block];
    std::vector<TypeTotal> totals;
    double block_total = 0;
    for (size_t i = begin; i < end; ++i) {
      const Event& event = block.events[rows[i].event];
      if (!counts_in_summary(block, event) || !rows[i].stats) continue;
      const std::string type = op_type_of(event);
      auto it = std::find_if(totals.begin(), totals.end(), [&](const TypeTotal& t) { return t.op_type == type; });
      if (it == totals.end()) it = totals.insert(totals.end(), TypeTotal{type, 0, 0});
      ++it->count;
      it->total += rows[i].stats->avg;
      block_total += rows[i].stats->avg;
    }
    std::stable_sort(totals.begin(), totals.end(), [](const TypeTotal& a, const TypeTotal& b) { return a.total > b.total; });
    double cumulative = 0;
    for (size_t t = 0; t < std::min(top, totals.size()); ++t) {
      const double share = block_total > 0 ? 100.0 * totals[t].total / block_total : 0.0;
      cumulative += share;
      frame.index.push_back(int64_t(frame.rows.size()));
      frame.rows.push_back({Cell::str(block.name), Cell::str(totals[t].op_type), Cell::integer(int64_t(totals[t].count)),
                            Cell::real(totals[t].total), Cell::real(totals[t].total / double(totals[t].count)),
                            Cell::real(share), Cell::real(cumulative)});
    }
    begin = end;
  }
  return frame;
}

}  // namespace etkit::inspect
