// The delegate interface (runtime/backend/interface.h's roles): backends are
// looked up by id at load, initialised with their blob, compile specs and
// the program's named data, and executed on the DelegateCall's argument
// values with the tracer state of that instruction.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "libcore/formats/program/program.h"
#include "libcore/support/result.h"
#include "runner/evalue.h"

namespace etkit::rt {

class EventTracer;

// Data a program stores by key (its named_data segments, then an external
// .ptd), as ExecuTorch's NamedDataMap offers it to backends.
class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  virtual std::optional<ByteSpan> find(std::string_view key) const = 0;
};

struct BackendInitContext {
  ByteSpan processed;
  std::span<const pte::CompileSpec> compile_specs;
  const NamedDataMap* named_data = nullptr;  // may be null
};

// Where a delegate call runs, for the events a backend logs itself.
struct DelegateCallContext {
  EventTracer* tracer = nullptr;  // null: no events
  int32_t chain = 0;
  int32_t instruction = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Returns an opaque handle kept for the method's lifetime.
  virtual Result<std::shared_ptr<void>> init(const BackendInitContext& context) = 0;
  virtual Status execute(void* handle, std::span<EValue* const> args, const DelegateCallContext& context) = 0;
};

class BackendRegistry {
 public:
  Status add(std::string id, std::shared_ptr<Backend> backend);
  Backend* find(std::string_view id) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, std::shared_ptr<Backend>, std::less<>> backends_;
};

}  // namespace etkit::rt
