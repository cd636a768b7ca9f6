// keep-resident: the program pass that keeps the DDR intermediates of depth-first stacks in
// SRAM where a range is free for their lifetime (sram_residency.hpp has the rules).
#include "npu/compiler/backend/tiling/sram_residency.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

class KeepResident : public ProgramPass {
 public:
  std::string name() const override { return "keep-resident"; }
  std::string description() const override {
    return "keep intermediates the program writes to DDR and reads back in SRAM where a range is free for their "
           "lifetime, within the context's time budget";
  }
  /// Reads ctx.layer_compute_ns, ctx.traffic_weight and ctx.time_budget_ns; sets
  /// ctx.residency_added_ns.
  std::vector<Decision> run(isa::Program& program, PassContext& ctx) const override {
    return keep_resident(program, *ctx.hw, ctx.layer_compute_ns, ctx.traffic_weight, ctx.time_budget_ns,
                         &ctx.residency_added_ns);
  }
};

NPU_REGISTER_PASS(KeepResident, 200);

}  // namespace npu::compiler
