// training-dropout: a Dropout whose training_mode input is true (or computed) and whose ratio
// is not 0 drops random elements even at inference (ONNX Dropout-13: "If training_mode is
// true ... the output is a random dropout"); an export made with the module left in train()
// writes it (torchvision's swin_v2_t, issue 28 kind 7). The NPU computes inference, so such a
// Dropout is refused with what it is and the two fixes: re-export in eval mode, or
// --dropout-as-identity (LoadOptions::dropout_as_identity), which runs it as the identity --
// what inference computes -- and says so in every tool's warnings. A Dropout without
// training_mode, with it constant false, or with ratio 0 is the identity already (placement.cpp
// treats it as a view).
#include <optional>
#include <string>

#include "npu/base/config_error.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

namespace {

/// True when Dropout `n` may drop elements: training_mode present and not constant false, and
/// ratio (default 0.5) not constant 0.
bool drops_at_inference(const Graph& g, const Node& n) {
  if (n.op_type != "Dropout" || n.inputs.size() < 3 || n.inputs[2].empty()) return false;
  const auto training = constant_scalar(g, n.inputs[2]);
  if (training && *training == 0) return false;
  const auto ratio = n.inputs[1].empty() ? std::optional<double>(0.5) : constant_scalar(g, n.inputs[1]);
  return !(ratio && *ratio == 0);
}

}  // namespace

/// The import pass (order 150: after infer-shapes has folded training_mode's constants).
class TrainingDropout : public ImportPass {
 public:
  std::string name() const override { return "training-dropout"; }
  std::string description() const override {
    return "refuse a Dropout in training mode (it drops random elements), or with --dropout-as-identity run it "
           "as the identity";
  }
  std::vector<Decision> run(Graph& graph, const PassContext& ctx) const override {
    int n = 0;
    for (Node& node : graph.nodes) {
      if (!drops_at_inference(graph, node)) continue;
      if (!graph.dropout_as_identity)
        throw ConfigError(ctx.source + ": error: node '" + node.name +
                          "' (Dropout) has training_mode true: it drops random elements, as in training (the "
                          "model was exported with the module in train() mode); re-export after model.eval(), or "
                          "pass --dropout-as-identity to run it as the identity, as inference does");
      node.inputs.resize(1);  // ONNX: without training_mode the output is the input
      ++n;
    }
    if (n > 0)
      graph.import_warnings.push_back(std::to_string(n) +
                                      " Dropout node(s) in training mode run as the identity (--dropout-as-identity)");
    return {summary_decision(name(), ctx.model,
                             "ran " + std::to_string(n) + " training-mode Dropout(s) as the identity")};
  }
};

NPU_REGISTER_PASS(TrainingDropout, 150);

}  // namespace npu::compiler
