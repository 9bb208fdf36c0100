// A table as the Python Inspector hands it to tabulate or pandas: named
// columns, an integer index, and cells that keep their Python type, because
// the type decides both the text (format(x, "g") vs str) and the alignment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace etkit::inspect {

struct Cell {
  // kObject is a list or dict: always text, shown as its Python str().
  enum class Kind : uint8_t { kNone, kBool, kInt, kFloat, kStr, kObject };
  Kind kind = Kind::kNone;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;  // NaN for pandas' missing float
  std::string text;        // kStr, kObject

  static Cell none() { return {}; }
  static Cell boolean(bool b) { return {Kind::kBool, b, 0, 0, {}}; }
  static Cell integer(int64_t i) { return {Kind::kInt, false, i, 0, {}}; }
  static Cell real(double f) { return {Kind::kFloat, false, 0, f, {}}; }
  static Cell str(std::string s) { return {Kind::kStr, false, 0, 0, std::move(s)}; }
  static Cell object(std::string python_str) { return {Kind::kObject, false, 0, 0, std::move(python_str)}; }
};

struct Frame {
  std::vector<std::string> columns;
  std::vector<int64_t> index;          // one per row (pandas' index column)
  std::vector<std::vector<Cell>> rows;  // each of columns.size()
};

}  // namespace etkit::inspect
