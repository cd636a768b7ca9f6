// Graphviz DOT of a compiled network (graph_dot.hpp; docs/compiler.md "Graph picture").
#include "npu/compiler/driver/graph_dot.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "npu/compiler/transforms/pass.hpp"

namespace npu::compiler {

std::string dot_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += ' ';
    } else {
      out += char(c);
    }
  }
  return out;
}

namespace {

std::string dims(const Graph& g, const std::string& t) {
  if (!g.has_tensor(t)) return "?";
  const auto& s = g.tensor(t).shape;
  if (s.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
  return out;
}

bool is_const(const Graph& g, const std::string& t) { return g.has_tensor(t) && g.tensor(t).is_constant; }

// One fused group: the original nodes a fused node of the rewritten graph covers.
struct Group {
  std::vector<std::string> nodes;  // anchor first
  std::vector<std::string> passes;  // applied passes, in decision order
};

class DotWriter {
 public:
  DotWriter(const Graph& src, const CompileResult& r) : g_(src), r_(r) {}

  std::string run() {
    index_groups();
    index_layers();
    index_traffic();
    std::string out;
    out += fmt::format("// npu compile --graph: model {}, strategy {}, program dtype {}\n", r_.program.name,
                       r_.program.strategy, npu::to_string(r_.program.dtype));
    out += fmt::format("digraph \"{}\" {{\n", dot_escape(g_.name));
    out += fmt::format(
        "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, labelloc=t, label=\"{} -- strategy {}\"];\n",
        dot_escape(g_.name), dot_escape(r_.program.strategy));
    out += "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e8f0fe\", fontname=\"Helvetica\", fontsize=10];\n";
    out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
    // Graph inputs and outputs as ellipses.
    for (std::size_t i = 0; i < g_.inputs.size(); ++i)
      out += fmt::format("  in{} [label=\"{}\\n{}\", shape=ellipse, style=filled, fillcolor=\"#ffffff\"];\n", i,
                         dot_escape(g_.inputs[i]), dims(g_, g_.inputs[i]));
    for (std::size_t i = 0; i < g_.outputs.size(); ++i)
      out += fmt::format("  out{} [label=\"{}\\n{}\", shape=ellipse, style=filled, fillcolor=\"#ffffff\"];\n", i,
                         dot_escape(g_.outputs[i]), dims(g_, g_.outputs[i]));
    // Nodes: clustered ones inside their cluster, at the position of the group's first node.
    std::set<std::size_t> written_groups;
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      auto git = group_of_.find(g_.nodes[i].name);
      if (git == group_of_.end()) {
        out += "  " + node_line(i) + "\n";
        continue;
      }
      if (!written_groups.insert(git->second).second) continue;
      const Group& grp = groups_[git->second];
      std::string passes;
      for (const auto& p : grp.passes) passes += (passes.empty() ? "" : " + ") + p;
      if (passes.empty()) passes = "fused";
      out += fmt::format("  subgraph cluster_{} {{\n", git->second);
      out += fmt::format("    label=\"{}\"; style=\"rounded,dashed\"; color=\"#3367d6\"; fontcolor=\"#3367d6\";\n",
                         dot_escape(passes));
      for (const auto& name : grp.nodes) {
        auto nit = node_index_.find(name);
        if (nit != node_index_.end()) out += "    " + node_line(nit->second) + "\n";
      }
      out += "  }\n";
    }
    out += edges();
    out += "}\n";
    return out;
  }

 private:
  void index_groups() {
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) node_index_[g_.nodes[i].name] = i;
    for (const auto& n : r_.graph.nodes) {
      const std::vector<std::string> covers = covered_nodes(n);
      if (covers.size() < 2) continue;
      Group grp;
      for (const auto& c : covers)
        if (node_index_.count(c)) grp.nodes.push_back(c);
      if (grp.nodes.size() < 2) continue;
      const std::set<std::string> members(grp.nodes.begin(), grp.nodes.end());
      for (const auto& d : r_.decisions) {
        if (d.outcome != DecisionOutcome::Applied || d.nodes.empty()) continue;  // (program-wide: sram-plans)
        const bool inside = std::all_of(d.nodes.begin(), d.nodes.end(), [&](const std::string& x) {
          return members.count(x) != 0;
        });
        if (inside && std::find(grp.passes.begin(), grp.passes.end(), d.pass) == grp.passes.end())
          grp.passes.push_back(d.pass);
      }
      for (const auto& c : grp.nodes) group_of_[c] = groups_.size();
      groups_.push_back(std::move(grp));
    }
  }

  void index_layers() {
    for (const auto& L : r_.lowered.layers) {
      if (L.kind == LayerKind::Host) continue;
      for (const auto& c : L.covers) layers_of_[c].insert(L.name);
      if (!L.covers.empty()) anchored_layers_[L.covers[0]].insert(L.name);
    }
    for (const auto& h : r_.lowered.host_nodes) host_reason_[h.name] = h.reason;
    aliases_.insert(r_.lowered.aliases.begin(), r_.lowered.aliases.end());
  }

  // Every LOAD/STORE with its layer and DDR byte range start.
  void index_traffic() {
    for (const auto& t : r_.program.tensors) decl_[t.name] = &t;
    for (const auto& inst : r_.program.instructions) {
      if (inst.op != isa::Opcode::Load && inst.op != isa::Opcode::Store) continue;
      const auto& d = std::get<isa::DmaDesc>(inst.params);
      dma_.push_back({inst.op == isa::Opcode::Store, inst.layer, inst.tensor, d.ddr_addr, d.bytes()});
    }
  }

  // DDR region [begin, end) of graph tensor t in the program; false when it has none.
  bool region(const std::string& t, std::string& root, std::uint64_t& begin, std::uint64_t& end) const {
    auto p = r_.lowered.place.find(t);
    if (p == r_.lowered.place.end()) return false;
    auto d = decl_.find(p->second.root);
    if (d == decl_.end()) return false;
    auto b = r_.lowered.bytes.find(t);
    root = p->second.root;
    begin = d->second->ddr_addr + p->second.offset;
    end = begin + (b != r_.lowered.bytes.end() ? b->second : d->second->bytes);
    return true;
  }

  std::uint64_t moved(const std::string& t, bool store, const std::set<std::string>* layers) const {
    std::string root;
    std::uint64_t begin = 0, end = 0;
    if (!region(t, root, begin, end)) return 0;
    std::uint64_t sum = 0;
    for (const auto& m : dma_)
      if (m.store == store && m.tensor == root && m.addr >= begin && m.addr < end &&
          (!layers || layers->count(m.layer)))
        sum += m.bytes;
    return sum;
  }

  std::string node_line(std::size_t i) const {
    const Node& n = g_.nodes[i];
    std::string ins, params;
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      std::string& list = is_const(g_, in) ? params : ins;
      list += (list.empty() ? "" : ", ") + dims(g_, in);
    }
    std::string outs;
    for (const auto& o : n.outputs)
      if (!o.empty()) outs += (outs.empty() ? "" : ", ") + dims(g_, o);
    std::string label = dot_escape(n.name) + "\\n" + dot_escape(n.op_type);
    label += "\\nin " + (ins.empty() ? std::string("-") : ins) + " -> out " + (outs.empty() ? "-" : outs);
    if (!params.empty()) label += "\\nconst " + params;
    // Parameter traffic of the node's layer, on the anchor (the layer is named after it).
    auto lit = anchored_layers_.find(n.name);
    if (lit != anchored_layers_.end()) {
      std::uint64_t w = 0;
      for (const auto& m : dma_) {
        if (m.store || !lit->second.count(m.layer)) continue;
        auto d = decl_.find(m.tensor);
        if (d != decl_.end() && d->second->kind == isa::TensorKind::Weight) w += m.bytes;
      }
      if (w > 0) label += fmt::format("\\nparams DDR rd {} B", w);
    }
    auto h = host_reason_.find(n.name);
    if (h != host_reason_.end())
      return fmt::format("n{} [label=\"{}\\nHOST: {}\", style=\"filled,dashed\", fillcolor=\"#fde7e9\", "
                         "color=\"#c5221f\", penwidth=2];",
                         i, label, dot_escape(h->second));
    if (aliases_.count(n.name))
      return fmt::format("n{} [label=\"{}\\nview (no code)\", fillcolor=\"#f1f3f4\"];", i, label);
    return fmt::format("n{} [label=\"{}\"];", i, label);
  }

  std::string edges() const {
    std::string out;
    std::map<std::string, std::string> producer_id;
    for (std::size_t i = 0; i < g_.inputs.size(); ++i) producer_id[g_.inputs[i]] = "in" + std::to_string(i);
    for (std::size_t i = 0; i < g_.nodes.size(); ++i)
      for (const auto& o : g_.nodes[i].outputs)
        if (!o.empty()) producer_id[o] = "n" + std::to_string(i);
    const std::string dtype = npu::to_string(r_.program.dtype);
    std::set<std::pair<std::string, std::size_t>> read_counted;  // (tensor, group) with reads on an edge
    auto is_host = [&](const std::string& id) {
      return id[0] == 'n' && host_reason_.count(g_.nodes[std::stoul(id.substr(1))].name) != 0;
    };
    auto edge = [&](const std::string& from, const std::string& to, const std::string& t, bool same_group,
                    std::uint64_t wr, std::uint64_t rd) {
      std::string label = dims(g_, t) + " " + dtype + "\\n";
      std::string attrs;
      if (wr + rd == 0 && same_group) {
        label += "on chip";
        attrs = ", style=dashed, color=\"#3367d6\", fontcolor=\"#3367d6\"";
      } else {
        label += fmt::format("DDR {} B (wr {}, rd {})", wr + rd, wr, rd);
      }
      // The host's own DDR traffic is analytic (HOST rd/wr), not in the program's LOAD/STOREs.
      if (is_host(from)) label += "\\n+ host writes (analytic)";
      if (is_host(to)) label += "\\n+ host reads (analytic)";
      out += fmt::format("  {} -> {} [label=\"{}\"{}];\n", from, to, label, attrs);
    };
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      std::set<std::string> seen;
      for (const auto& t : n.inputs) {
        if (t.empty() || is_const(g_, t) || !seen.insert(t).second) continue;
        auto p = producer_id.find(t);
        if (p == producer_id.end()) continue;
        const std::string to = "n" + std::to_string(i);
        auto gi = group_of_.find(n.name);
        bool same_group = false;
        if (gi != group_of_.end() && p->second[0] == 'n') {
          auto pg = group_of_.find(g_.nodes[std::stoul(p->second.substr(1))].name);
          same_group = pg != group_of_.end() && pg->second == gi->second;
        }
        std::uint64_t rd = 0;
        auto lit = layers_of_.find(n.name);
        const bool first_read_in_group =
            gi == group_of_.end() || read_counted.insert({t, gi->second}).second;
        if (lit != layers_of_.end() && first_read_in_group) rd = moved(t, false, &lit->second);
        edge(p->second, to, t, same_group, moved(t, true, nullptr), rd);
      }
    }
    for (std::size_t i = 0; i < g_.outputs.size(); ++i) {
      auto p = producer_id.find(g_.outputs[i]);
      if (p == producer_id.end()) continue;
      edge(p->second, "out" + std::to_string(i), g_.outputs[i], false, moved(g_.outputs[i], true, nullptr), 0);
    }
    return out;
  }

  struct Dma {
    bool store;
    std::string layer, tensor;
    std::uint64_t addr, bytes;
  };

  const Graph& g_;
  const CompileResult& r_;
  std::map<std::string, std::size_t> node_index_;
  std::vector<Group> groups_;
  std::map<std::string, std::size_t> group_of_;
  std::map<std::string, std::set<std::string>> layers_of_;       // node -> layers covering it
  std::map<std::string, std::set<std::string>> anchored_layers_;  // anchor node -> its layers
  std::map<std::string, std::string> host_reason_;
  std::set<std::string> aliases_;
  std::map<std::string, const isa::TensorDecl*> decl_;
  std::vector<Dma> dma_;
};

}  // namespace

std::string graph_dot(const Graph& source, const CompileResult& result) { return DotWriter(source, result).run(); }

}  // namespace npu::compiler
