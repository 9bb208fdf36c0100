// EventBlock._gen_from_etdump (devtools/inspector/_inspector.py), step by
// step as inspector_spec.md §3 describes it, over the verified FlatBuffer:
//   1. per run, collate events by InstructionEventSignature
//      (instruction_id, chain_index, delegate ids), in first-seen order;
//   2. expand each into EventSignatures, one per profile event; a later equal
//      signature overwrites the earlier one's data in place;
//   3. fold runs with equal (name, signatures, bundled_input_index): each
//      signature's Event gets one sample per run.
// Signatures and run signatures are interned as small integers over
// string_views into the file, so a run costs hash lookups, not copies.
#include "libcore/inspect/event_blocks.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <unordered_map>

#include "libcore/formats/etdump/etdump_flatbuffer.h"
#include "libcore/inspect/debug_values.h"

namespace etkit::inspect {

namespace fb = ::etdump;

namespace {

constexpr uint64_t kMaxUint32 = 0xffffffffull;

size_t hash_mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2));
}

std::optional<std::string_view> opt_view(const flatbuffers::String* s) {
  if (s == nullptr) return std::nullopt;
  return std::string_view(s->c_str(), s->size());
}

// A chain index as Python compares it: ProfileEvent's is an i32, DebugEvent's
// a u64, so -1 and 2^64-1 are different keys.
struct ChainIndex {
  int64_t bits = 0;
  bool above_int64 = false;
  bool operator==(const ChainIndex&) const = default;
};

// InstructionEventSignature, with the raw values (-1 and absent included).
struct InstructionKey {
  int32_t instruction_id = -1;
  ChainIndex chain;
  int32_t delegate_id = -1;
  std::optional<std::string_view> delegate_id_str;
  bool operator==(const InstructionKey&) const = default;
};

struct InstructionKeyHash {
  size_t operator()(const InstructionKey& k) const {
    size_t h = std::hash<int64_t>{}(k.chain.bits);
    h = hash_mix(h, size_t(uint32_t(k.instruction_id)) | size_t(k.chain.above_int64) << 32);
    h = hash_mix(h, size_t(uint32_t(k.delegate_id)));
    if (k.delegate_id_str) h = hash_mix(h, std::hash<std::string_view>{}(*k.delegate_id_str) + 1);
    return h;
  }
};

// ProfileEventSignature / DebugEventSignature: -1 and "" become None.
struct SubSignature {
  std::string_view name;
  std::optional<int32_t> instruction_id;
  std::optional<int32_t> delegate_id;
  std::optional<std::string_view> delegate_id_str;
  bool operator==(const SubSignature&) const = default;
};

struct EventSignature {
  int32_t instruction_id = 0;
  std::optional<SubSignature> profile;
  std::optional<SubSignature> debug;
  bool operator==(const EventSignature&) const = default;
};

// None hashes outside the 32-bit range of the ids.
constexpr size_t kNoneHash = size_t(1) << 40;

size_t hash_opt(const std::optional<int32_t>& v) { return v ? size_t(uint32_t(*v)) : kNoneHash; }

size_t hash_sub(size_t h, const std::optional<SubSignature>& s) {
  if (!s) return hash_mix(h, kNoneHash);
  h = hash_mix(h, std::hash<std::string_view>{}(s->name));
  h = hash_mix(h, hash_opt(s->instruction_id));
  h = hash_mix(h, hash_opt(s->delegate_id));
  if (s->delegate_id_str) h = hash_mix(h, std::hash<std::string_view>{}(*s->delegate_id_str));
  return h;
}

struct EventSignatureHash {
  size_t operator()(const EventSignature& s) const {
    return hash_sub(hash_sub(std::hash<int32_t>{}(s.instruction_id), s.profile), s.debug);
  }
};

template <typename Table>
SubSignature sub_signature(const Table& e) {
  SubSignature s;
  if (e.name()) s.name = std::string_view(e.name()->c_str(), e.name()->size());
  if (e.instruction_id() != -1) s.instruction_id = e.instruction_id();
  if (e.delegate_debug_id_int() != -1) s.delegate_id = e.delegate_debug_id_int();
  auto str = opt_view(e.delegate_debug_id_str());
  if (str && !str->empty()) s.delegate_id_str = str;
  return s;
}

// An insertion-ordered set of instruction keys, emptied per run without
// freeing: open addressing with linear probing.
class InstructionKeyIndex {
 public:
  uint32_t find_or_insert(const InstructionKey& key) {
    if ((keys_.size() + 1) * 2 > slots_.size()) rehash(std::max<size_t>(64, slots_.size() * 2));
    const size_t mask = slots_.size() - 1;
    for (size_t i = InstructionKeyHash{}(key) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == kEmpty) {
        slots_[i] = uint32_t(keys_.size());
        keys_.push_back(key);
        slot_of_.push_back(i);
        return slots_[i];
      }
      if (keys_[slots_[i]] == key) return slots_[i];
    }
  }
  void clear() {
    for (size_t slot : slot_of_) slots_[slot] = kEmpty;
    keys_.clear();
    slot_of_.clear();
  }
  size_t size() const { return keys_.size(); }
  const InstructionKey& key(size_t i) const { return keys_[i]; }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  void rehash(size_t capacity) {
    slots_.assign(capacity, kEmpty);
    const size_t mask = capacity - 1;
    for (size_t k = 0; k < keys_.size(); ++k) {
      size_t i = InstructionKeyHash{}(keys_[k]) & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = uint32_t(k);
      slot_of_[k] = i;
    }
  }
  std::vector<uint32_t> slots_;
  std::vector<InstructionKey> keys_;
  std::vector<size_t> slot_of_;
};

// One event of the current run.
struct RunEntry {
  enum class Kind : uint8_t { kProfile, kDebug, kOutput };
  Kind kind;
  uint32_t key;    // InstructionKeyIndex position
  uint32_t index;  // position in run.events, for error paths
  const void* table;  // fb::ProfileEvent or fb::DebugEvent
};

// What an EventSignature maps to in the current run: one profile event (or
// none for debug-only instructions) and the instruction's debug events.
struct SlotData {
  const RunEntry* profile = nullptr;
  uint32_t key = 0;
};

// The events of one block, plus what the per-run folding needs.
struct Group {
  std::string_view name;
  int32_t bundled_input_index = -1;
  std::vector<uint32_t> signatures;
  EventBlock block;
  std::vector<uint8_t> delegated_timing;  // per event: durations go through the delegate converter
  size_t output_mismatches = 0;
  size_t debug_mismatches = 0;
};

// RunSignature: (name, EventSignatures in order, bundled_input_index).
size_t run_signature_hash(std::string_view name, int32_t bundled, const std::vector<uint32_t>& signatures) {
  size_t h = hash_mix(std::hash<std::string_view>{}(name), size_t(uint32_t(bundled)));
  for (uint32_t s : signatures) h = hash_mix(h, s);
  return h;
}

// _populate_event_signature_fields.
void apply_signature(Event& event, const SubSignature& s) {
  DelegateId id;
  if (s.delegate_id) {
    id.kind = DelegateId::Kind::kInt;
    id.int_value = *s.delegate_id;
  } else if (s.delegate_id_str) {
    id.kind = DelegateId::Kind::kStr;
    id.str_value = std::string(*s.delegate_id_str);
  }
  const bool delegated = !id.is_none();
  std::string name = delegated ? id.str() : std::string(s.name);
  if (!name.empty()) event.name = std::move(name);
  event.delegate_debug_identifier = std::move(id);
  event.is_delegated_op = delegated;
}

std::string event_path(size_t run, size_t event) {
  return "run_data[" + std::to_string(run) + "].events[" + std::to_string(event) + "]";
}

class Builder {
 public:
  Builder(const BuildOptions& options, double scale_factor) : options_(options), scale_factor_(scale_factor) {}

  Status add_run(const fb::RunData& run, size_t r);
  Inspection finish();

 private:
  Status collate(const flatbuffers::Vector<flatbuffers::Offset<fb::Event>>& events, size_t r);
  void expand_signatures();
  void add_signature(const EventSignature& signature, SlotData data);
  Group& find_or_create_group(std::string_view name, int32_t bundled);
  Status add_samples(Group& group, size_t r);
  Status add_run_outputs(Group& group, size_t r);
  Result<std::vector<DebugValue>> inflate_debug_events(uint32_t key, size_t r) const;
  Result<double> duration(const fb::ProfileEvent& p, bool delegated, size_t r, size_t e) const;

  std::span<const RunEntry* const> profile_events(uint32_t key) const {
    return {profile_list_.data() + profile_begin_[key], profile_list_.data() + profile_begin_[key + 1]};
  }
  std::span<const RunEntry* const> debug_events(uint32_t key) const {
    return {debug_list_.data() + debug_begin_[key], debug_list_.data() + debug_begin_[key + 1]};
  }

  const BuildOptions& options_;
  const double scale_factor_;

  // Interned EventSignatures (string_views into the file).
  std::unordered_map<EventSignature, uint32_t, EventSignatureHash> signature_ids_;
  std::vector<EventSignature> signatures_;

  // The current run.
  InstructionKeyIndex keys_;
  std::vector<RunEntry> entries_;
  // Per key, its profile and non-output debug events: [begin[k], begin[k+1]).
  std::vector<uint32_t> profile_begin_, debug_begin_, fill_;
  std::vector<const RunEntry*> profile_list_, debug_list_;
  // The run's EventSignatures in order, and what each maps to.
  std::vector<uint32_t> run_signatures_;
  std::vector<SlotData> run_slots_;
  std::vector<uint32_t> slot_of_signature_, stamp_of_signature_;
  uint32_t stamp_ = 0;

  std::vector<Group> groups_;
  std::unordered_map<size_t, std::vector<uint32_t>> groups_by_hash_;
};

// Bucket sort of the run's entries by key, keeping event order per key.
void bucket(const std::vector<RunEntry>& entries, size_t keys, RunEntry::Kind kind, std::vector<uint32_t>& begin,
            std::vector<uint32_t>& fill, std::vector<const RunEntry*>& list) {
  begin.assign(keys + 1, 0);
  for (const RunEntry& entry : entries) {
    if (entry.kind == kind) ++begin[entry.key + 1];
  }
  for (size_t k = 0; k < keys; ++k) begin[k + 1] += begin[k];
  list.resize(begin[keys]);
  fill.assign(begin.begin(), begin.end() - 1);
  for (const RunEntry& entry : entries) {
    if (entry.kind == kind) list[fill[entry.key]++] = &entry;
  }
}

Status Builder::collate(const flatbuffers::Vector<flatbuffers::Offset<fb::Event>>& events, size_t r) {
  keys_.clear();
  entries_.clear();
  entries_.reserve(events.size());
  for (flatbuffers::uoffset_t e = 0; e < events.size(); ++e) {
    const fb::Event* event = events.Get(e);
    InstructionKey key;
    RunEntry entry{};
    entry.index = e;
    if (const fb::ProfileEvent* p = event->profile_event()) {
      key = {p->instruction_id(), {p->chain_index(), false}, p->delegate_debug_id_int(),
             opt_view(p->delegate_debug_id_str())};
      entry.kind = RunEntry::Kind::kProfile;
      entry.table = p;
    } else if (const fb::DebugEvent* d = event->debug_event()) {
      if (!d->debug_entry()) return bad_input("debug event without debug_entry", event_path(r, e));
      if (Status fields = check_required_fields(*d->debug_entry()); !fields) {
        return std::move(fields).error().in(event_path(r, e) + ".debug_event.debug_entry");
      }
      const uint64_t chain = d->chain_index();
      key = {d->instruction_id(), {int64_t(chain), chain > uint64_t(INT64_MAX)}, d->delegate_debug_id_int(),
             opt_view(d->delegate_debug_id_str())};
      const fb::Bool* output = d->debug_entry()->output();
      entry.kind = output && output->bool_val() ? RunEntry::Kind::kOutput : RunEntry::Kind::kDebug;
      entry.table = d;
    } else if (event->allocation_event()) {
      // find_populated_event looks at profile and debug events only.
      return unsupported("allocation event: the Inspector cannot read allocation events (Python raises "
                         "\"Unable to find populated event\")",
                         event_path(r, e));
    } else {
      return bad_input("event with neither a profile nor a debug event", event_path(r, e));
    }
    entry.key = keys_.find_or_insert(key);
    entries_.push_back(entry);
  }
  // entries_ no longer grows: the pointers below stay valid for this run.
  bucket(entries_, keys_.size(), RunEntry::Kind::kProfile, profile_begin_, fill_, profile_list_);
  bucket(entries_, keys_.size(), RunEntry::Kind::kDebug, debug_begin_, fill_, debug_list_);
  return {};
}

void Builder::add_signature(const EventSignature& signature, SlotData data) {
  auto [it, inserted] = signature_ids_.try_emplace(signature, uint32_t(signatures_.size()));
  const uint32_t id = it->second;
  if (inserted) {
    signatures_.push_back(signature);
    slot_of_signature_.push_back(0);
    stamp_of_signature_.push_back(0);
  }
  if (stamp_of_signature_[id] == stamp_) {
    // An equal signature later in the run: its data wins, the position stays.
    run_slots_[slot_of_signature_[id]] = data;
    return;
  }
  stamp_of_signature_[id] = stamp_;
  slot_of_signature_[id] = uint32_t(run_slots_.size());
  run_signatures_.push_back(id);
  run_slots_.push_back(data);
}

void Builder::expand_signatures() {
  ++stamp_;
  run_signatures_.clear();
  run_slots_.clear();
  for (uint32_t k = 0; k < keys_.size(); ++k) {
    const auto profiles = profile_events(k);
    const auto debugs = debug_events(k);
    if (profiles.empty() && debugs.empty()) continue;  // only run outputs
    EventSignature signature;
    signature.instruction_id = keys_.key(k).instruction_id;
    if (!debugs.empty()) signature.debug = sub_signature(*static_cast<const fb::DebugEvent*>(debugs[0]->table));
    if (profiles.empty()) {
      add_signature(signature, {nullptr, k});
      continue;
    }
    for (const RunEntry* p : profiles) {
      signature.profile = sub_signature(*static_cast<const fb::ProfileEvent*>(p->table));
      add_signature(signature, {p, k});
    }
  }
}

Group& Builder::find_or_create_group(std::string_view name, int32_t bundled) {
  const size_t hash = run_signature_hash(name, bundled, run_signatures_);
  std::vector<uint32_t>& candidates = groups_by_hash_[hash];
  for (uint32_t g : candidates) {
    Group& group = groups_[g];
    if (group.name == name && group.bundled_input_index == bundled && group.signatures == run_signatures_) {
      return group;
    }
  }
  candidates.push_back(uint32_t(groups_.size()));
  Group& group = groups_.emplace_back();
  group.name = name;
  group.bundled_input_index = bundled;
  group.signatures = run_signatures_;
  group.block.name = std::string(name);
  group.block.bundled_input_index = bundled;
  group.block.events.resize(run_signatures_.size());
  group.delegated_timing.resize(run_signatures_.size());
  for (size_t i = 0; i < run_signatures_.size(); ++i) {
    const EventSignature& signature = signatures_[run_signatures_[i]];
    Event& event = group.block.events[i];
    event.instruction_id = signature.instruction_id;
    // The signature leaves the chain out; the slot's data (the last equal
    // signature of the run) has it.
    event.chain_index = keys_.key(run_slots_[i].key).chain.bits;
    if (signature.profile) apply_signature(event, *signature.profile);
    // Durations are computed between the two signatures (Event._gen_from_inference_events).
    group.delegated_timing[i] = event.is_delegated_op;
    if (signature.debug) apply_signature(event, *signature.debug);
  }
  return group;
}

Result<double> Builder::duration(const fb::ProfileEvent& p, bool delegated, size_t r, size_t e) const {
  const uint64_t start = p.start_time(), end = p.end_time();
  auto too_large = [&] {
    return bad_input("start_time " + std::to_string(start) + " > end_time " + std::to_string(end) +
                         " and one of them exceeds 2^32-1: not a 32-bit wrap-around (the Python Inspector "
                         "raises ValueError)",
                     event_path(r, e));
  };
  if (delegated) {
    // The default delegate_time_scale_converter scales both stamps first,
    // then subtracts in floating point.
    const double s = double(start) / scale_factor_, t = double(end) / scale_factor_;
    if (s <= t) return t - s;
    if (s > double(kMaxUint32) || t > double(kMaxUint32)) return too_large();
    return (double(kMaxUint32) - s) + t;  // (2^32-1 - s) + e: off by one, as in _calculate_elapsed_time
  }
  uint64_t ticks;
  if (start <= end) {
    ticks = end - start;
  } else {
    if (start > kMaxUint32 || end > kMaxUint32) return too_large();
    ticks = (kMaxUint32 - start) + end;
  }
  return double(ticks) / scale_factor_;
}

Result<std::vector<DebugValue>> Builder::inflate_debug_events(uint32_t key, size_t r) const {
  std::vector<DebugValue> values;
  for (const RunEntry* entry : debug_events(key)) {
    auto value = inflate_value(*static_cast<const fb::DebugEvent*>(entry->table)->debug_entry(),
                               options_.debug_buffer);
    if (!value) return std::move(value).error().in(event_path(r, entry->index) + ".debug_event.debug_entry");
    values.push_back(std::move(value).value());
  }
  return values;
}

Status Builder::add_samples(Group& group, size_t r) {
  for (size_t i = 0; i < run_slots_.size(); ++i) {
    const SlotData& data = run_slots_[i];
    Event& event = group.block.events[i];
    if (data.profile != nullptr) {
      const auto& p = *static_cast<const fb::ProfileEvent*>(data.profile->table);
      ETKIT_ASSIGN_OR_RETURN(const double elapsed, duration(p, group.delegated_timing[i], r, data.profile->index));
      event.raw.push_back(elapsed);
      event.start_time.push_back(p.start_time());
      const auto* metadata = p.delegate_debug_metadata();
      if (metadata != nullptr && metadata->size() > 0) {
        // Kept only once some sample has metadata: earlier samples get "".
        event.delegate_debug_metadatas.resize(event.raw.size() - 1);
        event.delegate_debug_metadatas.emplace_back(metadata->begin(), metadata->end());
      } else if (!event.delegate_debug_metadatas.empty()) {
        event.delegate_debug_metadatas.emplace_back();
      }
    }
    if (debug_events(data.key).empty()) continue;
    ETKIT_ASSIGN_OR_RETURN(std::vector<DebugValue> values, inflate_debug_events(data.key, r));
    if (event.debug_data.empty()) {
      event.debug_data = std::move(values);
      continue;
    }
    // Later runs must log the same values (zip: up to the shorter list).
    for (size_t v = 0; v < std::min(values.size(), event.debug_data.size()); ++v) {
      if (!debug_values_equal(values[v], event.debug_data[v], options_.debug_buffer)) {
        ++group.debug_mismatches;
        break;
      }
    }
  }
  return {};
}

Status Builder::add_run_outputs(Group& group, size_t r) {
  std::vector<DebugValue> outputs;
  for (const RunEntry& entry : entries_) {
    if (entry.kind != RunEntry::Kind::kOutput) continue;
    auto value = inflate_value(*static_cast<const fb::DebugEvent*>(entry.table)->debug_entry(), options_.debug_buffer);
    if (!value) return std::move(value).error().in(event_path(r, entry.index) + ".debug_event.debug_entry");
    outputs.push_back(std::move(value).value());
  }
  std::vector<DebugValue>& kept = group.block.run_output;
  if (kept.empty()) {
    kept = std::move(outputs);
    return {};
  }
  bool equal = kept.size() == outputs.size();
  for (size_t i = 0; equal && i < kept.size(); ++i) equal = debug_values_equal(kept[i], outputs[i], options_.debug_buffer);
  if (!equal) ++group.output_mismatches;
  return {};
}

Status Builder::add_run(const fb::RunData& run, size_t r) {
  const std::string run_path = "run_data[" + std::to_string(r) + "]";
  if (!run.name()) return bad_input("block without a name", run_path);
  if (const auto* allocators = run.allocators()) {
    for (flatbuffers::uoffset_t a = 0; a < allocators->size(); ++a) {
      if (!allocators->Get(a)->name()) {
        return bad_input("allocator without a name", run_path + ".allocators[" + std::to_string(a) + "]");
      }
    }
  }
  if (!run.events()) return {};  // no block, no run output
  ETKIT_TRY(collate(*run.events(), r));
  expand_signatures();
  Group& group = find_or_create_group(std::string_view(run.name()->c_str(), run.name()->size()),
                                      run.bundled_input_index());
  ++group.block.run_count;
  ETKIT_TRY(add_samples(group, r));
  return add_run_outputs(group, r);
}

Inspection Builder::finish() {
  Inspection inspection;
  inspection.source_time_scale = options_.source_time_scale;
  inspection.target_time_scale = options_.target_time_scale;
  for (Group& group : groups_) {
    auto warn = [&](size_t count, const char* what) {
      if (count == 0) return;
      inspection.warnings.push_back("block '" + group.block.name + "': " + std::to_string(count) + " of its " +
                                    std::to_string(group.block.run_count) + " runs have " + what +
                                    " that differ from the kept ones (the Python Inspector stops with an "
                                    "AssertionError here)");
    };
    warn(group.output_mismatches, "run outputs");
    warn(group.debug_mismatches, "debug data");
    inspection.blocks.push_back(std::move(group.block));
  }
  return inspection;
}

}  // namespace

Result<Inspection> build_event_blocks(ByteSpan etdump_file, const BuildOptions& options) {
  ETKIT_ASSIGN_OR_RETURN(const double scale_factor,
                         time_scale_factor(options.source_time_scale, options.target_time_scale));
  ETKIT_ASSIGN_OR_RETURN(const etdump::VerifiedEtDump verified, etdump::verify_etdump(etdump_file));
  const fb::ETDump* root = verified.root;
  if (!root->run_data()) return bad_input("missing run_data");
  Builder builder(options, scale_factor);
  for (flatbuffers::uoffset_t r = 0; r < root->run_data()->size(); ++r) {
    ETKIT_TRY(builder.add_run(*root->run_data()->Get(r), r));
  }
  return builder.finish();
}

void exclude_warmup(Inspection& inspection, size_t count) {
  for (EventBlock& block : inspection.blocks) {
    for (Event& event : block.events) {
      const size_t drop = std::min(count, event.raw.size());
      event.raw.erase(event.raw.begin(), event.raw.begin() + ptrdiff_t(drop));
      event.start_time.erase(event.start_time.begin(), event.start_time.begin() + ptrdiff_t(drop));
      auto& metadata = event.delegate_debug_metadatas;
      if (!metadata.empty()) metadata.erase(metadata.begin(), metadata.begin() + ptrdiff_t(drop));
      if (std::all_of(metadata.begin(), metadata.end(), [](const auto& m) { return m.empty(); })) metadata.clear();
    }
  }
}

}  // namespace etkit::inspect
