// et-run: executes a .pte or .bpte on the host with the portable kernels and
// writes an ETDump (+ debug buffer) that ExecuTorch's tools can read.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <filesystem>
#include <optional>

#include "libcore/formats/npy/npy.h"
#include "libcore/support/file.h"
#include "libcore/support/json_writer.h"
#include "runner/backends/xnnpack/xnnpack_backend.h"
#include "runner/describe.h"
#include "runner/executor.h"
#include "runner/inputs.h"
#include "runner/kernels/elementwise.h"
#include "runner/program_file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;
using namespace etkit::rt;

namespace {

struct Options {
  std::string model;
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::vector<std::string> data_files;
  std::optional<uint64_t> random_seed;
  size_t testset = 0;
  bool testset_given = false;
  bool verify = false;
  double rtol = 1e-3, atol = 1e-5;  // example_runner's tolerances
  size_t iterations = 1, warmup = 0;
  std::string etdump;
  std::string debug_level = "none";
  std::string debug_buffer;
  std::string output_dir;
  bool print_outputs = false;
  bool list_kernels = false;
  bool describe = false;
  std::string format = "text";
  bool pretty = false;
  bool list_backends = false;
  std::string delegate_debug_ids = "names";
  uint64_t max_memory = kDefaultMemoryLimit;
  uint64_t max_instructions = kDefaultMaxInstructions;
  double timeout_s = 0;
  uint64_t max_etdump_size = EventTracer::kDefaultMaxBytes;
};

// The delegates et-run runs on the host.
BackendRegistry host_backends(const Options& o) {
  BackendRegistry registry;
  xnnpack::Options xnn;
  xnn.debug_ids = o.delegate_debug_ids == "handles" ? xnnpack::DebugIds::kDebugHandles : xnnpack::DebugIds::kOperatorNames;
  (void)registry.add(std::string(xnnpack::kBackendId), xnnpack::make_backend(xnn));
  return registry;
}

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Error usage(std::string message) { return Error{ErrorKind::kUsage, {}, {}, std::move(message)}; }

std::string format_value(ScalarType dtype, const void* data, int64_t i) {
  if (dtype == ScalarType::kBool) return static_cast<const bool*>(data)[i] ? "true" : "false";
  const double v = kernels::load_as<double>(dtype, data, i);
  char buf[64];
  if (kernels::is_floating(dtype)) std::snprintf(buf, sizeof buf, "%.9g", v);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

void print_output(size_t i, const EValue& v) {
  std::printf("output %zu: ", i);
  switch (v.tag) {
    case Tag::kTensor: {
      const Tensor& t = *v.tensor;
      std::printf("%s%s [", std::string(scalar_type_name(int(t.dtype()))).c_str(), t.shape_string().c_str());
      const int64_t n = t.numel(), shown = std::min<int64_t>(n, 1000);
      for (int64_t k = 0; k < shown; ++k) std::printf("%s%s", k ? ", " : "", format_value(t.dtype(), t.data(), k).c_str());
      std::printf("%s]\n", shown < n ? ", ..." : "");
      break;
    }
    case Tag::kInt: std::printf("Int %" PRId64 "\n", v.i); break;
    case Tag::kDouble: std::printf("Double %.17g\n", v.d); break;
    case Tag::kBool: std::printf("Bool %s\n", v.b ? "true" : "false"); break;
    case Tag::kString: std::printf("String \"%.*s\"\n", int(v.s.size()), v.s.data()); break;
    default: std::printf("%s\n", std::string(tag_name(v.tag)).c_str()); break;
  }
}

// One output as the file --output-dir holds: output-N.npy for a tensor,
// output-N.json for anything else.
Result<NamedBytes> encode_output(size_t i, const EValue& v) {
  const std::string stem = "output-" + std::to_string(i);
  if (v.tag == Tag::kTensor) {
    const Tensor& t = *v.tensor;
    std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    // .npy is row-major: write the logical order whatever the dim order.
    std::vector<uint8_t> bytes(t.nbytes());
    Tensor contiguous(t.dtype(), std::vector<int32_t>(t.sizes().begin(), t.sizes().end()), {}, bytes.data());
    kernels::for_each_element(contiguous, t, [&](int64_t o, int64_t x) {
      std::memcpy(bytes.data() + size_t(o) * t.element_size(), static_cast<const uint8_t*>(t.data()) + size_t(x) * t.element_size(),
                  t.element_size());
    });
    ETKIT_ASSIGN_OR_RETURN(auto npy_bytes, npy::write_npy(t.dtype(), shape, ByteSpan(bytes)));
    return NamedBytes{stem + ".npy", std::move(npy_bytes)};
  }
  // {"format": "etkit.value/1", "type": "int", "value": 128} (docs/json.md).
  // Written to memory first: --output-dir writes every file or none.
  char* text = nullptr;
  size_t length = 0;
  std::FILE* memory = open_memstream(&text, &length);
  if (memory == nullptr) return Error{ErrorKind::kRuntime, {}, {}, "out of memory for " + stem + ".json"};
  {
    JsonWriter w(memory, false);
    w.begin_object();
    w.key("format");
    w.string("etkit.value/1");
    w.key("type");
    switch (v.tag) {
      case Tag::kInt: w.string("int"); w.key("value"); w.number(v.i); break;
      case Tag::kDouble: w.string("double"); w.key("value"); w.number(v.d); break;
      case Tag::kBool: w.string("bool"); w.key("value"); w.boolean(v.b); break;
      case Tag::kString: w.string("string"); w.key("value"); w.string(v.s); break;
      default: {
        std::string tag(tag_name(v.tag));
        std::transform(tag.begin(), tag.end(), tag.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        w.string(tag);
        w.key("value");
        w.null();
        break;
      }
    }
    w.end_object();
    w.newline();
    w.flush();
  }
  std::fclose(memory);
  NamedBytes file{stem + ".json", std::vector<uint8_t>(text, text + length)};
  std::free(text);
  return file;
}

// What goes to standard output: text and binary must not share it, nor two
// binaries, and `-` is no directory name.
Status check_stdout_use(const Options& o) {
  if (o.output_dir == "-") return usage("--output-dir - is not possible: outputs are files in a directory (give a path)");
  std::vector<std::string> users;
  if (o.etdump == "-") users.push_back("--etdump -");
  if (o.debug_buffer == "-") users.push_back("--debug-buffer -");
  if (o.print_outputs) users.push_back("--print-outputs");
  if (users.size() > 1) {
    std::string list;
    for (size_t i = 0; i < users.size(); ++i) list += (i ? (i + 1 == users.size() ? " and " : ", ") : "") + users[i];
    return usage(list + " cannot share standard output: send all but one to files");
  }
  return {};
}

Result<int> describe(const Options& o) {
  ETKIT_ASSIGN_OR_RETURN(ProgramFile pf, open_program_file(o.model));
  const auto description = describe_program(pf.program, portable_kernel_registry(), host_backends(o));
  if (o.format == "json") {
    ETKIT_TRY(write_describe_json(description, stdout, o.pretty));
  } else {
    const std::string text = describe_text(description);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return description.all_supported() ? tools::kExitOk : tools::kExitCheckFailed;
}

Result<int> run(const Options& o) {
  ETKIT_TRY(check_stdout_use(o));
  const DebugLevel level = o.debug_level == "outputs"         ? DebugLevel::kProgramOutputs
                           : o.debug_level == "intermediates" ? DebugLevel::kIntermediateOutputs
                                                              : DebugLevel::kNone;
  if (level != DebugLevel::kNone && o.etdump.empty()) return usage("--debug-level needs --etdump");
  std::string debug_path = o.debug_buffer;
  if (level != DebugLevel::kNone && debug_path.empty()) {
    if (o.etdump == "-") return usage("with --etdump -, give --debug-buffer PATH");
    debug_path = o.etdump + ".debug.bin";
  }
  if (o.iterations == 0) return usage("--iterations must be at least 1");

  ETKIT_ASSIGN_OR_RETURN(ProgramFile pf, open_program_file(o.model));
  if ((o.verify || o.testset_given) && !pf.bundle) return usage("--verify and --testset need a bundled program (.bpte)");
  FlatTensorData external;
  for (const auto& path : o.data_files) ETKIT_TRY(external.add(path));

  std::optional<EventTracer> tracer;
  if (!o.etdump.empty()) {
    tracer.emplace(level);
    tracer->set_max_bytes(o.max_etdump_size);
    // Written as it grows (a block's worth of tensors in memory), under a
    // temporary name until the run ends well.
    if (level != DebugLevel::kNone) ETKIT_TRY(tracer->stream_debug_buffer(debug_path));
  }
  LoadOptions load_options;
  load_options.memory_limit = o.max_memory;
  ExecuteLimits limits;
  limits.max_instructions = o.max_instructions;
  limits.timeout = std::chrono::nanoseconds(int64_t(o.timeout_s * 1e9));
  if (!o.data_files.empty()) load_options.external_data = &external;
  const BackendRegistry backends = host_backends(o);
  load_options.backends = &backends;
  if (tracer) tracer->create_block("Default");
  const auto load_start = Clock::now();
  const uint64_t load_start_ticks = EventTracer::ticks();
  auto loaded = load_method(pf.program, o.method, load_options);
  const uint64_t load_end_ticks = EventTracer::ticks();
  const double load_ms = ms_since(load_start);
  if (tracer) {
    tracer->profile("Method::init", kUnsetChain, kUnsetInstruction, load_start_ticks, load_end_ticks);
    tracer->profile("Program::load_method", kUnsetChain, kUnsetInstruction, load_start_ticks, EventTracer::ticks());
  }
  if (!loaded) return std::move(loaded).error().at_file(pf.file->path());
  LoadedMethod& method = **loaded;

  // Inputs, prepared once and set again before every execution (planning
  // may overwrite them).
  const bundled::TestCase* test_case = nullptr;
  if (pf.bundle) {
    const auto* suite = pf.bundle->find_suite(method.name());
    if (!suite && (o.verify || o.testset_given)) return bad_input("no test suite for method '" + method.name() + "'").at_file(pf.file->path());
    if (suite) {
      if (o.testset >= suite->test_cases.size()) {
        return usage("--testset " + std::to_string(o.testset) + " out of range (" + std::to_string(suite->test_cases.size()) + " test cases)");
      }
      test_case = &suite->test_cases[o.testset];
    }
  }
  std::vector<InputData> inputs;
  if (!o.inputs.empty()) {
    if (o.inputs.size() != method.num_inputs()) {
      return usage(std::to_string(o.inputs.size()) + " --input given, method '" + method.name() + "' has " +
                   std::to_string(method.num_inputs()) + " inputs");
    }
    for (size_t i = 0; i < o.inputs.size(); ++i) {
      ETKIT_ASSIGN_OR_RETURN(auto in, input_from_spec(method, i, o.inputs[i]));
      inputs.push_back(std::move(in));
    }
  } else if (test_case && !o.random_seed) {
    auto bundled_inputs = inputs_from_bundle(method, *test_case);
    if (!bundled_inputs) return std::move(bundled_inputs).error().at_file(pf.file->path());
    inputs = std::move(bundled_inputs).value();
  } else {
    for (size_t i = 0; i < method.num_inputs(); ++i) {
      inputs.push_back(o.random_seed ? input_random(method, i, *o.random_seed) : input_ones(method, i));
    }
  }

  auto execute_once = [&](EventTracer* t) -> Status {
    for (size_t i = 0; i < inputs.size(); ++i) ETKIT_TRY(set_input(method, i, inputs[i]));
    return execute(method, t, limits);
  };
  for (size_t w = 0; w < o.warmup; ++w) ETKIT_TRY(execute_once(nullptr));
  std::vector<double> times_ms;
  for (size_t it = 0; it < o.iterations; ++it) {
    const auto start = Clock::now();
    Status s = execute_once(tracer ? &*tracer : nullptr);
    if (!s) {
      // What ran is still worth keeping, the tensors logged up to the
      // failure most of all: the dump and its debug buffer are both
      // finished (each atomically) before failing with the kernel's error.
      if (tracer) {
        (void)tracer->write_etdump(o.etdump);
        if (level != DebugLevel::kNone) (void)tracer->write_debug_buffer();
      }
      Error e = std::move(s).error();
      return std::move(e).at_file(pf.file->path());
    }
    times_ms.push_back(ms_since(start));
  }

  if (o.print_outputs) {
    for (size_t i = 0; i < method.num_outputs(); ++i) print_output(i, method.output(i));
  }
  if (!o.output_dir.empty()) {
    std::vector<NamedBytes> files;
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      ETKIT_ASSIGN_OR_RETURN(auto file, encode_output(i, method.output(i)));
      files.push_back(std::move(file));
    }
    ETKIT_TRY(write_files(o.output_dir, files));
  }
  if (tracer) {
    ETKIT_TRY(tracer->write_etdump(o.etdump));
    if (level != DebugLevel::kNone) ETKIT_TRY(tracer->write_debug_buffer());
  }
  if (!tools::quiet_mode()) {
    // An exact median needs every time (no single pass finds it in less
    // than linear memory); selected in place, not in a sorted copy.
    const auto [min, max] = std::minmax_element(times_ms.begin(), times_ms.end());
    const double min_ms = *min, max_ms = *max;
    auto median = times_ms.begin() + std::ptrdiff_t(times_ms.size() / 2);
    std::nth_element(times_ms.begin(), median, times_ms.end());
    std::fprintf(stderr, "et-run: %s: method '%s' loaded in %.3f ms; %zu run%s: median %.3f ms (min %.3f, max %.3f)\n",
                 pf.file->path().c_str(), method.name().c_str(), load_ms, times_ms.size(),
                 times_ms.size() == 1 ? "" : "s", *median, min_ms, max_ms);
  }

  if (o.verify) {
    auto checks = verify_outputs(method, *test_case, o.rtol, o.atol);
    if (!checks) return std::move(checks).error().at_file(pf.file->path());
    bool all = true;
    for (const auto& c : *checks) {
      all = all && c.matched;
      std::fprintf(stderr, "et-run: verify: output %zu: %s%s%s\n", c.index, c.matched ? "ok" : "MISMATCH",
                   c.detail.empty() ? "" : ": ", c.detail.c_str());
    }
    std::fprintf(stderr, "et-run: verify: test case %zu %s (rtol %g, atol %g)\n", o.testset, all ? "passed" : "FAILED", o.rtol, o.atol);
    if (!all) return tools::kExitCheckFailed;
  }
  return tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Runs an ExecuTorch program (.pte) or bundled program (.bpte) on the host with the portable\n"
               "kernels, and writes an ETDump (and debug buffer) of what happened.",
               "et-run"};
  auto* model = app.add_option("MODEL", o.model, ".pte or .bpte file");
  app.add_flag("--list-kernels", o.list_kernels, "print the registered operators (ns::name.overload), one per line, and exit");
  app.add_flag("--list-backends", o.list_backends, "print the delegate backends et-run runs on the host, one per line, and exit");
  auto* describe_flag =
      app.add_flag("--describe", o.describe,
                   "list MODEL's methods, inputs and outputs (dtype, shape, dynamism), delegates and operators, each "
                   "marked supported or not by this build, without running anything (exit 1 if any is not)");
  app.add_option("--format", o.format, "with --describe: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str()
      ->needs(describe_flag);
  app.add_flag("--pretty", o.pretty, "with --describe --format json: indent (default: compact)")->needs(describe_flag);
  app.add_option("--delegate-debug-ids", o.delegate_debug_ids,
                 "how delegate events are identified in the ETDump: names (XNNPACK's operator names, as the official "
                 "runtime) or handles (the nodes' debug handles, linkable through an ETRecord)")
      ->check(CLI::IsMember({"names", "handles"}))
      ->capture_default_str();
  app.add_option("--method", o.method, "method to run")->capture_default_str();
  tools::one_per_occurrence(app.add_option(
      "--input", o.inputs,
      "repeated once per method input, in order: a .npy file, a raw little-endian .bin file, or a literal for "
      "Int/Double/Bool inputs (default: all ones)"));
  tools::one_per_occurrence(
      app.add_option("--data", o.data_files, "external constant data (.ptd FlatTensor file); repeatable"));
  auto* random = app.add_option("--random-inputs", o.random_seed, "random inputs from this seed instead of ones")
                     ->check(tools::kCount);
  app.get_option("--input")->excludes(random);
  app.add_option("--testset", o.testset, ".bpte: which bundled test case feeds the inputs (default 0)")
      ->check(tools::kCount)
      ->each([&](const std::string&) { o.testset_given = true; });
  app.add_flag("--verify", o.verify, ".bpte: compare outputs with the test case's expected outputs (exit 1 on mismatch)");
  app.add_option("--rtol", o.rtol, "relative tolerance for --verify")->check(tools::kNonNegativeReal)->capture_default_str();
  app.add_option("--atol", o.atol, "absolute tolerance for --verify")->check(tools::kNonNegativeReal)->capture_default_str();
  app.add_option("--iterations", o.iterations, "recorded executions")->check(tools::kCount)->capture_default_str();
  app.add_option("--warmup", o.warmup, "executions before the recorded ones, not traced")
      ->check(tools::kCount)
      ->capture_default_str();
  app.add_option("--etdump", o.etdump, "write an ETDump here (- for standard output)");
  app.add_option("--debug-level", o.debug_level, "none, outputs (program outputs) or intermediates (every kernel output)")
      ->check(CLI::IsMember({"none", "outputs", "intermediates"}))
      ->capture_default_str();
  app.add_option("--debug-buffer", o.debug_buffer, "where the logged tensors go (default: ETDUMP.debug.bin)");
  app.add_option("--output-dir", o.output_dir, "write output-0.npy, output-1.npy, ... (non-tensors as output-N.json)");
  app.add_flag("--print-outputs", o.print_outputs, "print the outputs on standard output");
  app.add_option("--max-memory", o.max_memory,
                 "bound on the memory the method allocates (arenas and unplanned tensors; suffixes KiB, MiB, GiB)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("--max-instructions", o.max_instructions, "bound on the instructions one execution runs")
      ->capture_default_str();
  app.add_option("--timeout", o.timeout_s, "bound on one execution's wall time in seconds (default: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-etdump-size", o.max_etdump_size, "bound on the ETDump's size (suffixes KiB, MiB, GiB)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  tools::add_quiet_flag(app);
  tools::AliasedArgs args(argc, argv, {tools::kEtdumpPath, tools::kDebugBufferPath});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> {
    if (o.list_kernels) {
      for (const auto& name : portable_kernel_registry().names()) std::printf("%s\n", name.c_str());
      return tools::kExitOk;
    }
    if (o.list_backends) {
      for (const auto& name : host_backends(o).names()) std::printf("%s\n", name.c_str());
      return tools::kExitOk;
    }
    if (model->count() == 0) return usage("MODEL is required");
    if (o.describe) return describe(o);
    return run(o);
  });
}
