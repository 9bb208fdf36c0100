// The numeric comparisons et-compare offers, from file names to a report:
// each opens and verifies its inputs, pairs the tensors and judges them.
// Errors name the file at fault; a report's `failed` is the check result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/intermediates.h"
#include "libcore/compare/numeric_report.h"
#include "libcore/formats/etdump/etdump.h"
#include "libcore/support/file.h"

namespace etkit::compare {

struct RunFiles {
  std::string etdump;
  // Empty: ETDUMP.debug.bin if it exists (et-run's default name), else none.
  std::string debug_buffer;
};

struct LoadedRun {
  std::shared_ptr<const InputFile> file;
  std::shared_ptr<const InputFile> buffer;  // null without a debug buffer
  etdump::EtDump dump;
  ByteSpan buffer_bytes() const { return buffer ? buffer->bytes() : ByteSpan(); }
  // An error from reading logged tensors, attributed to the debug buffer
  // when it is about the buffer, else to the ETDump.
  Error attribute(Error error) const;
};

Result<LoadedRun> load_run(const RunFiles& files);

struct NumericOptions {
  Criteria criteria;
  NumericReportOptions report;
};

// Program outputs against one .npy per output, in order.
Result<Outcome> compare_outputs_with_npy(const RunFiles& run, const std::vector<std::string>& references,
                                         const NumericOptions& options);

// Program outputs against the expected outputs of a bundled test case.
// Without a method name, the bundle's only test suite (or "forward").
Result<Outcome> compare_outputs_with_bundle(const RunFiles& run, const std::string& bundle_path,
                                            const std::optional<std::string>& method, size_t testset,
                                            const NumericOptions& options);

// Two .npy files; the first is the reference.
Result<Outcome> compare_npy_files(const std::string& reference, const std::string& candidate,
                                  const NumericOptions& options);

// The intermediate outputs of two runs, paired by instruction. With an
// ETRecord (non-empty path), the reference run's events are linked to it
// and every pair gets the instruction's module path and source line; what
// does not link is listed in the summary as "etrecord_warnings".
Result<Outcome> compare_intermediate_runs(const RunFiles& reference, const RunFiles& candidate,
                                          const NumericOptions& options, const std::string& etrecord = {},
                                          const std::string& etrecord_method = "forward");

}  // namespace etkit::compare
