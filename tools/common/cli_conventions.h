// Conventions every etkit tool follows on its command line, so the same idea
// has the same spelling and the same failure everywhere: number validators
// whose errors fit on one line, one value per occurrence for repeatable
// options (so they never swallow a positional), hidden aliases for the
// spellings users bring from ExecuTorch's Python inspector_cli, and --quiet.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace etkit::tools {

// CLI11 converts "-1" to SIZE_MAX and its range checks print a 300-digit
// bound: these say what was wrong in a few words.
inline const CLI::Validator kCount(
    [](std::string& text) -> std::string {
      uint64_t value = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size()) {
        return "'" + text + "' is not a non-negative integer";
      }
      return {};
    },
    "COUNT");

inline const CLI::Validator kNonNegativeReal(
    [](std::string& text) -> std::string {
      double value = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size() || !std::isfinite(value) ||
          value < 0) {
        return "'" + text + "' is not a non-negative number";
      }
      return {};
    },
    "NUMBER>=0");

// A repeatable option takes one value per occurrence (--input a --input b),
// so `--input x.npy model.pte` leaves model.pte to the positional.
inline CLI::Option* one_per_occurrence(CLI::Option* option) { return option->allow_extra_args(false); }

// Spellings rewritten to the canonical option before parsing (hidden from
// --help, listed in the tool's docs).
struct Alias {
  std::string_view from;  // e.g. "--etdump_path"
  std::string_view to;    // e.g. "--etdump"
};

// The Python inspector_cli's flags, for tools that have the same idea.
inline constexpr Alias kEtdumpPath{"--etdump_path", "--etdump"};
inline constexpr Alias kEtrecordPath{"--etrecord_path", "--etrecord"};
inline constexpr Alias kDebugBufferPath{"--debug_buffer_path", "--debug-buffer"};
inline constexpr Alias kSourceTimeScale{"--source_time_scale", "--source-time-scale"};
inline constexpr Alias kTargetTimeScale{"--target_time_scale", "--target-time-scale"};

// argv with every alias (as `--from` or `--from=value`) replaced, up to a
// `--` separator; owns the strings `argv()` points into.
//
// `word_lists` names options whose value is a comma-separated list that users
// also type as words (`--columns event_name avg r.etdp`): the words after
// such an option are joined into one value, up to the next option, `--`, or
// the first word that names an existing file or is `-` (the positional
// input), so the list never swallows it.
class AliasedArgs {
 public:
  AliasedArgs(int argc, char** argv, const std::vector<Alias>& aliases,
              const std::vector<std::string_view>& word_lists = {}) {
    bool options_end = false;
    for (int i = 0; i < argc; ++i) {
      std::string arg = argv[i];
      if (i > 0 && !options_end) {
        if (arg == "--") options_end = true;
        for (const Alias& a : aliases) {
          if (arg == a.from) arg = std::string(a.to);
          else if (arg.size() > a.from.size() && arg.compare(0, a.from.size(), a.from) == 0 && arg[a.from.size()] == '=')
            arg = std::string(a.to) + arg.substr(a.from.size());
        }
        if (std::find(word_lists.begin(), word_lists.end(), arg) != word_lists.end() && i + 1 < argc) {
          std::string joined = argv[++i];
          while (i + 1 < argc && is_list_word(argv[i + 1])) joined += std::string(",") + argv[++i];
          arg += "=" + joined;
        }
      }
      strings_.push_back(std::move(arg));
    }
    for (std::string& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  int argc() const { return int(strings_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  static bool is_list_word(std::string_view word) {
    if (word.empty() || word[0] == '-') return false;
    std::error_code ec;
    return !std::filesystem::exists(std::filesystem::path(word), ec);
  }

  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

// --quiet: warnings and progress off (errors are always printed).
inline bool& quiet_mode() {
  static bool quiet = false;
  return quiet;
}
inline CLI::Option* add_quiet_flag(CLI::App& app, const std::string& names = "-q,--quiet") {
  return app.add_flag(names, quiet_mode(), "no warnings or progress on standard error (errors are still printed)");
}

}  // namespace etkit::tools
