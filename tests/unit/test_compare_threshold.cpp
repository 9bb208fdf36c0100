// Threshold expressions: what parses, what is refused and what crosses.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "libcore/compare/threshold.h"

using namespace etkit;
using namespace etkit::compare;

TEST_CASE("threshold expressions parse", "[et-compare][threshold]") {
  auto t = parse_threshold("snr<40");
  REQUIRE(t.ok());
  CHECK(t->metric == Metric::kSnr);
  CHECK(t->comparison == Comparison::kLess);
  CHECK(t->value == 40.0);
  CHECK(t->text() == "snr<40");
  // The column was called snr_db before its unit moved to a field.
  CHECK(parse_threshold("snr_db<40")->text() == "snr<40");

  t = parse_threshold("  mse >= 1e-3 ");
  REQUIRE(t.ok());
  CHECK(t->metric == Metric::kMse);
  CHECK(t->comparison == Comparison::kGreaterEqual);
  CHECK(t->value == 0.001);
  CHECK(t->text() == "mse>=0.001");

  t = parse_threshold("COSINE<=-0.5");
  REQUIRE(t.ok());
  CHECK(t->metric == Metric::kCosine);
  CHECK(t->comparison == Comparison::kLessEqual);
  CHECK(t->value == -0.5);

  t = parse_threshold("max_abs>2");
  REQUIRE(t.ok());
  CHECK(t->comparison == Comparison::kGreater);

  auto list = parse_thresholds("snr<40,mse>1e-3, l1 > 0.5");
  REQUIRE(list.ok());
  REQUIRE(list->size() == 3);
  CHECK((*list)[2].metric == Metric::kL1);
  CHECK((*list)[2].value == 0.5);
}

TEST_CASE("malformed threshold expressions are usage errors naming the problem", "[et-compare][threshold]") {
  const char* bad[] = {"", "snr", "snr<", "<40", "psnr<40", "snr<abc", "snr<40dB", "snr=40", "snr<inf",
                       "snr<nan", "snr<<40", "snr<=>40", "snr<1e999"};
  for (const char* text : bad) {
    INFO(text);
    auto t = parse_threshold(text);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().kind == ErrorKind::kUsage);
    CHECK(t.error().message.find("threshold '" + std::string(text) + "'") == 0);
  }
  CHECK(parse_threshold("psnr<40").error().message.find("unknown metric 'psnr'") != std::string::npos);
  CHECK_FALSE(parse_thresholds("snr<40,").ok());
  CHECK_FALSE(parse_thresholds(",snr<40").ok());
}

TEST_CASE("crossing a threshold, NaN never crosses", "[et-compare][threshold]") {
  const Threshold below = *parse_threshold("snr<40");
  CHECK(below.crossed_by(39.9));
  CHECK_FALSE(below.crossed_by(40.0));
  CHECK(below.crossed_by(-std::numeric_limits<double>::infinity()));
  CHECK_FALSE(below.crossed_by(std::numeric_limits<double>::infinity()));
  CHECK_FALSE(below.crossed_by(std::nan("")));
  const Threshold at_most = *parse_threshold("snr<=40");
  CHECK(at_most.crossed_by(40.0));
  const Threshold above = *parse_threshold("mse>1e-3");
  CHECK(above.crossed_by(0.0011));
  CHECK_FALSE(above.crossed_by(0.001));
  CHECK_FALSE(above.crossed_by(std::nan("")));
  CHECK(parse_threshold("mse>=1e-3")->crossed_by(0.001));
}
