// The delegate interface (runtime/backend/interface.h's roles): backends are
// looked up by id at load, initialised with their blob and compile specs,
// and executed on the DelegateCall's argument values.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>

#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"
#include "runner/evalue.h"

namespace etkit::rt {

class Backend {
 public:
  virtual ~Backend() = default;
  // Returns an opaque handle kept for the method's lifetime.
  virtual Result<std::shared_ptr<void>> init(ByteSpan processed, std::span<const pte::CompileSpec> specs) = 0;
  virtual Status execute(void* handle, std::span<EValue* const> args) = 0;
};

class BackendRegistry {
 public:
  Status add(std::string id, std::shared_ptr<Backend> backend);
  Backend* find(std::string_view id) const;

 private:
  std::map<std::string, std::shared_ptr<Backend>, std::less<>> backends_;
};

}  // namespace etkit::rt
