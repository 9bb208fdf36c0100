// tabulate(df, headers="keys", tablefmt=...) for a pandas frame, byte for
// byte (inspector_spec.md §7.4; tabulate 0.8.9 to 0.9.0 agree): the index
// as a first column with an empty header, column types None < bool < int <
// float < str (strings that parse as numbers count as numbers), floats as
// format(x, "g"), decimal alignment of numeric columns, left-aligned and
// stripped text, widths max(len(header) + 2, longest cell), multiline cells.
// Widths count code points, as tabulate does without the wcwidth package.
#pragma once

#include <string>

#include "libcore/inspect/frame.h"

namespace etkit::inspect {

enum class TableFormat {
  kFancyGrid,  // print_data_tabular
  kPipe,       // markdown, as pandas' DataFrame.to_markdown()
};

// The table text without a final newline (print() adds it).
std::string tabulate(const Frame& frame, TableFormat format);

}  // namespace etkit::inspect
