// Opens what et-run is given: a .pte, or a .bpte whose embedded program is
// used in place, plus any .ptd files with external constants.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "libcore/formats/bundled/bundled_program.h"
#include "libcore/formats/program/program.h"
#include "libcore/formats/ptd/flat_tensor.h"
#include "runner/method.h"

namespace etkit::rt {

struct ProgramFile {
  std::shared_ptr<const InputFile> file;
  pte::Program program;
  std::optional<bundled::BundledProgram> bundle;  // set for .bpte
};

Result<ProgramFile> open_program_file(const std::string& path);

// External data from one or more .ptd files (first match wins).
class FlatTensorData : public ExternalData {
 public:
  Status add(const std::string& path);
  const Entry* find(std::string_view key) const override;

 private:
  std::vector<ptd::FlatTensorFile> files_;
  mutable std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace etkit::rt
