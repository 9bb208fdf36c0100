// pandas DataFrame.to_csv(sep=...) for the Inspector's frames, as
// save_data_to_tsv writes them (inspector_spec.md §7.5): an empty index
// header, floats in full round-trip precision (Python repr), None and NaN as
// empty fields, lists via str(), csv.QUOTE_MINIMAL quoting, "\n" line ends.
#pragma once

#include <string>

#include "libcore/inspect/frame.h"

namespace etkit::inspect {

std::string to_delimited(const Frame& frame, char separator);

}  // namespace etkit::inspect
