#include "npu/compiler/transforms/pass_manager.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "npu/compiler/transforms/fusion/fold_batchnorm.hpp"
#include "npu/compiler/transforms/fusion/fuse_activation.hpp"
#include "npu/compiler/transforms/fusion/fuse_bias.hpp"
#include "npu/compiler/transforms/fusion/hoist_activation.hpp"
#include "npu/compiler/transforms/fusion/fuse_residual.hpp"
#include "npu/compiler/transforms/fusion/fuse_se_gate.hpp"
#include "npu/compiler/transforms/fusion/fuse_add_layernorm.hpp"
#include "npu/compiler/transforms/fusion/fuse_layers.hpp"
#include "npu/hw_config/hw_config.hpp"

namespace npu::compiler {

// ---- pass registry ----------------------------------------------------------------------

std::vector<std::string> pass_names() {
  return {"fold-batchnorm", "fuse-bias", "hoist-activation", "fuse-activation", "fuse-residual", "fuse-se-gate",
          "fuse-add-layernorm", "fuse-layers"};
}

std::unique_ptr<Pass> make_pass(const std::string& name) {
  if (name == "fold-batchnorm") return std::make_unique<FoldBatchNorm>();
  if (name == "fuse-activation") return std::make_unique<FuseActivation>();
  if (name == "fuse-bias") return std::make_unique<FuseBias>();
  if (name == "fuse-se-gate") return std::make_unique<FuseSeGate>();
  if (name == "fuse-add-layernorm") return std::make_unique<FuseAddLayerNorm>();
  if (name == "fuse-residual") return std::make_unique<FuseResidual>();
  if (name == "fuse-layers") return std::make_unique<FuseLayers>();
  if (name == "hoist-activation") return std::make_unique<HoistActivation>();
  return nullptr;
}

// ---- pass manager -----------------------------------------------------------------------

PassManager::PassManager(std::vector<std::unique_ptr<Pass>> passes) : passes_(std::move(passes)) {}

PassManager PassManager::from_names(const std::vector<std::string>& names) {
  PassManager pm;
  for (const auto& n : names) {
    auto p = make_pass(n);
    if (!p) {
      std::string allowed;
      for (const auto& a : pass_names()) allowed += (allowed.empty() ? "" : ", ") + a;
      throw ConfigError("error: unknown pass '" + n + "' (allowed: " + allowed + ")");
    }
    pm.add(std::move(p));
  }
  return pm;
}

std::vector<Decision> PassManager::run(Graph& graph) const {
  std::vector<Decision> decisions;
  for (const auto& pass : passes_) {
    const std::vector<Candidate> candidates = pass->match(graph);
    std::set<std::string> consumed;  // nodes removed or rewritten by this pass so far
    for (const auto& c : candidates) {
      bool stale = false;
      for (const auto& n : c.nodes)
        if (consumed.count(n) || find_node(graph, n) < 0) stale = true;
      if (stale) continue;
      Decision d;
      d.pass = pass->name();
      d.nodes = c.nodes;
      d.label = c.label;
      const Legality l = pass->check(graph, c);
      if (l.legal) {
        pass->rewrite(graph, c);
        d.outcome = DecisionOutcome::Applied;
        d.verb = pass->verb();
        d.reason = l.reason;
        consumed.insert(c.nodes.begin(), c.nodes.end());
      } else {
        d.outcome = DecisionOutcome::Declined;
        d.reason = l.reason;
      }
      decisions.push_back(std::move(d));
    }
    remove_unused_tensors(graph);
  }
  return decisions;
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
    if (d.outcome == DecisionOutcome::Applied) {
      os << d.verb;
      if (!d.reason.empty()) os << " (" << d.reason << ")";
    } else {
      os << "declined: " << d.reason;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace npu::compiler
