// Writes ETDumps the way ExecuTorch's ETDumpGen does: size-prefixed ED00,
// blocks appended one after another, events in the order they are added,
// scalars equal to their defaults left out.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "libcore/formats/etdump/etdump.h"

namespace etkit::etdump {

class EtDumpWriter {
 public:
  EtDumpWriter();
  ~EtDumpWriter();
  EtDumpWriter(const EtDumpWriter&) = delete;
  EtDumpWriter& operator=(const EtDumpWriter&) = delete;

  // Starts a new RunData; the previous one is closed.
  void begin_block(std::string_view name, int32_t bundled_input_index = -1);
  // Returns the 1-based allocator id used by AllocationEvent::allocator_id.
  int32_t add_allocator(std::string_view name);
  void add_event(const Event& event);
  void add_profile_event(const ProfileEvent& event);
  // The runtime's common case without building a ProfileEvent: a named
  // event with no delegate ids.
  void add_profile_event(std::string_view name, int32_t chain_index, int32_t instruction_id, uint64_t start_time,
                         uint64_t end_time);
  void add_allocation_event(const AllocationEvent& event);
  void add_debug_event(const DebugEvent& event);
  // Closes the dump; the writer is then empty again.
  std::vector<uint8_t> finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::vector<uint8_t> write_etdump(const EtDump& dump);

}  // namespace etkit::etdump
