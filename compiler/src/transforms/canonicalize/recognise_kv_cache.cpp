// KV-cache appends recognised and reported (rule: ir/kv_cache.hpp). The pass changes nothing:
// the lowering applies the same rule (also to graphs that skip the import passes) and places
// the past cache inside the present one. Reference: docs/compiler.md "KV cache".
#include "npu/compiler/ir/kv_cache.hpp"
#include "npu/compiler/transforms/pass.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

/// recognise-kv-cache: each Concat(past graph input, new rows, axis=2) -> graph output is a KV
/// cache append, written in place by the lowering; one decision per Concat that reads a graph
/// input (applied, or declined with the rule it fails), and a summary.
class RecogniseKvCache : public ImportPass {
 public:
  std::string name() const override { return "recognise-kv-cache"; }
  std::string description() const override {
    return "recognise the KV-cache append Concat(past input, new K/V, axis=2) -> present output (appended in place)";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    std::vector<Decision> out;
    int found = 0;
    for (const Node& n : graph.nodes) {
      if (!kv_append_candidate(graph, n)) continue;
      KvAppend a;
      const std::string why = kv_append_problem(graph, n, &a);
      Decision d;
      d.pass = name();
      d.nodes = {n.name};
      d.label = n.name + ": " + n.inputs[0] + " -> " + (n.outputs.empty() ? std::string() : n.outputs[0]);
      if (why.empty()) {
        ++found;
        d.outcome = DecisionOutcome::Applied;
        d.verb = "recognised";
        d.reason = "past lives in present's DDR region; " + std::to_string(a.groups) + " (batch, head) block(s) of " +
                   std::to_string(a.past_rows) + "+" + std::to_string(a.new_rows) + " rows of " +
                   std::to_string(a.row_elems) + ": only the " + std::to_string(a.new_rows) +
                   " new row(s) per block are written";
      } else {
        d.outcome = DecisionOutcome::Declined;
        d.reason = why + " (a normal Concat)";
      }
      out.push_back(std::move(d));
    }
    out.push_back(summary_decision(name(), ctx.model, "recognised " + std::to_string(found) + " KV-cache append(s)"));
    return out;
  }
};

NPU_REGISTER_PASS(RecogniseKvCache, 550);

}  // namespace npu::compiler
