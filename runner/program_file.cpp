#include "runner/program_file.h"

#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/json/schema_json.h"
#include "libcore/formats/program/program_reader.h"

namespace etkit::rt {

Result<ProgramFile> open_program_file(const std::string& path) {
  ProgramFile out;
  ETKIT_ASSIGN_OR_RETURN(out.file, InputFile::open(path));
  auto kind = detect_file_kind(out.file->bytes());
  if (!kind) return std::move(kind).error().at_file(out.file->path());
  if (*kind == FileKind::kEtDump) return bad_input("is an ETDump, not a program").at_file(out.file->path());
  if (*kind == FileKind::kFlatTensor) {
    return bad_input("is a .ptd data file, not a program (pass it with --data)").at_file(out.file->path());
  }
  if (*kind == FileKind::kBundledProgram) {
    ETKIT_ASSIGN_OR_RETURN(auto bundle, bundled::read_bundled_program(out.file));
    auto program = pte::read_program(bundle.program, out.file);
    if (!program) return std::move(program).error().in("program").at_file(out.file->path());
    out.program = std::move(program).value();
    out.bundle = std::move(bundle);
  } else {
    ETKIT_ASSIGN_OR_RETURN(out.program, pte::read_program(out.file));
  }
  return out;
}

Status FlatTensorData::add(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(path));
  ETKIT_ASSIGN_OR_RETURN(auto data, ptd::read_flat_tensor(file));
  files_.push_back(std::move(data));
  return {};
}

const ExternalData::Entry* FlatTensorData::find(std::string_view key) const {
  for (const auto& f : files_) {
    if (const auto* t = f.find(key)) {
      entries_.push_back(std::make_unique<Entry>(Entry{t->bytes, t->scalar_type, t->sizes, t->dim_order}));
      return entries_.back().get();
    }
  }
  return nullptr;
}

}  // namespace etkit::rt
