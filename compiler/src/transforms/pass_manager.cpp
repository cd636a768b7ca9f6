#include "npu/compiler/transforms/pass_manager.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "npu/base/closest_name.hpp"
#include "npu/base/user_text.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

/// The candidates of one graph pass: checked, then rewritten or declined (PassManager::run).
std::vector<Decision> run_graph_pass(const GraphPass& pass, Graph& graph, const HwConfig* hw) {
  std::vector<Decision> decisions;
  const std::vector<Candidate> candidates = pass.match(graph);
  std::set<std::string> consumed;  // nodes removed or rewritten by this pass so far
  for (const auto& c : candidates) {
    bool stale = false;
    for (const auto& n : c.nodes)
      if (consumed.count(n) || find_node(graph, n) < 0) stale = true;
    if (stale) continue;
    Decision d;
    d.pass = pass.name();
    d.nodes = c.nodes;
    d.label = c.label;
    Legality l = pass.check(graph, c);
    if (l.legal && hw) {
      const std::string why_legal = l.reason;
      l = pass.fits(graph, c, *hw);
      if (l.legal) l.reason = why_legal;
    }
    if (l.legal) {
      pass.rewrite(graph, c);
      d.outcome = DecisionOutcome::Applied;
      d.verb = pass.verb();
      d.reason = l.reason;
      consumed.insert(c.nodes.begin(), c.nodes.end());
    } else {
      d.outcome = DecisionOutcome::Declined;
      d.reason = l.reason;
    }
    decisions.push_back(std::move(d));
  }
  remove_unused_tensors(graph);
  return decisions;
}

}  // namespace

PassManager::PassManager(std::vector<std::unique_ptr<Pass>> passes) : passes_(std::move(passes)) {}

PassManager PassManager::from_names(const std::vector<std::string>& names) { return of_kind(PassKind::Graph, names); }

PassManager PassManager::of_kind(PassKind kind, const std::vector<std::string>& names) {
  const PassRegistry& registry = PassRegistry::instance();
  PassManager pm;
  for (const auto& n : names) {
    const PassInfo* info = registry.find(n);
    if (!info) {
      const auto near = closest_name(n, registry.names(kind));
      throw ConfigError("error: unknown pass '" + n + "'" + (near ? " (did you mean '" + *near + "'?)" : std::string()) +
                        " (allowed: " + comma_list(registry.names(kind)) + ")");
    }
    if (info->kind != kind)
      throw ConfigError("error: pass '" + n + "' is " + (info->kind == PassKind::Import ? "an " : "a ") +
                        to_string(info->kind) + " pass, not " + (kind == PassKind::Import ? "an " : "a ") +
                        to_string(kind) + " pass (allowed here: " + comma_list(registry.names(kind)) + ")");
    pm.add(info->make());
  }
  return pm;
}

std::vector<Decision> PassManager::run(Graph& graph, const PassContext& ctx) const {
  std::vector<Decision> decisions;
  for (const auto& pass : passes_) {
    std::vector<Decision> d;
    if (pass->kind() == PassKind::Import) {
      d = static_cast<const ImportPass&>(*pass).run(graph, ctx);
    } else if (pass->kind() == PassKind::Graph) {
      d = run_graph_pass(static_cast<const GraphPass&>(*pass), graph, ctx.hw);
      if (d.empty() && !ctx.model.empty())
        d.push_back(summary_decision(pass->name(), ctx.model, "no candidate in the graph"));
    } else {
      throw std::logic_error("program pass '" + pass->name() + "' run on a graph");
    }
    decisions.insert(decisions.end(), d.begin(), d.end());
  }
  return decisions;
}

std::vector<Decision> PassManager::run(isa::Program& program, PassContext& ctx) const {
  std::vector<Decision> decisions;
  for (const auto& pass : passes_) {
    if (pass->kind() != PassKind::Program) throw std::logic_error(pass->name() + " is not a program pass");
    std::vector<Decision> d = static_cast<const ProgramPass&>(*pass).run(program, ctx);
    decisions.insert(decisions.end(), d.begin(), d.end());
  }
  return decisions;
}

std::vector<std::string> onnx_import_passes() { return PassRegistry::instance().names(PassKind::Import); }

void run_import_passes(Graph& graph, const std::vector<std::string>& names, const std::string& source) {
  PassContext ctx;
  ctx.model = graph.name;
  ctx.source = source;
  const std::vector<Decision> d = PassManager::of_kind(PassKind::Import, names).run(graph, ctx);
  graph.import_decisions.insert(graph.import_decisions.end(), d.begin(), d.end());
}

std::string format_explain(const std::vector<Decision>& decisions) {
  std::size_t pass_w = 0, label_w = 0;
  for (const auto& d : decisions) {
    pass_w = std::max(pass_w, d.pass.size());
    label_w = std::max(label_w, d.label.size());
  }
  std::ostringstream os;
  for (const auto& d : decisions) {
    os << d.pass << std::string(pass_w + 2 - d.pass.size(), ' ') << d.label
       << std::string(label_w + 2 - d.label.size(), ' ');
    if (d.outcome == DecisionOutcome::Declined) {
      os << "declined: " << d.reason;
    } else {
      os << d.verb;
      if (!d.reason.empty()) os << " (" << d.reason << ")";
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace npu::compiler
