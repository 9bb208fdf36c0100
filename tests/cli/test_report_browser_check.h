// Runs scripts/check_report.sh on a report and reads back what Chromium saw;
// shared by the browser tests of the report.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace etkit::test {

struct BrowserView {
  std::string status;       // the page's self-check: "ok", "error", "loading"
  std::string status_text;  // its line, e.g. "rendered: rows=14 ..."
  std::string dom;          // the DOM after the script ran
  std::filesystem::path screenshot;
};

// nullopt (with a WARN) when Chromium is not installed; otherwise REQUIREs
// that the script ran, that Chromium logged no console message and that the
// page requested nothing but itself, and that the screenshot is a PNG.
// `fragment` (e.g. "#sort=avg-desc") is appended to the file URL.
std::optional<BrowserView> open_in_browser(const std::filesystem::path& html, const std::filesystem::path& out_dir,
                                           const std::string& fragment = "");

}  // namespace etkit::test
