#include "libcore/compare/intermediates.h"

#include <map>
#include <tuple>

namespace etkit::compare {
namespace {

using PairKey = std::tuple<int64_t, int32_t, std::string, size_t, size_t>;

PairKey key_of(const LoggedTensor& t) {
  // A plain tensor and element 0 of a list stay apart: SIZE_MAX marks "not a list".
  return {t.chain_index, t.instruction_id, t.delegate_id, t.occurrence, t.list_index.value_or(SIZE_MAX)};
}

}  // namespace

IntermediatesComparison compare_intermediates(const std::vector<LoggedTensor>& reference,
                                              const std::vector<LoggedTensor>& candidate, const Criteria& criteria,
                                              const InstructionLocator& locator) {
  std::map<PairKey, size_t> candidate_index;
  for (size_t i = 0; i < candidate.size(); ++i) candidate_index.emplace(key_of(candidate[i]), i);
  std::vector<bool> used(candidate.size(), false);

  IntermediatesComparison out;
  auto add = [&](const LoggedTensor& t, const TensorValues* ref, const TensorValues* cand, const std::string& op) {
    InstructionPair p;
    p.chain_index = t.chain_index;
    p.instruction_id = t.instruction_id;
    p.delegate_id = t.delegate_id;
    p.op_name = op;
    p.value = value_label(t, false);
    if (locator) p.location = locator(t.chain_index, t.instruction_id);
    p.result = compare_pair(ref, cand, criteria);
    if (p.result.failed && !out.first_divergence) out.first_divergence = out.pairs.size();
    out.pairs.push_back(std::move(p));
  };
  for (const LoggedTensor& r : reference) {
    auto it = candidate_index.find(key_of(r));
    if (it == candidate_index.end()) {
      add(r, &r.tensor, nullptr, r.op_name);
      continue;
    }
    const LoggedTensor& c = candidate[it->second];
    used[it->second] = true;
    add(r, &r.tensor, &c.tensor, r.op_name.empty() ? c.op_name : r.op_name);
  }
  for (size_t i = 0; i < candidate.size(); ++i) {
    if (!used[i]) add(candidate[i], nullptr, &candidate[i].tensor, candidate[i].op_name);
  }
  return out;
}

}  // namespace etkit::compare
