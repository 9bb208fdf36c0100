// The JSON writer behind every tool's output (libcore/support/json_writer.h)
// against RapidJSON's Writer/PrettyWriter on the same stream of calls, shaped
// like et-dump-decode's ETDump events (schema keys, 64-bit integers, short
// strings, float32 tensor values) and written to /dev/null through a FILE*
// as the tools do. Figures in docs/performance.md.
//   BM_Events<Ours>          JsonWriter (float via std::to_chars<float>)
//   BM_Events<RapidDouble>   RapidJSON Writer, floats widened to double: its
//                            only float path, but a different document
//                            (0.1f prints as 0.10000000149011612)
//   BM_Events<RapidRaw>      RapidJSON Writer, floats through to_chars and
//                            RawValue: what json_writer.h's interface on top
//                            of RapidJSON would have to do to print the same
//                            document
// The /1 variants are indented (--pretty).
#include <benchmark/benchmark.h>

// GCC 12 warns falsely on std::string appends inlined with constant
// arguments (-Wrestrict, GCC PR 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

#include <charconv>
#include <cstdio>
#include <limits>
#include <string>

#include <rapidjson/filewritestream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>

#include "libcore/support/json_writer.h"

namespace {

constexpr int kEvents = 100000;
constexpr int kValuesPerEvent = 16;

struct Ours {
  Ours(std::FILE* out, bool pretty) : w(out, pretty) {}
  void begin_object() { w.begin_object(); }
  void end_object() { w.end_object(); }
  void begin_array() { w.begin_array(); }
  void end_array() { w.end_array(); }
  void key(std::string_view k) { w.key(k); }
  void string(std::string_view s) { w.string(s); }
  void integer(int64_t v) { w.number(v); }
  void unsigned_integer(uint64_t v) { w.number(v); }
  void real(float v) { w.number(v); }
  void flush() { w.flush(); }
  etkit::JsonWriter w;
};

template <bool kRawFloats>
struct Rapid {
  Rapid(std::FILE* out, bool indent) : stream(out, buffer, sizeof buffer), compact(stream), indented(stream) {
    indented.SetIndent(' ', 2);
    pretty = indent;
  }
  template <typename F>
  void with(F f) {
    if (pretty) {
      f(indented);
    } else {
      f(compact);
    }
  }
  void begin_object() { with([](auto& w) { w.StartObject(); }); }
  void end_object() { with([](auto& w) { w.EndObject(); }); }
  void begin_array() { with([](auto& w) { w.StartArray(); }); }
  void end_array() { with([](auto& w) { w.EndArray(); }); }
  void key(std::string_view k) {
    with([&](auto& w) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); });
  }
  void string(std::string_view s) {
    with([&](auto& w) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); });
  }
  void integer(int64_t v) { with([&](auto& w) { w.Int64(v); }); }
  void unsigned_integer(uint64_t v) { with([&](auto& w) { w.Uint64(v); }); }
  void real(float v) {
    if constexpr (kRawFloats) {
      char tmp[32];
      const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
      with([&](auto& w) { w.RawValue(tmp, static_cast<size_t>(r.ptr - tmp), rapidjson::kNumberType); });
    } else {
      with([&](auto& w) { w.Double(v); });
    }
  }
  void flush() { stream.Flush(); }

  char buffer[1 << 16];
  rapidjson::FileWriteStream stream;
  rapidjson::Writer<rapidjson::FileWriteStream> compact;
  rapidjson::PrettyWriter<rapidjson::FileWriteStream> indented;
  bool pretty = false;
};
using RapidDouble = Rapid<false>;
using RapidRaw = Rapid<true>;

// One ETDump as et-dump-decode prints it: run_data[0].events[i] with a
// profile_event and a debug_event holding a logged tensor's values.
template <typename W>
void emit_etdump(W& w) {
  static const char* kNames[] = {"native_call_aten.convolution.out", "native_call_aten.relu.out",
                                 "native_call_aten.max_pool2d_with_indices.out", "Method::execute"};
  w.begin_object();
  w.key("version");
  w.unsigned_integer(0);
  w.key("run_data");
  w.begin_array();
  w.begin_object();
  w.key("name");
  w.string("Execute");
  w.key("bundled_input_index");
  w.integer(-1);
  w.key("events");
  w.begin_array();
  uint32_t seed = 12345;
  for (int i = 0; i < kEvents; ++i) {
    w.begin_object();
    w.key("profile_event");
    w.begin_object();
    w.key("name");
    w.string(kNames[i % 4]);
    w.key("chain_index");
    w.integer(0);
    w.key("instruction_id");
    w.integer(i);
    w.key("delegate_debug_id_int");
    w.integer(-1);
    w.key("delegate_debug_id_str");
    w.string("");
    w.key("delegate_debug_metadata");
    w.string("");
    w.key("start_time");
    w.unsigned_integer(1700000000000ull + 1000ull * static_cast<uint64_t>(i));
    w.key("end_time");
    w.unsigned_integer(1700000000000ull + 1000ull * static_cast<uint64_t>(i) + 731);
    w.end_object();
    w.key("debug_event");
    w.begin_object();
    w.key("chain_index");
    w.integer(0);
    w.key("instruction_id");
    w.integer(i);
    w.key("debug_entry");
    w.begin_object();
    w.key("val_type");
    w.string("Tensor");
    w.key("val");
    w.begin_object();
    w.key("scalar_type");
    w.string("FLOAT");
    w.key("sizes");
    w.begin_array();
    w.integer(1);
    w.integer(kValuesPerEvent);
    w.end_array();
    w.key("values");
    w.begin_array();
    for (int v = 0; v < kValuesPerEvent; ++v) {
      seed = seed * 1664525u + 1013904223u;
      w.real(static_cast<float>(seed >> 8) / static_cast<float>(1 << 20) - 8.0f);
    }
    w.end_array();
    w.end_object();
    w.end_object();
    w.end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  w.end_array();
  w.end_object();
  w.flush();
}

template <typename W>
void BM_Events(benchmark::State& state) {
  std::FILE* out = std::fopen("/dev/null", "wb");
  std::FILE* counter = std::tmpfile();
  {
    W w(counter, state.range(0) != 0);
    emit_etdump(w);
  }
  std::fflush(counter);
  const long bytes = std::ftell(counter);
  std::fclose(counter);
  for (auto _ : state) {
    W w(out, state.range(0) != 0);
    emit_etdump(w);
  }
  std::fclose(out);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kEvents);
  state.counters["output_bytes"] = static_cast<double>(bytes);
}
BENCHMARK_TEMPLATE(BM_Events, Ours)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Events, RapidDouble)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Events, RapidRaw)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
