#include "libcore/render/inspect_report.h"

#include <algorithm>
#include <map>

#include "libcore/inspect/debug_values.h"
#include "libcore/inspect/source_info.h"
#include "libcore/render/heat_color.h"
#include "libcore/render/inspect_events.h"
#include "libcore/render/program_graph_dot.h"

namespace etkit::render {

namespace {

constexpr size_t kSummaryValues = 6;  // tensor elements shown per intermediate output

bool hidden(const inspect::Event& event) { return event.name.find("OPERATOR_CALL") != std::string::npos; }

size_t timed_events(const inspect::EventBlock& block) {
  return static_cast<size_t>(
      std::count_if(block.events.begin(), block.events.end(), [](const auto& e) { return e.has_perf_data(); }));
}

// An instruction as the program has it: "aten::convolution.out", "a call of
// delegate XnnpackBackend", "a move", ...
std::string describe_instruction(const pte::Instruction& instr, const pte::ExecutionPlan& plan) {
  if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
    if (k->op_index < 0 || static_cast<size_t>(k->op_index) >= plan.operators.size()) return "a kernel call";
    return plan.operators[static_cast<size_t>(k->op_index)].full_name();
  }
  if (const auto* d = std::get_if<pte::DelegateCall>(&instr)) {
    if (d->delegate_index < 0 || static_cast<size_t>(d->delegate_index) >= plan.delegates.size()) {
      return "a delegate call";
    }
    return "a call of delegate " + plan.delegates[static_cast<size_t>(d->delegate_index)].id;
  }
  if (std::holds_alternative<pte::MoveCall>(instr)) return "a move";
  if (std::holds_alternative<pte::JumpFalseCall>(instr)) return "a jump_false";
  return "a free";
}

// Whether `event` can come from `instr`. The runtime names a kernel's event
// native_call_<schema name without namespace>[.<overload>] and an
// instruction's scope after the instruction kind (runtime_events.md §2.2).
bool event_fits(const inspect::Event& event, const pte::Instruction& instr, const pte::ExecutionPlan& plan) {
  switch (event_level(event)) {
    case EventLevel::kMethod: return true;
    case EventLevel::kDelegate: return std::holds_alternative<pte::DelegateCall>(instr);
    case EventLevel::kInstruction:
      if (event.name == "OPERATOR_CALL") return std::holds_alternative<pte::KernelCall>(instr);
      if (event.name == "DELEGATE_CALL") return std::holds_alternative<pte::DelegateCall>(instr);
      if (event.name == "JF_CALL") return std::holds_alternative<pte::JumpFalseCall>(instr);
      if (event.name == "MOVE_CALL") return std::holds_alternative<pte::MoveCall>(instr);
      return std::holds_alternative<pte::FreeCall>(instr);
    case EventLevel::kKernel: break;
  }
  const auto* k = std::get_if<pte::KernelCall>(&instr);
  if (!k) return false;
  constexpr std::string_view kPrefix = "native_call_";
  if (event.name.rfind(kPrefix, 0) != 0) return true;  // a library-registered kernel: any name
  if (k->op_index < 0 || static_cast<size_t>(k->op_index) >= plan.operators.size()) return false;
  const auto& op = plan.operators[static_cast<size_t>(k->op_index)];
  const size_t ns = op.name.rfind("::");
  std::string schema = ns == std::string::npos ? op.name : op.name.substr(ns + 2);
  if (!op.overload.empty()) schema += "." + op.overload;
  return std::string_view(event.name).substr(kPrefix.size()) == schema;
}

// How the events of a block that name an instruction fit a method.
struct Fit {
  size_t events = 0;
  size_t misfits = 0;
  std::string first_misfit;  // "'native_call_relu.out' at #3, which is aten::convolution.out"
};

Fit block_fit(const inspect::EventBlock& block, const pte::ExecutionPlan& plan) {
  Fit fit;
  for (const auto& event : block.events) {
    const auto ref = event_instruction(event);
    if (!ref) continue;
    ++fit.events;
    const pte::Instruction* instr = nullptr;
    if (static_cast<size_t>(ref->chain) < plan.chains.size()) {
      const auto& chain = plan.chains[static_cast<size_t>(ref->chain)];
      if (static_cast<size_t>(ref->instruction) < chain.instructions.size()) {
        instr = &chain.instructions[static_cast<size_t>(ref->instruction)];
      }
    }
    if (instr && event_fits(event, *instr, plan)) continue;
    if (fit.misfits++ == 0) {
      fit.first_misfit = "'" + event.name + "' at " + instruction_label(*ref) + ", which " +
                         (instr ? "is " + describe_instruction(*instr, plan) : "the method does not have");
    }
  }
  return fit;
}

std::string runs(size_t count) { return std::to_string(count) + (count == 1 ? " run" : " runs"); }

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The op-type label of an instruction: the ETRecord's op types, else the
// program's operator or delegate, else the kernel event's name.
std::string op_type_label(const inspect::Event& event, const InstructionRef& ref, const pte::ExecutionPlan* plan) {
  if (!event.op_types.empty()) return join(event.op_types);
  if (plan && ref.chain >= 0 && static_cast<size_t>(ref.chain) < plan->chains.size()) {
    const auto& chain = plan->chains[static_cast<size_t>(ref.chain)];
    if (ref.instruction >= 0 && static_cast<size_t>(ref.instruction) < chain.instructions.size()) {
      const auto& instr = chain.instructions[static_cast<size_t>(ref.instruction)];
      if (const auto* k = std::get_if<pte::KernelCall>(&instr)) {
        if (k->op_index >= 0 && static_cast<size_t>(k->op_index) < plan->operators.size()) {
          return plan->operators[static_cast<size_t>(k->op_index)].full_name();
        }
      }
      if (const auto* d = std::get_if<pte::DelegateCall>(&instr)) {
        if (d->delegate_index >= 0 && static_cast<size_t>(d->delegate_index) < plan->delegates.size()) {
          return "delegate " + plan->delegates[static_cast<size_t>(d->delegate_index)].id;
        }
      }
    }
  }
  if (event.delegate_backend_name && !event.delegate_backend_name->empty()) {
    return "delegate " + *event.delegate_backend_name;
  }
  constexpr std::string_view kPrefix = "native_call_";
  return event.name.rfind(kPrefix, 0) == 0 ? event.name.substr(kPrefix.size()) : event.name;
}

// Per instruction of a block: its time (mean of its OPERATOR_CALL /
// DELEGATE_CALL scope, else of its kernel event) and the event that stands
// for it in the table (the first kernel or DELEGATE_CALL event, never the
// hidden OPERATOR_CALL or a backend's own event).
struct InstructionTimes {
  std::map<InstructionRef, double> time;
  std::map<InstructionRef, size_t> event;
};

InstructionTimes block_instruction_times(const inspect::EventBlock& block) {
  InstructionTimes out;
  std::map<InstructionRef, double> kernel;
  for (size_t e = 0; e < block.events.size(); ++e) {
    const auto& event = block.events[e];
    const auto ref = event_instruction(event);
    const auto level = event_level(event);
    if (!ref || level == EventLevel::kDelegate) continue;
    if (!hidden(event)) out.event.emplace(*ref, e);
    if (!event.has_perf_data()) continue;
    (level == EventLevel::kInstruction ? out.time : kernel).emplace(*ref, event.stats().avg);
  }
  for (const auto& [ref, avg] : kernel) out.time.emplace(ref, avg);  // where no scope was profiled
  return out;
}

}  // namespace

MainBlock main_block(const inspect::Inspection& inspection, const pte::ExecutionPlan* plan) {
  MainBlock out;
  std::vector<size_t> executes;
  std::vector<Fit> fits(inspection.blocks.size());
  for (size_t b = 0; b < inspection.blocks.size(); ++b) {
    const auto& block = inspection.blocks[b];
    if (block.name != "Execute" || timed_events(block) == 0) continue;
    executes.push_back(b);
    if (plan) fits[b] = block_fit(block, *plan);
  }
  for (size_t b : executes) {
    const auto& best = out.block;
    if (!best || fits[b].misfits < fits[*best].misfits ||
        (fits[b].misfits == fits[*best].misfits &&
         inspection.blocks[b].run_count > inspection.blocks[*best].run_count)) {
      out.block = b;
    }
  }
  if (!out.block) {
    for (size_t b = 0; b < inspection.blocks.size(); ++b) {
      if (timed_events(inspection.blocks[b]) > 0 &&
          (!out.block || timed_events(inspection.blocks[b]) > timed_events(inspection.blocks[*out.block]))) {
        out.block = b;
      }
    }
    if (out.block && plan) fits[*out.block] = block_fit(inspection.blocks[*out.block], *plan);
  }
  if (!out.block) return out;
  const size_t b = *out.block;
  if (executes.size() > 1) {
    out.warnings.push_back("the ETDump has " + std::to_string(executes.size()) +
                           " 'Execute' blocks with different events (runs of other methods, or runs that took "
                           "other paths): the times are from block " +
                           std::to_string(b) + " (" + runs(inspection.blocks[b].run_count) + ")" +
                           (plan ? ", the one that fits method '" + plan->name + "' best" : ""));
  }
  if (plan && fits[b].misfits > 0) {
    out.warnings.push_back("block " + std::to_string(b) + ": " + std::to_string(fits[b].misfits) + " of " +
                           std::to_string(fits[b].events) + " instruction events do not fit method '" + plan->name +
                           "' (an ETDump of another method or program?), e.g. " + fits[b].first_misfit);
  }
  return out;
}

namespace {

class Builder {
 public:
  Builder(const inspect::Inspection& inspection, const ReportSources& sources) : in_(inspection), sources_(sources) {}

  ReportData build() {
    data_.title = sources_.title;
    data_.unit = std::string(inspect::time_scale_name(in_.target_time_scale));
    auto factor = inspect::time_scale_factor(in_.source_time_scale, in_.target_time_scale);
    factor_ = factor ? *factor : 1;
    auto chosen = main_block(in_, sources_.plan);
    main_ = chosen.block;
    data_.notes = std::move(chosen.warnings);
    rows();
    if (main_) {
      instruction_times();
      op_types();
      timeline();
      intermediates();
    }
    graph();
    summary();
    for (const auto& warning : in_.warnings) data_.notes.push_back(warning);
    return std::move(data_);
  }

 private:
  void rows() {
    row_of_.resize(in_.blocks.size());
    for (size_t b = 0; b < in_.blocks.size(); ++b) {
      const auto& block = in_.blocks[b];
      row_of_[b].assign(block.events.size(), std::nullopt);
      for (size_t e = 0; e < block.events.size(); ++e) {
        const auto& event = block.events[e];
        if (hidden(event)) continue;
        ReportRow row;
        row.block = block.name;
        row.name = event.name;
        row.instruction = event_instruction(event);
        if (event.has_perf_data()) {
          const auto s = event.stats();
          row.stats = ReportStats{s.p10, s.p50, s.p90, s.avg, s.min, s.max};
        }
        row.samples = event.raw.size();
        row.op_types = event.op_types;
        row.delegated = event.is_delegated_op;
        row.backend = event.delegate_backend_name.value_or("");
        row.module_path = inspect::event_module_path(event);
        row.source = inspect::event_source_line(event);
        row_of_[b][e] = data_.rows.size();
        data_.rows.push_back(std::move(row));
      }
    }
  }

  void instruction_times() {
    const auto times = block_instruction_times(in_.blocks[*main_]);
    time_ = times.time;
    for (const auto& [ref, e] : times.event) {
      if (row_of_[*main_][e]) representative_[ref] = e;
    }
    for (const auto& [ref, avg] : time_) total_ += avg;
    for (const auto& [ref, avg] : time_) {
      share_[ref] = total_ > 0 ? avg / total_ : 0;
      if (auto rep = representative_.find(ref); rep != representative_.end()) {
        data_.rows[*row_of_[*main_][rep->second]].share = share_[ref];
      }
    }
  }

  void op_types() {
    const auto& block = in_.blocks[*main_];
    std::map<std::string, double> by_label;
    std::vector<std::string> order;
    for (const auto& [ref, avg] : time_) {
      auto rep = representative_.find(ref);
      if (rep == representative_.end()) continue;
      const std::string label = op_type_label(block.events[rep->second], ref, sources_.plan);
      if (!by_label.count(label)) order.push_back(label);
      by_label[label] += avg;
    }
    for (const auto& label : order) data_.op_type_times.push_back({label, by_label[label]});
    data_.op_type_caption =
        "Mean time per execution of each instruction (its OPERATOR_CALL or DELEGATE_CALL), summed per op type: "
        "the ETRecord's op types where linked, else the program's operator, else the kernel event's name.";
    std::stable_sort(data_.op_type_times.begin(), data_.op_type_times.end(),
                     [](const auto& a, const auto& b) { return a.value > b.value; });
  }

  std::optional<size_t> row_for(size_t e) const {
    if (row_of_[*main_][e]) return row_of_[*main_][e];
    const auto ref = event_instruction(in_.blocks[*main_].events[e]);
    if (!ref) return std::nullopt;
    auto rep = representative_.find(*ref);
    return rep == representative_.end() ? std::nullopt : row_of_[*main_][rep->second];
  }

  void timeline() {
    const auto& block = in_.blocks[*main_];
    std::optional<uint64_t> origin;
    for (const auto& event : block.events) {
      if (event.has_perf_data() && !event.start_time.empty() && event_level(event) != EventLevel::kDelegate) {
        origin = std::min(origin.value_or(event.start_time[0]), event.start_time[0]);
      }
    }
    if (!origin) return;
    ReportTimeline timeline;
    timeline.title = block.name + ", run 0 of " + std::to_string(block.run_count);
    for (size_t e = 0; e < block.events.size(); ++e) {
      const auto& event = block.events[e];
      if (!event.has_perf_data() || event.start_time.empty()) continue;
      const double offset = event.start_time[0] >= *origin ? static_cast<double>(event.start_time[0] - *origin)
                                                           : -static_cast<double>(*origin - event.start_time[0]);
      timeline.slices.push_back({event.name, offset / factor_, event.raw[0], static_cast<int>(event_level(event)),
                                 event.is_delegated_op, row_for(e)});
    }
    data_.timeline = std::move(timeline);
  }

  void intermediates() {
    if (!sources_.debug_buffer) return;
    const auto& block = in_.blocks[*main_];
    std::map<InstructionRef, bool> done;
    for (size_t e = 0; e < block.events.size(); ++e) {
      const auto& event = block.events[e];
      if (event.debug_data.empty() || hidden(event)) continue;
      const auto ref = event_instruction(event);
      // Every profile event of an instruction carries the same outputs.
      if (ref && !event.is_delegated_op && done[*ref]) continue;
      if (ref && !event.is_delegated_op) done[*ref] = true;
      ReportIntermediate item{block.name, event.name.empty() ? "(debug event)" : event.name, ref, row_for(e), {}};
      for (const auto& value : event.debug_data) {
        item.values.push_back(inspect::summarize_debug_value(value, *sources_.debug_buffer, kSummaryValues));
      }
      if (ref && !event.is_delegated_op) outputs_[*ref] = item.values;
      data_.intermediates.push_back(std::move(item));
    }
    if (!block.run_output.empty()) {
      ReportIntermediate outputs{block.name, "program outputs", std::nullopt, std::nullopt, {}};
      for (const auto& value : block.run_output) {
        outputs.values.push_back(inspect::summarize_debug_value(value, *sources_.debug_buffer, kSummaryValues));
      }
      data_.intermediates.push_back(std::move(outputs));
    }
  }

  void graph() {
    if (!sources_.plan) {
      data_.notes.push_back("no program given: the graph is not drawn");
      return;
    }
    auto graph = build_program_graph(*sources_.plan);
    if (!graph) {
      data_.notes.push_back("the program graph cannot be drawn: " + graph.error().describe());
      return;
    }
    for (const auto& [ref, avg] : time_) {
      if (!graph->find(ref)) {
        data_.notes.push_back("the ETDump has events for instruction " + instruction_label(ref) + ", which method '" +
                              sources_.plan->name + "' does not have: the graph is shown without times");
        data_.graph = std::move(*graph);
        return;
      }
    }
    for (const auto& [ref, share] : share_) data_.nodes[ref].share = share;
    for (const auto& [ref, e] : representative_) {
      auto& node = data_.nodes[ref];
      node.row = row_of_[*main_][e];
      node.source = inspect::event_source_line(in_.blocks[*main_].events[e]);
    }
    for (const auto& [ref, values] : outputs_) data_.nodes[ref].intermediates = values;
    data_.graph = std::move(*graph);
  }

  void summary() {
    auto& s = data_.summary;
    for (const auto& file : sources_.files) s.push_back(file);
    s.push_back({"time scale", std::string(inspect::time_scale_name(in_.source_time_scale)) + " -> " + data_.unit});
    s.push_back({"event blocks", std::to_string(in_.blocks.size())});
    if (!main_) return;
    const auto& block = in_.blocks[*main_];
    s.push_back({"main block", block.name + " (block " + std::to_string(*main_) + "), " + runs(block.run_count)});
    for (const auto& event : block.events) {
      if (event.name == "Method::execute" && event.has_perf_data()) {
        const auto stats = event.stats();
        s.push_back({"Method::execute", "avg " + format_time(stats.avg) + ", min " + format_time(stats.min) + ", max " +
                                            format_time(stats.max)});
      }
    }
    s.push_back({"instructions timed", std::to_string(time_.size()) + ", " + format_time(total_) + " in total (avg)"});
    if (!time_.empty()) {
      const auto top = std::max_element(share_.begin(), share_.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
      const auto rep = representative_.find(top->first);
      const std::string name = rep == representative_.end() ? "" : " " + block.events[rep->second].name;
      s.push_back({"most expensive", instruction_label(top->first) + name + " (" + format_percent(top->second) + ")"});
    }
  }

  std::string format_time(double v) const {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6g %s", v, data_.unit.c_str());
    return buf;
  }

  const inspect::Inspection& in_;
  const ReportSources& sources_;
  ReportData data_;
  double factor_ = 1;
  std::optional<size_t> main_;
  std::vector<std::vector<std::optional<size_t>>> row_of_;  // [block][event] -> table row
  std::map<InstructionRef, size_t> representative_;         // main block: instruction -> event
  std::map<InstructionRef, double> time_, share_;
  std::map<InstructionRef, std::vector<std::string>> outputs_;
  double total_ = 0;
};

}  // namespace

TimeShares instruction_time_shares(const inspect::Inspection& inspection, const pte::ExecutionPlan* plan) {
  auto chosen = main_block(inspection, plan);
  TimeShares out;
  out.warnings = std::move(chosen.warnings);
  if (!chosen.block) return out;
  out.share = block_instruction_times(inspection.blocks[*chosen.block]).time;
  double total = 0;
  for (const auto& [ref, avg] : out.share) total += avg;
  for (auto& [ref, share] : out.share) share = total > 0 ? share / total : 0;
  return out;
}

ReportData report_from_inspection(const inspect::Inspection& inspection, const ReportSources& sources) {
  return Builder(inspection, sources).build();
}

}  // namespace etkit::render
