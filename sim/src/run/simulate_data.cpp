#include "npu/sim/run/simulate_data.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "npu/base/files.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/base/user_text.hpp"
#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/compiler/quantize/integer_inputs.hpp"
#include "npu/sim/run/run_with_data.hpp"

namespace npu::sim {

namespace {

// "1x3x224x224" (a scalar: "[]").
std::string data_shape_text(const std::vector<std::int64_t>& s) {
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return s.empty() ? "[]" : t;
}

// One graph input's values from its file: floats for a float input; for an int64/int32
// input, integers carried as exact floats (|v| <= 2^24, the DDR image stores them as int32).
std::vector<float> input_values(const compiler::Graph& g, const std::string& name, compiler::RefTensor t,
                                const std::string& path) {
  const bool want_int = compiler::integer_input(g, name);
  if (!want_int && !t.is_float())
    throw ConfigError(path + ": error: graph input '" + name + "' needs float data; the file holds integers");
  if (want_int && t.is_float())
    throw ConfigError(path + ": error: graph input '" + name + "' holds integers (int64/int32); the file holds " +
                      "floats: write it as .npy '<i8'/'<i4' or a TensorProto INT64/INT32");
  const std::size_t have = want_int ? t.i.size() : t.f.size();
  const std::int64_t want = g.tensor(name).elements();
  if (std::int64_t(have) != want)
    throw ConfigError(path + ": error: " + std::to_string(have) + " values, graph input '" + name + "' has " +
                      std::to_string(want) + " (shape " + data_shape_text(g.tensor(name).shape) +
                      ")\n  fix: give a file of that input's shape, or compile the model for the file's shape with "
                      "--input-shape " + name + "=DIMS");
  compiler::check_input_layout(t.shape, g.tensor(name), path);
  if (!want_int) return std::move(t.f);
  std::vector<float> v(t.i.size());
  for (std::size_t k = 0; k < t.i.size(); ++k) {
    if (t.i[k] < -(std::int64_t(1) << 24) || t.i[k] > (std::int64_t(1) << 24))
      throw ConfigError(path + ": error: graph input '" + name + "' element " + std::to_string(k) + " is " +
                        std::to_string(t.i[k]) + ", outside [-2^24, 2^24] (runs with data carry integer inputs "
                        "as int32 indices)");
    v[k] = float(t.i[k]);
  }
  return v;
}

}  // namespace

namespace {

// Refuses (or, allowed, notes) NaN and +-Inf in the values read from `path` for `spec`.
void check_finite(const std::vector<float>& v, const std::string& spec, const std::string& path, bool allow,
                  std::vector<std::string>* notes) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = v.size(); i-- > 0;)
    if (!std::isfinite(v[i])) ++bad, first = i;
  if (bad == 0) return;
  const std::string what = fmt::format("{} holds {} non-finite value(s) (first: {} at element {})", path, bad,
                                       std::isnan(v[first]) ? "NaN" : (v[first] > 0 ? "+Inf" : "-Inf"), first);
  if (!allow)
    throw ConfigError("--input '" + spec + "': error: " + what +
                      "; NaN compares equal to NaN, so every strategy would pass\n  fix: give finite inputs, or add "
                      "--allow-nonfinite to run with them anyway (a warning is printed)");
  if (notes) notes->push_back("warning: " + what + " (--allow-nonfinite): errors computed from them say little");
}

// The graph input a FILE given without NAME= is for: the only input, else the input its
// TensorProto names (ONNX test data sets name each input_N.pb after its input; the file is
// then kept in `read`). Throws ConfigError listing the inputs when neither says.
std::string input_of_file(const compiler::Graph& g, const std::string& spec, std::optional<compiler::RefTensor>& read) {
  if (g.inputs.size() == 1) return g.inputs[0];
  std::string proto_name;
  read = compiler::read_tensor_file(spec, &proto_name);
  if (std::find(g.inputs.begin(), g.inputs.end(), proto_name) != g.inputs.end()) return proto_name;
  std::string names;
  for (const std::string& in : g.inputs) names += (names.empty() ? "'" : ", '") + echo(in) + "'";
  throw ConfigError("--input '" + spec + "': error: the model has " + std::to_string(g.inputs.size()) + " inputs (" +
                    names + ") and the file names none of them" +
                    (proto_name.empty() ? std::string() : " (its tensor is named '" + echo(proto_name) + "')") +
                    "\n  fix: write NAME=FILE, e.g. --input " + echo(g.inputs[0]) + "=" + spec);
}

}  // namespace

std::map<std::string, std::vector<float>> data_inputs(const compiler::CompileResult& c,
                                                      const std::vector<std::string>& specs, std::uint64_t seed,
                                                      std::vector<std::string>* notes, bool allow_nonfinite) {
  const compiler::Graph& g = c.graph;
  std::map<std::string, std::vector<float>> out;
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    std::string name, path;
    std::optional<compiler::RefTensor> read;  // the file, when reading it named its input
    if (eq == std::string::npos) {
      path = spec;
      name = input_of_file(g, spec, read);
    } else {
      name = spec.substr(0, eq);
      path = spec.substr(eq + 1);
    }
    if (out.count(name))
      throw ConfigError("--input '" + spec + "': error: graph input '" + name + "' is given twice; give each " +
                        "input's file once");
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
      std::string all;
      for (const auto& i : g.inputs) all += (all.empty() ? "" : ", ") + i;
      throw ConfigError("--input '" + spec + "': error: '" + name + "' is not a graph input (inputs: " + all + ")");
    }
    out[name] = input_values(g, name, read ? *read : compiler::read_tensor_file(path), path);
    check_finite(out[name], spec, path, allow_nonfinite, notes);
  }
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const std::string& name : g.inputs) {
    if (out.count(name)) continue;
    std::vector<float> v(std::size_t(std::max<std::int64_t>(g.tensor(name).elements(), 0)));
    if (compiler::integer_input(g, name)) {
      const auto table = compiler::indexed_table(g, name);  // the table calibration draws from
      const std::int64_t rows = table ? table->rows : 0;
      if (rows <= 0)
        throw ConfigError("graph input '" + name + "': error: it holds integers and indexes no Gather of a constant "
                          "table, so no range can be generated for it; give its values with --input " + name +
                          "=FILE (.npy or .pb)");
      std::uniform_int_distribution<std::int64_t> ui(0, rows - 1);
      for (float& x : v) x = float(ui(rng));
      if (notes)
        notes->push_back("graph input '" + name + "': seeded integers uniform in [0, " + std::to_string(rows) +
                         ") (the rows of table '" + table->table + "' that Gather '" + table->gather + "' reads), seed " +
                         std::to_string(seed));
    } else {
      for (float& x : v) x = u(rng);
    }
    out[name] = std::move(v);
  }
  return out;
}

std::vector<std::string> write_output_tensors(const std::filesystem::path& dir,
                                              const std::map<std::string, compiler::RefTensor>& outs) {
  create_output_folder(dir.string());
  std::vector<std::string> names;
  for (const auto& kv : outs) names.push_back(kv.first);
  const std::map<std::string, std::string> file = npu::safe_file_names(names);
  std::vector<std::string> written;
  for (const auto& [name, t] : outs) {
    const std::string base = (dir / file.at(name)).string();
    compiler::write_npy(base + ".npy", t);
    compiler::write_tensor_pb(base + ".pb", t, name);
    written.push_back(base + ".npy");
    written.push_back(base + ".pb");
  }
  return written;
}

std::filesystem::path output_tensor_npy(const std::filesystem::path& dir, const std::string& name,
                                        const std::vector<std::string>& all_names) {
  return dir / (npu::safe_file_names(all_names).at(name) + ".npy");
}

RunResult simulate_with_data(const SimulateOptions& opt, const compiler::CompileResult& c, const HwConfig& hw,
                             const RunOptions& ro, std::vector<std::string>& files) {
  std::vector<std::string> notes;
  const auto inputs = data_inputs(c, opt.input_data, opt.input_seed, &notes, opt.allow_nonfinite);
  for (const std::string& n : notes) std::cerr << "npu simulate: " << n << "\n";
  DataRunResult r = run_with_data(c, hw, inputs, ro);
  std::map<std::string, compiler::RefTensor> outs;
  for (const auto& [name, values] : r.outputs) {
    compiler::RefTensor& t = outs[name];
    t.shape = r.output_shapes.at(name);
    t.f = values;
  }
  for (std::string& f : write_output_tensors(std::filesystem::path(opt.out_dir) / "outputs", outs))
    files.push_back(std::move(f));
  return r.run;
}

}  // namespace npu::sim
