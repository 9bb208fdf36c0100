// What et-fleet reads: ETDump paths, directories searched recursively for
// *.etdp, or a manifest (TSV with a header row) that labels each file with
// free-form columns (device, build, commit, date, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libcore/support/result.h"

namespace etkit::fleet {

struct FleetInput {
  std::string path;
  std::vector<std::string> labels;  // parallel to InputSet::label_names
  std::string etrecord;             // "" when the input has none of its own
};

struct InputSet {
  std::vector<std::string> label_names;
  std::vector<FleetInput> inputs;  // the order results are written in
};

// Column names a manifest cannot use as labels: the long table's own columns.
bool is_reserved_column(const std::string& name);

// Paths in the order given; a directory contributes its *.etdp files
// (recursively, sorted by path so the order does not depend on the file
// system). Inputs without a manifest have no labels.
Result<InputSet> inputs_from_paths(const std::vector<std::string>& paths);

// A manifest: tab-separated, a header row naming the columns, one row per
// file. The `path` column is required (relative paths are relative to the
// manifest's directory); an `etrecord` column names that file's ETRecord;
// every other column is a label. Blank lines and lines starting with '#'
// are skipped; a row with a different number of fields is an error naming
// the manifest and its line.
Result<InputSet> inputs_from_manifest(const std::string& manifest_path);

// Keeps the inputs whose labels match every "LABEL=VALUE" condition (e.g.
// device=pixel8, to gate one device's history); an unknown label or a
// condition without '=' is a usage error.
Status select_inputs(InputSet& set, const std::vector<std::string>& conditions);

// The index of a label in `set`, or nullopt.
std::optional<size_t> label_index(const InputSet& set, const std::string& name);

}  // namespace etkit::fleet
