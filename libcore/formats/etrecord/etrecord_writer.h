// Writes ETRecord ZIPs as ExecuTorch's ETRecord.save() lays them out
// (etrecord_spec.md §1): the ETRECORD_V0 marker first, then the entries in
// the order they were added, all STORED. For tests and the demo; the JSON
// style picks the union encoding of the era being imitated.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "libcore/formats/etrecord/etrecord.h"
#include "libcore/formats/etrecord/exported_program_json.h"
#include "libcore/support/result.h"

namespace etkit::etrecord {

class EtRecordWriter {
 public:
  explicit EtRecordWriter(JsonStyle style = JsonStyle::kNarrow) : style_(style) {}

  // A program entry, e.g. "edge_dialect_exported_program/forward".
  void add_program(const std::string& entry, const ExportedProgram& program);
  // {"<method>": {"<instruction id>": handle | [handles]}}, instruction ids in numeric order.
  void add_debug_handle_map(const DebugHandleMap& map);
  void add_delegate_map(const DelegateMap& map);
  void add_num_outs_map(const NumOutsMap& map);
  void add_export_graph_id(int64_t id);
  // Any other entry as given: side-cars (torch.save archives), raw JSON, ...
  void add_entry(const std::string& entry, std::vector<uint8_t> bytes);

  Result<std::vector<uint8_t>> finish() const;

 private:
  void add_json(const std::string& entry, const JsonValue& value);
  JsonStyle style_;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> entries_;
};

}  // namespace etkit::etrecord
