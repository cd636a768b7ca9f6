// Why the next layer cannot join a depth-first stack: it does not read the stack, it reads a
// DDR region the stack writes, it is not stackable, or the stack with it does not fit the
// SRAM at 1-row bands or as one band. Reference: docs/depth_first.md "Stacks".
#include <algorithm>
#include <cstdint>
#include <string>

#include "backend/schedule/depth_first/stack_planner.hpp"

namespace npu::compiler::depth_first {

// Why layer `nxt` cannot join the stack [s, e] ("" if it can).
std::string Planner::refusal(std::size_t s, std::size_t e, std::size_t nxt) {
  const LayerSpec& last = lg_.layers[e];
  if (nxt >= lg_.layers.size())
    return is_graph_output(last.output) ? "graph output: " + last.output + " (end of the network)"
                                        : "end of the network";
  const LayerSpec& N = lg_.layers[nxt];
  std::string why;
  if (N.kind == LayerKind::Host) {
    stackable(N, why);  // "host op: ..."
    return why;
  }
  bool connected = false;
  if (std::string r = connection_refusal(s, e, N, connected); !r.empty()) return r;
  // A branch that rejoins the stack at a Concat (a C3 block's second 1x1 conv reads the
  // block input, and its output is the Concat's other piece): it joins, and its rows are
  // those the Concat's reader needs. Until the join the stack has no valid end.
  if (!connected && lg_.place.count(N.output) && root(N.output) != N.output)
    for (std::size_t k = s; k <= e && !connected; ++k)
      connected = lg_.place.count(lg_.layers[k].output) && root(lg_.layers[k].output) == root(N.output);
  if (!connected) return unconnected(e, N);
  if (!stackable(N, why)) return why;
  // A layer on a branch that a later layer joins (a C3 block's second 1x1 conv, whose output
  // meets the first branch's at a Concat): the stack can only end after the join, so its
  // size is checked there (until then a branch's rows are not fed by the last layer's bands).
  if (!valid_end(s, nxt)) return "";
  return sram_refusal(s, nxt);
}

// Sets `connected` when layer N reads a tensor the stack [s, e] computes (or a Concat of
// pieces some of which it computes); a refusal when N reads a tensor sharing a DDR region
// with one the stack writes ("" otherwise).
std::string Planner::connection_refusal(std::size_t s, std::size_t e, const LayerSpec& N, bool& connected) const {
  std::vector<const std::string*> reads;
  for (const auto& t : N.inputs) reads.push_back(&t);
  reads.push_back(&N.residual);
  for (const std::string* t : reads) {
    if (t->empty()) continue;
    if (produced_in(*t, s, e)) {
      connected = true;
      continue;
    }
    // A Concat of channel blocks some of which the stack computes: gathered on chip.
    if (gathers_from(N, *t, s, e)) {
      connected = true;
      continue;
    }
    // A tensor sharing a DDR region with one the stack writes (a Concat buffer) would be
    // read from DDR before the stack has written all of it.
    for (std::size_t k = s; k <= e; ++k)
      if (lg_.place.count(*t) && root(lg_.layers[k].output) == root(*t))
        return "output needed by a layer outside the stack: next layer " + N.name + " reads " + *t +
               ", which shares DDR region " + root(*t) + " with " + lg_.layers[k].output +
               " written by this stack (Concat); it is read after the stack";
  }
  return "";
}

// The refusal of a next layer N that does not read the stack ending at layer e.
std::string Planner::unconnected(std::size_t e, const LayerSpec& N) const {
  const LayerSpec& last = lg_.layers[e];
  if (is_graph_output(last.output))
    return "graph output: " + last.output + " (next layer " + N.name + " does not read the stack)";
  std::string reader;
  auto it = readers_by_root_.find(root(last.output));
  if (it != readers_by_root_.end())
    for (const auto& [r, read] : it->second)
      if (r > e && overlaps(read, last.output)) {
        reader = lg_.layers[r].name;
        break;
      }
  return "output needed by a layer outside the stack: " + last.output + " is read by " +
         (reader.empty() ? std::string("no later layer") : reader) + ", and the next layer " + N.name +
         " does not read the stack";
}

// "SRAM full: ..." when the stack [s, nxt] fits the SRAM neither at 1-row bands (weights
// resident, then streamed per band) nor as one band of the whole height ("" when it fits).
std::string Planner::sram_refusal(std::size_t s, std::size_t nxt) {
  const LayerSpec& N = lg_.layers[nxt];
  const OverlapMode m1 = in_.opt.overlap == OverlapPolicy::Cache ? OverlapMode::Cache : OverlapMode::Recompute;
  Evaluation ev = evaluate(s, nxt, 1, m1, false);
  std::uint64_t streamed_need = 0;
  if (!ev.fits) {
    Evaluation streamed = evaluate(s, nxt, 1, m1, true);  // weights re-loaded per band
    if (streamed.fits) ev = std::move(streamed);
    else streamed_need = streamed.need_bytes;
  }
  std::uint64_t whole_need = 0;
  if (!ev.fits) {
    // One band of the whole height: no band buffer doubled, streamed weights placed by
    // lifetime (layout()); it can need less than 1-row bands.
    for (bool streamed : {false, true}) {
      Evaluation whole = evaluate(s, nxt, geom_.at(nxt).h_out, m1, streamed);
      if (whole.fits) {
        ev = std::move(whole);
        break;
      }
      whole_need = whole_need == 0 ? whole.need_bytes : std::min(whole_need, whole.need_bytes);
    }
  }
  if (!ev.fits)
    return "SRAM full: with " + N.name + " the stack needs " + std::to_string(ev.need_bytes) +
           " B at 1-row bands (weights " + std::to_string(ev.plan.summary.weight_bytes) + " B; " +
           std::to_string(streamed_need) + " B with its weights streamed per band; " + std::to_string(whole_need) +
           " B as one band), sram.capacity " + std::to_string(in_.sram_bytes) + " B";
  return "";
}

}  // namespace npu::compiler::depth_first
