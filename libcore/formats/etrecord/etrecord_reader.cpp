#include "libcore/formats/etrecord/etrecord_reader.h"

#include <map>
#include <set>

#include "libcore/formats/etrecord/exported_program_json.h"
#include "libcore/support/file.h"

namespace etkit::etrecord {
namespace {

constexpr std::string_view kMarker = "ETRECORD_V0";
constexpr std::string_view kEdge = "edge_dialect_exported_program";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The owning program of a side-car: "<program>_<suffix>" (the reference
// parser tests the suffix without the underscore, §1.2).
std::string owner_of(std::string_view name, std::string_view suffix) {
  std::string_view owner = name.substr(0, name.size() - suffix.size());
  if (!owner.empty() && owner.back() == '_') owner.remove_suffix(1);
  return std::string(owner);
}

// Classifies an entry as the reference parser does (§1.2).
Entry classify(std::string name, uint64_t size) {
  static const std::map<std::string_view, EntryKind> kExact = {
      {kMarker, EntryKind::kMarker},
      {"debug_handle_map", EntryKind::kDebugHandleMap},
      {"delegate_map", EntryKind::kDelegateMap},
      {"instruction_id_to_num_outs_map", EntryKind::kNumOutsMap},
      {kEdge, EntryKind::kEdgeProgram},
      {"exported_program", EntryKind::kAtenProgram},
      {"reference_outputs", EntryKind::kReferenceOutputs},
      {"representative_inputs", EntryKind::kRepresentativeInputs},
      {"export_graph_id", EntryKind::kExportGraphId},
      {"program_buffer", EntryKind::kProgramBuffer},
  };
  Entry e{std::move(name), size, EntryKind::kExtraProgram, {}};
  if (const auto it = kExact.find(e.name); it != kExact.end()) {
    e.kind = it->second;
    return e;
  }
  for (const auto& [suffix, kind] : {std::pair{std::string_view("state_dict"), EntryKind::kStateDict},
                                     std::pair{std::string_view("constants"), EntryKind::kConstants},
                                     std::pair{std::string_view("example_inputs"), EntryKind::kExampleInputs}}) {
    if (ends_with(e.name, suffix)) {
      e.kind = kind;
      e.program = owner_of(e.name, suffix);
      return e;
    }
  }
  if (e.name.rfind(std::string(kEdge) + "/", 0) == 0) e.kind = EntryKind::kEdgeProgram;
  return e;
}

std::string method_of(const Entry& e) {
  if (e.name == kEdge || e.kind == EntryKind::kAtenProgram) return "forward";
  const size_t slash = e.name.rfind('/');
  return slash == std::string::npos ? std::string() : e.name.substr(slash + 1);
}

Result<JsonValue> read_json(const ZipReader& zip, const ZipEntry& entry, const JsonLimits& limits) {
  ETKIT_ASSIGN_OR_RETURN(auto bytes, zip.read(entry));
  auto doc = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), limits);
  if (!doc) return std::move(doc).error().in(entry.name);
  return doc;
}

Result<Handles> handles_of(const JsonValue& v) {
  Handles h;
  if (v.as_int()) {
    h.values.push_back(*v.as_int());
    return h;
  }
  const JsonArray* list = v.as_array();
  if (list == nullptr) return bad_input("debug handles are neither an int nor a list of ints");
  h.is_list = true;
  for (const JsonValue& item : *list) {
    if (!item.as_int()) return bad_input("debug handle list holds a non-integer");
    h.values.push_back(*item.as_int());
  }
  return h;
}

// {"<method>": {"<instruction id>": value}}, values parsed by `parse`.
template <typename T, typename Parse>
Result<std::map<std::string, std::map<std::string, T>>> method_map(const JsonValue& doc, Parse parse) {
  std::map<std::string, std::map<std::string, T>> out;
  const JsonObject* methods = doc.as_object();
  if (methods == nullptr) return bad_input("not a json object");
  for (const JsonMember& method : *methods) {
    const JsonObject* instructions = method.value.as_object();
    if (instructions == nullptr) return bad_input("not a json object", method.key);
    auto& target = out[method.key];
    for (const JsonMember& instruction : *instructions) {
      Result<T> value = parse(instruction.value);
      if (!value) return std::move(value).error().in(method.key + "." + instruction.key);
      target[instruction.key] = std::move(*value);
    }
  }
  return out;
}

Result<DelegateInfo> delegate_info_of(const JsonValue& v) {
  if (!v.is_object()) return bad_input("delegate entry is not an object");
  DelegateInfo info;
  if (const JsonValue* name = v.get("name")) {
    if (!name->is_string()) return bad_input("not a string", "name");
    info.name = *name->as_string();
  }
  if (const JsonValue* map = v.get("delegate_map")) {
    if (!map->is_object()) return bad_input("not an object", "delegate_map");
    for (const JsonMember& m : *map->as_object()) {
      auto h = handles_of(m.value);
      if (!h) return std::move(h).error().in("delegate_map." + m.key);
      info.delegate_map.emplace_back(m.key, std::move(*h));
    }
  }
  return info;
}

SideCar read_side_car(const ZipReader& zip, const ZipEntry& entry, const Entry& classified, const EtRecordLimits& limits) {
  SideCar sc;
  sc.entry = entry.name;
  sc.kind = classified.kind;
  sc.size = entry.size;
  if (entry.size == 0) {
    sc.status = SideCar::Status::kEmpty;
    return sc;
  }
  if (!limits.read_side_cars) {
    sc.status = SideCar::Status::kNeedsPython;
    sc.note = "not opened";
    return sc;
  }
  auto bytes = zip.read(entry);
  if (!bytes) {
    sc.status = SideCar::Status::kMalformed;
    sc.note = bytes.error().message;
    return sc;
  }
  static constexpr uint8_t kZipMagic[4] = {'P', 'K', 3, 4};
  sc.torch_save_zip = bytes->size() >= 4 && std::equal(kZipMagic, kZipMagic + 4, bytes->begin());
  Result<TorchSave> content = [&]() -> Result<TorchSave> {
    if (sc.torch_save_zip) return read_torch_save(*bytes, limits.torch_save);
    // ExecuTorch v0.2-v1.2 wrote reference outputs / representative inputs
    // with plain pickle.dumps, protocol 2 or later: PROTO first.
    if ((*bytes)[0] != 0x80) return bad_input("neither a torch.save archive nor a pickle");
    ETKIT_ASSIGN_OR_RETURN(Pickle p, unpickle(*bytes, limits.torch_save.pickle));
    return describe_pickle(p, limits.torch_save.max_nesting);
  }();
  if (content) {
    sc.status = SideCar::Status::kReadable;
    sc.content = std::move(*content);
  } else {
    sc.status = content.error().kind == ErrorKind::kUnsupported ? SideCar::Status::kNeedsPython : SideCar::Status::kMalformed;
    sc.note = content.error().describe();
    if (!sc.torch_save_zip) sc.note = "plain pickle (ExecuTorch v0.2-v1.2): " + sc.note;
  }
  return sc;
}

void collect_problems(const Graph& g, const std::string& where, std::vector<std::string>& warnings) {
  for (const Node& n : g.nodes) {
    for (const std::string& p : n.metadata.problems) warnings.push_back(where + ": node " + n.name + ": " + p);
    for (const NamedArgument& in : n.inputs) {
      if (in.arg.graph) collect_problems(*in.arg.graph, where + ": " + in.arg.graph_name, warnings);
    }
  }
}

}  // namespace

Result<EtRecord> read_etrecord(ByteSpan bytes, const EtRecordLimits& limits) {
  ETKIT_ASSIGN_OR_RETURN(ZipReader zip, ZipReader::open(bytes, limits.zip));
  EtRecord record;

  // Python's zipfile reads the last of duplicate names; so do we.
  std::map<std::string, size_t> last;
  for (size_t i = 0; i < zip.entries().size(); ++i) last[zip.entries()[i].name] = i;
  if (last.find(std::string(kMarker)) == last.end()) {
    return bad_input("not an ETRecord: no ETRECORD_V0 entry among " + std::to_string(zip.entries().size()) +
                     " zip entries");
  }
  std::set<std::string> programs_seen;
  for (size_t i = 0; i < zip.entries().size(); ++i) {
    const ZipEntry& z = zip.entries()[i];
    if (last[z.name] != i) {
      record.warnings.push_back("entry '" + z.name + "' appears more than once; the last one is used");
      continue;
    }
    Entry e = classify(z.name, z.size);
    switch (e.kind) {
      case EntryKind::kMarker:
        if (z.size != 0) record.warnings.push_back("ETRECORD_V0 holds " + std::to_string(z.size) + " bytes (expected 0)");
        break;
      case EntryKind::kEdgeProgram:
      case EntryKind::kAtenProgram:
      case EntryKind::kExtraProgram: {
        ETKIT_ASSIGN_OR_RETURN(JsonValue doc, read_json(zip, z, limits.json));
        auto program = exported_program_from_json(doc);
        if (!program) return std::move(program).error().in(z.name);
        collect_problems(program->graph, z.name, record.warnings);
        record.programs.push_back(Program{z.name, e.kind, method_of(e), std::move(*program)});
        programs_seen.insert(z.name);
        break;
      }
      case EntryKind::kDebugHandleMap:
      case EntryKind::kDelegateMap:
      case EntryKind::kNumOutsMap:
      case EntryKind::kExportGraphId: {
        ETKIT_ASSIGN_OR_RETURN(JsonValue doc, read_json(zip, z, limits.json));
        if (doc.is_null()) {
          record.warnings.push_back(z.name + " is null");
          break;
        }
        Status s;
        if (e.kind == EntryKind::kDebugHandleMap) {
          auto map = method_map<Handles>(doc, handles_of);
          if (map) record.debug_handle_map = std::move(*map);
          if (!map) s = std::move(map).error();
        } else if (e.kind == EntryKind::kDelegateMap) {
          auto map = method_map<DelegateInfo>(doc, delegate_info_of);
          if (map) record.delegate_map = std::move(*map);
          if (!map) s = std::move(map).error();
        } else if (e.kind == EntryKind::kNumOutsMap) {
          auto map = method_map<int64_t>(doc, [](const JsonValue& v) -> Result<int64_t> {
            if (!v.as_int()) return bad_input("not an integer");
            return *v.as_int();
          });
          if (map) record.num_outs_map = std::move(*map);
          if (!map) s = std::move(map).error();
        } else if (doc.as_int()) {
          record.export_graph_id = *doc.as_int();
        } else {
          s = bad_input("not an integer");
        }
        if (!s) return std::move(s).error().in(z.name);
        break;
      }
      case EntryKind::kStateDict:
      case EntryKind::kConstants:
      case EntryKind::kExampleInputs:
      case EntryKind::kReferenceOutputs:
      case EntryKind::kRepresentativeInputs:
        record.side_cars.push_back(read_side_car(zip, z, e, limits));
        break;
      case EntryKind::kProgramBuffer:
        break;
    }
    record.entries.push_back(std::move(e));
  }
  for (const Entry& e : record.entries) {
    if (!e.program.empty() && programs_seen.count(e.program) == 0) {
      record.warnings.push_back("side-car '" + e.name + "' belongs to no program entry");
    }
  }
  record.version = infer_version(record);
  return record;
}

Result<EtRecord> read_etrecord_file(const std::string& path, const EtRecordLimits& limits) {
  ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(path, InputFile::Access::kSequential));
  auto record = read_etrecord(file->bytes(), limits);
  if (!record) return std::move(record).error().at_file(file->path());
  return record;
}

VersionGuess infer_version(const EtRecord& r) {
  if (r.empty()) return {"unknown", {"only the ETRECORD_V0 marker: the writer failed before writing content"}};
  const auto has = [&](EntryKind kind) {
    for (const Entry& e : r.entries) {
      if (e.kind == kind) return true;
    }
    return false;
  };
  const auto has_prefix = [&](std::string_view prefix) {
    for (const Entry& e : r.entries) {
      if (e.name.rfind(prefix, 0) == 0) return true;
    }
    return false;
  };
  std::set<std::string> schemas;
  bool narrow = false, named_nodes = false, dialect = false;
  for (const Program& p : r.programs) {
    schemas.insert(p.program.schema_version);
    narrow = narrow || p.program.union_form == UnionForm::kNarrow;
    dialect = dialect || !p.program.dialect.empty();
    for (const Node& n : p.program.graph.nodes) named_nodes = named_nodes || !n.name_derived;
  }
  bool zipped_outputs = false;
  for (const SideCar& s : r.side_cars) {
    if ((s.kind == EntryKind::kReferenceOutputs || s.kind == EntryKind::kRepresentativeInputs) && s.torch_save_zip) {
      zipped_outputs = true;
    }
  }

  if (schemas.count("5.4") != 0) return {"v1.3+", {"schema_version 5.4"}};
  if (zipped_outputs) return {"v1.3+", {"reference outputs / representative inputs are torch.save archives"}};
  if (has(EntryKind::kProgramBuffer) || has_prefix("et_dialect_graph_module/")) {
    return {"pre-release (2023)", {"program_buffer or et_dialect_graph_module entries (written until 2023-10-10)"}};
  }
  if (has_prefix(std::string(kEdge) + "/")) return {"v1.2", {"edge programs stored per method (edge_dialect_exported_program/<method>)"}};
  VersionGuess v10{"v1.0-v1.1", {}};
  if (has(EntryKind::kAtenProgram)) v10.evidence.push_back("exported_program entry");
  if (has(EntryKind::kExportGraphId)) v10.evidence.push_back("export_graph_id entry");
  if (has(EntryKind::kNumOutsMap)) v10.evidence.push_back("instruction_id_to_num_outs_map entry");
  if (named_nodes) v10.evidence.push_back("nodes carry a name field");
  if (!v10.evidence.empty()) return v10;
  if (has(EntryKind::kRepresentativeInputs)) return {"v0.7", {"representative_inputs entry (pickle)"}};
  VersionGuess v04{"v0.4-v0.6", {}};
  if (has(EntryKind::kConstants) || has(EntryKind::kExampleInputs)) v04.evidence.push_back("_constants/_example_inputs side-cars");
  if (narrow) v04.evidence.push_back("one-key (narrow) unions");
  for (const std::string& s : schemas) {
    if (s.rfind("5.", 0) == 0) v04.evidence.push_back("schema_version " + s);
  }
  if (!v04.evidence.empty()) return v04;
  if (schemas.count("-1.-1") != 0 || dialect) return {"v0.2-v0.3", {"schema_version -1.-1 / dialect field, wide unions"}};
  if (schemas.count("1") != 0) return {"v0.1", {"schema_version 1, wide unions, no _constants/_example_inputs"}};
  return {"unknown", {"no program entries to date it by"}};
}

}  // namespace etkit::etrecord
