// Statistics for deciding whether two sets of timing samples differ:
// the Mann-Whitney U test (rank-based, no normality assumption) and a
// percentile-bootstrap confidence interval of a statistic's ratio.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace etkit::compare {

struct MannWhitney {
  // U of the candidate: pairs (b, c) with c > b, ties counting 1/2.
  double u = 0;
  double p_greater = 1;    // one-sided: candidate values tend to be larger (slower)
  double p_less = 1;       // one-sided: candidate values tend to be smaller
  double p_two_sided = 1;  // min(1, 2 min(p_greater, p_less)) when exact
  bool exact = false;      // exact null distribution, else normal approximation
};

// Exact null distribution when there are no ties and n_b * n_c <= 2500;
// otherwise the normal approximation with tie correction and continuity
// correction (as scipy.stats.mannwhitneyu with use_continuity=True). With
// an empty side, or every value tied, all p-values are 1.
MannWhitney mann_whitney_u(std::span<const double> baseline, std::span<const double> candidate);

// Holm-Bonferroni: which of the hypotheses with these p-values are rejected
// at family-wise error rate `alpha` (sorted ascending, the i-th smallest,
// 0-based, is compared with alpha / (m - i) until one fails).
std::vector<bool> holm_reject(std::span<const double> p_values, double alpha);

// The statistic a timing is summarised by.
enum class Statistic { kP50, kAvg, kMin };
std::string_view statistic_name(Statistic statistic);  // "p50", "avg", "min"
// The Inspector's own definitions (numpy percentile and mean, Python min);
// `samples` must not be empty.
double statistic_of(std::span<const double> samples, Statistic statistic);

struct RatioInterval {
  double ratio = 1;  // statistic(candidate) / statistic(baseline) on the samples
  double low = 1, high = 1;
};

// Percentile bootstrap: `resamples` times, each side resampled with
// replacement; the interval holds the central `confidence` fraction of the
// resampled ratios. The random stream is std::mt19937_64 seeded with
// `seed` and drawn without modulo bias, so results are reproducible across
// platforms. A zero baseline statistic gives ratio +inf (or 1 when the
// candidate's is zero too). Both sides must be non-empty.
RatioInterval bootstrap_ratio(std::span<const double> baseline, std::span<const double> candidate, Statistic statistic,
                              double confidence, uint64_t seed, size_t resamples);

}  // namespace etkit::compare
