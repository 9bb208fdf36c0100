#include "libcore/render/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "libcore/render/graph_layout.h"
#include "libcore/render/heat_color.h"
#include "libcore/render/program_graph_dot.h"

namespace etkit::render {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// Six significant digits, as the Inspector's table prints them.
std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
// Full precision for sorting and for tests reading the DOM.
std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
// SVG coordinates: one decimal is plenty.
std::string px(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string row_anchor(size_t row) { return "row-" + std::to_string(row); }

const char* kStyle = R"css(
:root { --fg: #1f2328; --muted: #57606a; --line: #d0d7de; --accent: #0969da; --bg-alt: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--fg);
       margin: 0 auto; max-width: 1400px; padding: 16px 24px 40px; }
h1 { font-size: 22px; margin: 4px 0 12px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
table { border-collapse: collapse; }
table.kv td { padding: 2px 14px 2px 0; vertical-align: top; }
table.kv td:first-child { color: var(--muted); }
.notes { color: var(--muted); margin: 8px 0; padding-left: 18px; }
span.muted { color: var(--muted); }
svg.spark { vertical-align: middle; }
.scroll { overflow: auto; max-height: 900px; border: 1px solid var(--line); border-radius: 6px; }
table.data { font-size: 13px; width: 100%; }
table.data th, table.data td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left;
                               white-space: nowrap; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.data thead th { position: sticky; top: 0; background: var(--bg-alt); cursor: pointer; user-select: none; }
table.data thead th[aria-sort=ascending]::after { content: " \25B2"; }
table.data thead th[aria-sort=descending]::after { content: " \25BC"; }
table.data tbody tr:nth-child(even) { background: #fbfbfc; }
table.data tbody tr:target { background: #fff3c4; outline: 2px solid #e0a800; }
.share { display: inline-block; width: 60px; height: 9px; background: var(--bg-alt); border: 1px solid var(--line);
         margin-right: 6px; }
.share > span { display: block; height: 100%; background: #e53935; }
svg text { font: 12px system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: var(--fg); }
svg .muted { fill: var(--muted); }
svg .node rect { stroke: #6e7781; }
svg .node.input rect, svg .node.output rect { fill: #dbeafe; }
svg .node.constant rect { fill: #f1f1f1; stroke: #9e9e9e; stroke-dasharray: 3 2; }
svg a:hover rect, svg a:focus rect { stroke: var(--accent); stroke-width: 2.5; }
svg .edge { fill: none; stroke: #8c959f; stroke-width: 1.2; }
svg .edge.control { stroke-dasharray: 5 4; }
svg .cluster { fill: #eef0fb; stroke: #5c6bc0; stroke-dasharray: 6 3; }
svg .slice { stroke: #ffffff; stroke-width: 0.5; }
svg .slice.delegated { fill: #7e57c2; }
#report-status { margin-top: 30px; color: var(--muted); font-size: 12px; }
)css";

const char* kScript = R"js(
(function () {
  var status = document.getElementById('report-status');
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    status.setAttribute('data-status', 'error');
    status.textContent = 'error: ' + errors.join('; ');
  });

  /* A click toggles the order; `ascending` forces it. */
  function sortBy(table, col, th, ascending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    if (ascending === undefined) ascending = th.getAttribute('aria-sort') !== 'ascending';
    rows.sort(function (a, b) {
      var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
      if (x === null || y === null) {
        var s = a.cells[col].textContent.localeCompare(b.cells[col].textContent);
        return ascending ? s : -s;
      }
      if (x === '' || y === '') return (x === '') - (y === '');  /* blanks last */
      return ascending ? x - y : y - x;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.title = 'sort';
      th.addEventListener('click', function () { sortBy(table, col, th); });
    });
  });
  /* A link can open the report sorted: report.html#sort=avg-desc (keys are
     the event table's data-key attributes). */
  var wanted = /^#sort=([a-z0-9_]+?)(-desc)?$/.exec(location.hash);
  var events = document.getElementById('event-table');
  if (wanted && events) {
    Array.prototype.forEach.call(events.tHead.rows[0].cells, function (th, col) {
      if (th.getAttribute('data-key') === wanted[1]) sortBy(events, col, th, !wanted[2]);
    });
  }

  function count(selector) { return document.querySelectorAll(selector).length; }
  function shown(id) {
    var e = document.getElementById(id);
    if (!e) return 'absent';
    var r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? 'yes' : 'no';
  }
  var checks = {
    rows: count('#event-table tbody tr'),
    bars: count('#optype-chart .bar'),
    slices: count('#timeline-chart .slice'),
    nodes: count('#graph-chart .node'),
    edges: count('#graph-chart .edge'),
    links: count('#graph-chart a'),
    intermediates: count('#intermediate-table tbody tr'),
    chart_shown: shown('optype-chart'),
    timeline_shown: shown('timeline-chart'),
    graph_shown: shown('graph-chart')
  };
  if (document.getElementById('wide-table')) {
    checks.wide_rows = count('#wide-table tbody tr');
    checks.sparklines = count('#wide-table svg.spark polyline');
  }
  var text = Object.keys(checks).map(function (k) { return k + '=' + checks[k]; }).join(' ');
  if (!errors.length) {
    status.setAttribute('data-status', 'ok');
    status.textContent = 'rendered: ' + text;
  }
})();
)js";

class Page {
 public:
  explicit Page(const ReportData& data) : data_(data) {}

  std::string render() {
    out_ += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    // Nothing may be fetched: the page works offline and leaks nothing.
    out_ +=
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "script-src 'unsafe-inline'; img-src data:\">\n";
    out_ += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out_ += "<title>" + html_escape(data_.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
    out_ += "<h1>" + html_escape(data_.title) + "</h1>\n";
    nav();
    summary();
    op_type_chart();
    timeline();
    graph();
    wide();
    if (!data_.rows.empty() || !data_.wide) table();
    intermediates();
    out_ += "<footer id=\"report-status\" data-status=\"loading\">script did not run</footer>\n";
    out_ += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
    return std::move(out_);
  }

 private:
  void nav() {
    out_ += "<nav>";
    out_ += "<a href=\"#summary\">Summary</a>";
    if (!data_.op_type_times.empty()) out_ += "<a href=\"#optypes\">Time by op type</a>";
    if (data_.timeline) out_ += "<a href=\"#timeline\">Timeline</a>";
    if (data_.graph) out_ += "<a href=\"#graph\">Graph</a>";
    if (data_.wide) out_ += "<a href=\"#wide\">By " + html_escape(data_.wide->label) + "</a>";
    if (!data_.rows.empty() || !data_.wide) out_ += "<a href=\"#events\">Events</a>";
    if (!data_.intermediates.empty()) out_ += "<a href=\"#intermediates\">Intermediate outputs</a>";
    out_ += "</nav>\n";
  }

  void summary() {
    out_ += "<section id=\"summary\"><h2>Summary</h2>\n<table class=\"kv\">\n";
    for (const auto& [label, value] : data_.summary) {
      out_ += "<tr><td>" + html_escape(label) + "</td><td>" + html_escape(value) + "</td></tr>\n";
    }
    out_ += "</table>\n";
    if (!data_.notes.empty()) {
      out_ += "<ul class=\"notes\">";
      for (const auto& note : data_.notes) out_ += "<li>" + html_escape(note) + "</li>";
      out_ += "</ul>\n";
    }
    out_ += "</section>\n";
  }

  void op_type_chart() {
    if (data_.op_type_times.empty()) return;
    const auto& bars = data_.op_type_times;
    double max_value = 0, label_width = 0, total = 0;
    for (const auto& bar : bars) {
      max_value = std::max(max_value, bar.value);
      label_width = std::max(label_width, text_width(bar.label));
      total += bar.value;
    }
    label_width = std::min(label_width + 12, 360.0);
    const double bar_area = 560, row = 22, width = label_width + bar_area + 150;
    const double height = row * static_cast<double>(bars.size()) + 10;
    out_ += "<section id=\"optypes\"><h2>Time by op type (" + html_escape(data_.unit) + ")</h2>\n";
    if (!data_.op_type_caption.empty()) out_ += "<p>" + html_escape(data_.op_type_caption) + "</p>\n";
    out_ += "<svg id=\"optype-chart\" role=\"img\" width=\"" + px(width) + "\" height=\"" + px(height) +
            "\" viewBox=\"0 0 " + px(width) + " " + px(height) + "\">\n";
    for (size_t i = 0; i < bars.size(); ++i) {
      const auto& bar = bars[i];
      const double y = 5 + row * static_cast<double>(i);
      const double w = max_value > 0 ? bar_area * bar.value / max_value : 0;
      const std::string share = total > 0 ? format_percent(bar.value / total) : "";
      out_ += "<g class=\"bar\" data-label=\"" + html_escape(bar.label) + "\" data-value=\"" + exact(bar.value) + "\">";
      out_ += "<title>" + html_escape(bar.label) + ": " + fmt(bar.value) + " " + html_escape(data_.unit) + " (" +
              share + ")</title>";
      out_ += "<text x=\"" + px(label_width - 8) + "\" y=\"" + px(y + 15) + "\" text-anchor=\"end\">" +
              html_escape(bar.label) + "</text>";
      out_ += "<rect x=\"" + px(label_width) + "\" y=\"" + px(y + 3) + "\" width=\"" + px(std::max(w, 1.0)) +
              "\" height=\"16\" fill=\"" + heat_color(max_value > 0 ? bar.value / max_value : 0) +
              "\" stroke=\"#b35c00\" stroke-width=\"0.5\"/>";
      out_ += "<text class=\"value\" x=\"" + px(label_width + w + 6) + "\" y=\"" + px(y + 15) + "\">" + fmt(bar.value) +
              " " + html_escape(data_.unit) + " (" + share + ")</text></g>\n";
    }
    out_ += "</svg>\n</section>\n";
  }

  void timeline() {
    if (!data_.timeline) return;
    const auto& t = *data_.timeline;
    double end = 0;
    int lanes = 0;
    for (const auto& s : t.slices) {
      end = std::max(end, s.start + s.duration);
      lanes = std::max(lanes, s.lane + 1);
    }
    static const char* kLaneNames[] = {"method", "instruction", "kernel", "delegate"};
    const double gutter = 90, plot = 1100, lane_height = 26, axis = 24;
    const double width = gutter + plot + 20, height = axis + lane_height * lanes + 10;
    const double scale = end > 0 ? plot / end : 0;
    out_ += "<section id=\"timeline\"><h2>Timeline: " + html_escape(t.title) + "</h2>\n<div class=\"scroll\">";
    out_ += "<svg id=\"timeline-chart\" role=\"img\" width=\"" + px(width) + "\" height=\"" + px(height) +
            "\" viewBox=\"0 0 " + px(width) + " " + px(height) + "\">\n";
    // Axis ticks at 1, 2 or 5 times a power of ten, about eight of them.
    if (end > 0) {
      const double raw_step = end / 8;
      const double magnitude = std::pow(10.0, std::floor(std::log10(raw_step)));
      const double step = raw_step / magnitude < 2   ? 2 * magnitude
                          : raw_step / magnitude < 5 ? 5 * magnitude
                                                     : 10 * magnitude;
      for (double tick = 0; tick <= end * 1.0001; tick += step) {
        const double x = gutter + tick * scale;
        out_ += "<line x1=\"" + px(x) + "\" y1=\"" + px(axis - 4) + "\" x2=\"" + px(x) + "\" y2=\"" + px(height - 10) +
                "\" stroke=\"#eaeef2\"/><text class=\"muted\" x=\"" + px(x) + "\" y=\"" + px(axis - 8) +
                "\" text-anchor=\"middle\">" + fmt(tick) + "</text>\n";
      }
    }
    out_ += "<text class=\"muted\" x=\"4\" y=\"" + px(axis - 8) + "\">" + html_escape(data_.unit) + "</text>\n";
    for (int lane = 0; lane < lanes; ++lane) {
      out_ += "<text class=\"muted\" x=\"4\" y=\"" + px(axis + lane_height * lane + 17) + "\">" +
              std::string(lane < 4 ? kLaneNames[lane] : "other") + "</text>\n";
    }
    double max_duration = 0;
    for (const auto& s : t.slices) {
      if (s.lane > 0) max_duration = std::max(max_duration, s.duration);
    }
    for (const auto& s : t.slices) {
      const double x = gutter + s.start * scale, w = std::max(s.duration * scale, 0.5);
      const double y = axis + lane_height * s.lane + 2;
      const std::string fill = s.lane == 0 ? "#c8d1dc" : heat_color(max_duration > 0 ? s.duration / max_duration : 0);
      std::string g = "<g class=\"slice-group\"><title>" + html_escape(s.name) + "\nstart " + fmt(s.start) + " " +
                      html_escape(data_.unit) + ", duration " + fmt(s.duration) + " " + html_escape(data_.unit) +
                      "</title><rect class=\"slice" + std::string(s.delegated ? " delegated" : "") + "\" data-name=\"" +
                      html_escape(s.name) + "\" data-start=\"" + exact(s.start) + "\" data-duration=\"" +
                      exact(s.duration) + "\" x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(w) +
                      "\" height=\"" + px(lane_height - 4) + "\"" + (s.delegated ? "" : " fill=\"" + fill + "\"") +
                      "/>";
      // A label only where it fits (about 7 px per character).
      const std::string label = s.name.size() > 40 ? s.name.substr(0, 40) : s.name;
      if (w > text_width(label) + 6) {
        g += "<text x=\"" + px(x + 3) + "\" y=\"" + px(y + 15) + "\">" + html_escape(label) + "</text>";
      }
      g += "</g>";
      if (s.row) g = "<a href=\"#" + row_anchor(*s.row) + "\">" + g + "</a>";
      out_ += g + "\n";
    }
    out_ += "</svg></div>\n</section>\n";
  }

  static const char* kind_class(NodeKind kind) {
    switch (kind) {
      case NodeKind::kInput:
        return "input";
      case NodeKind::kOutput:
        return "output";
      case NodeKind::kConstant:
        return "constant";
      case NodeKind::kDelegate:
        return "delegate";
      default:
        return "instruction";
    }
  }

  void graph() {
    if (!data_.graph) return;
    const auto& g = *data_.graph;
    double max_share = 0;
    for (const auto& [ref, note] : data_.nodes) max_share = std::max(max_share, note.share.value_or(0));

    std::vector<std::vector<std::string>> lines(g.nodes.size());
    std::vector<const NodeAnnotation*> notes(g.nodes.size(), nullptr);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const auto& node = g.nodes[i];
      if (node.instruction) {
        lines[i].push_back(instruction_label(*node.instruction) + " " + node.label);
        auto it = data_.nodes.find(*node.instruction);
        if (it != data_.nodes.end()) {
          notes[i] = &it->second;
          if (it->second.share) lines[i].push_back(format_percent(*it->second.share));
        }
      } else {
        lines[i].push_back(node.label);
        if (!node.detail.empty()) lines[i].push_back(node.detail);
      }
    }
    const GraphLayout layout = layout_graph(g, lines);

    out_ += "<section id=\"graph\"><h2>Program graph: method " + html_escape(g.method) + "</h2>\n";
    if (max_share > 0) {
      out_ += "<p>Instructions are coloured by their share of the execution time, relative to the most expensive (" +
              format_percent(max_share) + "): <svg width=\"160\" height=\"12\"><defs><linearGradient id=\"heat\">";
      for (double stop : {0.0, 0.5, 1.0}) {
        out_ += "<stop offset=\"" + px(stop * 100) + "%\" stop-color=\"" + heat_color(stop) + "\"/>";
      }
      out_ +=
          "</linearGradient></defs><rect width=\"160\" height=\"12\" fill=\"url(#heat)\" stroke=\"#999\"/></svg>. "
          "Click a node for its table row.</p>\n";
    }
    out_ += "<div class=\"scroll\"><svg id=\"graph-chart\" role=\"img\" width=\"" + px(layout.width) + "\" height=\"" +
            px(layout.height) + "\" viewBox=\"0 0 " + px(layout.width) + " " + px(layout.height) + "\">\n";
    out_ +=
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
        "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#8c959f\"/>"
        "</marker></defs>\n";
    for (size_t c = 0; c < g.clusters.size(); ++c) {
      const Box& b = layout.clusters[c];
      out_ += "<g class=\"cluster-group\"><rect class=\"cluster\" rx=\"8\" x=\"" + px(b.x) + "\" y=\"" + px(b.y) +
              "\" width=\"" + px(b.width) + "\" height=\"" + px(b.height) + "\"/><text x=\"" + px(b.x + 8) + "\" y=\"" +
              px(b.y + 14) + "\">" + html_escape(g.clusters[c].label) + "</text></g>\n";
    }
    // Edges meeting at a node spread over its top or bottom side, ordered by
    // where their other end is, so they do not all end in one point.
    std::vector<double> start_x(g.edges.size()), end_x(g.edges.size());
    std::vector<std::vector<size_t>> incoming(g.nodes.size()), outgoing(g.nodes.size());
    for (size_t k = 0; k < g.edges.size(); ++k) {
      outgoing[g.edges[k].from].push_back(k);
      incoming[g.edges[k].to].push_back(k);
    }
    auto centre = [&](size_t v) { return layout.nodes[v].x + layout.nodes[v].width / 2; };
    auto spread = [&](std::vector<size_t>& edges, size_t node, bool by_source, std::vector<double>& x) {
      std::stable_sort(edges.begin(), edges.end(), [&](size_t p, size_t q) {
        return centre(by_source ? g.edges[p].from : g.edges[p].to) <
               centre(by_source ? g.edges[q].from : g.edges[q].to);
      });
      const double width =
          edges.size() > 1 ? std::min(layout.nodes[node].width * 0.6, 14.0 * static_cast<double>(edges.size() - 1)) : 0;
      for (size_t i = 0; i < edges.size(); ++i) {
        x[edges[i]] = centre(node) - width / 2 +
                      (edges.size() > 1 ? width * static_cast<double>(i) / static_cast<double>(edges.size() - 1) : 0);
      }
    };
    for (size_t v = 0; v < g.nodes.size(); ++v) {
      spread(incoming[v], v, true, end_x);
      spread(outgoing[v], v, false, start_x);
    }
    for (size_t k = 0; k < g.edges.size(); ++k) {
      const auto& e = g.edges[k];
      const Box& a = layout.nodes[e.from];
      const Box& b = layout.nodes[e.to];
      const double x1 = start_x[k], x2 = end_x[k];
      double y1 = a.y + a.height, y2 = b.y;
      if (e.control || y2 <= y1) {  // a jump back: leave from the side
        const double x1s = a.x + a.width, x2s = b.x + b.width;
        const double ya = a.y + a.height / 2, yb = b.y + b.height / 2;
        out_ += "<path class=\"edge control\" marker-end=\"url(#arrow)\" d=\"M " + px(x1s) + " " + px(ya) + " C " +
                px(x1s + 60) + " " + px(ya) + ", " + px(x2s + 60) + " " + px(yb) + ", " + px(x2s) + " " + px(yb) +
                "\"><title>" + html_escape(e.control ? "jump if false" : e.label) + "</title></path>\n";
        continue;
      }
      const double dy = (y2 - y1) / 2;
      out_ += "<path class=\"edge\" marker-end=\"url(#arrow)\" d=\"M " + px(x1) + " " + px(y1) + " C " + px(x1) + " " +
              px(y1 + dy) + ", " + px(x2) + " " + px(y2 - dy) + ", " + px(x2) + " " + px(y2) + "\"><title>" +
              html_escape(e.label) + "</title></path>\n";
    }
    for (size_t i = 0; i < g.nodes.size(); ++i) node(g.nodes[i], layout.nodes[i], lines[i], notes[i], max_share);
    out_ += "</svg></div>\n</section>\n";
  }

  void node(const GraphNode& n, const Box& b, const std::vector<std::string>& lines, const NodeAnnotation* note,
            double max_share) {
    std::string tooltip = lines.empty() ? n.label : lines[0];
    if (!n.detail.empty()) tooltip += "\n" + n.detail;
    std::string fill = n.instruction ? "#ffffff" : "";
    std::string data;
    if (note) {
      if (note->share) {
        tooltip += "\nshare of execution time: " + format_percent(*note->share);
        fill = heat_color(max_share > 0 ? *note->share / max_share : 0);
        data += " data-share=\"" + exact(*note->share) + "\"";
      }
      if (!note->source.empty()) tooltip += "\nsource: " + note->source;
      for (const auto& value : note->intermediates) tooltip += "\noutput: " + value;
      if (note->row) data += " data-row=\"" + std::to_string(*note->row) + "\"";
    }
    std::string g = "<g class=\"node " + std::string(kind_class(n.kind)) + "\" id=\"node-" + html_escape(n.id) + "\"" +
                    data + "><title>" + html_escape(tooltip) + "</title><rect rx=\"" +
                    (n.kind == NodeKind::kInput || n.kind == NodeKind::kOutput ? "14" : "5") + "\" x=\"" + px(b.x) +
                    "\" y=\"" + px(b.y) + "\" width=\"" + px(b.width) + "\" height=\"" + px(b.height) + "\"" +
                    (fill.empty() ? "" : " fill=\"" + fill + "\"") + "/>";
    for (size_t l = 0; l < lines.size(); ++l) {
      g += "<text x=\"" + px(b.x + b.width / 2) + "\" y=\"" + px(b.y + 18 + 16 * static_cast<double>(l)) +
           "\" text-anchor=\"middle\">" + html_escape(lines[l]) + "</text>";
    }
    g += "</g>";
    if (note && note->row) g = "<a href=\"#" + row_anchor(*note->row) + "\">" + g + "</a>";
    out_ += g + "\n";
  }

  void table() {
    const auto& rows = data_.rows;
    const bool modules = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.module_path.empty(); });
    const bool sources = std::any_of(rows.begin(), rows.end(), [](const auto& r) { return !r.source.empty(); });
    const std::string u = " (" + html_escape(data_.unit) + ")";
    out_ +=
        "<section id=\"events\"><h2>Events</h2>\n<div class=\"scroll\"><table id=\"event-table\" "
        "class=\"data sortable\">\n<thead><tr><th class=\"num\" data-key=\"index\">#</th><th "
        "data-key=\"block\">block</th><th data-key=\"event\">event</th><th class=\"num\" "
        "data-key=\"instruction\">instruction</th><th class=\"num\" data-key=\"runs\">runs</th>";
    for (const char* stat : {"p10", "p50", "p90", "avg", "min", "max"}) {
      out_ += "<th class=\"num\" data-key=\"" + std::string(stat) + "\">" + stat + u + "</th>";
    }
    out_ +=
        "<th class=\"num\" data-key=\"share\">share</th><th data-key=\"op_types\">op types</th><th "
        "data-key=\"delegated\">delegated</th><th data-key=\"backend\">backend</th>";
    if (modules) out_ += "<th data-key=\"module\">module</th>";
    if (sources) out_ += "<th data-key=\"source\">source</th>";
    out_ += "</tr></thead>\n<tbody>\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      out_ += "<tr id=\"" + row_anchor(i) + "\"><td class=\"num\" data-v=\"" + std::to_string(i) + "\">" +
              std::to_string(i) + "</td><td>" + html_escape(r.block) + "</td><td>" + html_escape(r.name) + "</td>";
      if (r.instruction) {
        out_ += "<td class=\"num\" data-v=\"" +
                std::to_string(r.instruction->chain * 1000000 + r.instruction->instruction) + "\">" +
                html_escape(instruction_label(*r.instruction)) + "</td>";
      } else {
        out_ += "<td class=\"num\" data-v=\"\"></td>";
      }
      out_ += "<td class=\"num\" data-v=\"" + std::to_string(r.samples) + "\">" + std::to_string(r.samples) + "</td>";
      if (r.stats) {
        for (double v : {r.stats->p10, r.stats->p50, r.stats->p90, r.stats->avg, r.stats->min, r.stats->max}) {
          out_ += "<td class=\"num\" data-v=\"" + exact(v) + "\">" + fmt(v) + "</td>";
        }
      } else {
        for (int k = 0; k < 6; ++k) out_ += "<td class=\"num\" data-v=\"\"></td>";
      }
      if (r.share) {
        out_ += "<td class=\"num\" data-v=\"" + exact(*r.share) +
                "\"><span class=\"share\"><span style=\"width:" + px(std::clamp(*r.share, 0.0, 1.0) * 100) +
                "%\"></span></span>" + format_percent(*r.share) + "</td>";
      } else {
        out_ += "<td class=\"num\" data-v=\"\"></td>";
      }
      std::string types;
      for (const auto& t : r.op_types) types += (types.empty() ? "" : ", ") + t;
      out_ += "<td>" + html_escape(types) + "</td><td>" + (r.delegated ? "yes" : "") + "</td><td>" +
              html_escape(r.backend) + "</td>";
      if (modules) out_ += "<td>" + html_escape(r.module_path) + "</td>";
      if (sources) out_ += "<td>" + html_escape(r.source) + "</td>";
      out_ += "</tr>\n";
    }
    out_ += "</tbody></table></div>\n</section>\n";
  }

  // Cells: the p50, and its ratio to the baseline when there is one; the
  // background goes from white (the baseline's time or faster) to red (twice
  // the baseline's or more). The sparkline joins the row's p50s in column order.
  void wide() {
    if (!data_.wide) return;
    const WideTable& w = *data_.wide;
    const std::string u = " (" + html_escape(data_.unit) + ")";
    out_ += "<section id=\"wide\"><h2>Op types by " + html_escape(w.label) + "</h2>\n";
    out_ += "<p>p50 per " + html_escape(w.label) + u + ", the ratio to " + html_escape(w.values[w.baseline]) +
            " and the share of that column's time; cells are coloured by the ratio (white: 1 or less, red: 2 or "
            "more); the line follows the p50 across the columns in order.</p>\n";
    out_ += "<div class=\"scroll\"><table id=\"wide-table\" class=\"data sortable\">\n<thead><tr><th>op type</th>"
            "<th>trend</th>";
    for (const auto& v : w.values) out_ += "<th class=\"num\">" + html_escape(v) + u + "</th>";
    out_ += "</tr></thead>\n<tbody>\n";
    for (const auto& row : w.rows) {
      out_ += "<tr><td>" + html_escape(row.name) + "</td><td>" + sparkline(row.p50) + "</td>";
      const std::optional<double> base = row.p50[w.baseline];
      for (size_t c = 0; c < w.values.size(); ++c) {
        const std::optional<double>& v = row.p50[c];
        if (!v) {
          out_ += "<td class=\"num\" data-v=\"\"></td>";
          continue;
        }
        std::string text = fmt(*v), title = html_escape(w.values[c]) + ": p50 " + fmt(*v) + " " + html_escape(data_.unit);
        std::string style;
        if (base && *base > 0) {
          const double ratio = *v / *base;
          if (c != w.baseline) text += " <span class=\"muted\">x" + fmt(ratio) + "</span>";
          title += ", x" + fmt(ratio) + " of " + html_escape(w.values[w.baseline]);
          style = " style=\"background:" + heat_color(std::clamp(ratio - 1.0, 0.0, 1.0)) + "\"";
        }
        if (row.share[c]) title += ", " + fmt(*row.share[c]) + "% of the column";
        out_ += "<td class=\"num\" data-v=\"" + exact(*v) + "\" title=\"" + title + "\"" + style + ">" + text + "</td>";
      }
      out_ += "</tr>\n";
    }
    out_ += "</tbody></table></div>\n</section>\n";
  }

  static std::string sparkline(const std::vector<std::optional<double>>& values) {
    const double width = 120, height = 24, pad = 2;
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& v : values) {
      if (!v) continue;
      lo = any ? std::min(lo, *v) : *v;
      hi = any ? std::max(hi, *v) : *v;
      any = true;
    }
    // At least 10% of the largest value top to bottom, so run-to-run noise
    // of a fraction of a percent draws as a flat line rather than a zigzag.
    if (any && hi - lo < 0.1 * hi) {
      const double mid = (hi + lo) / 2;
      lo = mid - 0.05 * hi;
      hi = mid + 0.05 * hi;
    }
    std::string points;
    const double step = values.size() > 1 ? (width - 2 * pad) / double(values.size() - 1) : 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (!values[i]) continue;
      const double y = hi > lo ? pad + (height - 2 * pad) * (hi - *values[i]) / (hi - lo) : height / 2;
      points += (points.empty() ? "" : " ") + px(pad + step * double(i)) + "," + px(y);
    }
    std::string svg = "<svg class=\"spark\" width=\"" + px(width) + "\" height=\"" + px(height) + "\" viewBox=\"0 0 " +
                      px(width) + " " + px(height) + "\">";
    if (!points.empty()) {
      svg += "<polyline points=\"" + points + "\" fill=\"none\" stroke=\"#b35c00\" stroke-width=\"1.5\"/>";
    }
    return svg + "</svg>";
  }

  void intermediates() {
    if (data_.intermediates.empty()) return;
    out_ +=
        "<section id=\"intermediates\"><h2>Intermediate outputs</h2>\n<div class=\"scroll\"><table "
        "id=\"intermediate-table\" class=\"data sortable\">\n<thead><tr><th>block</th><th>event</th><th "
        "class=\"num\">instruction</th><th>values</th></tr></thead>\n<tbody>\n";
    for (const auto& item : data_.intermediates) {
      std::string event = html_escape(item.event);
      if (item.row) event = "<a href=\"#" + row_anchor(*item.row) + "\">" + event + "</a>";
      out_ += "<tr><td>" + html_escape(item.block) + "</td><td>" + event + "</td>";
      if (item.instruction) {
        out_ += "<td class=\"num\" data-v=\"" +
                std::to_string(item.instruction->chain * 1000000 + item.instruction->instruction) + "\">" +
                html_escape(instruction_label(*item.instruction)) + "</td>";
      } else {
        out_ += "<td class=\"num\" data-v=\"\"></td>";
      }
      out_ += "<td>";
      for (const auto& value : item.values) out_ += "<div>" + html_escape(value) + "</div>";
      out_ += "</td></tr>\n";
    }
    out_ += "</tbody></table></div>\n</section>\n";
  }

  const ReportData& data_;
  std::string out_;
};

}  // namespace

std::string render_html_report(const ReportData& data) { return Page(data).render(); }

}  // namespace etkit::render
