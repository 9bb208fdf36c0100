// et-dump-decode's core on synthetic ETDumps (bench/synthetic_etdump.cpp, the
// same generator as etkit-bench-make-etdump) of 10^2..10^6 events, output to
// /dev/null through a FILE* as the tool does:
//   BM_DecodeEtdump/<events>       decode_to_json, compact
//   BM_DecodeEtdumpPretty/<events> decode_to_json, indented
//   BM_DecodeEtdumpJsonl/<events>  decode_etdump_jsonl
// Inputs are generated once per size, outside the timed loop. Counters:
// bytes/s of input, items/s (events), and, from one untimed decode,
// `allocs` and `heap_peak_B`: the operator new calls and the peak of bytes
// live through operator new during a decode (malloc-based stdio buffers are
// not seen).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>

#include "libcore/formats/json/schema_json.h"

#include "bench/synthetic_etdump.h"

// ---- Allocation counting (only while g_counting is set) ---------------------

namespace {

std::atomic<bool> g_counting{false};
std::atomic<int64_t> g_allocs{0};
std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

void* counted_alloc(std::size_t size, std::size_t align) {
  if (size == 0) size = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (size + align - 1) / align * align)
                                              : std::malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocs.fetch_add(1, std::memory_order_relaxed);
    const int64_t live = g_live_bytes.fetch_add(int64_t(malloc_usable_size(p)), std::memory_order_relaxed) +
                         int64_t(malloc_usable_size(p));
    int64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
    while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
    }
  }
  return p;
}

void counted_free(void* p) noexcept {
  if (p == nullptr) return;
  if (g_counting.load(std::memory_order_relaxed)) {
    g_live_bytes.fetch_sub(int64_t(malloc_usable_size(p)), std::memory_order_relaxed);
  }
  std::free(p);
}

}  // namespace

void* operator new(std::size_t size) { return counted_alloc(size, 0); }
void* operator new[](std::size_t size) { return counted_alloc(size, 0); }
void* operator new(std::size_t size, std::align_val_t align) { return counted_alloc(size, std::size_t(align)); }
void* operator new[](std::size_t size, std::align_val_t align) { return counted_alloc(size, std::size_t(align)); }
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_free(p); }

namespace {

using namespace etkit;

enum class Mode { kCompact, kPretty, kJsonl };

struct Input {
  std::vector<uint8_t> bytes;
  uint64_t events = 0;
};

// One input per size for the whole process (generating 10^6 events takes longer
// than decoding them).
const Input& input_with_events(int64_t events) {
  static std::map<int64_t, Input> cache;
  auto it = cache.find(events);
  if (it == cache.end()) {
    Input in;
    in.bytes = bench::mobilenet_like_etdump(uint64_t(events), nullptr, &in.events);
    it = cache.emplace(events, std::move(in)).first;
  }
  return it->second;
}

Status decode(Mode mode, ByteSpan bytes, std::FILE* out) {
  DecodeOptions options;
  options.pretty = mode == Mode::kPretty;
  return mode == Mode::kJsonl ? decode_etdump_jsonl(bytes, options, out)
                              : decode_to_json(FileKind::kEtDump, bytes, options, out);
}

void run_decode(benchmark::State& state, Mode mode) {
  const Input& input = input_with_events(state.range(0));
  const ByteSpan bytes(input.bytes);
  std::FILE* null = std::fopen("/dev/null", "w");
  if (null == nullptr) {
    state.SkipWithError("cannot open /dev/null");
    return;
  }

  // One untimed decode with allocations counted.
  g_allocs = 0;
  g_live_bytes = 0;
  g_peak_bytes = 0;
  g_counting = true;
  Status counted = decode(mode, bytes, null);
  g_counting = false;
  if (!counted) {
    state.SkipWithError(counted.error().describe().c_str());
    std::fclose(null);
    return;
  }

  for (auto _ : state) {
    Status s = decode(mode, bytes, null);
    if (!s) {
      state.SkipWithError(s.error().describe().c_str());
      break;
    }
  }
  std::fclose(null);
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes.size()));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(input.events));
  state.counters["events"] = double(input.events);
  state.counters["allocs"] = double(g_allocs.load());
  state.counters["heap_peak_B"] = double(g_peak_bytes.load());
}

void BM_DecodeEtdump(benchmark::State& state) { run_decode(state, Mode::kCompact); }
void BM_DecodeEtdumpPretty(benchmark::State& state) { run_decode(state, Mode::kPretty); }
void BM_DecodeEtdumpJsonl(benchmark::State& state) { run_decode(state, Mode::kJsonl); }

BENCHMARK(BM_DecodeEtdump)->RangeMultiplier(10)->Range(100, 1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeEtdumpPretty)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeEtdumpJsonl)->RangeMultiplier(100)->Range(100, 1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
