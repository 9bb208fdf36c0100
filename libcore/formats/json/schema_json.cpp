#include "libcore/formats/json/schema_json.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include <flatbuffers/idl.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "bundled_program_generated.h"
#include "etdump_generated.h"
#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/etdump/debug_buffer.h"
#include "libcore/formats/etdump/etdump_flatbuffer.h"
#include "libcore/formats/flatbuffer_verify.h"
#include "libcore/formats/json/flatbuffer_json.h"
#include "libcore/formats/program/program_reader.h"
#include "libcore/formats/program/program_writer.h"
#include "libcore/formats/ptd/flat_tensor.h"
#include "libcore/formats/scalar_type.h"
#include "libcore/support/base64.h"
#include "libcore/support/float16.h"
#include "libcore/support/json_number.h"
#include "program_generated.h"

// RapidJSON 1.1.0's member iterators declare operator!= as a member only,
// which C++20's reversed candidates make ambiguous to clang; harmless, and
// fixed in RapidJSON after 1.1.0.
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wambiguous-reversed-operator"
#endif

extern const unsigned char k_program_bfbs[];
extern const std::size_t k_program_bfbs_size;
extern const unsigned char k_etdump_bfbs[];
extern const std::size_t k_etdump_bfbs_size;
extern const unsigned char k_bundled_program_bfbs[];
extern const std::size_t k_bundled_program_bfbs_size;
extern const unsigned char k_flat_tensor_bfbs[];
extern const std::size_t k_flat_tensor_bfbs_size;

namespace etkit {
namespace {

using json::CompiledSchema;
using json::JsonEmitter;

ByteSpan embedded_schema(FileKind kind) {
  switch (kind) {
    case FileKind::kProgram: return {k_program_bfbs, k_program_bfbs_size};
    case FileKind::kEtDump: return {k_etdump_bfbs, k_etdump_bfbs_size};
    case FileKind::kBundledProgram: return {k_bundled_program_bfbs, k_bundled_program_bfbs_size};
    case FileKind::kFlatTensor: return {k_flat_tensor_bfbs, k_flat_tensor_bfbs_size};
  }
  return {};
}

const CompiledSchema& compiled_schema(FileKind kind) {
  static const CompiledSchema program(*reflection::GetSchema(k_program_bfbs));
  static const CompiledSchema etdump(*reflection::GetSchema(k_etdump_bfbs));
  static const CompiledSchema bundled(*reflection::GetSchema(k_bundled_program_bfbs));
  static const CompiledSchema flat_tensor(*reflection::GetSchema(k_flat_tensor_bfbs));
  switch (kind) {
    case FileKind::kProgram: return program;
    case FileKind::kEtDump: return etdump;
    case FileKind::kFlatTensor: return flat_tensor;
    default: return bundled;
  }
}

// ---- Tensor values from the debug buffer -------------------------------------

etdump::Tensor to_tensor(const ::etdump::Tensor& t) {
  etdump::Tensor out;
  out.scalar_type = static_cast<int8_t>(t.scalar_type());
  out.sizes = copy_vector(t.sizes());
  out.strides = copy_vector(t.strides());
  out.offset = t.offset();
  return out;
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Writes up to `max_values` elements of `bytes` (dtype `scalar_type`);
// returns false when the dtype has no numeric reading.
bool write_values(JsonWriter& w, int scalar_type, ByteSpan bytes, size_t count) {
  const auto st = static_cast<ScalarType>(scalar_type);
  const auto elem = element_size(scalar_type).value_or(1);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t* p = bytes.data() + i * elem;
    switch (st) {
      case ScalarType::kByte: case ScalarType::kQUInt8: w.number(load<uint8_t>(p)); break;
      case ScalarType::kChar: case ScalarType::kQInt8: w.number(load<int8_t>(p)); break;
      case ScalarType::kShort: w.number(load<int16_t>(p)); break;
      case ScalarType::kInt: case ScalarType::kQInt32: w.number(load<int32_t>(p)); break;
      case ScalarType::kLong: w.number(load<int64_t>(p)); break;
      case ScalarType::kHalf: w.number(half_to_float(load<uint16_t>(p))); break;
      case ScalarType::kFloat: w.number(load<float>(p)); break;
      case ScalarType::kDouble: w.number(load<double>(p)); break;
      case ScalarType::kBool: w.boolean(*p != 0); break;
      case ScalarType::kBFloat16: w.number(bfloat16_to_float(load<uint16_t>(p))); break;
      case ScalarType::kBits16: case ScalarType::kUInt16: w.number(load<uint16_t>(p)); break;
      case ScalarType::kUInt32: w.number(load<uint32_t>(p)); break;
      case ScalarType::kUInt64: w.number(load<uint64_t>(p)); break;
      default: return false;
    }
  }
  return true;
}

// Checks every logged tensor against the debug buffer before anything is
// printed, so a short buffer never leaves partial output behind.
Status check_debug_tensors(const ::etdump::ETDump& root, ByteSpan debug_buffer) {
  if (!root.run_data()) return {};
  for (flatbuffers::uoffset_t r = 0; r < root.run_data()->size(); ++r) {
    const auto* events = root.run_data()->Get(r)->events();
    if (!events) continue;
    for (flatbuffers::uoffset_t e = 0; e < events->size(); ++e) {
      const auto* d = events->Get(e)->debug_event();
      if (!d || !d->debug_entry()) continue;
      const auto where = "run_data[" + std::to_string(r) + "].events[" + std::to_string(e) + "].debug_event.debug_entry";
      if (const auto* t = d->debug_entry()->tensor()) {
        auto bytes = tensor_bytes(debug_buffer, to_tensor(*t));
        if (!bytes) return std::move(bytes).error().in(where + ".tensor");
      }
      if (const auto* list = d->debug_entry()->tensor_list(); list && list->tensors()) {
        for (flatbuffers::uoffset_t k = 0; k < list->tensors()->size(); ++k) {
          auto bytes = tensor_bytes(debug_buffer, to_tensor(*list->tensors()->Get(k)));
          if (!bytes) return std::move(bytes).error().in(where + ".tensor_list.tensors[" + std::to_string(k) + "]");
        }
      }
    }
  }
  return {};
}

void install_tensor_values_hook(JsonEmitter& emitter, const DecodeOptions& options) {
  if (!options.debug_buffer) return;
  const ByteSpan buffer = *options.debug_buffer;
  const size_t max_values = options.max_values;
  emitter.set_hook(compiled_schema(FileKind::kEtDump).table_index("etdump.Tensor"),
                   [buffer, max_values](const flatbuffers::Table& table, JsonWriter& w) {
                     const auto tensor = to_tensor(reinterpret_cast<const ::etdump::Tensor&>(table));
                     auto bytes = tensor_bytes(buffer, tensor);  // checked up front
                     if (!bytes) return;
                     const size_t numel = bytes->size() / element_size(tensor.scalar_type).value_or(1);
                     const size_t shown = std::min(numel, max_values);
                     w.key("values");
                     w.begin_array();
                     const bool numeric = write_values(w, tensor.scalar_type, *bytes, shown);
                     w.end_array();
                     if (numeric && shown < numel) {
                       w.key("values_omitted");
                       w.number(numel - shown);
                     }
                   });
}

Result<etdump::VerifiedEtDump> verified_etdump(ByteSpan file, const DecodeOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(etdump::VerifiedEtDump verified, etdump::verify_etdump(file));
  if (options.debug_buffer) ETKIT_TRY(check_debug_tensors(*verified.root, *options.debug_buffer));
  return verified;
}

Status finish(JsonWriter& w) {
  w.flush();
  if (w.broken_pipe()) return Error{ErrorKind::kBrokenPipe, "<stdout>", {}, "broken pipe"};
  if (w.failed()) return io_error("<stdout>", "cannot write the output");
  return {};
}

// ---- Encoding --------------------------------------------------------------

// Our schemas nest at most ~10 levels; FlatBuffers' parser stops at 64. The
// check is iterative because everything after it (strip, the writer) recurses.
constexpr size_t kMaxJsonDepth = 64;

bool deeper_than(const rapidjson::Value& doc, size_t limit) {
  std::vector<std::pair<const rapidjson::Value*, size_t>> stack{{&doc, 1}};
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    if (node->IsArray()) {
      if (depth > limit) return true;
      for (const auto& child : node->GetArray()) stack.emplace_back(&child, depth + 1);
    } else if (node->IsObject()) {
      if (depth > limit) return true;
      for (const auto& member : node->GetObject()) stack.emplace_back(&member.value, depth + 1);
    }
  }
  return false;
}

// A key given twice keeps its first place and takes its last value (what
// the document meant to most JSON readers; FlatBuffers' parser would refuse
// the field as set more than once). Iterative, linear in the members.
void keep_last_of_duplicate_keys(rapidjson::Value& doc) {
  std::vector<rapidjson::Value*> stack{&doc};
  std::unordered_map<std::string_view, rapidjson::SizeType> first_at;
  std::vector<bool> dropped;
  while (!stack.empty()) {
    rapidjson::Value& node = *stack.back();
    stack.pop_back();
    if (node.IsArray()) {
      for (auto& child : node.GetArray()) stack.push_back(&child);
      continue;
    }
    if (!node.IsObject()) continue;
    const auto members = node.MemberBegin();
    const rapidjson::SizeType count = node.MemberCount();
    first_at.clear();
    dropped.assign(count, false);
    bool any = false;
    for (rapidjson::SizeType i = 0; i < count; ++i) {
      const std::string_view key(members[i].name.GetString(), members[i].name.GetStringLength());
      const auto [it, inserted] = first_at.emplace(key, i);
      if (!inserted) {
        members[it->second].value = members[i].value;  // RapidJSON's assignment moves
        dropped[i] = any = true;
      }
    }
    if (any) {
      rapidjson::SizeType kept = 0;
      for (rapidjson::SizeType i = 0; i < count; ++i) {
        if (dropped[i]) continue;
        if (kept != i) {
          members[kept].name = members[i].name;
          members[kept].value = members[i].value;
        }
        ++kept;
      }
      node.EraseMember(node.MemberBegin() + kept, node.MemberEnd());
    }
    for (auto& member : node.GetObject()) stack.push_back(&member.value);
  }
}

Result<FileKind> kind_of_document(const rapidjson::Value& doc) {
  if (!doc.IsObject()) return bad_input("the JSON document is not an object");
  if (doc.HasMember("run_data")) return FileKind::kEtDump;
  if (doc.HasMember("method_test_suites") || doc.HasMember("program")) return FileKind::kBundledProgram;
  if (doc.HasMember("execution_plan")) return FileKind::kProgram;
  if (doc.HasMember("flat_tensor_header")) return FileKind::kFlatTensor;
  return bad_input("cannot tell the file kind: expected a 'run_data', 'execution_plan' or 'program' key");
}

// Removes every member named `key` (EraseMember, unlike RemoveMember, keeps
// the order of the others).
void erase_all(rapidjson::Value& object, const char* key) {
  for (auto it = object.FindMember(key); it != object.MemberEnd(); it = object.FindMember(key)) object.EraseMember(it);
}

// Removes the keys decode adds to ETDump tensors; they live in the debug buffer.
void strip_tensor_values(rapidjson::Value& node) {
  if (node.IsObject()) {
    erase_all(node, "values");
    erase_all(node, "values_omitted");
    for (auto& member : node.GetObject()) strip_tensor_values(member.value);
  } else if (node.IsArray()) {
    for (auto& child : node.GetArray()) strip_tensor_values(child);
  }
}

std::string to_text(const rapidjson::Value& doc) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// "line L, column C" (both from 1) of a byte offset, as editors count.
std::string line_and_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n');
  const size_t column = 1 + offset - (line_start == std::string_view::npos ? 0 : line_start + 1);
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Passes RapidJSON's events on to the document, except numbers: they arrive
// as their text (kParseNumbersAsStringsFlag) and are converted by
// json_number(), as RapidJSON 1.1.0's full-precision conversion misreads
// zeros with large negative exponents (0e-44).
class NumberFilter {
 public:
  explicit NumberFilter(rapidjson::Document& doc) : doc_(doc) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const char* s, rapidjson::SizeType length, bool) {
    const auto n = json_number(std::string_view(s, length));
    if (!n || n->overflow) {
      too_big_ = true;
      return false;
    }
    if (const int64_t* i = std::get_if<int64_t>(&n->value)) return doc_.Int64(*i);
    if (const uint64_t* u = std::get_if<uint64_t>(&n->value)) return doc_.Uint64(*u);
    return doc_.Double(std::get<double>(n->value));
  }
  bool String(const char* s, rapidjson::SizeType length, bool copy) { return doc_.String(s, length, copy); }
  bool StartObject() { return doc_.StartObject(); }
  bool Key(const char* s, rapidjson::SizeType length, bool copy) { return doc_.Key(s, length, copy); }
  bool EndObject(rapidjson::SizeType count) { return doc_.EndObject(count); }
  bool StartArray() { return doc_.StartArray(); }
  bool EndArray(rapidjson::SizeType count) { return doc_.EndArray(count); }

  bool too_big() const { return too_big_; }

 private:
  rapidjson::Document& doc_;
  bool too_big_ = false;
};

// Strict JSON (no NaN/Infinity: decode writes them as strings), valid UTF-8,
// read iteratively so nesting costs heap, not stack.
Result<rapidjson::Document> parse_document(std::string_view text) {
  // RapidJSON takes a NUL byte for the end of the input: read up to it, and
  // refuse it if the document before it is complete.
  const size_t nul = text.find('\0');
  constexpr unsigned kFlags =
      rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag;
  rapidjson::MemoryStream stream(text.data(), std::min(nul, text.size()));
  rapidjson::Reader reader;
  rapidjson::ParseResult result;
  bool too_big = false;
  rapidjson::Document doc;
  auto generate = [&](rapidjson::Document& handler) {
    NumberFilter filter(handler);
    result = reader.Parse<kFlags>(stream, filter);
    too_big = filter.too_big();
    return !result.IsError();
  };
  doc.Populate(generate);
  if (result.IsError()) {
    // RapidJSON's sentences ("Missing a comma or ']' after an array
    // element.") as a clause of our one-line message.
    std::string reason = too_big ? "Number too big to be stored in double." : rapidjson::GetParseError_En(result.Code());
    if (!reason.empty() && reason.back() == '.') reason.pop_back();
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    return bad_input("invalid JSON at " + line_and_column(text, result.Offset()) + ": " + reason);
  }
  if (nul != std::string_view::npos) {
    return bad_input("invalid JSON at " + line_and_column(text, nul) + ": a NUL byte after the document");
  }
  return doc;
}

Result<std::vector<uint8_t>> parse_with_schema(FileKind kind, const std::string& text) {
  flatbuffers::IDLOptions opts;
  opts.size_prefixed = kind == FileKind::kEtDump;
  flatbuffers::Parser parser(opts);
  const ByteSpan schema = embedded_schema(kind);
  if (!parser.Deserialize(schema.data(), schema.size())) {
    return Error{ErrorKind::kBadInput, {}, {}, "internal: cannot load the embedded schema: " + parser.error_};
  }
  if (!parser.ParseJson(text.c_str())) {
    std::string message = parser.error_;
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
    return bad_input("does not match the " + std::string(file_kind_name(kind)) + " schema: " + message);
  }
  return std::vector<uint8_t>(parser.builder_.GetBufferPointer(),
                              parser.builder_.GetBufferPointer() + parser.builder_.GetSize());
}

Result<std::vector<uint8_t>> encode_program(rapidjson::Document doc) {
  uint32_t header_length = 32;
  if (auto it = doc.FindMember("extended_header"); it != doc.MemberEnd()) {
    const rapidjson::Value& header = it->value;
    if (header.IsObject()) {
      if (auto length = header.FindMember("length"); length != header.MemberEnd() && length->value.IsUint64()) {
        header_length = static_cast<uint32_t>(length->value.GetUint64());
      }
    }
    erase_all(doc, "extended_header");
  }
  std::vector<std::vector<uint8_t>> blobs;
  if (auto it = doc.FindMember("segment_data"); it != doc.MemberEnd()) {
    if (!it->value.IsArray()) return bad_input("must be an array of base64 strings", "segment_data");
    const auto items = it->value.GetArray();
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
      const rapidjson::Value& item = items[i];
      auto bytes = item.IsString() ? base64_decode(std::string(item.GetString(), item.GetStringLength())) : std::nullopt;
      if (!bytes) return bad_input("not a base64 string", "segment_data[" + std::to_string(i) + "]");
      blobs.push_back(std::move(*bytes));
    }
    erase_all(doc, "segment_data");
  }
  ETKIT_ASSIGN_OR_RETURN(auto flatbuffer, parse_with_schema(FileKind::kProgram, to_text(doc)));
  const auto* root = executorch_flatbuffer::GetProgram(flatbuffer.data());
  std::vector<pte::DataSegment> segments;
  if (root->segments()) {
    for (const auto* s : *root->segments()) segments.push_back(pte::DataSegment{s->offset(), s->size()});
  }
  std::vector<ByteSpan> spans(blobs.begin(), blobs.end());
  if (spans.empty() && !segments.empty()) {
    // A document without segment_data (e.g. from flatc) keeps empty segments only.
    spans.assign(segments.size(), ByteSpan());
  }
  return pte::assemble_program_file(flatbuffer, segments, spans, header_length);
}

}  // namespace

std::string_view file_kind_name(FileKind kind) {
  switch (kind) {
    case FileKind::kProgram: return "program";
    case FileKind::kEtDump: return "ETDump";
    case FileKind::kBundledProgram: return "bundled program";
    case FileKind::kFlatTensor: return "FlatTensor (.ptd)";
  }
  return "?";
}

Result<FileKind> detect_file_kind(ByteSpan file) {
  const std::string id4 = identifier_at(file, 4);
  if (id4.rfind("ET", 0) == 0) return FileKind::kProgram;
  if (id4.rfind("BP", 0) == 0) return FileKind::kBundledProgram;
  if (identifier_at(file, 8) == etdump::kIdentifier) return FileKind::kEtDump;
  // ExecuTorch's Python serializer writes ETDumps without a size prefix.
  if (id4 == etdump::kIdentifier) return FileKind::kEtDump;
  // FTxx, or the FH01 header in front of the FlatBuffer (an early layout the
  // reader names).
  if (id4.rfind("FT", 0) == 0 || identifier_at(file, 0) == "FH01") return FileKind::kFlatTensor;
  if (file.size() < 12) return bad_input("too short (" + std::to_string(file.size()) + " bytes) to be an ExecuTorch file");
  return bad_input("unknown file identifier '" + id4 + "' at byte 4 (expected ET12 program, BP08 bundled program, FT01 "
                   ".ptd data, or ED00 ETDump; a size-prefixed ETDump has ED00 at byte 8, where this file has '" +
                   identifier_at(file, 8) + "')");
}

Status decode_to_json(FileKind kind, ByteSpan file, const DecodeOptions& options, std::FILE* out) {
  const CompiledSchema& schema = compiled_schema(kind);
  switch (kind) {
    case FileKind::kProgram: {
      ETKIT_ASSIGN_OR_RETURN(pte::Program program, pte::read_program(file, nullptr));
      const ByteSpan region = program.extended_header ? file.first(program.extended_header->program_size) : file;
      JsonWriter w(out, options.pretty);
      JsonEmitter emitter(schema, w);
      w.begin_object();
      emitter.fields(*flatbuffers::GetRoot<flatbuffers::Table>(region.data()), schema.root_table());
      if (const auto& h = program.extended_header) {
        w.key("extended_header");
        w.begin_object();
        w.key("length"); w.number(h->length);
        w.key("program_size"); w.number(h->program_size);
        w.key("segment_base_offset"); w.number(h->segment_base_offset);
        w.key("segment_data_size"); w.number(h->segment_data_size);
        w.end_object();
      }
      if (!program.segment_data.empty()) {
        w.key("segment_data");
        w.begin_array();
        for (const auto& data : program.segment_data) w.string(base64_encode(data));
        w.end_array();
      }
      w.end_object();
      w.newline();
      return finish(w);
    }
    case FileKind::kBundledProgram: {
      ETKIT_ASSIGN_OR_RETURN(bundled::BundledProgram bundle, bundled::read_bundled_program(file, nullptr));
      auto embedded = pte::read_program(bundle.program, nullptr);
      if (!embedded) return std::move(embedded).error().in("program");
      JsonWriter w(out, options.pretty);
      JsonEmitter emitter(schema, w);
      emitter.table(*flatbuffers::GetRoot<flatbuffers::Table>(file.data()), schema.root_table());
      w.newline();
      return finish(w);
    }
    case FileKind::kFlatTensor: {
      ETKIT_ASSIGN_OR_RETURN(ptd::FlatTensorFile data, ptd::read_flat_tensor(file, nullptr));
      JsonWriter w(out, options.pretty);
      JsonEmitter emitter(schema, w);
      w.begin_object();
      emitter.fields(*flatbuffers::GetRoot<flatbuffers::Table>(data.flatbuffer.data()), schema.root_table());
      const auto& h = data.header;
      w.key("flat_tensor_header");
      w.begin_object();
      w.key("length"); w.number(h.length);
      w.key("flatbuffer_offset"); w.number(h.flatbuffer_offset);
      w.key("flatbuffer_size"); w.number(h.flatbuffer_size);
      w.key("segment_base_offset"); w.number(h.segment_base_offset);
      w.key("segment_data_size"); w.number(h.segment_data_size);
      w.end_object();
      w.key("segment_data");
      w.begin_array();
      for (const ByteSpan segment : data.segments) w.string(base64_encode(segment));
      w.end_array();
      w.end_object();
      w.newline();
      return finish(w);
    }
    case FileKind::kEtDump: {
      ETKIT_ASSIGN_OR_RETURN(const etdump::VerifiedEtDump verified, verified_etdump(file, options));
      const ::etdump::ETDump* root = verified.root;
      JsonWriter w(out, options.pretty);
      JsonEmitter emitter(schema, w);
      install_tensor_values_hook(emitter, options);
      emitter.table(*reinterpret_cast<const flatbuffers::Table*>(root), schema.root_table());
      w.newline();
      return finish(w);
    }
  }
  return {};
}

Status decode_etdump_jsonl(ByteSpan file, const DecodeOptions& options, std::FILE* out) {
  ETKIT_ASSIGN_OR_RETURN(const etdump::VerifiedEtDump verified, verified_etdump(file, options));
  const ::etdump::ETDump* root = verified.root;
  const CompiledSchema& schema = compiled_schema(FileKind::kEtDump);
  const int event_table = schema.table_index("etdump.Event");
  JsonWriter w(out, /*pretty=*/false);
  JsonEmitter emitter(schema, w);
  install_tensor_values_hook(emitter, options);
  if (root->run_data()) {
    for (flatbuffers::uoffset_t r = 0; r < root->run_data()->size(); ++r) {
      const auto* run = root->run_data()->Get(r);
      if (!run->events()) continue;
      const std::string_view name = run->name() ? run->name()->string_view() : std::string_view();
      for (flatbuffers::uoffset_t e = 0; e < run->events()->size(); ++e) {
        w.begin_object();
        w.key("format"); w.string("etkit.etdump-events/1");  // a view of ours, versioned per line
        w.key("run_index"); w.number(r);
        w.key("run_name"); w.string(name);
        w.key("event_index"); w.number(e);
        emitter.fields(*reinterpret_cast<const flatbuffers::Table*>(run->events()->Get(e)), event_table);
        w.end_object();
        w.newline();
      }
    }
  }
  return finish(w);
}

Result<std::vector<uint8_t>> encode_from_json(std::string_view json_text) {
  ETKIT_ASSIGN_OR_RETURN(rapidjson::Document doc, parse_document(json_text));
  if (deeper_than(doc, kMaxJsonDepth)) {
    return bad_input("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  keep_last_of_duplicate_keys(doc);
  ETKIT_ASSIGN_OR_RETURN(FileKind kind, kind_of_document(doc));
  std::vector<uint8_t> bytes;
  switch (kind) {
    case FileKind::kProgram: {
      ETKIT_ASSIGN_OR_RETURN(bytes, encode_program(std::move(doc)));
      auto check = pte::read_program(bytes, nullptr);
      if (!check) return std::move(check).error();
      break;
    }
    case FileKind::kEtDump: {
      strip_tensor_values(doc);
      ETKIT_ASSIGN_OR_RETURN(bytes, parse_with_schema(kind, to_text(doc)));
      ETKIT_TRY(verified_etdump(bytes, {}));
      break;
    }
    case FileKind::kBundledProgram: {
      ETKIT_ASSIGN_OR_RETURN(bytes, parse_with_schema(kind, to_text(doc)));
      auto check = bundled::read_bundled_program(bytes, nullptr);
      if (!check) return std::move(check).error();
      auto embedded = pte::read_program(check->program, nullptr);
      if (!embedded) return std::move(embedded).error().in("program");
      break;
    }
    case FileKind::kFlatTensor:
      return unsupported("--encode does not write .ptd (FlatTensor) files");
  }
  return bytes;
}

}  // namespace etkit
