#include "libcore/fleet/inputs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace etkit::fleet {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    out.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) break;
    start = tab + 1;
  }
  return out;
}

Error manifest_error(const std::string& path, size_t line, std::string message) {
  return Error{ErrorKind::kBadInput, path, "line " + std::to_string(line), std::move(message)};
}

}  // namespace

bool is_reserved_column(const std::string& name) {
  static const std::set<std::string> reserved = {
      "format", "run_id", "file", "program", "unit", "block_index", "block", "sample", "event_index", "event_name",
      "instruction_id", "chain_index", "delegate_debug_identifier", "debug_handles", "op_type", "module", "counted",
      "duration", "labels", "path", "etrecord"};
  return reserved.count(name) != 0;
}

Result<InputSet> inputs_from_paths(const std::vector<std::string>& paths) {
  InputSet set;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (path != "-" && fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
      if (ec) return io_error(path, "cannot list the directory: " + ec.message());
      for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
        if (ec) return io_error(path, "cannot list the directory: " + ec.message());
        if (it->path().extension() == ".etdp" && it->is_regular_file(ec)) found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      for (auto& f : found) set.inputs.push_back({std::move(f), {}, {}});
      continue;
    }
    set.inputs.push_back({path, {}, {}});
  }
  return set;
}

Result<InputSet> inputs_from_manifest(const std::string& manifest_path) {
  std::ifstream in(manifest_path);
  if (!in) return io_error(manifest_path, "cannot open the manifest");
  const fs::path base = fs::path(manifest_path).parent_path();
  InputSet set;
  std::vector<std::string> header;
  std::optional<size_t> path_column, etrecord_column;
  std::vector<size_t> label_columns;
  std::string line;
  size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = split_tabs(line);
    if (header.empty()) {
      header = std::move(fields);
      std::set<std::string> seen;
      for (size_t i = 0; i < header.size(); ++i) {
        const std::string& name = header[i];
        if (name.empty()) return manifest_error(manifest_path, line_number, "column " + std::to_string(i + 1) + " has no name");
        if (!seen.insert(name).second) return manifest_error(manifest_path, line_number, "column '" + name + "' appears twice");
        if (name == "path") path_column = i;
        else if (name == "etrecord") etrecord_column = i;
        else if (is_reserved_column(name))
          return manifest_error(manifest_path, line_number, "'" + name + "' is a column of the long table, not a label name");
        else {
          label_columns.push_back(i);
          set.label_names.push_back(name);
        }
      }
      if (!path_column) return manifest_error(manifest_path, line_number, "the header has no 'path' column");
      continue;
    }
    if (fields.size() != header.size()) {
      return manifest_error(manifest_path, line_number,
                            std::to_string(fields.size()) + " fields, the header has " + std::to_string(header.size()));
    }
    auto resolve = [&](const std::string& p) {
      return p.empty() || fs::path(p).is_absolute() || base.empty() ? p : (base / p).string();
    };
    FleetInput input;
    input.path = resolve(fields[*path_column]);
    if (input.path.empty()) return manifest_error(manifest_path, line_number, "empty path");
    if (etrecord_column) input.etrecord = resolve(fields[*etrecord_column]);
    for (size_t c : label_columns) input.labels.push_back(fields[c]);
    set.inputs.push_back(std::move(input));
  }
  if (header.empty()) return Error{ErrorKind::kBadInput, manifest_path, {}, "the manifest has no header row"};
  return set;
}

Status select_inputs(InputSet& set, const std::vector<std::string>& conditions) {
  for (const std::string& condition : conditions) {
    const size_t eq = condition.find('=');
    if (eq == std::string::npos) {
      return Error{ErrorKind::kUsage, {}, {}, "--where: '" + condition + "' is not LABEL=VALUE"};
    }
    const std::string name = condition.substr(0, eq), value = condition.substr(eq + 1);
    const auto index = label_index(set, name);
    if (!index) return Error{ErrorKind::kUsage, {}, {}, "--where: no label '" + name + "'"};
    std::erase_if(set.inputs, [&](const FleetInput& input) { return input.labels[*index] != value; });
  }
  return {};
}

std::optional<size_t> label_index(const InputSet& set, const std::string& name) {
  for (size_t i = 0; i < set.label_names.size(); ++i)
    if (set.label_names[i] == name) return i;
  return std::nullopt;
}

}  // namespace etkit::fleet
