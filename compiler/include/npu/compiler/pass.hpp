// Graph rewrite passes: the interface every pass implements, the record of what a pass
// decided, and the conventions for representing a fused node in the Graph IR.
//
// A pass follows the LLVM/MLIR shape: match (find candidates), legality check (decide,
// giving the reason when it declines), rewrite. The pass manager (pass_manager.hpp) runs
// them and keeps every decision for `npu compile --explain`. Reference: docs/compiler.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "npu/compiler/graph.hpp"

namespace npu::compiler {

/// Attributes with which a pass marks a fused node. A fused node keeps the ONNX op name of
/// its anchor (Conv or Gemm); these attributes (all prefixed "npu.") carry the epilogue.
namespace fused_attr {
/// string: names of the original nodes merged into this one (anchor excluded), in the order
/// they were merged, separated by ';'.
inline constexpr const char* kCovers = "npu.covers";
/// string: name of the BatchNormalization node folded into the weights and bias.
inline constexpr const char* kFoldedBn = "npu.folded_bn";
/// string: epilogue activation, an isa::ActOp name: relu, clip, leaky_relu, sigmoid, silu,
/// hard_sigmoid, hard_swish.
inline constexpr const char* kAct = "npu.act";
/// float: Clip min, LeakyRelu alpha, HardSigmoid alpha (ONNX meaning); absent = unused.
inline constexpr const char* kActAlpha = "npu.act_alpha";
/// float: Clip max, HardSigmoid beta; absent = unused.
inline constexpr const char* kActBeta = "npu.act_beta";
/// int 1: the node reads a residual (skip) tensor as input 3 (Conv inputs become
/// X, W, B-or-"", skip) and adds it after bias and before the activation.
inline constexpr const char* kResidual = "npu.residual";
/// string: tensor of per-input-channel scales the array applies to the input (fuse-se-gate).
inline constexpr const char* kInScale = "npu.in_scale";
/// string: second summand a vector-unit op adds to its input first (fuse-add-layernorm).
inline constexpr const char* kResidualIn = "npu.residual_in";
}  // namespace fused_attr

/// Names of the original nodes a (possibly fused) node covers, the node itself first.
std::vector<std::string> covered_nodes(const Node& node);

/// What a pass decided about one candidate.
enum class DecisionOutcome { Applied, Declined };

struct Decision {
  std::string pass;                ///< pass name, e.g. "fold-batchnorm"
  std::vector<std::string> nodes;  ///< nodes involved, anchor (Conv/Gemm) first when there is one
  std::string label;               ///< human form of the match, e.g. "conv1 + bn1", "conv1 -> relu1"
  DecisionOutcome outcome = DecisionOutcome::Declined;
  std::string verb;                ///< past tense when applied: "folded" or "fused"
  std::string reason;              ///< why it declined; for an applied rewrite an optional note
};

/// One match found by Pass::match: the nodes a rewrite would merge.
struct Candidate {
  std::string anchor;              ///< the node that survives the rewrite ("" if none applies)
  std::vector<std::string> nodes;  ///< every node involved, anchor first
  std::string label;               ///< as Decision::label
};

/// Result of a legality check.
struct Legality {
  bool legal = true;
  std::string reason;  ///< why not (when !legal), or a note on the rewrite (when legal)
  static Legality ok(std::string note = {}) { return {true, std::move(note)}; }
  static Legality decline(std::string why) { return {false, std::move(why)}; }
};

/// A graph rewrite pass. Implementations live in compiler/src/passes/, one per file.
class Pass {
 public:
  virtual ~Pass() = default;
  /// Name used in strategies and --explain, e.g. "fold-batchnorm".
  virtual std::string name() const = 0;
  /// One-line description for help texts.
  virtual std::string description() const = 0;
  /// Past-tense verb recorded when a rewrite is applied ("folded", "fused").
  virtual std::string verb() const { return "fused"; }
  /// Candidates in node order. Matching is structural only; legality decides.
  virtual std::vector<Candidate> match(const Graph& graph) const = 0;
  /// Whether `c` may be rewritten in `graph` as it is now (earlier rewrites of the same run
  /// included), and the reason when not.
  virtual Legality check(const Graph& graph, const Candidate& c) const = 0;
  /// Rewrite a candidate that check() accepted.
  virtual void rewrite(Graph& graph, const Candidate& c) const = 0;
};

/// Names of all passes make_pass knows, in pipeline order.
std::vector<std::string> pass_names();

/// A new pass by name; nullptr for an unknown name (callers report it with context).
std::unique_ptr<Pass> make_pass(const std::string& name);

// ---- small graph helpers shared by the passes (graph_edit.cpp) -------------------------

/// Index of the node called `name`, or -1.
long find_node(const Graph& graph, const std::string& name);

/// True if `tensor` is one of the graph outputs.
bool is_graph_output(const Graph& graph, const std::string& tensor);

/// Merge: node `anchor` absorbs the nodes `absorbed` (removed from the graph). The anchor
/// moves to the position of the last of them so that every input it now reads (e.g. a
/// residual produced after the anchor) is produced before it; its npu.covers grows by
/// their names. The caller has already rewired the anchor's inputs/outputs.
void merge_nodes(Graph& graph, const std::string& anchor, const std::vector<std::string>& absorbed);

/// Drop tensors that no node reads or writes and that are not graph inputs/outputs.
void remove_unused_tensors(Graph& graph);

/// Shape as "[1, 64, 56, 56]" for messages.
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace npu::compiler
