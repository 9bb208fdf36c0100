#include "libcore/compare/commands.h"

#include <filesystem>

#include "libcore/compare/locations.h"
#include "libcore/formats/bundled/bundled_reader.h"
#include "libcore/formats/etdump/etdump_reader.h"
#include "libcore/formats/npy/npy.h"
#include "libcore/inspect/link.h"

namespace etkit::compare {
namespace {

Error usage(std::string message) { return Error{ErrorKind::kUsage, {}, {}, std::move(message)}; }

bool any_failed(const std::vector<LabeledPair>& pairs) {
  for (const auto& p : pairs) {
    if (p.result.failed) return true;
  }
  return false;
}

Result<TensorValues> load_npy(const std::string& path) {
  ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(path));
  auto array = npy::read_npy(file->bytes());
  if (!array) return std::move(array).error().at_file(path);
  auto values = from_npy(*array);
  if (!values) return std::move(values).error().at_file(path);
  return std::move(values).value();
}

Result<std::vector<LoggedTensor>> outputs_of(const LoadedRun& run) {
  auto outputs = program_outputs(run.dump, run.buffer_bytes());
  if (!outputs) return run.attribute(std::move(outputs).error());
  if (outputs->empty()) {
    return bad_input("no program outputs logged (record them with et-run --debug-level outputs)").at_file(run.file->path());
  }
  return std::move(outputs).value();
}

Result<std::vector<LoggedTensor>> intermediates_of(const LoadedRun& run) {
  auto values = intermediate_outputs(run.dump, run.buffer_bytes());
  if (!values) return run.attribute(std::move(values).error());
  if (values->empty()) {
    return bad_input("no intermediate outputs logged (record them with et-run --debug-level intermediates)")
        .at_file(run.file->path());
  }
  return std::move(values).value();
}

Outcome outputs_outcome(const std::vector<LoggedTensor>& outputs, const std::vector<TensorValues>& references,
                        const NumericOptions& options) {
  std::vector<LabeledPair> pairs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    pairs.push_back({value_label(outputs[i], true), compare_pair(&references[i], &outputs[i].tensor, options.criteria)});
  }
  Outcome out;
  out.failed = any_failed(pairs);
  out.report = pairs_report("outputs", pairs, options.criteria, options.report);
  return out;
}

}  // namespace

Error LoadedRun::attribute(Error error) const {
  const bool about_buffer = error.message.rfind("debug buffer", 0) == 0;
  const std::string& path = about_buffer && buffer ? buffer->path() : file->path();
  if (about_buffer && !buffer) error.message += " (no --debug-buffer given)";
  return std::move(error).at_file(path);
}

Result<LoadedRun> load_run(const RunFiles& files) {
  LoadedRun run;
  ETKIT_ASSIGN_OR_RETURN(run.file, InputFile::open(files.etdump, InputFile::Access::kSequential));
  auto dump = etdump::read_etdump(run.file->bytes());
  if (!dump) return std::move(dump).error().at_file(run.file->path());
  run.dump = std::move(dump).value();
  std::string buffer_path = files.debug_buffer;
  if (buffer_path.empty() && files.etdump != "-") {
    std::error_code ec;
    if (std::filesystem::is_regular_file(files.etdump + ".debug.bin", ec)) buffer_path = files.etdump + ".debug.bin";
  }
  if (!buffer_path.empty()) {
    ETKIT_ASSIGN_OR_RETURN(run.buffer, InputFile::open(buffer_path));
  }
  return run;
}

Result<Outcome> compare_outputs_with_npy(const RunFiles& run_files, const std::vector<std::string>& references,
                                         const NumericOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(LoadedRun run, load_run(run_files));
  ETKIT_ASSIGN_OR_RETURN(auto outputs, outputs_of(run));
  if (references.size() != outputs.size()) {
    return usage(std::to_string(references.size()) + " reference file(s) given, the run logged " +
                 std::to_string(outputs.size()) + " program output(s)")
        .at_file(run.file->path());
  }
  std::vector<TensorValues> expected;
  for (const auto& path : references) {
    ETKIT_ASSIGN_OR_RETURN(auto t, load_npy(path));
    expected.push_back(std::move(t));
  }
  return outputs_outcome(outputs, expected, options);
}

Result<Outcome> compare_outputs_with_bundle(const RunFiles& run_files, const std::string& bundle_path,
                                            const std::optional<std::string>& method, size_t testset,
                                            const NumericOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(LoadedRun run, load_run(run_files));
  ETKIT_ASSIGN_OR_RETURN(auto file, InputFile::open(bundle_path));
  auto bundle = bundled::read_bundled_program(file);
  if (!bundle) return std::move(bundle).error().at_file(bundle_path);
  const bundled::MethodTestSuite* suite = nullptr;
  if (method) {
    suite = bundle->find_suite(*method);
  } else {
    suite = bundle->method_test_suites.size() == 1 ? &bundle->method_test_suites[0] : bundle->find_suite("forward");
  }
  if (!suite) {
    return bad_input("no test suite for method '" + method.value_or("forward") + "'").at_file(bundle_path);
  }
  if (testset >= suite->test_cases.size()) {
    return usage("--testset " + std::to_string(testset) + " out of range (" + std::to_string(suite->test_cases.size()) +
                 " test cases)")
        .at_file(bundle_path);
  }
  const auto& expected_values = suite->test_cases[testset].expected_outputs;
  if (expected_values.empty()) return bad_input("test case " + std::to_string(testset) + " has no expected outputs").at_file(bundle_path);
  std::vector<TensorValues> expected;
  for (size_t i = 0; i < expected_values.size(); ++i) {
    auto t = from_bundled_value(expected_values[i]);
    if (!t) {
      return std::move(t).error().in("test_cases[" + std::to_string(testset) + "].expected_outputs[" + std::to_string(i) + "]").at_file(bundle_path);
    }
    expected.push_back(std::move(t).value());
  }
  ETKIT_ASSIGN_OR_RETURN(auto outputs, outputs_of(run));
  if (expected.size() != outputs.size()) {
    return bad_input("test case " + std::to_string(testset) + " expects " + std::to_string(expected.size()) +
                     " output(s), " + run.file->path() + " logged " + std::to_string(outputs.size()) +
                     " tensor output(s)")
        .at_file(bundle_path);
  }
  return outputs_outcome(outputs, expected, options);
}

Result<Outcome> compare_npy_files(const std::string& reference, const std::string& candidate,
                                  const NumericOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(auto a, load_npy(reference));
  ETKIT_ASSIGN_OR_RETURN(auto b, load_npy(candidate));
  std::vector<LabeledPair> pairs{{std::filesystem::path(candidate).filename().string(), compare_pair(&a, &b, options.criteria)}};
  Outcome out;
  out.failed = any_failed(pairs);
  out.report = pairs_report("tensors", pairs, options.criteria, options.report);
  return out;
}

Result<Outcome> compare_intermediate_runs(const RunFiles& reference, const RunFiles& candidate,
                                          const NumericOptions& options, const std::string& etrecord,
                                          const std::string& etrecord_method) {
  ETKIT_ASSIGN_OR_RETURN(LoadedRun a, load_run(reference));
  ETKIT_ASSIGN_OR_RETURN(LoadedRun b, load_run(candidate));
  ETKIT_ASSIGN_OR_RETURN(auto ra, intermediates_of(a));
  ETKIT_ASSIGN_OR_RETURN(auto rb, intermediates_of(b));
  InstructionLocator locator;
  std::vector<std::string> link_warnings;
  if (!etrecord.empty()) {
    ETKIT_ASSIGN_OR_RETURN(auto links, inspect::load_record_links(etrecord, etrecord_method));
    // The Inspector's own events of the reference run, linked as et-inspect
    // links them; logged values are not needed for that.
    auto inspection = inspect::build_event_blocks(a.file->bytes());
    if (!inspection) return std::move(inspection).error().at_file(a.file->path());
    const size_t before = inspection->warnings.size();
    inspect::link_events(*inspection, links);
    link_warnings.assign(inspection->warnings.begin() + ptrdiff_t(before), inspection->warnings.end());
    locator = locator_from_linked_events(*inspection);
  }
  IntermediatesComparison comparison = compare_intermediates(ra, rb, options.criteria, locator);
  Outcome out;
  out.failed = comparison.first_divergence.has_value();
  out.report = intermediates_report(comparison, options.criteria, options.report);
  if (!link_warnings.empty()) {
    std::string joined;
    for (const auto& w : link_warnings) {
      if (!joined.empty()) joined += "; ";
      joined += w;
    }
    out.report.summary.emplace_back("etrecord_warnings", joined);
  }
  return out;
}

}  // namespace etkit::compare
