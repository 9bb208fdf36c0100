// Pairs the intermediate outputs of two runs of the same program (a
// reference build and a candidate build, two kernel sets, ...) by
// instruction and finds the first instruction whose outputs diverge.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "libcore/compare/logged_values.h"
#include "libcore/compare/pair_compare.h"

namespace etkit::compare {

// Where an instruction comes from (module path, source line), e.g. from an
// ETRecord; empty when unknown. Kept a plain function so the ETRecord reader
// can supply it without this layer depending on it.
using InstructionLocator = std::function<std::string(int64_t chain_index, int32_t instruction_id)>;

struct InstructionPair {
  int64_t chain_index = 0;
  int32_t instruction_id = 0;
  std::string delegate_id;
  std::string op_name;   // from the reference run, else the candidate run
  std::string value;     // value_label(): "out 0", "out 1[2]"
  std::string location;  // filled only with a locator
  PairResult result;
};

struct IntermediatesComparison {
  // Reference order (execution order) first, then what only the candidate
  // logged, in its order.
  std::vector<InstructionPair> pairs;
  std::optional<size_t> first_divergence;  // index into pairs of the first failed pair
};

// Pairs by (chain, instruction, delegate id, occurrence, list element).
IntermediatesComparison compare_intermediates(const std::vector<LoggedTensor>& reference,
                                              const std::vector<LoggedTensor>& candidate, const Criteria& criteria,
                                              const InstructionLocator& locator = nullptr);

}  // namespace etkit::compare
