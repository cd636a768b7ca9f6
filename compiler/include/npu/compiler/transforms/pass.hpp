// The one pass mechanism (docs/architecture.md, "Add a pass"): every pass is a named class in
// its own file, registered there by one NPU_REGISTER_PASS line (pass_registry.hpp), in one of
// three kinds:
//   Import   canonicalisers the front end runs on every imported graph (shape inference, QDQ
//            folding, activation and LayerNorm recognition, pad merging, host placement);
//   Graph    fusion passes a strategy names, in the LLVM/MLIR shape: match (find candidates),
//            legality check (decide, giving the reason when it declines), rewrite;
//   Program  passes over the generated program (cross-layer pipelining, SRAM residency).
// Options come from one PassContext. The pass manager (pass_manager.hpp) runs them and keeps
// every decision for `npu compile --explain`. The conventions for a fused node in the Graph
// IR are in ir/fused_attr.hpp. Reference: docs/compiler.md.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npu/compiler/ir/decision.hpp"
#include "npu/compiler/ir/fused_attr.hpp"
#include "npu/compiler/ir/graph.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/isa/instruction.hpp"

namespace npu::compiler {

/// When a pass runs: at import (every graph), in a strategy (named), or on the program.
enum class PassKind { Import, Graph, Program };

/// "import", "graph" or "program".
const char* to_string(PassKind kind);

/// Everything an import or program pass may read besides the graph or program it rewrites:
/// one object for both kinds (a graph pass decides from the graph alone). Fields a kind does
/// not use stay at their defaults.
struct PassContext {
  std::string model;   ///< the graph's name: the label of a pass's summary decision
  std::string source;  ///< the .onnx path or zoo name, for messages ("" for graphs built in code)
  /// Target hardware: program passes (costs, SRAM); null at import.
  const HwConfig* hw = nullptr;
  /// Program passes (keep-resident): estimated compute time of each NPU layer (ns), by layer
  /// name; null: residency is judged by DDR bytes alone.
  const std::map<std::string, double>* layer_compute_ns = nullptr;
  /// keep-resident: weight of DDR traffic against time (the strategy's traffic_weight).
  double traffic_weight = 1.0;
  /// keep-resident: the estimated time (ns) it may add in all.
  double time_budget_ns = std::numeric_limits<double>::infinity();
  /// Set by keep-resident: the net estimated time (ns) the tensors it kept add.
  double residency_added_ns = 0;
};

/// One match found by GraphPass::match: the nodes a rewrite would merge.
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

/// What every pass has: a name (used in strategies and --explain), a description, a kind.
class Pass {
 public:
  virtual ~Pass() = default;
  /// Name used in strategies and --explain, e.g. "fold-batchnorm".
  virtual std::string name() const = 0;
  /// One-line description for help texts.
  virtual std::string description() const = 0;
  virtual PassKind kind() const = 0;
};

/// A canonicaliser run on every imported graph (compiler/src/transforms/canonicalize/).
class ImportPass : public Pass {
 public:
  PassKind kind() const final { return PassKind::Import; }
  /// Rewrites `graph` in place. Returns what it decided: at least one Summary decision.
  /// Throws ConfigError (naming ctx.source) for a graph it cannot accept.
  virtual std::vector<Decision> run(Graph& graph, const PassContext& ctx) const = 0;
};

/// A fusion pass a strategy names (compiler/src/transforms/fusion/).
class GraphPass : public Pass {
 public:
  PassKind kind() const final { return PassKind::Graph; }
  /// Past-tense verb recorded when a rewrite is applied ("folded", "fused").
  virtual std::string verb() const { return "fused"; }
  /// Candidates in node order. Matching is structural only; legality decides.
  virtual std::vector<Candidate> match(const Graph& graph) const = 0;
  /// Whether `c` may be rewritten in `graph` as it is now (earlier rewrites of the same run
  /// included), and the reason when not.
  virtual Legality check(const Graph& graph, const Candidate& c) const = 0;
  /// Whether the fused layer a candidate check() accepted can be tiled at all on `hw` (its
  /// SRAM), and the reason with the bytes when it certainly cannot: the pass manager declines
  /// it then, and the graph keeps the nodes unfused, rather than the compile failing later.
  /// Called only when the compile has a target (PassContext::hw). Default: no constraint.
  virtual Legality fits(const Graph& graph, const Candidate& c, const HwConfig& hw) const {
    (void)graph, (void)c, (void)hw;
    return Legality::ok();
  }
  /// Rewrite a candidate that check() accepted.
  virtual void rewrite(Graph& graph, const Candidate& c) const = 0;
};

/// A pass over the generated program (compiler/src/backend/schedule/, backend/tiling/).
class ProgramPass : public Pass {
 public:
  PassKind kind() const final { return PassKind::Program; }
  /// Rewrites `program` in place for *ctx.hw (never null here). Returns one decision per
  /// candidate it considered, or a Summary when it considered none.
  virtual std::vector<Decision> run(isa::Program& program, PassContext& ctx) const = 0;
};

/// Names of the registered graph passes (the ones a strategy may name), in pipeline order.
std::vector<std::string> pass_names();

/// A new graph pass by name; nullptr for an unknown name or a pass of another kind (callers
/// report it with context).
std::unique_ptr<GraphPass> make_pass(const std::string& name);

}  // namespace npu::compiler
