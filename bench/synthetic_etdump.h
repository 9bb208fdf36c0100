// The synthetic ETDump shared by etkit-bench-make-etdump and bench_decode.
#pragma once

#include <cstdint>
#include <vector>

namespace etkit::bench {

// An ETDump shaped like et-run's output for a MobileNetV2-like program, with
// `target_events` events or a few less (the last execution is cut short to
// fit); the exact count goes to `*event_count`. When `debug_buffer` is
// non-null, every tenth execution also logs its output, FLOAT[1,1000]
// logits, as a debug event (after Method::execute, as the runtime does) whose
// bytes go to the buffer. Deterministic (std::mt19937(42)).
std::vector<uint8_t> mobilenet_like_etdump(uint64_t target_events, std::vector<uint8_t>* debug_buffer,
                                           uint64_t* event_count);

}  // namespace etkit::bench
