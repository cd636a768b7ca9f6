// The registry of every pass of the build, in the manner of Ramulator2's factory and TVM's
// pass registry: a pass's own file registers it with one line at namespace npu::compiler
// scope,
//     NPU_REGISTER_PASS(FoldBatchNorm, 100);
// where the number is its position in the pipeline of its kind (import passes run in that
// order; graph passes are listed in it). The build collects those lines
// (cmake/pass_registrations.cmake writes a file that calls each one), so a new pass needs no
// edit anywhere else: no list to extend, no static initialiser a static library could drop.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

/// One registered pass.
struct PassInfo {
  std::string name;
  PassKind kind = PassKind::Graph;
  int order = 0;  ///< position in its kind's pipeline (smaller runs or is listed first)
  std::string description;
  std::function<std::unique_ptr<Pass>()> make;
};

class PassRegistry {
 public:
  /// Every pass of the build, registered once on first use. Throws std::logic_error when two
  /// passes share a name or a position of one kind (a programming error, caught by the tests).
  static const PassRegistry& instance();

  /// Registers pass class P at pipeline position `order` (what NPU_REGISTER_PASS expands to).
  template <class P>
  void add(int order) {
    const P probe;
    add_info({probe.name(), probe.kind(), order, probe.description(), [] { return std::unique_ptr<Pass>(new P()); }});
  }

  /// The pass called `name`, or nullptr.
  const PassInfo* find(const std::string& name) const;
  /// Names of the passes of `kind`, in pipeline order.
  std::vector<std::string> names(PassKind kind) const;
  /// Every registered pass, by kind (import, graph, program) then pipeline order.
  const std::vector<PassInfo>& all() const { return infos_; }

 private:
  void add_info(PassInfo info);
  std::vector<PassInfo> infos_;
};

/// Called by the generated registration file for every NPU_REGISTER_PASS of the build.
void register_all_passes(PassRegistry& registry);

}  // namespace npu::compiler

/// Registers pass class `Class` (in namespace npu::compiler) at pipeline position `order`.
/// One line in the pass's own .cpp file, at namespace npu::compiler scope.
/// (The static_assert only takes the line's closing semicolon.)
#define NPU_REGISTER_PASS(Class, order)                                                  \
  void npu_register_pass_##Class(PassRegistry& registry) { registry.add<Class>(order); } \
  static_assert(true, "")
