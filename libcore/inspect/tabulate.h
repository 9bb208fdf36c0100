// tabulate(df, headers="keys", tablefmt=...) for a pandas frame, byte for
// byte (inspector_spec.md §7.4; tabulate 0.8.9 to 0.9.0 agree): the index
// as a first column with an empty header, column types None < bool < int <
// float < str (strings that parse as numbers count as numbers), floats as
// format(x, "g"), decimal alignment of numeric columns, left-aligned and
// stripped text (str.strip(): Unicode whitespace), widths max(len(header) +
// 2, longest cell), multiline cells. Widths count code points, as tabulate
// does without the wcwidth package, and leave out ANSI colour codes and
// hyperlinks when the table has any (tabulate_text.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "libcore/inspect/frame.h"

namespace etkit::inspect {

enum class TableFormat {
  kFancyGrid,  // print_data_tabular
  kPipe,       // markdown, as pandas' DataFrame.to_markdown()
};

// Hands the table to `emit` line by line (without line breaks): a table can
// be far larger than its frame, since every cell is padded to its column's
// widest cell.
void tabulate_lines(const Frame& frame, TableFormat format, const std::function<void(std::string_view)>& emit);

// The lines joined with "\n", without a final newline (print() adds it).
std::string tabulate(const Frame& frame, TableFormat format);

}  // namespace etkit::inspect
