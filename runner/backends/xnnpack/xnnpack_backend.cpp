#include "runner/backends/xnnpack/xnnpack_backend.h"

#include "libcore/formats/xnnpack/xnn_reader.h"

namespace etkit::rt::xnnpack {
namespace {

class XnnpackBackend : public Backend {
 public:
  explicit XnnpackBackend(Options options) : options_(options) {}

  Result<std::shared_ptr<void>> init(const BackendInitContext& context) override {
    auto graph = xnn::read_xnn_payload(context.processed);
    if (!graph) return std::move(graph).error();
    auto runtime = Runtime::compile(std::move(graph).value(), context.named_data, options_);
    if (!runtime) return std::move(runtime).error();
    return std::shared_ptr<void>(std::shared_ptr<Runtime>(std::move(runtime).value()));
  }

  Status execute(void* handle, std::span<EValue* const> args, const DelegateCallContext& context) override {
    return static_cast<Runtime*>(handle)->run(args, context);
  }

 private:
  Options options_;
};

}  // namespace

std::shared_ptr<Backend> make_backend(Options options) { return std::make_shared<XnnpackBackend>(options); }

}  // namespace etkit::rt::xnnpack
