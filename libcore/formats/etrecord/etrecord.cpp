#include "libcore/formats/etrecord/etrecord.h"

namespace etkit::etrecord {

std::string_view op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kEdge: return "edge";
    case OpKind::kBackend: return "backend";
    case OpKind::kAten: return "aten";
    case OpKind::kDelegateCall: return "delegate";
    case OpKind::kHigherOrder: return "higher_order";
    case OpKind::kMemoryAlloc: return "memory_alloc";
    case OpKind::kSymbolic: return "symbolic";
    case OpKind::kKnownFunction: return "function";
    case OpKind::kOther: return "other";
  }
  return "other";
}

std::vector<std::string> Node::output_names() const {
  std::vector<std::string> names;
  for (const Argument& out : outputs) {
    for (const ArgItem& item : out.items) {
      if (const ArgRef* ref = std::get_if<ArgRef>(&item)) names.push_back(ref->name);
    }
  }
  return names;
}

const TensorMeta* Graph::tensor(std::string_view name) const {
  const auto it = tensor_values.find(std::string(name));
  return it == tensor_values.end() ? nullptr : &it->second;
}

std::string_view entry_kind_name(EntryKind kind) {
  switch (kind) {
    case EntryKind::kMarker: return "marker";
    case EntryKind::kEdgeProgram: return "edge program";
    case EntryKind::kAtenProgram: return "aten program";
    case EntryKind::kExtraProgram: return "extra program";
    case EntryKind::kStateDict: return "state dict";
    case EntryKind::kConstants: return "constants";
    case EntryKind::kExampleInputs: return "example inputs";
    case EntryKind::kDebugHandleMap: return "debug handle map";
    case EntryKind::kDelegateMap: return "delegate map";
    case EntryKind::kNumOutsMap: return "num outs map";
    case EntryKind::kExportGraphId: return "export graph id";
    case EntryKind::kReferenceOutputs: return "reference outputs";
    case EntryKind::kRepresentativeInputs: return "representative inputs";
    case EntryKind::kProgramBuffer: return "program buffer";
  }
  return "?";
}

std::string_view side_car_status_name(SideCar::Status status) {
  switch (status) {
    case SideCar::Status::kReadable: return "readable";
    case SideCar::Status::kEmpty: return "empty";
    case SideCar::Status::kNeedsPython: return "not readable without Python";
    case SideCar::Status::kMalformed: return "malformed";
  }
  return "?";
}

const Program* EtRecord::find_program(std::string_view entry) const {
  for (const Program& p : programs) {
    if (p.entry == entry) return &p;
  }
  return nullptr;
}

const Program* EtRecord::edge_program(std::string_view method) const {
  for (const Program& p : programs) {
    if (p.kind == EntryKind::kEdgeProgram && p.method == method) return &p;
  }
  return nullptr;
}

size_t EtRecord::edge_program_count() const {
  size_t n = 0;
  for (const Program& p : programs) n += p.kind == EntryKind::kEdgeProgram ? 1 : 0;
  return n;
}

}  // namespace etkit::etrecord
