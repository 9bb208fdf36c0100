#include "libcore/compare/logged_values.h"

#include <map>
#include <tuple>

namespace etkit::compare {
namespace {

using Key = std::tuple<int64_t, int32_t, std::string>;

std::string delegate_id_of(int32_t id_int, const std::optional<std::string>& id_str) {
  if (id_int != -1) return std::to_string(id_int);
  return id_str.value_or("");
}

bool is_output(const etdump::DebugEvent& d) { return d.debug_entry.output.value_or(false); }

// Names per instruction key: the op's own event (native_call_*, a custom
// kernel's name, a delegate's id) rather than the OPERATOR_CALL /
// DELEGATE_CALL wrapper, which every instruction of that kind shares.
std::map<Key, std::string> op_names(const std::vector<etdump::Event>& events) {
  std::map<Key, std::string> names;
  for (const auto& e : events) {
    if (!e.profile_event) continue;
    const auto& p = *e.profile_event;
    const std::string name = p.name.value_or("");
    if (name.empty()) continue;
    const Key key{p.chain_index, p.instruction_id, std::string()};
    auto it = names.find(key);
    const bool wrapper = name == "OPERATOR_CALL" || name == "DELEGATE_CALL";
    if (it == names.end()) names.emplace(key, name);
    else if (!wrapper && (it->second == "OPERATOR_CALL" || it->second == "DELEGATE_CALL")) it->second = name;
  }
  return names;
}

Result<std::vector<LoggedTensor>> collect(const etdump::EtDump& dump, ByteSpan debug_buffer, bool outputs) {
  for (size_t r = 0; r < dump.run_data.size(); ++r) {
    const auto& run = dump.run_data[r];
    if (!run.events) continue;
    const auto& events = *run.events;
    bool any = false;
    for (const auto& e : events) any = any || (e.debug_event && is_output(*e.debug_event) == outputs);
    if (!any) continue;

    const auto names = op_names(events);
    std::map<Key, size_t> occurrences;
    std::vector<LoggedTensor> out;
    for (size_t i = 0; i < events.size(); ++i) {
      if (!events[i].debug_event || is_output(*events[i].debug_event) != outputs) continue;
      const auto& d = *events[i].debug_event;
      LoggedTensor base;
      base.run = r;
      base.chain_index = static_cast<int64_t>(d.chain_index);
      base.instruction_id = d.instruction_id;
      base.delegate_id = delegate_id_of(d.delegate_debug_id_int, d.delegate_debug_id_str);
      const Key key{base.chain_index, base.instruction_id, base.delegate_id};
      base.occurrence = occurrences[key]++;
      if (auto it = names.find(Key{base.chain_index, base.instruction_id, std::string()}); it != names.end()) {
        base.op_name = it->second;
      }
      auto values = from_etdump_value(d.debug_entry, debug_buffer);
      if (!values) {
        return std::move(values).error().in("run_data[" + std::to_string(r) + "].events[" + std::to_string(i) +
                                            "].debug_event.debug_entry");
      }
      const bool is_list = d.debug_entry.val == etdump::ValueType::kTensorList;
      for (size_t k = 0; k < values->size(); ++k) {
        LoggedTensor t = base;
        if (is_list) t.list_index = k;
        t.tensor = std::move((*values)[k]);
        out.push_back(std::move(t));
      }
    }
    return out;
  }
  return std::vector<LoggedTensor>{};
}

}  // namespace

Result<std::vector<LoggedTensor>> program_outputs(const etdump::EtDump& dump, ByteSpan debug_buffer) {
  return collect(dump, debug_buffer, true);
}

Result<std::vector<LoggedTensor>> intermediate_outputs(const etdump::EtDump& dump, ByteSpan debug_buffer) {
  return collect(dump, debug_buffer, false);
}

std::string value_label(const LoggedTensor& t, bool program_output) {
  std::string out = (program_output ? "output " : "out ") + std::to_string(t.occurrence);
  if (t.list_index) {
    out += '[';
    out += std::to_string(*t.list_index);
    out += ']';
  }
  return out;
}

}  // namespace etkit::compare
