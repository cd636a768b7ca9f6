// Checks of `npu experiment`'s arguments that need more than their text, made before any run
// starts (validate_experiment calls them): each trace kind once, and every --input-shape naming
// an input of every model (else each of the N runs failed with the same reason; a new-user test).
#include <set>
#include <string>

#include <fmt/format.h>

#include "npu/base/config_error.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/sim/experiment/experiment.hpp"

namespace npu::sim {

void check_experiment_traces_and_shapes(const ExperimentOptions& opt) {
  std::set<std::string> traces;
  for (const auto& t : opt.traces)
    if (!traces.insert(t).second)
      throw ConfigError(fmt::format("--trace '{}': error: given twice; give each trace kind once", t));
  if (opt.input_shapes.empty()) return;
  compiler::LoadOptions load;
  for (const auto& spec : opt.input_shapes) compiler::add_input_shape(load, spec);
  load.dynamic_size = opt.dynamic_size;
  load.dropout_as_identity = opt.dropout_as_identity;
  // Loading applies the shapes (an unknown input name, a shape a zoo model cannot take, a
  // shape inference contradicts are refused there, naming the model): once per model, now.
  for (const auto& m : opt.models) compiler::load_model(m, load);
}

}  // namespace npu::sim
