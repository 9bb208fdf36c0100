#include "libcore/fleet/collect.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "libcore/inspect/link.h"
#include "libcore/inspect/op_summary.h"
#include "libcore/inspect/source_info.h"
#include "libcore/support/file.h"

namespace etkit::fleet {
namespace {

bool is_operator_call(const inspect::Event& event) { return event.name.find("OPERATOR_CALL") != std::string::npos; }

std::string handles_text(const std::optional<inspect::DebugHandles>& handles) {
  if (!handles) return {};
  std::string out;
  for (int64_t h : handles->values) {
    if (!out.empty()) out += ',';
    out += std::to_string(h);
  }
  return out;
}

struct LoadedRecords {
  std::map<std::string, inspect::RecordLinks> links;
  std::map<std::string, Error> errors;
};

// Reads, links and flattens one file; errors name it.
Result<FleetRun> read_run(const FleetInput& input, size_t index, const CollectOptions& options,
                          const LoadedRecords& records) {
  auto file = InputFile::open(input.path, InputFile::Access::kSequential);
  if (!file.ok()) return std::move(file).error().at_file(input.path);
  inspect::BuildOptions build;
  build.source_time_scale = options.source_time_scale;
  build.target_time_scale = options.target_time_scale;
  auto inspection = inspect::build_event_blocks((*file)->bytes(), build);
  if (!inspection.ok()) return std::move(inspection).error().at_file(input.path);
  inspect::exclude_warmup(*inspection, options.warmup);
  const std::string& etrecord = input.etrecord.empty() ? options.etrecord : input.etrecord;
  if (!etrecord.empty()) {
    if (auto e = records.errors.find(etrecord); e != records.errors.end()) return e->second;
    inspect::link_events(*inspection, records.links.at(etrecord));
  }
  return fleet_run(input, index, *inspection);
}

uint64_t fnv1a(uint64_t hash, std::string_view bytes) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

std::string program_signature(const inspect::Inspection& inspection) {
  std::vector<std::tuple<std::string, int32_t, int64_t>> keys;
  for (const auto& block : inspection.blocks)
    for (const auto& event : block.events)
      if (event.has_perf_data() && !is_operator_call(event))
        keys.emplace_back(event.name, event.instruction_id, event.chain_index);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (const auto& [name, instruction, chain] : keys) {
    hash = fnv1a(hash, name);
    // A separator no event name holds, then the numbers in decimal.
    hash = fnv1a(hash, std::string_view("\0", 1));
    hash = fnv1a(hash, std::to_string(instruction) + ":" + std::to_string(chain) + ";");
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

FleetRun fleet_run(const FleetInput& input, size_t index, const inspect::Inspection& inspection) {
  FleetRun run;
  run.input_index = index;
  run.file = input.path;
  run.labels = input.labels;
  run.program = program_signature(inspection);
  for (size_t b = 0; b < inspection.blocks.size(); ++b) {
    const auto& block = inspection.blocks[b];
    run.block_names.push_back(block.name);
    for (size_t e = 0; e < block.events.size(); ++e) {
      const auto& event = block.events[e];
      if (!event.has_perf_data() || is_operator_call(event)) continue;
      FleetEvent out;
      out.block_index = static_cast<uint32_t>(b);
      out.event_index = static_cast<uint32_t>(e);
      out.name = event.name;
      out.instruction_id = event.instruction_id;
      out.chain_index = event.chain_index;
      out.delegate_debug_identifier = event.delegate_debug_identifier.str();
      out.debug_handles = handles_text(event.debug_handles);
      out.op_type = inspect::op_type_of(event);
      out.module = inspect::event_module_path(event);
      out.counted = inspect::counts_in_summary(block, event);
      out.samples = event.raw;
      run.events.push_back(std::move(out));
    }
  }
  return run;
}

Result<size_t> collect(const InputSet& inputs, const CollectOptions& options, const RunSink& sink,
                       const WarningSink& warn) {
  LoadedRecords records;
  auto load = [&](const std::string& path) -> Status {
    if (path.empty() || records.links.count(path) || records.errors.count(path)) return {};
    auto links = inspect::load_record_links(path, options.method);
    if (links.ok()) records.links.emplace(path, std::move(*links));
    else if (options.strict) return std::move(links).error().at_file(path);
    else records.errors.emplace(path, std::move(links).error().at_file(path));
    return {};
  };
  ETKIT_TRY(load(options.etrecord));
  for (const auto& input : inputs.inputs) ETKIT_TRY(load(input.etrecord));

  const size_t count = inputs.inputs.size();
  size_t jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::max<size_t>(1, std::min(jobs, count));

  // Workers claim the next index, read that file, then wait for its turn to
  // hand it to the sink: at most `jobs` runs are held at once, and the output
  // order is the input order whatever finishes first.
  std::mutex mutex;
  std::condition_variable turn;
  std::atomic<size_t> next_claim{0};
  size_t next_emit = 0;
  bool stop = false;
  std::optional<Error> failure;
  size_t written = 0;

  auto worker = [&] {
    while (true) {
      const size_t i = next_claim.fetch_add(1);
      if (i >= count) return;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (stop) return;
      }
      Result<FleetRun> run = read_run(inputs.inputs[i], i, options, records);
      std::unique_lock<std::mutex> lock(mutex);
      turn.wait(lock, [&] { return next_emit == i || stop; });
      if (stop) return;
      if (run.ok()) {
        Status status = sink(*run);
        if (!status.ok()) {
          failure = std::move(status).error();
          stop = true;
        } else {
          ++written;
        }
      } else if (options.strict) {
        failure = std::move(run).error();
        stop = true;
      } else {
        warn(run.error().describe());
      }
      ++next_emit;
      turn.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  if (failure) return std::move(*failure);
  return written;
}

}  // namespace etkit::fleet
