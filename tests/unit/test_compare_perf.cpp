// The perf comparison: pairing of blocks and events, detection of a known
// slowdown under seeded noise, no flags for the same distribution, the gate
// on totals and on events, and the same through ETDump files and the CLI.
#include <nlohmann/json.hpp>
#include <random>

#include <catch2/catch.hpp>

#include "libcore/compare/perf.h"
#include "libcore/formats/etdump/etdump_writer.h"
#include "tests/support/test_support.h"

using namespace etkit;
using namespace etkit::compare;

namespace {

// Six kernels whose op names repeat (op0, op1, op2, op0, op1, op2), each
// with its OPERATOR_CALL, and Method::execute = their sum; nominal
// durations 10..60 (sum 210), multiplied by (1 + 3% noise) per sample.
constexpr size_t kKernels = 6;
constexpr double kDuration[kKernels] = {10, 20, 30, 40, 50, 60};
constexpr size_t kSamples = 30;

struct Timings {
  // durations[r][i]: run r, kernel i; plus the total per run.
  std::vector<std::vector<double>> kernels;
  std::vector<double> totals;
};

Timings timings(uint64_t seed, size_t slow_kernel = kKernels, double factor = 1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.03);
  Timings t;
  for (size_t r = 0; r < kSamples; ++r) {
    std::vector<double> run;
    double total = 0;
    for (size_t i = 0; i < kKernels; ++i) {
      const double d = kDuration[i] * (i == slow_kernel ? factor : 1.0) * (1.0 + noise(rng));
      run.push_back(d);
      total += d + 1.0;  // framework overhead per instruction
    }
    t.kernels.push_back(run);
    t.totals.push_back(total);
  }
  return t;
}

std::string op_name(size_t i) { return "native_call_op" + std::to_string(i % 3) + ".out"; }

PerfProfile profile_of(const Timings& t) {
  PerfProfile p;
  p.events.push_back(PerfEvent{"Default", 0, "Method::init", 0, {5.0}});
  for (size_t i = 0; i < kKernels; ++i) {
    PerfEvent kernel{"Execute", 0, op_name(i), int32_t(i), {}}, call{"Execute", 0, "OPERATOR_CALL", int32_t(i), {}};
    for (const auto& run : t.kernels) {
      kernel.samples.push_back(run[i]);
      call.samples.push_back(run[i] + 0.5);
    }
    p.events.push_back(kernel);
    p.events.push_back(call);
  }
  p.events.push_back(PerfEvent{"Execute", 0, "Method::execute", 0, t.totals});
  return p;
}

const PerfRow* find_row(const PerfComparison& c, const std::string& name, int32_t instruction) {
  for (const auto& r : c.rows) {
    if (r.name == name && r.instruction_id == instruction) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("perf: a kernel 1.3x slower under 3% noise is detected, the rest is not", "[et-compare][perf]") {
  const PerfProfile base = profile_of(timings(1));
  const PerfProfile slow = profile_of(timings(2, 4, 1.3));
  PerfOptions options;
  options.fail_if_slower = 0.10;
  options.gate = Gate::kEvents;
  auto c = compare_perf(base, slow, options);
  REQUIRE(c.ok());
  // 1 + 6 * 2 + 1 rows, all paired.
  REQUIRE(c->rows.size() == 14);
  const PerfRow* k4 = find_row(*c, "native_call_op1.out", 4);
  REQUIRE(k4);
  CHECK(k4->change == Change::kSlower);
  CHECK(k4->regression);
  CHECK(k4->interval.low < 1.3);
  CHECK(k4->interval.high > 1.3);
  CHECK(k4->test.p_greater < 1e-6);
  CHECK(find_row(*c, "OPERATOR_CALL", 4)->regression);
  for (const auto& r : c->rows) {
    if (r.instruction_id == 4 && r.name != "Method::execute") continue;
    INFO(r.name << " " << r.instruction_id);
    CHECK_FALSE(r.regression);
  }
  CHECK(c->gate_failed);

  // The total grows by 0.3 * 50 / 216 = 6.9%: the total gate fails at 5%, not at 10%.
  options.gate = Gate::kTotal;
  options.fail_if_slower = 0.05;
  c = compare_perf(base, slow, options);
  REQUIRE(c.ok());
  const PerfRow* total = find_row(*c, "Method::execute", 0);
  REQUIRE(total);
  CHECK(total->gated);
  CHECK(total->interval.ratio == Approx(1.069).margin(0.01));
  CHECK(c->gate_failed);
  CHECK_FALSE(find_row(*c, "native_call_op1.out", 4)->gated);  // only the total is watched
  options.fail_if_slower = 0.10;
  CHECK_FALSE(compare_perf(base, slow, options)->gate_failed);
}

TEST_CASE("perf: detection and false alarms over many seeds", "[et-compare][perf]") {
  // Holm keeps the chance of any false flag at or below 5% per comparison;
  // over 20 independent same-distribution pairs a few flags at most are
  // expected with a 0% margin, and none with a 5% margin. The 1.3x kernel
  // is caught every time.
  PerfOptions events;
  events.gate = Gate::kEvents;
  events.resamples = 500;
  int false_zero = 0, false_five = 0, detected = 0;
  for (uint64_t s = 0; s < 20; ++s) {
    const PerfProfile a = profile_of(timings(100 + s)), b = profile_of(timings(200 + s));
    events.fail_if_slower = 0.0;
    false_zero += compare_perf(a, b, events)->gate_failed ? 1 : 0;
    events.fail_if_slower = 0.05;
    false_five += compare_perf(a, b, events)->gate_failed ? 1 : 0;
    const PerfProfile slow = profile_of(timings(300 + s, 2, 1.3));
    detected += compare_perf(a, slow, events)->gate_failed ? 1 : 0;
  }
  CHECK(false_zero <= 3);
  CHECK(false_five == 0);
  CHECK(detected == 20);
}

TEST_CASE("perf: pairing by name, by instruction where names repeat, and unmatched events", "[et-compare][perf]") {
  PerfProfile a, b;
  const std::vector<double> s = {1, 2, 3};
  a.events = {{"Execute", 0, "OPERATOR_CALL", 0, s}, {"Execute", 0, "OPERATOR_CALL", 1, s},
              {"Execute", 0, "native_call_add.out", 1, s}, {"Execute", 0, "only_a", 2, s},
              {"Execute", 1, "Method::execute", 0, s}};
  // The candidate renumbered add (unique name: still paired), dropped only_a
  // and gained only_b; its second Execute block pairs with the baseline's.
  b.events = {{"Execute", 0, "OPERATOR_CALL", 1, {4, 5, 6}}, {"Execute", 0, "OPERATOR_CALL", 0, s},
              {"Execute", 0, "native_call_add.out", 7, s}, {"Execute", 0, "only_b", 2, s},
              {"Execute", 1, "Method::execute", 0, s}};
  auto c = compare_perf(a, b, {});
  REQUIRE(c.ok());
  REQUIRE(c->rows.size() == 6);
  CHECK(c->rows[0].name == "OPERATOR_CALL");
  CHECK(c->rows[0].candidate == 2.0);  // instruction 0 with instruction 0
  CHECK(c->rows[1].candidate == 5.0);  // instruction 1 with instruction 1
  CHECK(c->rows[2].name == "native_call_add.out");
  CHECK(c->rows[2].change == Change::kSame);
  CHECK(c->rows[3].change == Change::kOnlyInBaseline);
  CHECK(c->rows[4].name == "only_b");
  CHECK(c->rows[4].change == Change::kOnlyInCandidate);
  CHECK(c->rows[5].name == "Method::execute");
  CHECK(c->rows[5].is_total);

  // Gating the total needs Method::execute on both sides.
  PerfOptions gated;
  gated.fail_if_slower = 0.05;
  PerfProfile no_total = a;
  no_total.events.pop_back();
  auto missing = compare_perf(no_total, b, gated);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == ErrorKind::kUsage);
  gated.gate = Gate::kEvents;
  CHECK(compare_perf(no_total, b, gated).ok());
  PerfOptions bad;
  bad.confidence = 1.0;
  CHECK_FALSE(compare_perf(a, b, bad).ok());
}

TEST_CASE("perf: percentages", "[et-compare][perf]") {
  CHECK(*parse_percent("5%") == Approx(0.05));
  CHECK(*parse_percent("2.5") == Approx(0.025));
  CHECK(*parse_percent("0%") == 0.0);
  for (const char* bad : {"", "%", "-1%", "five", "5%%", "nan"}) {
    INFO(bad);
    CHECK_FALSE(parse_percent(bad).ok());
  }
}

namespace {

// An ETDump as et-run writes it: Default, then one Execute block per run,
// durations in ns (the timings times 1000).
std::vector<uint8_t> etdump_of(const Timings& t) {
  etdump::EtDumpWriter w;
  uint64_t clock = 1'000'000;
  w.begin_block("Default");
  w.add_profile_event("Method::init", -1, 0, clock, clock + 5000);
  w.add_profile_event("Program::load_method", -1, 0, clock, clock + 6000);
  for (size_t r = 0; r < t.kernels.size(); ++r) {
    w.begin_block("Execute");
    const uint64_t start = clock;
    for (size_t i = 0; i < kKernels; ++i) {
      const auto d = uint64_t(t.kernels[r][i] * 1000.0);
      w.add_profile_event(op_name(i), 0, int32_t(i), clock + 100, clock + 100 + d);
      w.add_profile_event("OPERATOR_CALL", 0, int32_t(i), clock, clock + d + 600);
      clock += d + 1000;
    }
    w.add_profile_event("Method::execute", -1, 0, start, clock);
    clock += 10'000;
  }
  return w.finish();
}

std::string q(const std::filesystem::path& p) { return std::string(1, '\'').append(p.string()).append(1, '\''); }

}  // namespace

TEST_CASE("et-compare perf: ETDumps through the Inspector's blocks, exit codes", "[et-compare][perf][cli]") {
  const auto dir = test::scratch_dir();
  test::write_bytes(dir / "base.etdp", etdump_of(timings(1)));
  test::write_bytes(dir / "same.etdp", etdump_of(timings(2)));
  test::write_bytes(dir / "slow.etdp", etdump_of(timings(3, 4, 1.3)));
  const std::string base = "perf --baseline " + q(dir / "base.etdp") + " --candidate ";

  auto same = test::run_tool("et-compare", base + q(dir / "same.etdp") + " --fail-if-slower 5%");
  INFO(same.err);
  CHECK(same.exit_code == 0);
  CHECK(same.out.find("verdict: not slower") != std::string::npos);

  auto slow = test::run_tool("et-compare", base + q(dir / "slow.etdp") + " --fail-if-slower 5% --format json");
  CHECK(slow.exit_code == 1);
  const auto doc = nlohmann::json::parse(slow.out);
  CHECK(doc["summary"]["verdict"] == "slower");
  bool found = false;
  for (const auto& row : doc["rows"]) {
    if (row["event"] == "native_call_op1.out" && row["instruction"] == 4) {
      found = true;
      CHECK(row["change"] == "slower");
      CHECK(row["ratio"].get<double>() == Approx(1.3).epsilon(0.05));
      CHECK(row["gate"] == "");  // the default gate watches only the total
      CHECK(row["block"] == "Execute");
      CHECK(row["n_baseline"] == 30);
    }
    if (row["event"] == "Method::execute") CHECK(row["gate"] == "REGRESSION");
  }
  CHECK(found);
  // Without a gate the report is informational: exit 0. A larger margin passes.
  CHECK(test::run_tool("et-compare", base + q(dir / "slow.etdp")).exit_code == 0);
  CHECK(test::run_tool("et-compare", base + q(dir / "slow.etdp") + " --fail-if-slower 10").exit_code == 0);
  CHECK(test::run_tool("et-compare", base + q(dir / "slow.etdp") + " --fail-if-slower 10% --gate events").exit_code == 1);
  // Reproducible: the same seed prints the same report.
  const auto once = test::run_tool("et-compare", base + q(dir / "slow.etdp") + " --format csv --seed 9 --metric avg");
  const auto twice = test::run_tool("et-compare", base + q(dir / "slow.etdp") + " --format csv --seed 9 --metric avg");
  CHECK(once.exit_code == 0);
  CHECK(once.out == twice.out);
  CHECK(once.out.rfind("block,event,instruction,n_baseline,n_candidate,baseline_avg,candidate_avg,", 0) == 0);

  auto bad_percent = test::run_tool("et-compare", base + q(dir / "slow.etdp") + " --fail-if-slower fast");
  CHECK(bad_percent.exit_code == 2);
  CHECK(bad_percent.err == "et-compare: error: 'fast' is not a percentage (e.g. 5% or 2.5)\n");
  test::write_bytes(dir / "junk.etdp", std::vector<uint8_t>(16, 7));
  auto junk = test::run_tool("et-compare", base + q(dir / "junk.etdp"));
  CHECK(junk.exit_code == 2);
  CHECK(junk.err.rfind("et-compare: error: " + (dir / "junk.etdp").string() + ": ", 0) == 0);
  auto warm = test::run_tool("et-compare", base + q(dir / "same.etdp") + " --warmup 40");
  CHECK(warm.exit_code == 2);
  CHECK(warm.err.find("no timed events") != std::string::npos);
}
