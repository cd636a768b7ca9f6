// Static checks of a program against a hardware config. Rules: docs/isa.md ("Static checks").
#include "npu/isa/check/program_check.hpp"
#include "npu/isa/check/happens_before.hpp"
#include "npu/isa/check/shared_regions.hpp"
#include "npu/isa/host_limits.hpp"
#include "npu/isa/requant_operand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <type_traits>
#include <vector>

namespace npu::isa {

const char* to_string(CheckKind k) {
  switch (k) {
    case CheckKind::SramRange: return "sram-range";
    case CheckKind::DdrRange: return "ddr-range";
    case CheckKind::TensorRegion: return "tensor-region";
    case CheckKind::TensorDecl: return "tensor-decl";
    case CheckKind::Shape: return "shape";
    case CheckKind::DataType: return "dtype";
    case CheckKind::Token: return "token";
    case CheckKind::Deadlock: return "deadlock";
    case CheckKind::Dataflow: return "dataflow";
    case CheckKind::SramRace: return "sram-race";
  }
  return "?";
}

namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

class Checker {
 public:
  Checker(const Program& p, const HwConfig& hw) : p_(p), hw_(hw) {}

  std::vector<CheckIssue> run() {
    check_dtype();
    check_tensors();
    for (index_ = 0; index_ < p_.instructions.size(); ++index_) check_instruction(p_.instructions[index_]);
    const bool tokens_ok = check_token_balance();
    if (tokens_ok) check_deadlock();
    return std::move(issues_);
  }

 private:
  const Instruction& inst() const { return p_.instructions[index_]; }

  /// "instruction #5 CONV (layer conv1)"
  std::string where(std::size_t i) const {
    const Instruction& in = p_.instructions[i];
    return fmt::format("instruction #{} {}{}", i, to_string(in.op),
                       in.layer.empty() ? std::string() : fmt::format(" (layer {})", in.layer));
  }

  void add(CheckKind kind, const std::string& message) {
    issues_.push_back({inst().source_line, index_, fmt::format("{}: {}", where(index_), message), kind});
  }
  void add_at(std::size_t i, CheckKind kind, const std::string& message) {
    issues_.push_back({p_.instructions[i].source_line, i, fmt::format("{}: {}", where(i), message), kind});
  }
  void add_tensor(std::size_t t, CheckKind kind, const std::string& message) {
    issues_.push_back({p_.tensors[t].source_line, t, message, kind});
  }

  // ------------------------------------------------------------------ program level

  void check_dtype() {
    if (p_.dtype != hw_.mac_array.dtype)
      issues_.push_back({0, 0,
                         fmt::format("program dtype {} differs from the MAC array dtype {} of {}; recompile the "
                                     "program for {} or use a config with a {} array",
                                     to_string(p_.dtype), to_string(hw_.mac_array.dtype),
                                     hw_.source.empty() ? std::string("the config") : hw_.source,
                                     to_string(hw_.mac_array.dtype), to_string(p_.dtype)),
                         CheckKind::DataType});
  }

  void check_tensors() {
    const std::uint64_t ddr_cap = hw_.ddr.capacity_bytes();
    std::map<std::string, std::size_t> first;
    for (std::size_t i = 0; i < p_.tensors.size(); ++i) {
      const TensorDecl& t = p_.tensors[i];
      if (t.name.empty()) add_tensor(i, CheckKind::TensorDecl, fmt::format("tensor #{} has no name", i));
      if (auto [it, fresh] = first.emplace(t.name, i); !fresh)
        add_tensor(i, CheckKind::TensorDecl,
                   fmt::format("tensor '{}' is declared twice (first as tensor #{}); give each a unique name", t.name,
                               it->second));
      if (t.bytes == 0)
        add_tensor(i, CheckKind::TensorDecl, fmt::format("tensor '{}' has 0 bytes; give its size", t.name));
      if (t.ddr_addr > kMax64 - t.bytes || t.ddr_addr + t.bytes > ddr_cap)
        add_tensor(i, CheckKind::DdrRange,
                   fmt::format("tensor '{}' [0x{:x}, +{} B) ends past the DDR capacity of {} bytes (0x{:x}); move it "
                               "below 0x{:x}",
                               t.name, t.ddr_addr, t.bytes, ddr_cap, ddr_cap, ddr_cap));
    }
    std::vector<std::pair<std::size_t, std::size_t>> shared;  // overlapping intermediates
    // Overlaps: sort by start address (ties by index, so the output is deterministic) and
    // compare each region with every later one that starts before it ends.
    std::vector<std::size_t> order(p_.tensors.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return p_.tensors[a].ddr_addr != p_.tensors[b].ddr_addr ? p_.tensors[a].ddr_addr < p_.tensors[b].ddr_addr
                                                              : a < b;
    });
    for (std::size_t oi = 0; oi < order.size(); ++oi) {
      const TensorDecl& a = p_.tensors[order[oi]];
      const std::uint64_t a_end = a.ddr_addr > kMax64 - a.bytes ? kMax64 : a.ddr_addr + a.bytes;
      for (std::size_t oj = oi + 1; oj < order.size(); ++oj) {
        const TensorDecl& b = p_.tensors[order[oj]];
        if (b.ddr_addr >= a_end) break;
        if (b.bytes == 0 || a.bytes == 0) continue;
        const std::size_t later = std::max(order[oi], order[oj]);
        const TensorDecl& other = p_.tensors[std::min(order[oi], order[oj])];
        if (p_.tensors[later].kind == TensorKind::Intermediate && other.kind == TensorKind::Intermediate) {
          shared.emplace_back(std::min(order[oi], order[oj]), later);  // allowed when ordered: below
          continue;
        }
        add_tensor(later, CheckKind::TensorDecl,
                   fmt::format("tensor '{}' [0x{:x}, 0x{:x}) overlaps tensor '{}' [0x{:x}, 0x{:x}); DDR regions of "
                               "tensors must be disjoint",
                               p_.tensors[later].name, p_.tensors[later].ddr_addr,
                               p_.tensors[later].ddr_addr + p_.tensors[later].bytes, other.name, other.ddr_addr,
                               other.ddr_addr + other.bytes));
      }
    }
    check_shared(shared);
  }

  // Intermediates sharing DDR bytes (regions reused by lifetime): every LOAD/STORE of one
  // must happen before every LOAD/STORE of the other.
  void check_shared(const std::vector<std::pair<std::size_t, std::size_t>>& shared) {
    const auto unordered = unordered_accesses(p_, shared);
    for (std::size_t k = 0; k < shared.size(); ++k) {
      if (!unordered[k]) continue;
      const TensorDecl& a = p_.tensors[shared[k].first];
      const TensorDecl& b = p_.tensors[shared[k].second];
      add_tensor(shared[k].second, CheckKind::TensorDecl,
                 fmt::format("intermediate tensor '{}' [0x{:x}, 0x{:x}) overlaps intermediate tensor '{}' [0x{:x}, "
                             "0x{:x}) but their accesses are not ordered (instructions #{} and #{}); intermediates "
                             "may share DDR bytes only when every LOAD/STORE of one happens before every LOAD/STORE "
                             "of the other (order them with a token or a fence, or give them disjoint regions)",
                             b.name, b.ddr_addr, b.ddr_addr + b.bytes, a.name, a.ddr_addr, a.ddr_addr + a.bytes,
                             unordered[k]->first, unordered[k]->second));
    }
  }

  // ------------------------------------------------------------------ instructions

  void check_instruction(const Instruction& in) {
    if (!params_match(in)) {
      add(CheckKind::Shape, "its parameters belong to another opcode");
      return;
    }
    check_queues(in);
    bool shape_ok = true;
    if (in.op != Opcode::Load && in.op != Opcode::Store && !in.tensor.empty())
      add(CheckKind::TensorRegion, fmt::format("names tensor '{}', but only LOAD and STORE move tensors", in.tensor));
    // A size or count that does not fit in 64 bits (checked_math.hpp) is a shape error of
    // this instruction, not a silently wrapped number ("0 MACs" once ran and hung).
    if (const std::string why = requant_problem(in); !why.empty()) add(CheckKind::Shape, why);
    if (const Requant* r = requant_of(in); r && !r->on && (r->in_zp != 0 || r->out_zp != 0) && p_.dtype != DType::Int8)
      add(CheckKind::DataType, fmt::format("zp is an int8 zero point but the program dtype is {} (an fp32 POOL "
                                           "avg_pad pads with 0.0); drop zp or compile for an int8 config",
                                           to_string(p_.dtype)));
    if (const Requant* r = requant_of(in); r && r->on && p_.dtype != DType::Int8)
      add(CheckKind::DataType, fmt::format("requant is an int8 operand but the program dtype is {}; drop requant/zp/"
                                           "clamp or compile for an int8 config", to_string(p_.dtype)));
    try {
      std::visit([&](const auto& p) { shape_ok = check_shape(p); }, in.params);
      if (shape_ok) {
        if (const auto* c = std::get_if<ConvParams>(&in.params)) (void)c->macs();
        if (const auto* g = std::get_if<GemmParams>(&in.params)) (void)g->macs();
        check_sram(in);
      }
    } catch (const ConfigError& e) {
      add(CheckKind::Shape, fmt::format("{}; make the tile smaller (the simulator counts in 64 bits)", e.what()));
    }
  }

  static bool params_match(const Instruction& in) {
    switch (in.op) {
      case Opcode::Load:
      case Opcode::Store: return std::holds_alternative<DmaDesc>(in.params);
      case Opcode::Conv: return std::holds_alternative<ConvParams>(in.params);
      case Opcode::Gemm: return std::holds_alternative<GemmParams>(in.params);
      case Opcode::Act: return std::holds_alternative<ActParams>(in.params);
      case Opcode::Eltwise: return std::holds_alternative<EltwiseParams>(in.params);
      case Opcode::Pool: return std::holds_alternative<PoolParams>(in.params);
      case Opcode::Sync: return std::holds_alternative<SyncParams>(in.params);
      case Opcode::Host: return std::holds_alternative<HostParams>(in.params);
      case Opcode::Move: return std::holds_alternative<MoveParams>(in.params);
    }
    return false;
  }

  void check_queues(const Instruction& in) {
    const Queue q = in.queue();
    for (const Token& t : in.wait) {
      if (t.from == t.to)
        add(CheckKind::Token, fmt::format("waits on a token from the {} queue to itself", to_string(t.from)));
      else if (t.to != q)
        add(CheckKind::Token, fmt::format("runs on the {} queue but waits on '{}', which only the {} queue may wait on",
                                          to_string(q), to_string(t), to_string(t.to)));
      ++waits_[token_index(t)];
      last_wait_[token_index(t)] = index_;
    }
    for (const Token& t : in.push) {
      if (t.from == t.to)
        add(CheckKind::Token, fmt::format("pushes a token from the {} queue to itself", to_string(t.from)));
      else if (t.from != q)
        add(CheckKind::Token, fmt::format("runs on the {} queue but pushes '{}', which only the {} queue may push",
                                          to_string(q), to_string(t), to_string(t.from)));
      ++pushes_[token_index(t)];
      last_push_[token_index(t)] = index_;
    }
  }

  /// Each `dims` entry must be >= 1; returns false (after reporting) otherwise.
  bool positive(std::initializer_list<std::pair<const char*, long long>> dims) {
    bool ok = true;
    for (const auto& [key, v] : dims)
      if (v < 1) {
        add(CheckKind::Shape, fmt::format("'{}' is {}, it must be >= 1", key, v));
        ok = false;
      }
    return ok;
  }
  bool non_negative(std::initializer_list<std::pair<const char*, long long>> values) {
    bool ok = true;
    for (const auto& [key, v] : values)
      if (v < 0) {
        add(CheckKind::Shape, fmt::format("'{}' is {}, it must be >= 0", key, v));
        ok = false;
      }
    return ok;
  }

  /// Output extent of a window of `k` taps (dilated) over `in` padded by `pad`, or report.
  bool window_fits(const char* axis, long long in, long long pad, long long k, long long dilation) {
    const long long effective_k = dilation * (k - 1) + 1;
    if (in + pad >= effective_k) return true;
    add(CheckKind::Shape,
        fmt::format("the {} window ({} taps{}) is larger than the padded input ({} + {} pad), so the output is empty",
                    axis, effective_k, dilation > 1 ? " with dilation" : "", in, pad));
    return false;
  }

  void check_epilogue(const Epilogue& e) {
    if (e.act == ActOp::ScaleShift)
      add(CheckKind::Shape, "act=scale_shift is not an epilogue activation; use the scale_shift operand");
    if (is_row_wise(e.act))
      add(CheckKind::Shape, fmt::format("act={} is row-wise and not an epilogue activation; run it as a stand-alone "
                                        "ACT op={} after the CONV/GEMM",
                                        to_string(e.act), to_string(e.act)));
    if (e.act == ActOp::Clip && e.act_alpha > e.act_beta)
      add(CheckKind::Shape, fmt::format("clip min alpha={} is above max beta={}", e.act_alpha, e.act_beta));
  }

  bool check_shape(const DmaDesc& d) {
    const Instruction& in = inst();
    bool ok = positive({{"extent[0]", d.extent[0]}, {"extent[1]", d.extent[1]}, {"extent[2]", d.extent[2]}});
    if (d.elem_bytes != 1 && d.elem_bytes != 2 && d.elem_bytes != 4 && d.elem_bytes != 8) {
      add(CheckKind::Shape, fmt::format("elem={} bytes; an element is 1, 2, 4 or 8 bytes", d.elem_bytes));
      ok = false;
    }
    if (!ok) return false;
    if (d.gather && (d.extent[2] != 1 || d.gather_rows == 0)) {
      add(CheckKind::Shape, fmt::format("a gather LOAD or scatter STORE (index=) has extent=ROW_ELEMS,ROWS and "
                                        "table_rows >= 1; this {} has extent[2]={} and table_rows={}",
                                        to_string(in.op), d.extent[2], d.gather_rows));
      return false;
    }
    if (d.index_float != 0 && (!d.gather || d.index_float != 4)) {
      add(CheckKind::Shape, fmt::format("index_float={} on a {}: only a gather LOAD or scatter STORE (index=) takes it, "
                                        "and its value is 4 (fp32 indices); omit it for int32 indices",
                                        d.index_float, d.gather ? "gather" : "LOAD/STORE without index="));
      return false;
    }
    const std::uint64_t span = d.ddr_span_bytes();
    const bool overflow = d.ddr_addr > kMax64 - span;
    const std::uint64_t end = overflow ? kMax64 : d.ddr_addr + span;
    const std::uint64_t ddr_cap = hw_.ddr.capacity_bytes();
    if (overflow || end > ddr_cap)
      add(CheckKind::DdrRange, fmt::format("DDR range [0x{:x}, 0x{:x}) ends past the DDR capacity of {} bytes (0x{:x})",
                                           d.ddr_addr, end, ddr_cap, ddr_cap));
    if (in.tensor.empty()) {
      add(CheckKind::TensorRegion, "names no tensor; give tensor=NAME of a declared tensor");
    } else {
      const TensorDecl* t = nullptr;
      for (const TensorDecl& decl : p_.tensors)
        if (decl.name == in.tensor) {
          t = &decl;  // the first declaration (a repeated name is reported by check_tensors)
          break;
        }
      if (!t) {
        add(CheckKind::TensorRegion, fmt::format("names tensor '{}', which is not declared", in.tensor));
      } else {
        const std::uint64_t t_end = t->ddr_addr > kMax64 - t->bytes ? kMax64 : t->ddr_addr + t->bytes;
        if (d.ddr_addr < t->ddr_addr || end > t_end)
          add(CheckKind::TensorRegion,
              fmt::format("DDR range [0x{:x}, 0x{:x}) leaves tensor '{}' [0x{:x}, 0x{:x}) (span = (extent[2]-1)*"
                          "stride[1] + (extent[1]-1)*stride[0] + extent[0]*elem = {} bytes)",
                          d.ddr_addr, end, t->name, t->ddr_addr, t_end, span));
      }
    }
    // A STORE whose rows (or planes) overlap in DDR overwrites its own data.
    if (in.op == Opcode::Store) {
      const std::uint64_t row_bytes = std::uint64_t(d.extent[0]) * d.elem_bytes;
      if (d.extent[1] > 1 && d.ddr_stride_bytes[0] < row_bytes)
        add(CheckKind::Shape, fmt::format("STORE rows overlap in DDR: stride[0]={} B < extent[0]*elem={} B",
                                          d.ddr_stride_bytes[0], row_bytes));
      const std::uint64_t plane_bytes = std::uint64_t(d.extent[1] - 1) * d.ddr_stride_bytes[0] + row_bytes;
      if (d.extent[2] > 1 && d.ddr_stride_bytes[1] < plane_bytes)
        add(CheckKind::Shape, fmt::format("STORE planes overlap in DDR: stride[1]={} B < {} B spanned by one plane",
                                          d.ddr_stride_bytes[1], plane_bytes));
    }
    return true;
  }

  bool check_shape(const ConvParams& c) {
    bool ok = positive({{"cin", c.c_in}, {"hin", c.h_in}, {"win", c.w_in}, {"cout", c.c_out}, {"kh", c.kh},
                        {"kw", c.kw}, {"stride(h)", c.stride_h}, {"stride(w)", c.stride_w},
                        {"dilation", c.dilation}, {"group", c.group}});
    ok = non_negative({{"pad(top)", c.pad_top}, {"pad(left)", c.pad_left}, {"pad(bottom)", c.pad_bottom},
                       {"pad(right)", c.pad_right}}) && ok;
    if (!ok) return false;
    if (c.c_in % c.group != 0) {
      add(CheckKind::Shape, fmt::format("cin={} is not divisible by group={}", c.c_in, c.group));
      ok = false;
    }
    if (c.c_out % c.group != 0) {
      add(CheckKind::Shape, fmt::format("cout={} is not divisible by group={}", c.c_out, c.group));
      ok = false;
    }
    ok = window_fits("vertical", c.h_in, (long long)c.pad_top + c.pad_bottom, c.kh, c.dilation) && ok;
    ok = window_fits("horizontal", c.w_in, (long long)c.pad_left + c.pad_right, c.kw, c.dilation) && ok;
    check_epilogue(c.epilogue);
    const Epilogue& e = c.epilogue;
    if (c.acc_out && (e.has_bias || e.has_scale_shift || e.has_residual || e.has_mul || e.act != ActOp::None)) {
      // The output stage applies once, after the last input-channel group (docs/isa.md).
      add(CheckKind::Shape, "CONV with acc_out writes partial sums: bias, scale_shift, residual, mul and act apply only "
                            "on the last group's CONV (the one without acc_out); drop them here");
      ok = false;
    }
    return ok;
  }

  bool check_shape(const GemmParams& g) {
    const bool ok = positive({{"m", g.m}, {"n", g.n}, {"k", g.k}});
    check_epilogue(g.epilogue);
    return ok;
  }

  bool check_shape(const ActParams& a) {
    bool ok = positive({{"elems", a.elems}, {"channels", a.channels}});
    if (a.op == ActOp::None) add(CheckKind::Shape, "ACT with op=none does nothing; remove it or give an op");
    if (ok && a.elems % std::uint32_t(a.channels) != 0) {
      if (is_row_wise(a.op))
        add(CheckKind::Shape,
            fmt::format("{}: elems={} is not a multiple of channels={} (for {} channels is the number of rows, "
                        "each elems/channels long)",
                        to_string(a.op), a.elems, a.channels, to_string(a.op)));
      else
        add(CheckKind::Shape, fmt::format("elems={} is not a multiple of channels={}", a.elems, a.channels));
      ok = false;
    }
    if (act_param_elems(a.op, a.channels, a.elems, a.alpha) > 0 && !a.has_param)
      add(CheckKind::Shape,
          fmt::format("op={} has no param operand; give param=ADDRESS of {}", to_string(a.op),
                      a.op == ActOp::ScaleShift      ? "scale[channels] then shift[channels]"
                      : a.op == ActOp::RmsNorm       ? "gamma[D] (D = elems/channels)"
                      : a.op == ActOp::SoftmaxOnline ? "the state m[channels], l[channels], corr[channels]"
                      : a.op == ActOp::Rope          ? "cos[d] then sin[d] per row (d = alpha)"
                                                     : "gamma[D] then beta[D] (D = elems/channels)"));
    if (ok && a.op == ActOp::Rope) {
      const std::uint32_t row = a.elems / std::uint32_t(a.channels);
      const float d = a.alpha;
      if (!(d >= 2 && d == float(std::uint32_t(d)) && std::uint32_t(d) % 2 == 0 && row % std::uint32_t(d) == 0))
        add(CheckKind::Shape, fmt::format("rope alpha={} (the head dim) is not an even whole number dividing the row "
                                          "length elems/channels={}",
                                          a.alpha, row));
    }
    if (a.op == ActOp::SoftmaxOnline && a.beta != 0.0f && a.beta != 1.0f)
      add(CheckKind::Shape, fmt::format("softmax_online beta={} is neither 1 (the row block's first key block: no "
                                        "state yet) nor 0 (a later key block: update the state)", a.beta));
    if (a.op == ActOp::SoftmaxOnline && a.has_residual && a.residual_addr == a.param_addr)
      add(CheckKind::Shape, "softmax_online reads its mask (res) from its own state (param)");
    if (a.op == ActOp::Clip && a.alpha > a.beta)
      add(CheckKind::Shape, fmt::format("clip min alpha={} is above max beta={}", a.alpha, a.beta));
    return ok;
  }

  bool check_shape(const EltwiseParams& e) {
    bool ok = positive({{"elems", e.elems}, {"b_inner", e.b_inner}});
    if (e.b_elems == 0 && (e.b_inner != 1 || e.b_offset != 0)) {
      add(CheckKind::Shape,
          fmt::format("b_inner={} / b_offset={} are given without b_elems, so they have no effect (b has elems "
                      "elements); set b_elems to the element count of the broadcast operand, or drop them",
                      e.b_inner, e.b_offset));
      ok = false;
    }
    if (e.b_offset > kMax64 - e.elems) {
      add(CheckKind::Shape, fmt::format("b_offset={} + elems={} overflows 64 bits", e.b_offset, e.elems));
      ok = false;
    }
    return ok;
  }

  bool check_shape(const HostParams& h) {
    bool ok = non_negative({{"nodes", h.nodes}});
    if (h.cycles > kMaxHostCycles) {
      add(CheckKind::Shape,
          fmt::format("HOST cycles={} is above the limit of {} core cycles (1000 s at 1 GHz): simulated time is "
                      "kept in 64-bit picoseconds and would overflow; a host partition takes micro- to "
                      "milliseconds, so check the figure (it is in NPU core cycles, not picoseconds)",
                      h.cycles, kMaxHostCycles));
      return false;
    }
    // Saturates just above the limit: each term <= 10^12, so the sum never wraps.
    host_cycles_total_ = std::min(host_cycles_total_ + h.cycles, kMaxHostCycles + 1);
    if (host_cycles_total_ > kMaxHostCycles && !host_total_reported_) {
      host_total_reported_ = true;
      add(CheckKind::Shape,
          fmt::format("the HOST instructions up to this one wait more than {} core cycles in all (1000 s at "
                      "1 GHz): simulated time is kept in 64-bit picoseconds; check the cycle counts",
                      kMaxHostCycles));
      ok = false;
    }
    return ok;
  }

  bool check_shape(const PoolParams& p) {
    bool ok = positive({{"c", p.c}, {"hin", p.h_in}, {"win", p.w_in}, {"kh", p.kh}, {"kw", p.kw},
                        {"stride(h)", p.stride_h}, {"stride(w)", p.stride_w}});
    ok = non_negative({{"pad(top)", p.pad_top}, {"pad(left)", p.pad_left}, {"pad(bottom)", p.pad_bottom},
                       {"pad(right)", p.pad_right}}) && ok;
    if (!ok || p.op == PoolOp::GlobalAvg) return ok;
    ok = window_fits("vertical", p.h_in, (long long)p.pad_top + p.pad_bottom, p.kh, 1) && ok;
    ok = window_fits("horizontal", p.w_in, (long long)p.pad_left + p.pad_right, p.kw, 1) && ok;
    return ok;
  }

  bool check_shape(const SyncParams&) { return true; }

  bool check_shape(const MoveParams& m) {
    if (m.rank < 1 || m.rank > MoveParams::kMaxDims) {
      add(CheckKind::Shape, fmt::format("MOVE rank={}; it has 1 to {} dimensions", m.rank, MoveParams::kMaxDims));
      return false;
    }
    bool ok = true;
    for (int d = 0; d < MoveParams::kMaxDims; ++d) {
      const std::size_t k = std::size_t(d);
      if (d < m.rank && m.extent[k] < 1) {
        add(CheckKind::Shape, fmt::format("'extent[{}]' is 0, it must be >= 1", d));
        ok = false;
      }
      if (d >= m.rank && (m.extent[k] != 1 || m.in_stride[k] != 0 || m.out_stride[k] != 0)) {
        add(CheckKind::Shape, fmt::format("dimension {} is past rank={} but has extent {} / strides {},{} (unused "
                                          "dimensions have extent 1 and stride 0)",
                                          d, m.rank, m.extent[k], m.in_stride[k], m.out_stride[k]));
        ok = false;
      }
    }
    if (!ok) return false;
    if (m.elems() > 0xffffffffull) {
      add(CheckKind::Shape, fmt::format("MOVE of {} elements; one MOVE moves at most 4294967295 (split it)", m.elems()));
      return false;
    }
    // Every element gets a place of its own in out: sorted by out stride, each used stride must
    // exceed the span of the smaller ones (a sufficient rule every layout layer meets; an out
    // stride of 0 over an extent > 1 writes several elements to one place).
    {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> used;  // (stride, extent)
      for (int d = 0; d < m.rank; ++d)
        if (m.extent[std::size_t(d)] > 1) used.push_back({m.out_stride[std::size_t(d)], m.extent[std::size_t(d)]});
      std::sort(used.begin(), used.end());
      std::uint64_t span = 0;  // elements spanned by the smaller dims, minus one
      for (const auto& [stride, extent] : used) {
        if (stride <= span) {
          add(CheckKind::Shape, fmt::format("MOVE out_stride {} (extent {}) does not clear the {} element(s) the "
                                            "smaller out strides span, so several elements land on one out "
                                            "element; give every element its own place",
                                            stride, extent, span + 1));
          return false;
        }
        span += (extent - 1) * stride;
      }
    }
    // In and out must not overlap: the copy has no defined order between a read and a write of
    // the same byte.
    const std::uint64_t eb = std::uint64_t(dtype_bytes(p_.dtype));
    const std::uint64_t in_end = std::uint64_t(m.in_addr) + std::min<std::uint64_t>(m.span_elems(m.in_stride), 1ull << 40) * eb;
    const std::uint64_t out_end = std::uint64_t(m.out_addr) + std::min<std::uint64_t>(m.out_elems(), 1ull << 40) * eb;
    if (m.in_addr < out_end && m.out_addr < in_end) {
      add(CheckKind::Shape, fmt::format("MOVE in [0x{:x}, 0x{:x}) overlaps out [0x{:x}, 0x{:x}); give the copy a "
                                        "separate output slot",
                                        m.in_addr, in_end, m.out_addr, out_end));
    }
    return true;  // the shape is valid: the SRAM ranges are checked too
  }

  void check_sram(const Instruction& in) {
    const std::uint64_t cap = hw_.sram.capacity_bytes;
    for (const SramOperand& op : sram_operands(in, p_.dtype)) {
      const std::uint64_t end = std::uint64_t(op.addr) + op.bytes;
      if (end > cap)
        add(CheckKind::SramRange,
            fmt::format("operand '{}' [0x{:x}, 0x{:x}) ({} bytes) ends past the SRAM capacity of {} bytes (0x{:x})",
                        op.name, op.addr, end, op.bytes, cap, cap));
    }
  }

  // ------------------------------------------------------------------ tokens

  bool check_token_balance() {
    bool ok = true;
    for (const auto& is : issues_)
      if (is.kind == CheckKind::Token) ok = false;
    for (int from = 0; from < 3; ++from)
      for (int to = 0; to < 3; ++to) {
        if (from == to) continue;
        const int t = from * 3 + to;
        if (pushes_[t] == waits_[t]) continue;
        ok = false;
        const std::string name = to_string(Token{Queue(from), Queue(to)});
        const bool more_pushes = pushes_[t] > waits_[t];
        const std::size_t at = more_pushes ? last_push_[t] : last_wait_[t];
        index_ = at;
        add(CheckKind::Token,
            fmt::format("token {} is pushed {} time{} but waited on {} time{}; {}", name, pushes_[t],
                        pushes_[t] == 1 ? "" : "s", waits_[t], waits_[t] == 1 ? "" : "s",
                        more_pushes ? fmt::format("add the missing wait={} in the {} queue or drop a push", name,
                                                  to_string(Queue(to)))
                                    : fmt::format("a wait without a push blocks the {} queue forever",
                                                  to_string(Queue(to)))));
      }
    return ok;
  }

  /// Runs the three queues in program order with counting semaphores (an instruction waits
  /// for all its tokens, then runs and pushes). With balanced tokens the program can still
  /// block: e.g. the compute queue waits on st2cp before pushing the cp2st the store queue
  /// needs first. Reports the blocked head of every queue.
  void check_deadlock() {
    std::array<std::vector<std::size_t>, 3> queue;
    for (std::size_t i = 0; i < p_.instructions.size(); ++i)
      queue[int(p_.instructions[i].queue())].push_back(i);
    std::array<std::size_t, 3> head{0, 0, 0};
    std::array<long long, 9> count{};
    bool progress = true;
    while (progress) {
      progress = false;
      for (int q = 0; q < 3; ++q)
        while (head[q] < queue[q].size()) {
          const Instruction& in = p_.instructions[queue[q][head[q]]];
          std::array<long long, 9> need{};
          for (const Token& t : in.wait) ++need[token_index(t)];
          bool ready = true;
          for (int t = 0; t < 9; ++t) ready = ready && need[t] <= count[t];
          if (!ready) break;
          for (int t = 0; t < 9; ++t) count[t] -= need[t];
          for (const Token& t : in.push) ++count[token_index(t)];
          ++head[q];
          progress = true;
        }
    }
    std::vector<std::string> blocked;
    std::size_t first = p_.instructions.size();
    for (int q = 0; q < 3; ++q) {
      if (head[q] == queue[q].size()) continue;
      const std::size_t i = queue[q][head[q]];
      first = std::min(first, i);
      std::vector<std::string> waits;
      for (const Token& t : p_.instructions[i].wait) waits.push_back(to_string(t));
      blocked.push_back(fmt::format("the {} queue at #{} (line {}) waits on {}", to_string(Queue(q)), i,
                                    p_.instructions[i].source_line, fmt::join(waits, ",")));
    }
    if (blocked.empty()) return;
    index_ = first;
    add(CheckKind::Deadlock,
        fmt::format("the queues deadlock: {}; each of those tokens is pushed only after a blocked instruction",
                    fmt::join(blocked, "; ")));
  }

  const Program& p_;
  const HwConfig& hw_;
  std::size_t index_ = 0;
  std::uint64_t host_cycles_total_ = 0;  ///< sum of HOST cycles so far (each <= kMaxHostCycles)
  bool host_total_reported_ = false;
  std::vector<CheckIssue> issues_;
  std::array<long long, 9> pushes_{}, waits_{};
  std::array<std::size_t, 9> last_push_{}, last_wait_{};
};

}  // namespace

std::vector<CheckIssue> check_program(const Program& program, const HwConfig& hw) {
  return Checker(program, hw).run();
}

}  // namespace npu::isa
