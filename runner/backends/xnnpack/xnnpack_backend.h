// ExecuTorch's "XnnpackBackend" as a runner backend: each delegate blob is
// read and verified at load (libcore/formats/xnnpack) and compiled into an
// interpreter (xnn_runtime.h) that runs on every DelegateCall.
#pragma once

#include <memory>

#include "runner/backend.h"
#include "runner/backends/xnnpack/xnn_runtime.h"

namespace etkit::rt::xnnpack {

inline constexpr std::string_view kBackendId = "XnnpackBackend";

std::shared_ptr<Backend> make_backend(Options options = {});

}  // namespace etkit::rt::xnnpack
