#include "libcore/inspect/inspect_json.h"

#include <cmath>

#include "libcore/formats/scalar_type.h"
#include "libcore/inspect/debug_values.h"
#include "libcore/support/base64.h"
#include "libcore/support/json_writer.h"

namespace etkit::inspect {

namespace {

constexpr const char* kFormat = "etkit.inspect/1";

void number_or_null(JsonWriter& w, double v) {
  if (std::isnan(v)) {
    w.null();
  } else {
    w.number(v);
  }
}

void optional_string(JsonWriter& w, const std::optional<std::string>& s) {
  if (s) {
    w.string(*s);
  } else {
    w.null();
  }
}

void tensor_json(JsonWriter& w, const etdump::Tensor& t, const JsonOptions& o) {
  w.begin_object();
  w.key("dtype");
  w.string(scalar_type_name(t.scalar_type));
  w.key("sizes");
  w.begin_array();
  for (int64_t s : t.sizes) w.number(s);
  w.end_array();
  w.key("offset");
  w.number(t.offset);
  if (o.debug_buffer) {
    DebugValue single;
    single.kind = DebugValue::Kind::kTensor;
    single.tensors = {t};
    w.key("summary");
    w.string(summarize_debug_value(single, *o.debug_buffer, o.max_values));
  }
  w.end_object();
}

void value_json(JsonWriter& w, const DebugValue& v, const JsonOptions& o) {
  w.begin_object();
  w.key("type");
  switch (v.kind) {
    case DebugValue::Kind::kNone: w.string("none"); break;
    case DebugValue::Kind::kInt:
      w.string("int");
      w.key("value");
      w.number(v.int_value);
      break;
    case DebugValue::Kind::kBool:
      w.string("bool");
      w.key("value");
      w.boolean(v.bool_value);
      break;
    case DebugValue::Kind::kFloat:
      w.string("float");
      w.key("value");
      w.number(v.float_value);
      break;
    case DebugValue::Kind::kTensor:
      w.string("tensor");
      w.key("tensor");
      tensor_json(w, v.tensors[0], o);
      break;
    case DebugValue::Kind::kTensorList:
      w.string("tensor_list");
      w.key("tensors");
      w.begin_array();
      for (const etdump::Tensor& t : v.tensors) tensor_json(w, t, o);
      w.end_array();
      break;
  }
  w.end_object();
}

void values_json(JsonWriter& w, const std::vector<DebugValue>& values, const JsonOptions& o) {
  w.begin_array();
  for (const DebugValue& v : values) value_json(w, v, o);
  w.end_array();
}

void handles_json(JsonWriter& w, const std::optional<DebugHandles>& h) {
  if (!h) {
    w.null();
  } else if (!h->is_list && h->values.size() == 1) {
    w.number(h->values[0]);
  } else {
    w.begin_array();
    for (int64_t v : h->values) w.number(v);
    w.end_array();
  }
}

// The fields of one event, inside an object the caller opened.
void event_fields(JsonWriter& w, const Event& e, const TableRow& row, const JsonOptions& o) {
  w.key("index");
  w.number(row.index);
  w.key("name");
  w.string(e.name);
  w.key("instruction_id");
  w.number(e.instruction_id);
  w.key("delegate_debug_identifier");
  switch (e.delegate_debug_identifier.kind) {
    case DelegateId::Kind::kNone: w.null(); break;
    case DelegateId::Kind::kInt: w.number(e.delegate_debug_identifier.int_value); break;
    case DelegateId::Kind::kStr: w.string(e.delegate_debug_identifier.str_value); break;
  }
  w.key("is_delegated_op");
  w.boolean(e.is_delegated_op);
  w.key("delegate_backend_name");
  optional_string(w, e.delegate_backend_name);
  w.key("op_types");
  w.begin_array();
  for (const std::string& op : e.op_types) w.string(op);
  w.end_array();
  w.key("num_outputs");
  w.number(e.num_outputs);
  w.key("debug_handles");
  handles_json(w, e.debug_handles);
  w.key("perf_data");
  if (row.stats) {
    w.begin_object();
    for (auto [name, value] : {std::pair{"p10", row.stats->p10}, {"p50", row.stats->p50}, {"p90", row.stats->p90},
                               {"avg", row.stats->avg}, {"min", row.stats->min}, {"max", row.stats->max}}) {
      w.key(name);
      number_or_null(w, value);
    }
    w.key("raw");
    w.begin_array();
    for (double v : e.raw) number_or_null(w, v);
    w.end_array();
    w.end_object();
  } else {
    w.null();
  }
  w.key("start_time");
  if (e.start_time.empty()) {
    w.null();
  } else {
    w.begin_array();
    for (uint64_t t : e.start_time) w.number(t);
    w.end_array();
  }
  w.key("delegate_debug_metadatas");
  w.begin_array();
  for (const auto& m : e.delegate_debug_metadatas) w.string(base64_encode(m));
  w.end_array();
  w.key("stack_traces");
  w.begin_array();
  for (const auto& [node, trace] : e.stack_traces) {
    w.begin_object();
    w.key("node");
    w.string(node);
    w.key("stack_trace");
    optional_string(w, trace);
    w.end_object();
  }
  w.end_array();
  w.key("module_hierarchy");
  w.begin_array();
  for (const auto& [node, stack] : e.module_hierarchy) {
    w.begin_object();
    w.key("node");
    w.string(node);
    w.key("nn_module_stack");
    if (stack) {
      w.begin_array();
      for (const ModuleStackEntry& m : *stack) {
        w.begin_object();
        w.key("key");
        w.string(m.key);
        w.key("path");
        w.string(m.path);
        w.key("type");
        w.string(m.type);
        w.end_object();
      }
      w.end_array();
    } else {
      w.null();
    }
    w.end_object();
  }
  w.end_array();
  w.key("debug_data");
  values_json(w, e.debug_data, o);
}

void envelope(JsonWriter& w, const Inspection& inspection, const char* view) {
  w.key("format");
  w.string(kFormat);
  w.key("view");
  w.string(view);
  w.key("source_time_scale");
  w.string(time_scale_name(inspection.source_time_scale));
  w.key("target_time_scale");
  w.string(time_scale_name(inspection.target_time_scale));
}

void cell_json(JsonWriter& w, const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::kNone: w.null(); break;
    case Cell::Kind::kBool: w.boolean(c.bool_value); break;
    case Cell::Kind::kInt: w.number(c.int_value); break;
    case Cell::Kind::kFloat: number_or_null(w, c.float_value); break;
    case Cell::Kind::kStr:
    case Cell::Kind::kObject: w.string(c.text); break;
  }
}

// A view's column "total (ms)" is the key "total" with the unit "ms": keys
// stay stable whatever the unit, which goes in its own field.
std::pair<std::string, std::string> key_and_unit(const std::string& column) {
  const size_t open = column.rfind(" (");
  if (open == std::string::npos || column.back() != ')') return {column, {}};
  return {column.substr(0, open), column.substr(open + 2, column.size() - open - 3)};
}

// What every JSON Lines object starts with: no envelope holds them.
void line_header(JsonWriter& w, const Inspection& inspection) {
  w.key("format");
  w.string(kFormat);
  w.key("target_time_scale");
  w.string(time_scale_name(inspection.target_time_scale));
}

Status finish(JsonWriter& w) {
  w.flush();
  if (w.broken_pipe()) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
  if (w.failed()) return io_error("<stdout>", "cannot write the output");
  return {};
}

}  // namespace

Status write_events_json(const Inspection& inspection, std::span<const TableRow> rows, std::FILE* out,
                         const JsonOptions& options) {
  JsonWriter w(out, options.pretty && !options.lines);
  if (options.lines) {
    for (const TableRow& row : rows) {
      const EventBlock& block = inspection.blocks[row.block];
      w.begin_object();
      line_header(w, inspection);
      w.key("block");
      w.string(block.name);
      w.key("block_index");
      w.number(row.block);
      event_fields(w, block.events[row.event], row, options);
      w.end_object();
      w.newline();
    }
    return finish(w);
  }
  w.begin_object();
  envelope(w, inspection, "events");
  w.key("blocks");
  w.begin_array();
  for (size_t i = 0; i < rows.size();) {
    const EventBlock& block = inspection.blocks[rows[i].block];
    w.begin_object();
    w.key("name");
    w.string(block.name);
    w.key("block_index");
    w.number(rows[i].block);
    w.key("bundled_input_index");
    w.number(block.bundled_input_index);
    w.key("run_count");
    w.number(block.run_count);
    w.key("run_output");
    values_json(w, block.run_output, options);
    w.key("events");
    w.begin_array();
    const size_t b = rows[i].block;
    for (; i < rows.size() && rows[i].block == b; ++i) {
      w.begin_object();
      event_fields(w, block.events[rows[i].event], rows[i], options);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.newline();
  return finish(w);
}

Status write_frame_json(const Inspection& inspection, const Frame& frame, std::FILE* out, const JsonOptions& options) {
  JsonWriter w(out, options.pretty && !options.lines);
  std::vector<std::pair<std::string, std::string>> keys;
  for (const std::string& column : frame.columns) keys.push_back(key_and_unit(column));
  auto units_json = [&] {
    w.key("units");
    w.begin_object();
    for (const auto& [key, unit] : keys) {
      if (unit.empty()) continue;
      w.key(key);
      w.string(unit);
    }
    w.end_object();
  };
  auto row_json = [&](size_t r) {
    w.begin_object();
    if (options.lines) {
      line_header(w, inspection);
      units_json();
    }
    w.key("index");
    w.number(frame.index[r]);
    for (size_t c = 0; c < frame.columns.size(); ++c) {
      w.key(keys[c].first);
      cell_json(w, frame.rows[r][c]);
    }
    w.end_object();
  };
  if (options.lines) {
    for (size_t r = 0; r < frame.rows.size(); ++r) {
      row_json(r);
      w.newline();
    }
    return finish(w);
  }
  w.begin_object();
  envelope(w, inspection, "op_types");
  units_json();
  w.key("rows");
  w.begin_array();
  for (size_t r = 0; r < frame.rows.size(); ++r) row_json(r);
  w.end_array();
  w.end_object();
  w.newline();
  return finish(w);
}

}  // namespace etkit::inspect
