// et-dump-decode: any ExecuTorch binary (.pte, .etdp, .bpte, .ptd) to JSON, and
// JSON back to the binary with --encode.
#include <cstdio>
#include <string>

#include "libcore/formats/json/schema_json.h"
#include "libcore/support/file.h"
#include "tools/common/cli_conventions.h"
#include "tools/common/tool_main.h"

using namespace etkit;

namespace {

struct Options {
  std::string input;
  std::string output = "-";
  bool pretty = false;
  bool jsonl = false;
  bool encode = false;
  std::string debug_buffer;
  size_t max_values = SIZE_MAX;
};

Result<int> encode(const Options& o) {
  ETKIT_ASSIGN_OR_RETURN(auto input, InputFile::open(o.input));
  const ByteSpan text = input->bytes();
  auto bytes = encode_from_json(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()));
  if (!bytes) return std::move(bytes).error().at_file(input->path());
  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  ETKIT_TRY(out->write(*bytes));
  ETKIT_TRY(out->commit());
  return tools::kExitOk;
}

Result<int> decode(const Options& o) {
  // One pass front to back: let the kernel read ahead and drop pages behind.
  ETKIT_ASSIGN_OR_RETURN(auto input, InputFile::open(o.input, InputFile::Access::kSequential));
  auto kind = detect_file_kind(input->bytes());
  if (!kind) return std::move(kind).error().at_file(input->path());

  DecodeOptions options;
  options.pretty = o.pretty;
  options.max_values = o.max_values;
  std::shared_ptr<const InputFile> debug_buffer;
  if (!o.debug_buffer.empty()) {
    if (*kind != FileKind::kEtDump) {
      return Error{ErrorKind::kUsage, input->path(), {}, "--debug-buffer applies to ETDumps only"};
    }
    ETKIT_ASSIGN_OR_RETURN(debug_buffer, InputFile::open(o.debug_buffer));
    options.debug_buffer = debug_buffer->bytes();
  }
  if (o.jsonl && *kind != FileKind::kEtDump) {
    return Error{ErrorKind::kUsage, input->path(), {}, "--jsonl applies to ETDumps only"};
  }

  ETKIT_ASSIGN_OR_RETURN(auto out, OutputFile::create(o.output));
  Status status = o.jsonl ? decode_etdump_jsonl(input->bytes(), options, out->stream())
                          : decode_to_json(*kind, input->bytes(), options, out->stream());
  if (!status) {
    Error error = std::move(status).error();
    // Debug-buffer problems belong to the debug buffer file.
    const bool in_buffer = error.message.rfind("debug buffer", 0) == 0;
    return std::move(error).at_file(in_buffer ? debug_buffer->path() : input->path());
  }
  ETKIT_TRY(out->commit());
  return tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{
      "Prints an ExecuTorch program (.pte, ET12), ETDump (.etdp, ED00), bundled program\n"
      "(.bpte, BP08) or .ptd data (FT01) as JSON, detected by its identifier; --encode turns\n"
      "such JSON (not .ptd) back into the binary. The JSON has the layout of `flatc --json --defaults-json` with our\n"
      "schemas, plus 'extended_header'/'segment_data' for programs and per-tensor 'values'\n"
      "with --debug-buffer.",
      "et-dump-decode"};
  app.add_option("FILE", o.input, "input file; - reads standard input")->required();
  app.add_option("-o,--output", o.output, "output file (written atomically); - is standard output")
      ->capture_default_str();
  app.add_flag("--pretty", o.pretty, "indent the JSON (default: compact)");
  app.add_flag("--jsonl", o.jsonl, "ETDump: one JSON object per event per line, streaming");
  app.add_option("--debug-buffer", o.debug_buffer, "ETDump: debug buffer file; adds each tensor's values");
  app.add_option("--max-values", o.max_values, "with --debug-buffer: print at most N values per tensor")
      ->check(tools::kCount);
  auto* encode_flag = app.add_flag("--encode", o.encode, "FILE is JSON from this tool: write the binary to -o");
  app.get_option("--jsonl")->excludes(encode_flag);
  app.get_option("--debug-buffer")->excludes(encode_flag);
  tools::add_quiet_flag(app);
  tools::AliasedArgs args(argc, argv, {tools::kDebugBufferPath});
  return tools::run_tool(app, args.argc(), args.argv(), [&]() -> Result<int> { return o.encode ? encode(o) : decode(o); });
}
