// Cell plans of experiment and sweep folders (cell_plan.hpp).
#include "npu/sim/experiment/cell_plan.hpp"

#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/base/atomic_file.hpp"
#include "npu/base/safe_file_name.hpp"
#include "npu/hw_config/hw_config.hpp"
#include "npu/sim/experiment/cell_key.hpp"
#include "npu/sim/io/output_files.hpp"

namespace npu::sim {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

Plan plan_sweep(const SweepSpec& spec) { return plan_sweep(spec, plan_configs(spec)); }

Plan plan_sweep_header(const SweepSpec& spec) {
  Plan plan;
  plan.kind = "sweep";
  plan.tool = tool_identity();
  plan.axes = spec.axis_paths();
  plan.traces = spec.traces;
  plan.input_shapes = spec.input_shapes;
  plan.dynamic_size = spec.dynamic_size;
  plan.npu_only = spec.npu_only;
  return plan;
}

namespace {

// The cells of a sweep in plan order, each from its config point's key state, name, axis
// values and validity (`point(k)` for config point k of `n`).
void sweep_cells(const SweepSpec& spec, std::size_t n,
                 const std::function<std::pair<const ConfigPoint*, std::vector<std::pair<std::string, std::string>>>(
                     std::size_t)>& point,
                 const std::function<void(const PlannedCell&, std::size_t)>& sink) {
  const std::string options = options_identity(spec.traces, spec.input_shapes, spec.dynamic_size, spec.npu_only);
  std::vector<std::pair<std::string, std::string>> strategies;  // arg, identity
  for (const auto& s : spec.strategies) strategies.emplace_back(s, strategy_identity(resolve_strategy(s)));
  for (const auto& m : spec.models) {
    CellIdentity id;  // the key ignores npu.name, which only labels outputs; config: the key state
    id.model = model_identity(m);
    id.options = options;
    id.tool = tool_identity();
    for (std::size_t k = 0; k < n; ++k) {
      const auto [c, axes] = point(k);
      id.strategy = "*";
      const std::string group = cell_key_from(c->key_state, id);
      for (const auto& [arg, sid] : strategies) {
        id.strategy = sid;
        PlannedCell cell;
        cell.key = cell_key_from(c->key_state, id);
        cell.group = group;
        cell.model = stem_of(m);
        cell.model_arg = m;
        cell.hw = c->hw_name;
        cell.strategy = sid.substr(0, sid.find(':'));
        cell.strategy_arg = arg;
        cell.axes = axes;
        cell.run_dir = "cells/" + cell.key;
        cell.hw_arg = cell.run_dir + "/" + c->hw_name + ".yaml";
        cell.invalid = c->invalid;
        sink(cell, k);
      }
    }
  }
}

}  // namespace

void plan_sweep_cells(const SweepSpec& spec, const std::vector<ConfigPoint>& points,
                      const std::function<void(const PlannedCell&, std::size_t)>& sink) {
  ConfigSpace space(spec);  // axis values from the index alone (no config is resolved)
  sweep_cells(spec, points.size(), [&](std::size_t k) { return std::make_pair(&points[k], space.axis_values(k)); },
              sink);
}

Plan plan_sweep(const SweepSpec& spec, const std::vector<ConfigCell>& configs) {
  Plan plan = plan_sweep_header(spec);
  ConfigPoint p;
  sweep_cells(
      spec, configs.size(),
      [&](std::size_t k) {
        p = {configs[k].hw_name, cell_key_config_state(configs[k].identity_yaml), configs[k].invalid};
        return std::make_pair(&p, configs[k].axis_values);
      },
      [&](const PlannedCell& c, std::size_t) { plan.cells.push_back(c); });
  return plan;
}

Plan plan_experiment_cells(const ExperimentOptions& opt) {
  ExperimentOptions all = opt;
  all.shard.clear();
  return plan_job_cells(opt, plan_experiment(all));
}

Plan plan_job_cells(const ExperimentOptions& opt, const std::vector<ExperimentJob>& jobs) {
  Plan plan;
  plan.kind = "experiment";
  plan.tool = tool_identity();
  plan.traces = opt.traces;
  plan.input_shapes = opt.input_shapes;
  plan.dynamic_size = opt.dynamic_size;
  plan.npu_only = opt.npu_only;
  // Options that change what a run writes join the key only when set, so keys stay those of
  // sweeps (which have neither) otherwise.
  std::string options = options_identity(opt.traces, opt.input_shapes, opt.dynamic_size, opt.npu_only);
  if (opt.trace_compress) options += ";trace_compress=1";
  if (opt.dropout_as_identity) options += ";dropout_as_identity=1";
  if (opt.with_data) options += fmt::format(";with_data=seed:{};input_data={}", opt.input_seed, fmt::join(opt.input_data, ","));
  std::map<std::string, std::string> models, configs, strategies;  // arg -> identity
  for (const auto& job : jobs) {
    if (!models.count(job.model)) models[job.model] = model_identity(job.model);
    if (!configs.count(job.hw)) {
      HwConfig cfg = load_hw_config(job.hw);
      cfg.npu.name = "-";
      configs[job.hw] = hw_config_to_yaml(cfg);
    }
    if (!strategies.count(job.strategy)) strategies[job.strategy] = strategy_identity(resolve_strategy(job.strategy));
    const CellIdentity id{configs[job.hw], models[job.model], strategies[job.strategy], options, plan.tool};
    PlannedCell cell;
    cell.key = cell_key(id);
    cell.group = group_key(id);
    cell.model = stem_of(job.model);
    cell.model_arg = job.model;
    cell.hw = stem_of(job.hw);
    cell.hw_arg = job.hw;
    const std::string& sid = strategies[job.strategy];
    cell.strategy = sid.substr(0, sid.find(':'));
    cell.strategy_arg = job.strategy;
    cell.run_dir = "runs/" + job.id;
    plan.cells.push_back(std::move(cell));
  }
  return plan;
}

// The writer's file: plan.json's temporary file and whether a cell was written yet.
struct PlanWriter::File {
  AtomicOutputFile out;
  explicit File(const std::string& path) : out(path, "plan") {}
};

// The plan as write_plan wrote it with one ordered_json (dump(1): one space per level): the
// header object without its closing brace, then "cells" as an array whose elements are each
// cell's own dump(1) indented by two levels.
PlanWriter::PlanWriter(const std::string& dir, const Plan& plan)
    : file_(std::make_unique<File>((fs::path(dir) / "plan.json").string())) {
  ordered_json j;
  j["format"] = "npu-plan 1";
  j["kind"] = plan.kind;
  j["tool"] = plan.tool;
  j["axes"] = plan.axes;
  j["options"] = {{"trace", plan.traces},
                  {"input_shape", plan.input_shapes},
                  {"dynamic_size", plan.dynamic_size},
                  {"npu_only", plan.npu_only}};
  const std::string head = j.dump(1);  // "{\n ...\n}"
  file_->out.stream() << head.substr(0, head.size() - 2) << ",\n \"cells\": [";
}

PlanWriter::~PlanWriter() = default;

void PlanWriter::add(const PlannedCell& c) {
  ordered_json e;
  e["key"] = c.key;
  e["group"] = c.group;
  e["model"] = c.model;
  e["model_arg"] = c.model_arg;
  e["hw"] = c.hw;
  e["hw_arg"] = c.hw_arg;
  e["strategy"] = c.strategy;
  e["strategy_arg"] = c.strategy_arg;
  ordered_json axes = ordered_json::object();
  for (const auto& [p, v] : c.axes) axes[p] = v;
  e["axes"] = axes;
  e["run_dir"] = c.run_dir;
  if (!c.invalid.empty()) e["invalid"] = c.invalid;
  std::string text = e.dump(1), indented = count_ ? ",\n  " : "\n  ";
  for (char ch : text) {
    indented += ch;
    if (ch == '\n') indented += "  ";
  }
  file_->out.stream() << indented;
  ++count_;
}

void PlanWriter::commit() {
  file_->out.stream() << (count_ ? "\n ]\n}\n" : "]\n}\n");
  file_->out.commit();
}

void write_plan(const std::string& dir, const Plan& plan) {
  PlanWriter w(dir, plan);
  for (const auto& c : plan.cells) w.add(c);
  w.commit();
}

Plan read_plan(const std::string& dir) {
  const fs::path p = fs::path(dir) / "plan.json";
  std::ifstream in(p);
  if (!in)
    throw ConfigError(fmt::format("{}: error: no plan.json: not a folder written by `npu experiment` or `npu sweep` "
                                  "(or written by a version before plans)\n  give the --out folder of an experiment or "
                                  "sweep; re-run an old experiment to get a plan",
                                  dir));
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.at("format") != "npu-plan 1") throw std::runtime_error("unknown format " + j.at("format").dump());
    Plan plan;
    plan.kind = j.at("kind").get<std::string>();
    plan.tool = j.at("tool").get<std::string>();
    plan.axes = j.at("axes").get<std::vector<std::string>>();
    const auto& o = j.at("options");
    plan.traces = o.at("trace").get<std::vector<std::string>>();
    plan.input_shapes = o.at("input_shape").get<std::vector<std::string>>();
    plan.dynamic_size = o.at("dynamic_size").get<std::int64_t>();
    plan.npu_only = o.at("npu_only").get<bool>();
    for (const auto& e : j.at("cells")) {
      PlannedCell c;
      c.key = e.at("key").get<std::string>();
      c.group = e.at("group").get<std::string>();
      c.model = e.at("model").get<std::string>();
      c.model_arg = e.at("model_arg").get<std::string>();
      c.hw = e.at("hw").get<std::string>();
      c.hw_arg = e.at("hw_arg").get<std::string>();
      c.strategy = e.at("strategy").get<std::string>();
      c.strategy_arg = e.at("strategy_arg").get<std::string>();
      // Axis values in the plan's axis order (JSON objects are unordered).
      const auto& axes = e.at("axes");
      for (const auto& path : plan.axes)
        if (axes.contains(path)) c.axes.emplace_back(path, axes.at(path).get<std::string>());
      c.run_dir = e.at("run_dir").get<std::string>();
      // A plan names its run folders as runs/ID or cells/KEY: nothing else is read (a plan
      // edited to name "../x" or "/etc" must not make `npu report` read outside the folder).
      const fs::path rd(c.run_dir);
      const std::string top = rd.parent_path().string(), leaf = rd.filename().string();
      if ((top != "runs" && top != "cells") || leaf != npu::safe_file_name(leaf))
        throw std::runtime_error("run_dir '" + c.run_dir + "' is not runs/NAME or cells/NAME with a plain NAME");
      c.invalid = e.value("invalid", std::string());
      plan.cells.push_back(std::move(c));
    }
    return plan;
  } catch (const std::exception& e) {
    throw ConfigError(fmt::format("{}: error: malformed plan.json: {}\n  re-run the experiment or sweep into this "
                                  "folder to rewrite it",
                                  p.string(), e.what()));
  }
}

}  // namespace npu::sim
