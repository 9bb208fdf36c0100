#include "libcore/formats/etrecord/node_metadata.h"

#include <charconv>

namespace etkit::etrecord {
namespace {

// Splits `text` on `sep` where '[' and '(' nesting is zero.
Result<std::vector<std::string_view>> split_top_level(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      if (--depth < 0) return bad_input("unbalanced '" + std::string(1, c) + "' at offset " + std::to_string(i));
    } else if (c == sep && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return bad_input("unclosed bracket");
  parts.push_back(text.substr(start));
  return parts;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

Result<std::vector<NodeSource>> from_node_list(const JsonValue& list) {
  const JsonArray* items = list.as_array();
  if (items == nullptr) return bad_input("from_node is not a list");
  std::vector<NodeSource> out;
  for (size_t i = 0; i < items->size(); ++i) {
    const JsonValue& record = (*items)[i];
    std::string where = "[";  // not "[" + to_string(i): GCC 12 warns falsely (-Wrestrict)
    where += std::to_string(i);
    where += ']';
    if (!record.is_object()) return bad_input("record is not an object", where);
    NodeSource s;
    if (const JsonValue* v = record.get("name"); v != nullptr && v->is_string()) s.name = *v->as_string();
    if (const JsonValue* v = record.get("target"); v != nullptr && v->is_string()) s.target = *v->as_string();
    if (const JsonValue* v = record.get("pass_name"); v != nullptr && v->is_string()) s.pass_name = *v->as_string();
    if (const JsonValue* v = record.get("graph_id"); v != nullptr) s.graph_id = v->as_int().value_or(0);
    if (const JsonValue* v = record.get("action")) {
      if (v->is_string()) {
        s.action = *v->as_string();
      } else if (const JsonArray* actions = v->as_array()) {
        // Older torch kept the list of actions; current files join them with '+'.
        for (const JsonValue& a : *actions) {
          if (!a.is_string()) continue;
          if (!s.action.empty()) s.action += '+';
          s.action += *a.as_string();
        }
      }
    }
    if (const JsonValue* v = record.get("from_node")) {
      auto nested = from_node_list(*v);
      if (!nested) return std::move(nested).error().in(where + ".from_node");
      s.from_node = std::move(*nested);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Result<std::vector<ModuleStackEntry>> parse_nn_module_stack(std::string_view text) {
  std::vector<ModuleStackEntry> out;
  if (text.empty()) return out;
  ETKIT_ASSIGN_OR_RETURN(auto entries, split_top_level(text, ';'));
  for (std::string_view entry : entries) {
    ETKIT_ASSIGN_OR_RETURN(auto fields, split_top_level(entry, ','));
    if (fields.size() != 3) {
      return bad_input("module stack entry '" + std::string(entry) + "' has " + std::to_string(fields.size()) +
                       " fields, expected key,path,type");
    }
    out.push_back(ModuleStackEntry{std::string(fields[0]), std::string(fields[1]), std::string(fields[2])});
  }
  return out;
}

Result<std::vector<SourceFn>> parse_source_fn_stack(std::string_view text) {
  std::vector<SourceFn> out;
  if (text.empty()) return out;
  ETKIT_ASSIGN_OR_RETURN(auto entries, split_top_level(text, ';'));
  for (std::string_view entry : entries) {
    const size_t comma = entry.find(',');
    if (comma == std::string_view::npos) return bad_input("source_fn entry '" + std::string(entry) + "' has no comma");
    out.push_back(SourceFn{std::string(entry.substr(0, comma)), std::string(entry.substr(comma + 1))});
  }
  return out;
}

Result<std::vector<NodeSource>> parse_from_node(std::string_view json) {
  ETKIT_ASSIGN_OR_RETURN(JsonValue list, parse_json(json));
  return from_node_list(list);
}

std::vector<SourceLocation> parse_stack_trace(std::string_view text) {
  std::vector<SourceLocation> frames;
  bool expect_code = false;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    const std::string_view t = trim(line);
    // `File "<path>", line <N>, in <function>`
    constexpr std::string_view kFile = "File \"";
    const size_t quote_end = t.rfind("\", line ");
    if (t.substr(0, kFile.size()) == kFile && quote_end != std::string_view::npos && quote_end >= kFile.size()) {
      SourceLocation frame;
      frame.file = std::string(t.substr(kFile.size(), quote_end - kFile.size()));
      std::string_view rest = t.substr(quote_end + 8);
      const auto r = std::from_chars(rest.data(), rest.data() + rest.size(), frame.line);
      if (r.ec == std::errc()) {
        rest = rest.substr(static_cast<size_t>(r.ptr - rest.data()));
        constexpr std::string_view kIn = ", in ";
        if (rest.substr(0, kIn.size()) == kIn) frame.function = std::string(rest.substr(kIn.size()));
        frames.push_back(std::move(frame));
        expect_code = true;
        continue;
      }
    }
    if (expect_code && !t.empty()) frames.back().code = std::string(t);
    expect_code = false;
  }
  return frames;
}

std::optional<SourceLocation> last_frame(std::string_view stack_trace) {
  auto frames = parse_stack_trace(stack_trace);
  if (frames.empty()) return std::nullopt;
  return std::move(frames.back());
}

NodeMetadata parse_node_metadata(const JsonValue& metadata) {
  NodeMetadata out;
  const JsonObject* members = metadata.as_object();
  if (members == nullptr) {
    if (!metadata.is_null()) out.problems.push_back("metadata is not an object");
    return out;
  }
  for (const JsonMember& m : *members) {
    // Values are strings by the schema; anything else is kept as its JSON.
    const std::string text = m.value.is_string() ? *m.value.as_string() : to_json(m.value);
    out.entries.emplace_back(m.key, text);
    const auto problem = [&](const Error& e) { out.problems.push_back(m.key + ": " + e.message); };
    if (m.key == "stack_trace") {
      out.stack_trace = text;
    } else if (m.key == "nn_module_stack") {
      auto stack = parse_nn_module_stack(text);
      if (stack) {
        out.nn_module_stack = std::move(*stack);
      } else {
        problem(stack.error());
      }
    } else if (m.key == "source_fn_stack") {
      auto stack = parse_source_fn_stack(text);
      if (stack) {
        out.source_fn_stack = std::move(*stack);
      } else {
        problem(stack.error());
      }
    } else if (m.key == "torch_fn") {
      const size_t semi = text.find(';');
      if (semi == std::string::npos) {
        out.problems.push_back("torch_fn: no ';' in '" + text + "'");
      } else {
        out.torch_fn = std::make_pair(text.substr(0, semi), text.substr(semi + 1));
      }
    } else if (m.key == "debug_handle") {
      int64_t handle = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), handle);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
        out.problems.push_back("debug_handle: '" + text + "' is not an integer");
      } else {
        out.debug_handle = handle;
      }
    } else if (m.key == "from_node") {
      auto sources = parse_from_node(text);
      if (sources) {
        out.from_node = std::move(*sources);
      } else {
        problem(sources.error());
      }
    }
  }
  return out;
}

std::string source_line(std::string_view stack_trace) {
  const auto frame = last_frame(stack_trace);
  return frame ? frame->file + ":" + std::to_string(frame->line) : std::string();
}

std::string module_path(const std::vector<ModuleStackEntry>& stack) {
  return stack.empty() ? std::string() : stack.back().path;
}

}  // namespace etkit::etrecord
