// Graph rewrite passes: the interface every pass implements, the record of what a pass
// decided. The conventions for a fused node in the Graph IR are in ir/fused_attr.hpp.
//
// A pass follows the LLVM/MLIR shape: match (find candidates), legality check (decide,
// giving the reason when it declines), rewrite. The pass manager (pass_manager.hpp) runs
// them and keeps every decision for `npu compile --explain`. Reference: docs/compiler.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/ir/graph.hpp"

namespace npu::compiler {

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

/// A graph rewrite pass. Implementations live in compiler/src/transforms/fusion/, one per file.
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

}  // namespace npu::compiler
