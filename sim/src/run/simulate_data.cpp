#include "npu/sim/run/simulate_data.hpp"

#include <filesystem>
#include <random>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/sim/run/run_with_data.hpp"

namespace npu::sim {

std::map<std::string, std::vector<float>> data_inputs(const compiler::CompileResult& c,
                                                      const std::vector<std::string>& specs, std::uint64_t seed) {
  const compiler::Graph& g = c.graph;
  std::map<std::string, std::vector<float>> out;
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    std::string name, path;
    if (eq == std::string::npos) {
      if (g.inputs.size() != 1)
        throw ConfigError("--input-data '" + spec + "': error: the model has " + std::to_string(g.inputs.size()) +
                          " inputs; write NAME=FILE");
      name = g.inputs[0];
      path = spec;
    } else {
      name = spec.substr(0, eq);
      path = spec.substr(eq + 1);
    }
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      std::string all;
      for (const auto& i : g.inputs) all += (all.empty() ? "" : ", ") + i;
      throw ConfigError("--input-data '" + spec + "': error: '" + name + "' is not a graph input (inputs: " + all + ")");
    }
    compiler::RefTensor t = compiler::read_tensor_file(path);
    if (!t.is_float())
      throw ConfigError(path + ": error: graph input '" + name + "' needs float data; the file holds integers");
    const std::int64_t want = g.tensor(name).elements();
    if (std::int64_t(t.f.size()) != want)
      throw ConfigError(path + ": error: " + std::to_string(t.f.size()) + " values, graph input '" + name +
                        "' has " + std::to_string(want));
    out[name] = std::move(t.f);
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const std::string& name : g.inputs) {
    if (out.count(name)) continue;
    std::vector<float> v(std::size_t(std::max<std::int64_t>(g.tensor(name).elements(), 0)));
    for (float& x : v) x = u(rng);
    out[name] = std::move(v);
  }
  return out;
}

RunResult simulate_with_data(const SimulateOptions& opt, const compiler::CompileResult& c, const HwConfig& hw,
                             const RunOptions& ro, std::vector<std::string>& files) {
  const auto inputs = data_inputs(c, opt.input_data, opt.input_seed);
  DataRunResult r = run_with_data(c, hw, inputs, ro);
  const std::filesystem::path dir = std::filesystem::path(opt.out_dir) / "outputs";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ConfigError(dir.string() + ": error: cannot create the folder (" + ec.message() + ")");
  for (const auto& [name, values] : r.outputs) {
    compiler::RefTensor t;
    t.shape = r.output_shapes.at(name);
    t.f = values;
    const std::string base = (dir / compiler::isa_name(name)).string();
    compiler::write_npy(base + ".npy", t);
    compiler::write_tensor_pb(base + ".pb", t, name);
    files.push_back(base + ".npy");
    files.push_back(base + ".pb");
  }
  return r.run;
}

}  // namespace npu::sim
