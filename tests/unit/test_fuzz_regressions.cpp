// Replays what the fuzzers found (tests/fuzz/regressions/<target>/, each a
// reproducer of a fixed bug) and the real fixtures they start from, through
// the same target bodies: a crash or sanitizer report fails the suite.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/test_support.h"
#include "tests/support/xnn_graph_builder.h"

using namespace etkit;

namespace {

std::vector<uint8_t> file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Every file in regressions/<target>/ and seeds/<target>/ (either may be absent).
size_t replay(const std::string& target, int (*fn)(const uint8_t*, size_t)) {
  size_t count = 0;
  const std::filesystem::path root(ETKIT_FUZZ_DIR);
  for (const auto& dir : {root / "regressions" / target, root / "seeds" / target}) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
      INFO(entry.path().string());
      const auto bytes = file_bytes(entry.path());
      CHECK(fn(bytes.data(), bytes.size()) == 0);
      ++count;
    }
  }
  return count;
}

}  // namespace

TEST_CASE("fuzz regressions: xnnpack reproducers and seeds run without a crash", "[fuzz][xnnpack]") {
  replay("xnnpack", fuzz::xnnpack_payload);
  // Hand-built payloads exercise the run path too (the target runs what it reads).
  test::XnnGraphBuilder g;
  const uint32_t x = g.input({1, 4, 4, 2});
  const uint32_t y = g.output({1, 2, 2, 2});
  auto& n = g.node(xnn::NodeType::kMaxPooling2d, {x}, {y});
  n.window = xnn::Window{0, 0, 0, 0, 2, 2, 2, 2, 1, 1};
  const auto payload = g.payload();
  CHECK(fuzz::xnnpack_payload(payload.data(), payload.size()) == 0);
}

TEST_CASE("fuzz regressions: the reader targets replay their reproducers and seeds", "[fuzz]") {
  replay("program", fuzz::program);
  replay("etdump", fuzz::etdump);
  replay("bundled", fuzz::bundled);
  replay("etrecord", fuzz::etrecord);
  CHECK(replay("etrecord-json", fuzz::etrecord_json) >= 1);  // seeds/etrecord-json/add_relu.json
  CHECK(replay("etrecord-pickle", fuzz::etrecord_pickle) >= 5);  // seeds/etrecord-pickle/*.pkl
  replay("ptd", fuzz::ptd);
  CHECK(replay("npy", fuzz::npy) >= 1);          // seeds/npy/mlp-output.npy
  CHECK(replay("json-encode", fuzz::json_encode) >= 1);  // seeds/json-encode/mlp.json
}

TEST_CASE("fuzz regressions: the XNNPACK fixtures through the fuzz target", "[fuzz][xnnpack][fixtures]") {
  ETKIT_REQUIRE_FIXTURES();
  for (const char* name : {"wild/pte/djl_spike_conv.pte", "wild/pte/simpletm_model.pte", "wild/pte/et_xnnpack_add.pte",
                           "pte/stress_mlp_xnnpack_segments.pte", "pte/dynamic_xnnpack.pte"}) {
    INFO(name);
    const auto bytes = file_bytes(test::fixture(name));
    REQUIRE_FALSE(bytes.empty());
    CHECK(fuzz::xnnpack_payload(bytes.data(), bytes.size()) == 0);
  }
}
