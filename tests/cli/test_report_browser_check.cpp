#include "tests/cli/test_report_browser_check.h"

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/support/test_support.h"

namespace etkit::test {

namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// URLs the page itself asked for (Chromium's own background requests carry
// the initiator "not an origin"; the page's carry its origin, "null" for a
// file). The page's own file: URL does not count.
std::vector<std::string> page_requests(const std::filesystem::path& netlog) {
  std::vector<std::string> urls;
  const auto log = nlohmann::json::parse(slurp(netlog), nullptr, false);
  REQUIRE_FALSE(log.is_discarded());
  for (const auto& event : log.value("events", nlohmann::json::array())) {
    const auto params = event.value("params", nlohmann::json::object());
    if (!params.contains("url") || !params.contains("initiator")) continue;
    if (params["initiator"] == "not an origin") continue;
    const std::string url = params["url"];
    if (url.rfind("file:", 0) == 0 || url.rfind("data:", 0) == 0) continue;
    urls.push_back(url);
  }
  return urls;
}

}  // namespace

std::optional<BrowserView> open_in_browser(const std::filesystem::path& html, const std::filesystem::path& out_dir,
                                           const std::string& fragment) {
  const std::string script = std::string(ETKIT_SCRIPTS_DIR) + "/check_report.sh";
  const auto r = run_shell("bash " + script + " " + shell_quote(html.string() + fragment) + " " + shell_quote(out_dir));
  if (r.exit_code == 77) {
    WARN("skipped: " << r.out);
    return std::nullopt;
  }
  INFO("check_report.sh: " << r.out << r.err);
  // The script's own verdict: status ok and no console message.
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("console messages: 0") != std::string::npos);
  CHECK(page_requests(out_dir / "netlog.json").empty());

  BrowserView view;
  view.dom = slurp(out_dir / "dom.html");
  std::smatch m;
  const std::regex status("id=\"report-status\" data-status=\"([a-z]+)\">([^<]*)<");
  REQUIRE(std::regex_search(view.dom, m, status));
  view.status = m[1];
  view.status_text = m[2];
  view.screenshot = out_dir / "screenshot.png";
  const std::string png = slurp(view.screenshot);
  CHECK(png.rfind("\x89PNG\r\n\x1a\n", 0) == 0);
  CHECK(png.size() > 10000);  // a rendered page, not a blank one
  return view;
}

}  // namespace etkit::test
