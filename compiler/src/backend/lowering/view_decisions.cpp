// `--explain` lines for view composition (view_decisions.hpp).
#include "backend/lowering/view_decisions.hpp"

#include <algorithm>

namespace npu::compiler::lowering {

std::vector<Decision> view_decisions(const LoweredGraph& lowered) {
  std::vector<Decision> out;
  for (const std::string& node : lowered.composed) {
    std::string readers, own;  // own: the node's layers for outputs that are not composed
    for (const LayerSpec& L : lowered.layers) {
      if (std::find(L.covers.begin(), L.covers.end(), node) == L.covers.end()) continue;
      std::string& list = L.covers.front() == node ? own : readers;
      list += (list.empty() ? "" : ", ") + L.name;
    }
    Decision d;
    d.pass = "compose-views";
    d.label = node;
    d.outcome = DecisionOutcome::Applied;
    d.verb = "composed";
    d.reason = std::string(own.empty() ? "a strided view computed by no layer: " : "partly a strided view: ") +
               (readers.empty() ? std::string("no layer reads it") : readers + " read its input through it") +
               (own.empty() ? "" : "; its other outputs are layers (" + own + ")");
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace npu::compiler::lowering
