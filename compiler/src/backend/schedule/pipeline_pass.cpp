// pipeline-layers: the program pass that replaces the fences between layers by their real
// SRAM and DDR dependencies (pipeline.hpp has the rules and the decisions it records).
#include "npu/compiler/backend/schedule/pipeline.hpp"
#include "npu/compiler/transforms/pass_registry.hpp"

namespace npu::compiler {

class PipelineLayers : public ProgramPass {
 public:
  std::string name() const override { return "pipeline-layers"; }
  std::string description() const override {
    return "overlap adjacent layers: replace each fence by the layers' real SRAM and DDR dependencies where both "
           "fit in the SRAM side by side";
  }
  std::vector<Decision> run(isa::Program& program, PassContext& ctx) const override {
    return pipeline_layers(program, *ctx.hw);
  }
};

NPU_REGISTER_PASS(PipelineLayers, 100);

}  // namespace npu::compiler
