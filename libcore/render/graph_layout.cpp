#include "libcore/render/graph_layout.h"

#include <algorithm>

namespace etkit::render {

namespace {

constexpr double kMargin = 20;
constexpr double kNodeGap = 28;   // between neighbours in a layer
constexpr double kLayerGap = 46;  // between layers (room for edges)
constexpr double kLineHeight = 16;
constexpr double kClusterPad = 10, kClusterLabel = 16;
constexpr int kSweeps = 6;

}  // namespace

double text_width(const std::string& text) {
  // Counts UTF-8 code points (continuation bytes add no width).
  size_t chars = 0;
  for (unsigned char c : text) chars += (c & 0xC0) != 0x80;
  return 7.0 * static_cast<double>(chars);
}

GraphLayout layout_graph(const ProgramGraph& graph, const std::vector<std::vector<std::string>>& lines) {
  const size_t n = graph.nodes.size();
  GraphLayout out;
  out.nodes.resize(n);
  out.layer.assign(n, 0);
  std::vector<std::vector<size_t>> preds(n), succs(n);
  for (const auto& e : graph.edges) {
    if (e.control || e.from >= n || e.to >= n || e.from == e.to) continue;
    preds[e.to].push_back(e.from);
    succs[e.from].push_back(e.to);
  }
  for (size_t i = 0; i < n; ++i) {
    double w = 0;
    const auto& node_lines = i < lines.size() ? lines[i] : std::vector<std::string>{};
    for (const auto& line : node_lines) w = std::max(w, text_width(line));
    out.nodes[i].width = w + 20;
    out.nodes[i].height = kLineHeight * static_cast<double>(std::max<size_t>(node_lines.size(), 1)) + 12;
  }

  // Topological order (Kahn); data edges always point forward, but a
  // malformed graph must not hang the layout: leftovers keep index order.
  std::vector<size_t> indegree(n), order;
  for (size_t i = 0; i < n; ++i) indegree[i] = preds[i].size();
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) order.push_back(i);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    for (size_t s : succs[order[k]]) {
      if (--indegree[s] == 0) order.push_back(s);
    }
  }
  std::vector<bool> placed(n);
  for (size_t v : order) placed[v] = true;
  for (size_t i = 0; i < n; ++i) {
    if (!placed[i]) order.push_back(i);
  }

  for (size_t v : order) {
    for (size_t p : preds[v]) out.layer[v] = std::max(out.layer[v], out.layer[p] + 1);
  }
  // Everything but method inputs moves down to just above its first reader:
  // constants and side chains (e.g. a weight's permute) then sit beside the
  // instruction that uses them instead of crowding the top.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const size_t v = *it;
    if (succs[v].empty() || graph.nodes[v].kind == NodeKind::kInput) continue;
    size_t first = SIZE_MAX;
    for (size_t s : succs[v]) first = std::min(first, out.layer[s]);
    if (first > 0) out.layer[v] = std::max(out.layer[v], first - 1);
  }

  size_t layer_count = 0;
  for (size_t l : out.layer) layer_count = std::max(layer_count, l + 1);
  std::vector<std::vector<size_t>> layers(layer_count);
  for (size_t v : order) layers[out.layer[v]].push_back(v);

  std::vector<double> center(n, 0);
  // Instructions keep their wished place more firmly than constants and
  // inputs/outputs, which step aside.
  auto weight = [&](size_t v) { return graph.nodes[v].instruction ? 4.0 : 1.0; };
  // Places a layer's nodes, in order and without overlap, as close as
  // possible (weighted least squares) to their wished centres: with minimum
  // spacings folded into offsets this is isotonic regression, solved by
  // pooling adjacent violators. Symmetric, so layers do not drift sideways.
  auto place = [&](const std::vector<size_t>& layer, const std::vector<double>& wish) {
    std::vector<double> offset(layer.size(), 0);
    for (size_t i = 1; i < layer.size(); ++i) {
      offset[i] = offset[i - 1] + (out.nodes[layer[i - 1]].width + out.nodes[layer[i]].width) / 2 + kNodeGap;
    }
    struct Pool {
      double sum_w, sum_wy;
      size_t count;
    };
    std::vector<Pool> pools;
    for (size_t i = 0; i < layer.size(); ++i) {
      const double w = weight(layer[i]);
      pools.push_back({w, w * (wish[layer[i]] - offset[i]), 1});
      while (pools.size() > 1 && pools[pools.size() - 2].sum_wy / pools[pools.size() - 2].sum_w >=
                                     pools.back().sum_wy / pools.back().sum_w) {
        const Pool last = pools.back();
        pools.pop_back();
        pools.back().sum_w += last.sum_w;
        pools.back().sum_wy += last.sum_wy;
        pools.back().count += last.count;
      }
    }
    size_t i = 0;
    for (const auto& pool : pools) {
      for (size_t k = 0; k < pool.count; ++k, ++i) center[layer[i]] = pool.sum_wy / pool.sum_w + offset[i];
    }
  };
  std::vector<double> wish(n, 0);
  for (const auto& layer : layers) place(layer, wish);
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    const bool down = sweep % 2 == 0;
    for (size_t k = 0; k < layer_count; ++k) {
      auto& layer = layers[down ? k : layer_count - 1 - k];
      for (size_t v : layer) {
        const auto& neighbours = down ? preds[v] : succs[v];
        if (neighbours.empty()) {
          wish[v] = center[v];
          continue;
        }
        double sum = 0;
        for (size_t u : neighbours) sum += center[u];
        wish[v] = sum / static_cast<double>(neighbours.size());
      }
      std::stable_sort(layer.begin(), layer.end(), [&](size_t a, size_t b) { return wish[a] < wish[b]; });
      place(layer, wish);
    }
  }

  double min_x = 1e300, max_x = 0;
  for (size_t v = 0; v < n; ++v) min_x = std::min(min_x, center[v] - out.nodes[v].width / 2);
  const double shift = n ? kMargin - min_x : 0;
  double y = kMargin + (graph.clusters.empty() ? 0 : kClusterLabel);
  for (const auto& layer : layers) {
    double height = 0;
    for (size_t v : layer) height = std::max(height, out.nodes[v].height);
    for (size_t v : layer) {
      out.nodes[v].x = center[v] - out.nodes[v].width / 2 + shift;
      out.nodes[v].y = y + (height - out.nodes[v].height) / 2;
      max_x = std::max(max_x, out.nodes[v].x + out.nodes[v].width);
    }
    y += height + kLayerGap;
  }

  out.clusters.resize(graph.clusters.size());
  std::vector<bool> seen(graph.clusters.size());
  for (size_t v = 0; v < n; ++v) {
    if (!graph.nodes[v].cluster || *graph.nodes[v].cluster >= out.clusters.size()) continue;
    const size_t c = *graph.nodes[v].cluster;
    const Box& b = out.nodes[v];
    Box box{b.x - kClusterPad, b.y - kClusterPad - kClusterLabel, b.width + 2 * kClusterPad,
            b.height + 2 * kClusterPad + kClusterLabel};
    if (seen[c]) {
      Box& cb = out.clusters[c];
      const double right = std::max(cb.x + cb.width, box.x + box.width);
      const double bottom = std::max(cb.y + cb.height, box.y + box.height);
      cb.x = std::min(cb.x, box.x);
      cb.y = std::min(cb.y, box.y);
      cb.width = right - cb.x;
      cb.height = bottom - cb.y;
    } else {
      out.clusters[c] = box;
      seen[c] = true;
    }
    max_x = std::max(max_x, out.clusters[c].x + out.clusters[c].width);
  }
  out.width = max_x + kMargin;
  out.height = (layer_count ? y - kLayerGap : y) + kMargin;
  return out;
}

}  // namespace etkit::render
