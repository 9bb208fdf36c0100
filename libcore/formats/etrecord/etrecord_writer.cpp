#include "libcore/formats/etrecord/etrecord_writer.h"

#include "libcore/formats/etrecord/zip_archive.h"

namespace etkit::etrecord {
namespace {

JsonValue handles_json(const Handles& h) {
  if (!h.is_list && h.values.size() == 1) return h.values[0];
  JsonValue list = JsonValue::array();
  for (int64_t v : h.values) list.push(v);
  return list;
}

template <typename T, typename ToJson>
JsonValue method_map_json(const std::map<std::string, std::map<std::string, T>>& map, ToJson to_json_value) {
  JsonValue doc = JsonValue::object();
  for (const auto& [method, instructions] : map) {
    JsonValue& m = doc.set(method, JsonValue::object());
    for (const auto* kv : numeric_order(instructions)) m.set(kv->first, to_json_value(kv->second));
  }
  return doc;
}

}  // namespace

void EtRecordWriter::add_json(const std::string& entry, const JsonValue& value) {
  const std::string text = to_json(value);
  entries_.emplace_back(entry, std::vector<uint8_t>(text.begin(), text.end()));
}

void EtRecordWriter::add_program(const std::string& entry, const ExportedProgram& program) {
  add_json(entry, exported_program_to_json(program, style_));
}

void EtRecordWriter::add_debug_handle_map(const DebugHandleMap& map) {
  add_json("debug_handle_map", method_map_json(map, handles_json));
}

void EtRecordWriter::add_delegate_map(const DelegateMap& map) {
  add_json("delegate_map", method_map_json(map, [](const DelegateInfo& info) {
             JsonValue o = JsonValue::object();
             if (info.name) o.set("name", *info.name);
             JsonValue& inner = o.set("delegate_map", JsonValue::object());
             for (const auto& [id, handles] : info.delegate_map) inner.set(id, handles_json(handles));
             return o;
           }));
}

void EtRecordWriter::add_num_outs_map(const NumOutsMap& map) {
  add_json("instruction_id_to_num_outs_map", method_map_json(map, [](int64_t n) { return JsonValue(n); }));
}

void EtRecordWriter::add_export_graph_id(int64_t id) { add_json("export_graph_id", JsonValue(id)); }

void EtRecordWriter::add_entry(const std::string& entry, std::vector<uint8_t> bytes) {
  entries_.emplace_back(entry, std::move(bytes));
}

Result<std::vector<uint8_t>> EtRecordWriter::finish() const {
  std::vector<std::pair<std::string, ByteSpan>> entries;
  entries.emplace_back("ETRECORD_V0", ByteSpan{});
  for (const auto& [name, bytes] : entries_) entries.emplace_back(name, ByteSpan(bytes));
  return write_zip(entries);
}

}  // namespace etkit::etrecord
