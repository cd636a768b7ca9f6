// `npu verify`: simulator and quantised model against the fp32 reference (verify.hpp).
#include "npu/sim/verify/verify.hpp"
#include "npu/sim/verify/input_range_check.hpp"
#include "npu/isa/cost/precision.hpp"
#include "npu/base/user_text.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/compiler/backend/lowering/lowering.hpp"
#include "npu/compiler/frontend/model_loader.hpp"
#include "npu/compiler/quantize/error_metrics.hpp"
#include "npu/sim/experiment/child_signals.hpp"
#include "npu/compiler/quantize/ptq.hpp"
#include "npu/compiler/quantize/integer_inputs.hpp"
#include "npu/compiler/frontend/tensor_io.hpp"
#include "npu/base/csv.hpp"
#include "npu/base/json_text.hpp"
#include "npu/sim/experiment/experiment.hpp"
#include "npu/sim/io/output_files.hpp"
#include "npu/sim/run/simulate_data.hpp"

namespace npu::sim {

namespace fs = std::filesystem;
using compiler::RefTensor;
using compiler::RefTensorMap;

std::vector<OutputError> compare_outputs(const RefTensorMap& ref, const RefTensorMap& test) {
  std::vector<OutputError> out;
  for (const auto& [name, r] : ref) {
    auto it = test.find(name);
    if (it == test.end()) throw ConfigError("verify: error: output '" + name + "' missing from the compared outputs");
    const RefTensor& t = it->second;
    if (!r.is_float() || !t.is_float()) continue;  // integer outputs (shapes, indices) compare elsewhere
    if (t.f.size() != r.f.size())
      throw ConfigError(fmt::format("verify: error: output '{}' has {} values, its reference {}", name, t.f.size(),
                                    r.f.size()));
    RefTensor same = t;
    same.shape = r.shape;  // a .npy/.pb of the same element count compares as the reference's shape
    const compiler::TensorDiff d = compiler::compare_tensors(same, r);
    out.push_back({name, r.shape, d.max_abs, d.max_rel, compiler::sqnr_db(r.f, t.f),
                   compiler::top1_agrees(r.shape, r.f, t.f)});
  }
  return out;
}

bool VerifyReport::ok() const {
  if (!expected_mismatches.empty()) return false;
  for (const auto& r : rows)
    if (!r.pass) return false;
  return true;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return all;
}

// The output a FILE without NAME= compares with: the model's one output, else the output the
// file names (a TensorProto's name); throws listing the outputs and the NAME=FILE syntax.
std::string output_of_file(const std::string& spec, const std::string& proto_name,
                           const std::vector<std::string>& names, const char* flag) {
  if (names.size() == 1) return names[0];
  if (std::find(names.begin(), names.end(), proto_name) != names.end()) return proto_name;
  const bool npy = spec.size() >= 4 && spec.compare(spec.size() - 4, 4, ".npy") == 0;
  const std::string why = !proto_name.empty() ? "the file's TensorProto is named '" + proto_name + "', none of them"
                          : npy               ? "a .npy file does not say which one it holds"
                                              : "the file's TensorProto has no name to say which one it holds";
  throw ConfigError(fmt::format("{} '{}': error: the model has {} outputs ({}) and {}; say which output the file holds "
                                "as NAME=FILE, e.g. {} {}={}",
                                flag, spec, names.size(), joined(names), why, flag, names[0], spec));
}

/// NAME=FILE specs (or FILE: the one output, or the output its TensorProto names) read as
/// tensors by output name.
RefTensorMap read_named_files(const std::vector<std::string>& specs, const std::vector<std::string>& names,
                              const char* flag, const compiler::Graph& graph) {
  RefTensorMap out;
  for (const std::string& spec : specs) {
    const std::size_t eq = spec.find('=');
    std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
    const std::string path = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
      throw ConfigError(fmt::format("{} '{}': error: '{}' is not a graph output (outputs: {}); write NAME=FILE with "
                                    "one of them",
                                    flag, spec, name, joined(names)));
    std::string proto_name;
    RefTensor t = compiler::read_tensor_file(path, &proto_name);
    if (name.empty()) name = output_of_file(spec, proto_name, names, flag);
    if (!t.is_float()) throw ConfigError(path + ": error: " + flag + " needs float data; the file holds integers");
    // The same element count in another shape compares as the output's shape (compare_outputs).
    const std::vector<std::int64_t>& shape = graph.tensor(name).shape;
    std::uint64_t elems = 1;
    for (std::int64_t d : shape) elems *= std::uint64_t(d);
    if (graph.tensor(name).shape_known() && t.f.size() != elems)
      throw ConfigError(fmt::format("{}: error: {} holds {} values, but graph output '{}' of shape [{}] has {}\n  fix: "
                                    "give the file of that output (NAME=FILE picks the output)",
                                    path, flag, t.f.size(), echo(name), fmt::join(shape, ","), elems));
    out[name] = std::move(t);
  }
  return out;
}

void write_outputs(const fs::path& dir, const RefTensorMap& outs) { write_output_tensors(dir, outs); }

std::string db(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.2f}", v);
}

std::string top1(const std::optional<bool>& t) { return t ? (*t ? "yes" : "no") : "n/a"; }

nlohmann::ordered_json errors_json(const std::vector<OutputError>& v) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& e : v) {
    nlohmann::ordered_json j;
    j["output"] = e.output;
    j["max_abs"] = e.max_abs;
    j["rel_error"] = e.rel;
    // JSON has no infinity: identical outputs give the string "inf".
    j["sqnr_db"] = std::isfinite(e.sqnr_db) ? nlohmann::ordered_json(e.sqnr_db) : nlohmann::ordered_json(db(e.sqnr_db));
    j["top1_agree"] = e.top1 ? nlohmann::ordered_json(*e.top1) : nlohmann::ordered_json(nullptr);
    a.push_back(j);
  }
  return a;
}

const OutputError* find_error(const std::vector<OutputError>& v, const std::string& name) {
  for (const auto& e : v)
    if (e.output == name) return &e;
  return nullptr;
}

}  // namespace

// A NaN in a constant (a weight, a bias) makes what it feeds NaN in the reference and in every
// strategy alike, so the comparison says nothing (int8 even reported "bit-exact" with an SQNR
// of nan, exit 0). +-Inf is left alone: attention masks hold -Inf on purpose.
void check_nan_constants(const compiler::Graph& g, const VerifyOptions& opt) {
  std::size_t bad = 0, tensors = 0, first = 0;
  std::string first_name;
  for (const auto& [name, t] : g.tensors) {
    if (!t.is_constant) continue;
    std::size_t here = 0;
    for (std::size_t k = 0; k < t.float_data.size(); ++k) {
      if (!std::isnan(t.float_data[k])) continue;
      if (first_name.empty()) {
        first_name = name;
        first = k;
      }
      ++here;
    }
    bad += here;
    tensors += here > 0;
  }
  if (bad == 0) return;
  const std::string what = fmt::format("constant tensor '{}' holds NaN (first at element {}); {} NaN value(s) in {} "
                                       "constant tensor(s)", first_name, first, bad, tensors);
  if (!opt.allow_nonfinite)
    throw ConfigError(opt.model + ": error: " + what + ": the reference and every strategy compute NaN from them " +
                      "alike, so the comparison would check nothing\n  fix: re-export the model with finite weights, " +
                      "or add --allow-nonfinite to verify it anyway (a warning is printed)");
  std::cerr << "npu verify: warning: " << what << " (--allow-nonfinite): errors computed from them say little\n";
}

VerifyInputs prepare_verify(const VerifyOptions& opt) {
  VerifyInputs in;
  in.hw = load_hw_config(opt.hw);
  in.fp32 = in.hw.mac_array.dtype == DType::Fp32;
  if (in.hw.mac_array.dtype == DType::Fp16)
    throw ConfigError(opt.hw + ": error: npu verify checks fp32 configs (executed with data) and int8 configs "
                      "(quantised); this config's mac_array.dtype is fp16: use an fp32 or int8 config");
  if (const std::string why = isa::data_run_refusal(in.hw.mac_array); !why.empty())
    throw ConfigError(opt.hw + ": error: npu verify runs with data: " + why);
  compiler::LoadOptions load;
  for (const auto& spec : opt.input_shapes) compiler::add_input_shape(load, spec);
  load.dropout_as_identity = opt.dropout_as_identity;
  in.graph = compiler::load_model(opt.model, load);
  check_nan_constants(in.graph, opt);
  const compiler::Graph& graph = in.graph;
  // A tolerance of inf (--tolerance 1e999) would pass every comparison (new-user finding).
  if (!(opt.fp32_tolerance > 0) || !std::isfinite(opt.fp32_tolerance))
    throw ConfigError(fmt::format("--tolerance: error: must be a finite number > 0, got {} (e.g. 1e-4)", opt.fp32_tolerance));
  compiler::CompileResult shell;  // data_inputs reads only the graph's inputs
  shell.graph = graph;
  std::vector<std::string> notes;
  for (auto& [name, v] : data_inputs(shell, opt.input_data, opt.input_seed, &notes, opt.allow_nonfinite)) {
    RefTensor t;
    t.shape = graph.tensor(name).shape;
    const compiler::ElemType type = graph.tensor(name).type;
    if (type == compiler::ElemType::Int64 || type == compiler::ElemType::Int32) {
      t.type = type;  // integer values carried as exact floats (data_inputs)
      t.i.assign(v.begin(), v.end());
    } else {
      t.f = std::move(v);
    }
    in.inputs[name] = std::move(t);
  }
  for (const std::string& n : notes) std::cerr << "npu verify: " << n << "\n";
  in.expected = read_named_files(opt.expected, graph.outputs, "--expected", graph);
  for (const auto& [name, t] : graph.tensors) in.quantised_model = in.quantised_model || t.quant.has_value();
  if (!in.fp32 && !in.quantised_model) {
    if (!opt.calib_dir.empty()) {
      in.samples = compiler::read_calibration_dir(graph, opt.calib_dir);
      in.calibration = fmt::format("{} sample(s) from {}", in.samples.size(), opt.calib_dir);
    } else {
      in.samples = compiler::generate_calibration(graph, opt.calib_seed, opt.calib_count);
      in.calibration = fmt::format("{} seeded sample(s) U(-1,1){}, seed {}", opt.calib_count,
                                   std::any_of(graph.inputs.begin(), graph.inputs.end(),
                                               [&](const std::string& i) { return compiler::integer_input(graph, i); })
                                       ? " (integer inputs: ids uniform over their table's rows)"
                                       : "",
                                   opt.calib_seed);
    }
    if (opt.calibration.method == compiler::Calibrator::Percentile &&
        !(opt.calibration.percentile > 50.0 && opt.calibration.percentile <= 100.0))
      throw ConfigError(fmt::format("--percentile {}: error: must be in (50, 100] (e.g. 99.99); 100 is the min/max "
                                    "range", opt.calibration.percentile));
    in.calibration += opt.calibration.method == compiler::Calibrator::MinMax
                          ? ", min/max"
                          : fmt::format(", percentile {}", opt.calibration.percentile);
    in.warnings = input_range_warnings(in.inputs, in.samples, in.calibration);
  } else if (in.quantised_model) {
    in.calibration = "the model's own QDQ/QLinear parameters (not calibrated)";
  }
  // fp32 reference: the float graph (a QDQ model's dequantised weights, no rounding).
  compiler::ReferenceOptions ro;
  ro.apply_quant = false;
  try {
    in.reference = compiler::run_reference(graph, in.inputs, ro);
  } catch (const ConfigError& e) {
    // A value of the user's data the graph refuses (a token id past the vocabulary) was reported
    // against the model alone (new-user finding): the data's files are named too.
    if (opt.input_data.empty()) throw;
    throw ConfigError(fmt::format("{}\n  the model's inputs came from --input {}: check their values against the "
                                  "model (e.g. token ids below the vocabulary size), or leave --input out for "
                                  "generated data",
                                  e.what(), fmt::join(opt.input_data, ", --input ")));
  }
  if (!in.expected.empty()) {
    RefTensorMap ref_subset;
    for (const auto& [name, t] : in.expected) ref_subset[name] = in.reference.at(name);
    in.reference_vs_expected = compare_outputs(in.expected, ref_subset);
  }
  return in;
}

std::vector<VerifyRow> verify_strategy(const VerifyInputs& in, const std::string& strategy_arg,
                                       const std::string& run_dir, const std::string& run_error,
                                       const VerifyOptions& opt, const std::string& outputs_dir) {
  const compiler::Graph& graph = in.graph;
  const compiler::Strategy st = resolve_strategy(strategy_arg);
  const std::string label = strategy_label(strategy_arg);
  std::vector<VerifyRow> rows;
  if (in.fp32) {
    VerifyRow row;
    row.strategy = label;
    row.bit_exact = "n/a (fp32 config)";
    if (!run_error.empty()) {
      row.sim_status = "failed: " + run_error;
      row.pass = false;
    } else {
      RefTensorMap sim;
      for (const auto& name : graph.outputs)
        sim[name] = compiler::read_tensor_file(
            output_tensor_npy(fs::path(run_dir) / "outputs", name, graph.outputs).string());
      row.sim_status = "ok";
      row.sim = compare_outputs(in.reference, sim);
      if (!in.expected.empty()) row.sim_vs_expected = compare_outputs(in.expected, sim);
      for (const auto& e : row.sim) row.pass = row.pass && e.rel <= opt.fp32_tolerance;
      for (const auto& e : row.sim_vs_expected) row.pass = row.pass && e.rel <= opt.fp32_tolerance;  // NaN fails
    }
    rows.push_back(std::move(row));
    return rows;
  }
  const bool folds = std::find(st.passes.begin(), st.passes.end(), "fold-batchnorm") != st.passes.end();
  std::vector<compiler::FoldOrder> orders{compiler::FoldOrder::FoldThenQuantize};
  if (opt.fold_after_quant && folds && !in.quantised_model) orders.push_back(compiler::FoldOrder::QuantizeThenFold);
  for (const auto order : orders) {
    VerifyRow row;
    row.strategy = label;
    row.variant = order == compiler::FoldOrder::QuantizeThenFold ? "fold-after-quant" : "";
    row.sim_status = "not run";
    compiler::Graph qg = graph;
    if (!in.quantised_model) {
      compiler::PtqOptions po;
      po.calibration = opt.calibration;
      po.order = order;
      qg = compiler::quantize_graph(graph, st, in.samples, po).graph;
    }
    compiler::ReferenceOptions fq;
    fq.apply_quant = true;
    const RefTensorMap fake = compiler::run_reference(qg, in.inputs, fq);
    // outputs/<strategy>[.variant].<kind>/: fakequant (the PTQ model), sim and sim-int8 (the program).
    const auto folder = [&](const char* kind) {
      return fs::path(outputs_dir) / (stem_of(label) + (row.variant.empty() ? "" : "." + row.variant) + "." + kind);
    };
    if (!outputs_dir.empty()) write_outputs(folder("fakequant"), fake);
    row.quant = compare_outputs(in.reference, fake);
    try {
      const compiler::CompileResult compiled = compiler::compile(qg, in.hw, st);
      const Int8Check c = check_int8_execution(compiled, in.hw, qg, in.inputs);
      row.bit_exact = c.status;
      row.sim_status = c.run ? "ok" : c.status;
      if (c.run) row.sim = compare_outputs(in.reference, c.outputs);
      if (c.run && !outputs_dir.empty()) {  // what was compared, as the fp32 children's runs/*/outputs/ are
        write_outputs(folder("sim"), c.outputs);
        write_outputs(folder("sim-int8"), c.raw);
      }
      // An int8 program that runs but differs from the integer reference is a wrong number;
      // one that could not be checked ("not run: ...", the table says why) fails too, as an
      // fp32 program that cannot run with data does: a verify that verified nothing is no pass.
      row.pass = c.run && c.status == "bit-exact";
    } catch (const ConfigError& e) {
      const std::string first = e.what();
      row.bit_exact = "not run: compile failed: " + summary_line(first);
      row.pass = false;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {
// Refuses an empty --strategies, an unknown strategy and one given twice (or two of one name).
void check_strategies(const VerifyOptions& opt) {
  if (opt.strategies.empty()) throw ConfigError("npu verify: error: --strategies is empty");
  for (std::size_t k = 0; k < opt.strategies.size(); ++k) {
    resolve_strategy(opt.strategies[k]);
    for (std::size_t l = 0; l < k; ++l)
      if (stem_of(opt.strategies[l]) == stem_of(opt.strategies[k]))
        throw ConfigError("--strategies '" + opt.strategies[k] + "': error: given twice (or two share the name '" +
                          stem_of(opt.strategies[k]) + "'); give each once");
  }
}

// fp32 configs: one child `npu simulate --with-data` per strategy; its summary by strategy.
std::map<std::string, RunSummary> run_fp32_children(const VerifyOptions& opt) {
  std::map<std::string, RunSummary> runs;
  ExperimentOptions eo;
  eo.models = {opt.model};
  eo.hws = {opt.hw};
  eo.strategies = opt.strategies;
  eo.out_dir = opt.out_dir;
  eo.jobs = opt.jobs;
  eo.self_exe = opt.self_exe;
  eo.input_shapes = opt.input_shapes;
  eo.dropout_as_identity = opt.dropout_as_identity;
  eo.copy_layers = false;
  eo.with_data = true;
  eo.input_data = opt.input_data;
  eo.allow_nonfinite = opt.allow_nonfinite;
  eo.quiet = opt.quiet;
  eo.input_seed = opt.input_seed;
  const auto results = run_experiment(eo, plan_experiment(eo));
  if (const int sig = interruption_of(results))
    throw Interrupted(fmt::format("npu verify: interrupted by signal {}: its simulations were stopped; nothing "
                                  "compared (run it again)", sig), sig);
  for (const RunSummary& r : results) runs[r.job.strategy] = r;
  return runs;
}

// verify.csv's lines of one row: one per float output of the graph.
std::string verify_csv_lines(const VerifyRow& row, const compiler::Graph& graph, const VerifyOptions& opt) {
  std::string csv;
  for (const auto& name : graph.outputs) {
    const OutputError* s = find_error(row.sim, name);
    const OutputError* x = find_error(row.sim_vs_expected, name);
    const OutputError* q = find_error(row.quant, name);
    if (!s && !q && row.sim_status == "ok") continue;  // an integer output
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(stem_of(opt.model)),
                       csv_field(stem_of(opt.hw)), csv_field(row.strategy), row.variant, csv_field(name),
                       csv_field(row.sim_status), s ? fmt::format("{:.6g}", s->max_abs) : "",
                       s ? fmt::format("{:.6g}", s->rel) : "", s ? db(s->sqnr_db) : "", s ? top1(s->top1) : "",
                       x ? fmt::format("{:.6g}", x->rel) : "", q ? db(q->sqnr_db) : "",
                       q ? fmt::format("{:.6g}", q->rel) : "", q ? top1(q->top1) : "", csv_field(row.bit_exact),
                       row.pass ? 1 : 0);
  }
  return csv;
}

// verify.json's entry of one row.
nlohmann::ordered_json verify_row_json(const VerifyRow& row) {
  nlohmann::ordered_json e;
  e["strategy"] = row.strategy;
  e["variant"] = row.variant;
  e["sim_status"] = row.sim_status;
  e["sim_vs_reference"] = errors_json(row.sim);
  e["sim_vs_expected"] = errors_json(row.sim_vs_expected);
  e["quant_vs_reference"] = errors_json(row.quant);
  e["bit_exact"] = row.bit_exact;
  e["pass"] = row.pass;
  return e;
}

// Writes verify.csv, verify.json and verify.md into `out`.
void write_verify_files(const VerifyReport& rep, const compiler::Graph& graph, const HwConfig& hw,
                        const VerifyOptions& opt, const fs::path& out) {
  std::ostringstream csv;
  csv << "model,hw,strategy,variant,output,sim_status,max_abs,rel_error,sqnr_db,top1_agree,expected_rel_error,"
         "quant_sqnr_db,quant_rel_error,quant_top1_agree,bit_exact,pass\n";
  nlohmann::ordered_json j;
  j["model"] = stem_of(opt.model);
  j["hw"] = stem_of(opt.hw);
  j["dtype"] = to_string(hw.mac_array.dtype);
  j["fp32_tolerance"] = opt.fp32_tolerance;
  j["calibration"] = rep.calibration;
  j["warnings"] = rep.warnings;
  j["reference_vs_expected"] = errors_json(rep.reference_vs_expected);
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& row : rep.rows) {
    csv << verify_csv_lines(row, graph, opt);
    j["rows"].push_back(verify_row_json(row));
  }
  write_file_atomic((out / "verify.csv").string(), csv.str());
  write_file_atomic((out / "verify.json").string(), npu::json_dump(j) + "\n");
  write_file_atomic((out / "verify.md").string(), format_verify(rep, opt));
}
}  // namespace

VerifyReport run_verify(const VerifyOptions& opt) {
  // Everything that can be refused is refused before any child runs.
  check_strategies(opt);
  if (opt.out_dir.empty()) throw ConfigError("npu verify: error: --out is empty; give an output folder, e.g. --out verify-out");
  const VerifyInputs in = prepare_verify(opt);
  // `npu verify` alone (experiment --verify mixes configs): options of the int8 quantisation
  // do nothing on an fp32 config, and were ignored silently.
  for (const auto& [given, flag] : {std::pair<bool, const char*>{opt.fold_after_quant, "--fold-after-quant"},
                                    {!opt.calib_dir.empty(), "--calib"},
                                    {opt.calibration.method == compiler::Calibrator::Percentile,
                                     "--calibrator percentile"}})
    if (in.fp32 && given)
      throw ConfigError(fmt::format("{}: error: it applies to int8 configs (post-training quantisation), and {} is "
                                    "fp32 (mac_array.dtype: fp32; nothing is quantised)\n  fix: drop {} or give an "
                                    "int8 config",
                                    flag, opt.hw, flag));
  VerifyReport rep;
  rep.fp32 = in.fp32;
  rep.calibration = in.calibration;
  rep.warnings = in.warnings;
  rep.reference_vs_expected = in.reference_vs_expected;
  const fs::path out(opt.out_dir);
  write_outputs(out / "outputs" / "reference", in.reference);

  std::map<std::string, RunSummary> runs;
  if (in.fp32) runs = run_fp32_children(opt);
  for (const auto& s : opt.strategies) {
    const RunSummary* r = runs.count(s) ? &runs.at(s) : nullptr;
    for (auto& row : verify_strategy(in, s, r ? r->job.run_dir : "", r && !r->ok ? r->error : "", opt,
                                     (out / "outputs").string()))
      rep.rows.push_back(std::move(row));
  }
  rep.expected_mismatches = expected_mismatches(rep, opt.fp32_tolerance);
  write_verify_files(rep, in.graph, in.hw, opt, out);
  return rep;
}

std::string format_verify(const VerifyReport& r, const VerifyOptions& opt) {
  std::ostringstream s;
  s << fmt::format("verify {} on {} ({}): simulator vs the fp32 reference interpreter\n", stem_of(opt.model),
                   stem_of(opt.hw), r.fp32 ? "fp32" : "int8");
  if (!r.calibration.empty()) s << "quantisation: per-channel int8 weights, per-tensor int8 activations, calibration: "
                                << r.calibration << "\n";
  for (const auto& w : r.warnings) s << "warning: " << w << "\n";
  for (const auto& e : r.reference_vs_expected)
    s << fmt::format("reference vs --expected {}: max abs {:.3g}, relative {:.3g}, SQNR {} dB, top-1 {}\n", e.output,
                     e.max_abs, e.rel, db(e.sqnr_db), top1(e.top1));
  s << "\n| strategy | output | simulator | max abs | rel error | SQNR dB | top-1 | int8 model SQNR dB | int8 top-1 "
       "| bit-exact |\n|---|---|---|---:|---:|---:|---|---:|---|---|\n";
  for (const auto& row : r.rows) {
    const std::string label = row.strategy + (row.variant.empty() ? "" : " (" + row.variant + ")");
    std::vector<std::string> names;
    for (const auto& e : row.sim) names.push_back(e.output);
    if (names.empty())
      for (const auto& e : row.quant) names.push_back(e.output);
    if (names.empty()) names.push_back("-");
    for (const auto& name : names) {
      const OutputError* a = find_error(row.sim, name);
      const OutputError* q = find_error(row.quant, name);
      s << fmt::format("| {} | {} | {}{} | {} | {} | {} | {} | {} | {} | {} |\n", label, name, row.sim_status,
                       row.pass ? "" : " (FAIL)", a ? fmt::format("{:.3g}", a->max_abs) : "-",
                       a ? fmt::format("{:.3g}", a->rel) : "-", a ? db(a->sqnr_db) : "-", a ? top1(a->top1) : "-",
                       q ? db(q->sqnr_db) : (r.fp32 ? "n/a (fp32 config)" : "-"), q ? top1(q->top1) : "-",
                       row.bit_exact);
    }
  }
  if (!r.expected_mismatches.empty()) {
    s << fmt::format("\n--expected: {} comparison(s) above the tolerance {:g} (relative error):\n",
                     r.expected_mismatches.size(), opt.fp32_tolerance);
    for (const auto& m : r.expected_mismatches) s << "  " << m << "\n";
  }
  if (r.fp32)
    s << fmt::format("\nfp32 strategies must be within {:g} relative error (max |sim - ref| / max |ref|, and of "
                     "--expected): {}\n",
                     opt.fp32_tolerance, r.ok() ? "all pass" : "FAILED");
  return s.str();
}

}  // namespace npu::sim
