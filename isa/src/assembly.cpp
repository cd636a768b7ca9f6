// .npuasm reader and writer. The format is specified in docs/isa.md; this file and that
// page must agree (the key tables below are the "Fields" tables of the page, in canonical
// order).
#include "npu/isa/assembly.hpp"
#include "npu/base/text_lines.hpp"
#include "npu/base/user_text.hpp"
#include "npu/base/files.hpp"
#include "npu/isa/requant_operand.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace npu::isa {
namespace {

// ----------------------------------------------------------------------------------------
// Vocabulary

constexpr Opcode kOpcodes[] = {Opcode::Load, Opcode::Store, Opcode::Conv, Opcode::Gemm, Opcode::Act,
                               Opcode::Eltwise, Opcode::Pool, Opcode::Sync, Opcode::Host, Opcode::Move};
// Element-wise functions: legal as a CONV/GEMM epilogue `act` and as a stand-alone ACT op.
constexpr ActOp kEpilogueActs[] = {ActOp::None,    ActOp::Relu,  ActOp::Clip,      ActOp::LeakyRelu,
                                   ActOp::Sigmoid, ActOp::Silu,  ActOp::HardSigmoid, ActOp::HardSwish,
                                   ActOp::Erf,     ActOp::Exp,   ActOp::Sqrt,      ActOp::Reciprocal,
                                   ActOp::Tanh,    ActOp::Gelu,  ActOp::Abs,       ActOp::Neg,
                                   ActOp::Pow,     ActOp::Identity, ActOp::GeluTanh, ActOp::Log,
                                   ActOp::Floor,   ActOp::Ceil,  ActOp::Not,       ActOp::Trunc,
                                   ActOp::ToBool};
// Stand-alone ACT ops: every element-wise function but none, plus scale_shift and the
// row-wise softmax and layer_norm (not epilogue-legal).
constexpr ActOp kVectorActs[] = {ActOp::Relu,       ActOp::Clip,     ActOp::LeakyRelu, ActOp::Sigmoid,
                                 ActOp::Silu,       ActOp::HardSigmoid, ActOp::HardSwish, ActOp::ScaleShift,
                                 ActOp::Erf,        ActOp::Exp,      ActOp::Sqrt,      ActOp::Reciprocal,
                                 ActOp::Tanh,       ActOp::Gelu,     ActOp::Abs,       ActOp::Neg,
                                 ActOp::Pow,        ActOp::Identity, ActOp::Softmax,   ActOp::LayerNorm,
                                 ActOp::GeluTanh,   ActOp::RmsNorm,  ActOp::SoftmaxOnline, ActOp::Rope,
                                 ActOp::Log,        ActOp::Floor,    ActOp::Ceil,      ActOp::Not,
                                 ActOp::Trunc,      ActOp::ToBool};
constexpr EltwiseOp kEltwiseOps[] = {EltwiseOp::Add, EltwiseOp::Mul, EltwiseOp::Sub,  EltwiseOp::Div, EltwiseOp::Max,
                                     EltwiseOp::Min, EltwiseOp::Pow, EltwiseOp::RSub, EltwiseOp::RDiv,
                                     EltwiseOp::Lerp, EltwiseOp::LerpRound,
                                     EltwiseOp::Equal, EltwiseOp::Less, EltwiseOp::Greater, EltwiseOp::LessEqual,
                                     EltwiseOp::GreaterEqual, EltwiseOp::And, EltwiseOp::Or, EltwiseOp::Xor,
                                     EltwiseOp::Mod, EltwiseOp::FMod};
constexpr PoolOp kPoolOps[] = {PoolOp::Max, PoolOp::Avg, PoolOp::GlobalAvg, PoolOp::AvgPad};
constexpr Queue kQueues[] = {Queue::Load, Queue::Compute, Queue::Store};
constexpr TensorKind kTensorKinds[] = {TensorKind::Input, TensorKind::Weight, TensorKind::Output,
                                       TensorKind::Intermediate, TensorKind::KvCache};
constexpr DType kDTypes[] = {DType::Int8, DType::Fp16, DType::Fp32};

std::string name_of(Token t) { return to_string(t); }
template <class E>
std::string name_of(E e) {
  return to_string(e);
}

template <class E, std::size_t N>
std::optional<E> lookup(const std::string& text, const E (&values)[N]) {
  for (const E& v : values)
    if (name_of(v) == text) return v;
  return std::nullopt;
}

template <class E, std::size_t N>
std::vector<std::string> names(const E (&values)[N]) {
  std::vector<std::string> out;
  for (const E& v : values) out.push_back(name_of(v));
  return out;
}

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// Levenshtein distance, case-insensitive (so "conv" is 0 away from "CONV").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// "did you mean 'X'? (allowed: ...)" or just "(allowed: ...)" when nothing is close.
std::string suggest(const std::string& given, const std::vector<std::string>& options, const char* what = "allowed") {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (const auto& o : options) {
    const std::size_t d = edit_distance(given, o);
    if (d < best_d) best_d = d, best = o;
  }
  const std::size_t limit = std::max<std::size_t>(2, given.size() / 3);
  std::string hint;
  if (!best.empty() && best_d <= limit) hint = fmt::format("did you mean '{}'? ", best);
  return hint + fmt::format("({}: {})", what, join(options));
}

bool uses_alpha(ActOp a) {
  return a == ActOp::Clip || a == ActOp::LeakyRelu || a == ActOp::HardSigmoid || a == ActOp::Pow ||
         a == ActOp::LayerNorm || a == ActOp::RmsNorm || a == ActOp::SoftmaxOnline || a == ActOp::Rope;
}
bool uses_beta(ActOp a) { return a == ActOp::Clip || a == ActOp::HardSigmoid || a == ActOp::SoftmaxOnline; }
const char* alpha_meaning(ActOp a) {
  switch (a) {
    case ActOp::Clip: return "alpha=MIN beta=MAX";
    case ActOp::LeakyRelu: return "alpha=SLOPE";
    case ActOp::HardSigmoid: return "alpha=SLOPE beta=OFFSET";
    case ActOp::Pow: return "alpha=EXPONENT";
    case ActOp::LayerNorm:
    case ActOp::RmsNorm: return "alpha=EPS";
    case ActOp::SoftmaxOnline: return "alpha=SCALE beta=FIRST (1: the row block's first key block, 0: a later one)";
    case ActOp::Rope: return "alpha=HEAD_DIM (even, dividing the row length elems/channels)";
    default: return "no alpha/beta";
  }
}
/// Ops whose ACT `param=` operand is required (and the only ones that take it).
bool uses_param(ActOp a) { return act_param_elems(a, 1, 1) > 0; }  // one row of one element

// ----------------------------------------------------------------------------------------
// The fields of each opcode: one table per parameter struct, in canonical (written) order,
// that the reader and the writer both walk. A scalar column names its member; a group
// column (stride, pad, the epilogue, requant, ...) is read and written by code of its own,
// and the keys after it that it covers are Part columns.

enum class Need { Optional, Required };

enum class Kind {
  Sram,      // uint32 SRAM byte address, written 0x-hex
  FlagSram,  // optional SRAM address with a presence flag (has_bias, bias_addr)
  Dim,       // int size >= 1, written decimal
  Count,     // uint32 element count, read in [lo, 0xffffffff], written decimal
  Uint64,    // uint64, written decimal
  Hex64,     // uint64 DDR address, written 0x-hex
  NonNeg,    // int in [0, 2^31 - 1], written decimal
  Tensor, Elem, DmaShape, MoveShape, Stride2, Pad, Epilogue, Requant, Op, Param, AlphaBeta,  // groups
  Part,      // a key its group column (the nearest one before it) reads and writes
};

/// A group or part column: a key without a member.
struct Key {
  const char* key;
  Kind kind;
  Need need = Need::Optional;
};

template <class P>
struct Column {
  Column(Key k) : key(k.key), kind(k.kind), need(k.need) {}  // NOLINT: tables mix Key and Column
  const char* key;
  Kind kind;
  Need need;
  std::uint32_t P::*u32 = nullptr;
  int P::*i32 = nullptr;
  std::uint64_t P::*u64 = nullptr;
  bool P::*flag = nullptr;
  std::uint64_t omit = 0;  ///< an optional scalar holding this value is not written
  std::uint64_t lo = 0;    ///< Count: the smallest value read
  const char* hint = "";   ///< Count: the range hint of its errors
};

template <class P>
Column<P> sram(const char* key, std::uint32_t P::*m) {
  Column<P> c(Key{key, Kind::Sram, Need::Required});
  c.u32 = m;
  return c;
}
template <class P>
Column<P> flag_sram(const char* key, bool P::*flag, std::uint32_t P::*m) {
  Column<P> c(Key{key, Kind::FlagSram});
  c.flag = flag;
  c.u32 = m;
  return c;
}
// A size >= 1; an optional one (need Optional) is not written when it is `omit`.
template <class P>
Column<P> dim(const char* key, int P::*m, Need need = Need::Required, int omit = 1) {
  Column<P> c(Key{key, Kind::Dim, need});
  c.i32 = m;
  c.omit = std::uint64_t(omit);
  return c;
}
template <class P>
Column<P> count(const char* key, std::uint32_t P::*m, Need need = Need::Required, std::uint64_t omit = 0,
                const char* hint = "") {
  Column<P> c(Key{key, Kind::Count, need});
  c.u32 = m;
  c.lo = 1;
  c.omit = omit;
  c.hint = hint;
  return c;
}
template <class P>
Column<P> uint64(const char* key, std::uint64_t P::*m, Kind kind = Kind::Uint64, Need need = Need::Required) {
  Column<P> c(Key{key, kind, need});
  c.u64 = m;
  return c;
}
template <class P>
Column<P> non_negative(const char* key, int P::*m) {
  Column<P> c(Key{key, Kind::NonNeg, Need::Required});
  c.i32 = m;
  return c;
}

constexpr Need kReq = Need::Required;

template <class P>
const std::vector<Column<P>>& columns();

// The epilogue's operands (CONV, GEMM), read and written inside the Epilogue group.
template <>
const std::vector<Column<Epilogue>>& columns<Epilogue>() {
  static const std::vector<Column<Epilogue>> t = {
      flag_sram("in_scale", &Epilogue::has_in_scale, &Epilogue::in_scale_addr),
      flag_sram("bias", &Epilogue::has_bias, &Epilogue::bias_addr),
      flag_sram("scale_shift", &Epilogue::has_scale_shift, &Epilogue::scale_shift_addr),
      flag_sram("residual", &Epilogue::has_residual, &Epilogue::residual_addr),
      flag_sram("mul", &Epilogue::has_mul, &Epilogue::mul_addr)};
  return t;
}
// The keys of the Epilogue group: its operands, requant, act.
const std::vector<Key> kEpilogueKeys = {{"in_scale", Kind::Epilogue}, {"bias", Kind::Part},   {"scale_shift", Kind::Part},
                                        {"residual", Kind::Part},     {"mul", Kind::Part},     {"requant", Kind::Part}, {"zp", Kind::Part},
                                        {"clamp", Kind::Part},        {"act", Kind::Part},     {"alpha", Kind::Part},
                                        {"beta", Kind::Part}};
const std::vector<Key> kRequantKeys = {{"requant", Kind::Requant}, {"zp", Kind::Part}, {"clamp", Kind::Part}};
// ACT's: an int8 softmax also takes mask=-128 (Requant::mask_lowest).
const std::vector<Key> kActRequantKeys = {{"requant", Kind::Requant}, {"zp", Kind::Part}, {"clamp", Kind::Part},
                                          {"mask", Kind::Part}};

template <class P>
std::vector<Column<P>> with_keys(std::vector<Column<P>> t, const std::vector<Key>& keys) {
  t.insert(t.end(), keys.begin(), keys.end());
  return t;
}

template <>
const std::vector<Column<DmaDesc>>& columns<DmaDesc>() {
  static const std::vector<Column<DmaDesc>> t = {
      Key{"tensor", Kind::Tensor, kReq}, uint64("ddr", &DmaDesc::ddr_addr, Kind::Hex64), sram("sram", &DmaDesc::sram_addr),
      Key{"elem", Kind::Elem},           Key{"extent", Kind::DmaShape, kReq},             Key{"stride", Kind::Part},
      // The gather form (docs/isa.md "LOAD gather"): optional keys, so version 1 only grows.
      flag_sram("index", &DmaDesc::gather, &DmaDesc::index_addr),
      count("table_rows", &DmaDesc::gather_rows, Need::Optional, 0,
            "'table_rows' is the row count of the table a gather LOAD reads (>= 1)"),
      count("index_float", &DmaDesc::index_float, Need::Optional, 0,
            "'index_float' is 4 when a gather LOAD's indices are fp32 values (omit it for int32 indices)")};
  return t;
}
template <>
const std::vector<Column<ConvParams>>& columns<ConvParams>() {
  using C = ConvParams;
  static const std::vector<Column<C>> t = with_keys<C>(
      {sram("in", &C::in_addr), sram("w", &C::w_addr), sram("out", &C::out_addr), dim("cin", &C::c_in),
       dim("hin", &C::h_in), dim("win", &C::w_in), dim("cout", &C::c_out), dim("kh", &C::kh), dim("kw", &C::kw),
       Key{"stride", Kind::Stride2}, Key{"pad", Kind::Pad}, dim("dilation", &C::dilation, Need::Optional),
       dim("group", &C::group, Need::Optional), flag_sram("acc_in", &C::acc_in, &C::acc_in_addr),
       flag_sram("acc_out", &C::acc_out, &C::acc_out_addr)},
      kEpilogueKeys);
  return t;
}
template <>
const std::vector<Column<GemmParams>>& columns<GemmParams>() {
  using G = GemmParams;
  static const std::vector<Column<G>> t = with_keys<G>({sram("a", &G::a_addr), sram("b", &G::b_addr),
                                                        sram("out", &G::out_addr), dim("m", &G::m), dim("n", &G::n),
                                                        dim("k", &G::k)},
                                                       kEpilogueKeys);
  return t;
}
template <>
const std::vector<Column<ActParams>>& columns<ActParams>() {
  using A = ActParams;
  static const std::vector<Column<A>> t = with_keys<A>(
      with_keys<A>({Key{"op", Kind::Op, kReq}, sram("in", &A::in_addr), flag_sram("res", &A::has_residual, &A::residual_addr),
                    sram("out", &A::out_addr), count("elems", &A::elems), dim("channels", &A::channels, Need::Optional),
                    Key{"param", Kind::Param}},
                   kActRequantKeys),
      {{"alpha", Kind::AlphaBeta}, {"beta", Kind::Part}});
  return t;
}
template <>
const std::vector<Column<EltwiseParams>>& columns<EltwiseParams>() {
  using E = EltwiseParams;
  // Broadcast keys (docs/isa.md, ELTWISE): b[((b_offset + i) / b_inner) % b_elems].
  static const std::vector<Column<E>> t = with_keys<E>(
      {Key{"op", Kind::Op, kReq}, sram("a", &E::a_addr), sram("b", &E::b_addr), sram("out", &E::out_addr),
       count("elems", &E::elems),
       count("b_elems", &E::b_elems, Need::Optional, 0,
             "'b_elems' is the element count of a broadcast b (>= 1); leave it out when b has elems elements (no "
             "broadcast)"),
       count("b_inner", &E::b_inner, Need::Optional, 1,
             "'b_inner' is how many consecutive elements share one b element (>= 1; 1 = the default)"),
       uint64("b_offset", &E::b_offset, Kind::Uint64, Need::Optional)},
      kRequantKeys);
  return t;
}
template <>
const std::vector<Column<PoolParams>>& columns<PoolParams>() {
  using P = PoolParams;
  static const std::vector<Column<P>> t = with_keys<P>(
      {Key{"op", Kind::Op, kReq}, sram("in", &P::in_addr), sram("out", &P::out_addr), dim("c", &P::c),
       dim("hin", &P::h_in), dim("win", &P::w_in), dim("kh", &P::kh, Need::Optional), dim("kw", &P::kw, Need::Optional),
       Key{"stride", Kind::Stride2}, Key{"pad", Kind::Pad}},
      kRequantKeys);
  return t;
}
template <>
const std::vector<Column<SyncParams>>& columns<SyncParams>() {
  static const std::vector<Column<SyncParams>> t = {Key{"queue", Kind::Op, kReq}};
  return t;
}
template <>
const std::vector<Column<HostParams>>& columns<HostParams>() {
  using H = HostParams;
  static const std::vector<Column<H>> t = {uint64("cycles", &H::cycles), uint64("macs", &H::macs),
                                           uint64("rd", &H::rd), uint64("wr", &H::wr), non_negative("nodes", &H::nodes)};
  return t;
}
// MOVE `zero=N` (optional, not written when 0): N elements of the out box cleared first.
Column<MoveParams> move_zero() {
  Column<MoveParams> c = count("zero", &MoveParams::zero, Need::Optional, 0,
                                   "'zero' is how many elements of out are set to 0 before the copy (0 to 4294967295)");
  c.lo = 0;
  return c;
}
template <>
const std::vector<Column<MoveParams>>& columns<MoveParams>() {
  using M = MoveParams;
  static const std::vector<Column<M>> t = {sram("in", &M::in_addr), sram("out", &M::out_addr),
                                           Key{"extent", Kind::MoveShape, kReq}, Key{"in_stride", Kind::Part},
                                           Key{"out_stride", Kind::Part}, move_zero()};
  return t;
}

template <class P>
constexpr bool kWindowed = std::is_same_v<P, ConvParams> || std::is_same_v<P, PoolParams>;
template <class P>
constexpr bool kHasEpilogue = std::is_same_v<P, ConvParams> || std::is_same_v<P, GemmParams>;
template <class P>
constexpr bool kHasRequant =
    std::is_same_v<P, ActParams> || std::is_same_v<P, EltwiseParams> || std::is_same_v<P, PoolParams>;

/// Calls f(P{}) with the parameter struct P of `op` (a type tag) and returns what it returns.
template <class F>
auto with_params_of(Opcode op, F&& f) {
  switch (op) {
    case Opcode::Load:
    case Opcode::Store: return f(DmaDesc{});
    case Opcode::Conv: return f(ConvParams{});
    case Opcode::Gemm: return f(GemmParams{});
    case Opcode::Act: return f(ActParams{});
    case Opcode::Eltwise: return f(EltwiseParams{});
    case Opcode::Pool: return f(PoolParams{});
    case Opcode::Sync: return f(SyncParams{});
    case Opcode::Host: return f(HostParams{});
    case Opcode::Move: return f(MoveParams{});
  }
  throw std::logic_error("npuasm: no field table for opcode");
}

// Keys of each opcode in canonical (written) order: layer, the table's, wait and push.
struct OpKeys {
  std::vector<std::string> keys;      // canonical order
  std::vector<std::string> required;  // subset of keys
};

const OpKeys& keys_of(Opcode op) {
  static const std::map<Opcode, OpKeys> table = [] {
    std::map<Opcode, OpKeys> t;
    for (const Opcode o : kOpcodes)
      t[o] = with_params_of(o, [](auto tag) {
        OpKeys k;
        k.keys.push_back("layer");
        for (const auto& c : columns<decltype(tag)>()) {
          k.keys.push_back(c.key);
          if (c.need == Need::Required) k.required.push_back(c.key);
        }
        k.keys.push_back("wait");
        k.keys.push_back("push");
        return k;
      });
    return t;
  }();
  return table.at(op);
}

// A byte a .npuasm word cannot hold: whitespace, a control character, DEL or '#'.
bool breaks_word(unsigned char c) { return c <= ' ' || c == '#' || c == 0x7f; }

// A name (layer, tensor, program) must be one .npuasm word: no whitespace, no '#'.
bool writable_name(const std::string& s) {
  return !s.empty() && std::none_of(s.begin(), s.end(), [](char c) { return breaks_word(static_cast<unsigned char>(c)); });
}

}  // namespace

std::string asm_word(const std::string& name, const std::string& fallback) {
  if (name.empty()) return fallback;
  std::string out = name;
  for (char& c : out)
    if (breaks_word(static_cast<unsigned char>(c))) c = '_';
  return out;
}

namespace {

// ----------------------------------------------------------------------------------------
// Reader

struct Word {
  std::string text;
  int col = 0;  // 1-based byte column
};

struct Field {
  std::string key, value;
  int key_col = 0, value_col = 0;
};

const char* kNumberHint = "numbers are decimal (4096) or hexadecimal with a 0x prefix (0x1000)";
const char* kRequantHint =
    "requant=ADDRESS is int8 requantisation (docs/isa.md): CONV/GEMM with act none/relu/clip, ACT relu/clip/identity/scale_shift, "
    "softmax/layer_norm/rms_norm (row statistics) or any element-wise op (a lookup table), ELTWISE add/mul (lerp/lerp_round: their weight table), POOL global_avg";

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Program read(const std::string& text) {
    // A UTF-8 byte-order mark (some editors add one) is not part of the first line.
    std::size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    line_ = 0;
    // At most one instruction per line: one allocation instead of log2(n) reallocations that
    // each move every instruction read so far (a 7B decode step has 158,000 lines).
    program_.instructions.reserve(std::size_t(std::count(text.begin(), text.end(), '\n')) + 1);
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      ++line_;
      read_line(text.substr(start, end - start));
      start = end + 1;
    }
    if (!header_seen_) {
      line_ = 1;
      fail(1, "missing '.npuasm 1' version header (the text has no directives or instructions)",
           "start the file with the line '.npuasm 1'");
    }
    return std::move(program_);
  }

 private:
  [[noreturn]] void fail(int col, const std::string& reason, const std::string& hint = "") const {
    std::string msg = fmt::format("{}:{}:{}: error: {}", source_, line_, col, reason);
    if (!hint.empty()) msg += "\n  " + hint;
    throw ConfigError(msg);
  }

  static std::vector<Word> split(const std::string& line) {
    std::vector<Word> words;
    std::size_t i = 0;
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; };
    while (i < line.size()) {
      if (space(line[i])) {
        ++i;
        continue;
      }
      if (line[i] == '#') break;
      const std::size_t begin = i;
      while (i < line.size() && !space(line[i]) && line[i] != '#') ++i;
      words.push_back({line.substr(begin, i - begin), int(begin) + 1});
    }
    return words;
  }

  void read_line(const std::string& line) {
    const std::vector<Word> words = split(line);
    if (words.empty()) return;
    const Word& head = words[0];
    if (!header_seen_) {
      if (head.text != ".npuasm")
        fail(head.col, fmt::format("missing '.npuasm 1' version header before '{}'", echo(head.text)),
             "the first line that is not blank or a comment must be '.npuasm 1'");
      read_version(words);
      return;
    }
    if (head.text[0] == '.') {
      if (head.text == ".npuasm")
        fail(head.col, "duplicate '.npuasm' version header", "a file has exactly one '.npuasm 1' line, at the top");
      if (head.text == ".program") return read_program_directive(words);
      if (head.text == ".tensor") return read_tensor(words);
      fail(head.col, fmt::format("unknown directive '{}'", echo(head.text)),
           suggest(head.text, {".npuasm", ".program", ".tensor"}));
    }
    read_instruction(words);
  }

  // -------------------------------------------------------------------- directives

  void read_version(const std::vector<Word>& words) {
    if (words.size() < 2)
      fail(words[0].col + 7, "malformed directive: '.npuasm' needs a version number",
           fmt::format("write '.npuasm {}'", kIsaVersion));
    if (words.size() > 2)
      fail(words[2].col, fmt::format("unexpected '{}' after the version number", echo(words[2].text)),
           fmt::format("write '.npuasm {}'", kIsaVersion));
    const std::uint64_t v = parse_uint(words[1].text, words[1].col, "version", 0, 1u << 30);
    if (v != std::uint64_t(kIsaVersion))
      fail(words[1].col, fmt::format("unsupported .npuasm version {}", v),
           fmt::format("this reader supports version {} only (docs/isa.md, 'Versioning')", kIsaVersion));
    program_.version = kIsaVersion;
    header_seen_ = true;
  }

  void read_program_directive(const std::vector<Word>& words) {
    if (program_line_ != 0)
      fail(words[0].col, fmt::format("duplicate '.program' directive (first on line {})", program_line_),
           "a file has at most one '.program' line");
    program_line_ = line_;
    // `.program NAME key=value ...` is accepted as a short form of `.program name=NAME ...`.
    std::size_t first = 1;
    if (words.size() > 1 && words[1].text.find('=') == std::string::npos) {
      program_.name = checked_name(words[1].text, words[1].col, "name");
      first = 2;
    }
    const auto fields =
        parse_fields(words, first, {"name", "strategy", "dtype", "hw", "array", "sram", "dataflow"}, ".program");
    if (first == 2 && find(fields, "name"))
      fail(find(fields, "name")->key_col, "the program name is given twice (as the first word and as name=)",
           "write either '.program NAME ...' or '.program name=NAME ...'");
    if (const Field* f = find(fields, "name")) program_.name = parse_name(*f);
    if (const Field* f = find(fields, "strategy")) program_.strategy = parse_name(*f);
    if (const Field* f = find(fields, "dtype")) program_.dtype = parse_enum(*f, kDTypes, "dtype");
    read_compiled_for(fields);
  }

  // `.program ... hw=NAME array=RxC sram=BYTES dataflow=NAME`: the config it was compiled for.
  void read_compiled_for(const std::vector<Field>& fields) {
    // All four or none: a program written by the compiler has all of them; a subset could not be
    // written back (new-user finding: `npu asm fmt` failed with an internal error).
    const char* keys[] = {"hw", "array", "sram", "dataflow"};
    const Field* given = nullptr;
    for (const char* k : keys)
      if (const Field* f = find(fields, k)) given = f;
    if (!given) return;
    for (const char* k : keys)
      if (!find(fields, k))
        fail(given->key_col,
             fmt::format("'{}' without '{}': the config a program was compiled for needs all four", given->key, k),
             "write hw=NAME array=ROWSxCOLS sram=BYTES dataflow=weight_stationary|output_stationary|input_stationary, "
             "or none of them");
    CompiledFor& c = program_.compiled_for;
    if (const Field* f = find(fields, "hw")) c.hw = parse_name(*f);
    if (const Field* f = find(fields, "array")) {
      const std::size_t x = f->value.find('x');
      const char* hint = "write array=ROWSxCOLS, e.g. array=32x32";
      if (x == std::string::npos) fail(f->value_col, "array='" + f->value + "' is not ROWSxCOLS", hint);
      c.rows = int(parse_uint(f->value.substr(0, x), f->value_col, "array rows", 1, 1u << 20));
      c.cols = int(parse_uint(f->value.substr(x + 1), f->value_col + int(x) + 1, "array cols", 1, 1u << 20));
    }
    if (const Field* f = find(fields, "sram")) c.sram_bytes = parse_uint(f->value, f->value_col, "sram", 1, UINT64_MAX);
    if (const Field* f = find(fields, "dataflow")) {
      c.dataflow = parse_name(*f);
      if (c.dataflow != "weight_stationary" && c.dataflow != "output_stationary" && c.dataflow != "input_stationary")
        fail(f->value_col, "unknown dataflow '" + c.dataflow + "'",
             "allowed: weight_stationary, output_stationary, input_stationary (mac_array.dataflow)");
    }
  }

  void read_tensor(const std::vector<Word>& words) {
    const char* usage = "write '.tensor NAME kind=input|weight|output|intermediate|kv_cache ddr=ADDRESS bytes=SIZE'";
    if (words.size() < 2 || words[1].text.find('=') != std::string::npos)
      fail(words.size() < 2 ? words[0].col + 7 : words[1].col, "malformed directive: '.tensor' needs a name first",
           usage);
    TensorDecl t;
    t.name = checked_name(words[1].text, words[1].col, "tensor name");
    t.source_line = line_;
    if (auto it = tensor_index_.find(t.name); it != tensor_index_.end())
      fail(words[1].col,
           fmt::format("tensor '{}' is already declared on line {}", t.name,
                       program_.tensors[it->second].source_line),
           "give every tensor a unique name");
    const auto fields = parse_fields(words, 2, {"kind", "ddr", "bytes"}, ".tensor");
    t.kind = parse_enum(required(fields, "kind", words[0].col, usage), kTensorKinds, "kind");
    t.ddr_addr = parse_uint(required(fields, "ddr", words[0].col, usage), 0, UINT64_MAX);
    t.bytes = parse_uint(required(fields, "bytes", words[0].col, usage), 1, UINT64_MAX);
    tensor_index_[t.name] = program_.tensors.size();
    program_.tensors.push_back(std::move(t));
  }

  // -------------------------------------------------------------------- fields

  std::vector<Field> parse_fields(const std::vector<Word>& words, std::size_t first,
                                  const std::vector<std::string>& allowed, const std::string& owner) {
    std::vector<Field> fields;
    for (std::size_t i = first; i < words.size(); ++i) {
      const Word& w = words[i];
      const std::size_t eq = w.text.find('=');
      if (eq == std::string::npos) {
        if (fields.empty())
          fail(w.col, fmt::format("expected key=value, found '{}'", echo(w.text)),
               "fields are written key=value with no spaces around '='");
        fail(w.col, fmt::format("unexpected '{}' after the value of '{}'", echo(w.text), fields.back().key),
             "fields are written key=value with no spaces around '=' (lists as 1,2,3 without spaces); "
             "'#' starts a comment");
      }
      Field f{w.text.substr(0, eq), w.text.substr(eq + 1), w.col, w.col + int(eq) + 1};
      // key="two words": the quote opens in this word and closes in a later one. Names are
      // single unquoted words (docs/isa.md), so this is the quoting error, naming the space.
      const auto closes_later = [&] {
        for (std::size_t j = i + 1; j < words.size(); ++j)
          if (words[j].text.find('"') != std::string::npos) return true;
        return false;
      };
      if (!f.value.empty() && f.value[0] == '"' && f.value.find('"', 1) == std::string::npos && closes_later()) {
        std::string quoted = f.value;
        for (std::size_t j = i + 1; j < words.size(); ++j) {
          quoted += " " + words[j].text;
          if (words[j].text.find('"') != std::string::npos) break;
        }
        std::string fixed = quoted.substr(1);
        if (!fixed.empty() && fixed.back() == '"') fixed.pop_back();
        for (char& c : fixed)
          if (c == ' ' || c == '"') c = '_';
        fail(f.value_col, fmt::format("quoted {} '{}' contains a space", echo(f.key), echo(quoted)),
             fmt::format(".npuasm names are single words and are not quoted: write it without quotes and spaces, "
                         "e.g. {}={}",
                         f.key, echo(fixed)));
      }
      if (f.key.empty()) fail(w.col, "missing key before '='", "fields are written key=value");
      if (std::find(allowed.begin(), allowed.end(), f.key) == allowed.end())
        fail(w.col, fmt::format("unknown key '{}' for {}", echo(f.key), owner), suggest(echo(f.key), allowed));
      for (const Field& g : fields)
        if (g.key == f.key)
          fail(w.col, fmt::format("duplicate key '{}' (first given at column {})", echo(f.key), g.key_col),
               "give each key once");
      if (f.value.empty())
        fail(f.value_col, fmt::format("missing value after '{}='", echo(f.key)), "write key=value with no spaces");
      fields.push_back(std::move(f));
    }
    return fields;
  }

  static const Field* find(const std::vector<Field>& fields, const std::string& key) {
    for (const Field& f : fields)
      if (f.key == key) return &f;
    return nullptr;
  }

  const Field& required(const std::vector<Field>& fields, const std::string& key, int col,
                        const std::string& hint) const {
    if (const Field* f = find(fields, key)) return *f;
    fail(col, fmt::format("missing required key '{}'", key), hint);
  }

  // -------------------------------------------------------------------- values

  /// Unsigned integer, decimal or 0x-hex, in [lo, hi]. `col` is the column of text[0].
  std::uint64_t parse_uint(const std::string& text, int col, const std::string& key, std::uint64_t lo,
                           std::uint64_t hi, const std::string& range_hint = "") const {
    if (text.empty()) fail(col, fmt::format("empty value in the list of '{}'", key), kNumberHint);
    const bool negative = text[0] == '-' && text.size() > 1 && std::isdigit(static_cast<unsigned char>(text[1]));
    if (negative)
      fail(col, fmt::format("value {} of '{}' is out of range: it must not be negative", echo(text), key),
           range_hint.empty() ? fmt::format("'{}' takes a value >= {}", key, lo) : range_hint);
    const bool hex = text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const char* begin = text.data() + (hex ? 2 : 0);
    const char* end = text.data() + text.size();
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v, hex ? 16 : 10);
    if (ptr == begin) fail(col, fmt::format("malformed number '{}' for '{}'", echo(text), key), kNumberHint);
    if (ec == std::errc::result_out_of_range)
      fail(col, fmt::format("value {} of '{}' is out of range (more than 64 bits)", echo(text), key),
           range_hint.empty() ? fmt::format("'{}' takes a value in [{}, {}]", key, lo, hi) : range_hint);
    if (ptr != end)
      fail(col + int(ptr - text.data()),
           fmt::format("unexpected '{}' after the number '{}' in '{}'", std::string(ptr, end),
                       std::string(text.data(), ptr), key),
           kNumberHint);
    if (v < lo || v > hi) {
      std::string bound = v < lo ? fmt::format("must be >= {}", lo)
                                 : (hi == 0xffffffffull ? std::string("must fit in 32 bits (<= 0xffffffff)")
                                                        : fmt::format("must be <= {}", hi));
      fail(col, fmt::format("value {} of '{}' is out of range: it {}", echo(text), key, bound),
           range_hint.empty() ? fmt::format("'{}' takes a value in [{}, {}]", key, lo, hi) : range_hint);
    }
    return v;
  }

  /// Signed decimal integer in [lo, hi] (zero points, clamp bounds). `col` is the column of text[0].
  int parse_int(const std::string& text, int col, const std::string& key, int lo, int hi) const {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string digits = negative ? text.substr(1) : text;
    if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0])))
      fail(col, fmt::format("malformed number '{}' for '{}'", echo(text), key),
           "zero points and clamp bounds are signed decimal integers such as -128, 0 or 127");
    const std::int64_t mag = std::int64_t(parse_uint(digits, col + (negative ? 1 : 0), key, 0, 1u << 20,
                                                     fmt::format("'{}' takes values in [{}, {}]", key, lo, hi)));
    const std::int64_t v = negative ? -mag : mag;
    if (v < lo || v > hi)
      fail(col, fmt::format("value {} of '{}' is out of range [{}, {}]", echo(text), key, lo, hi),
           "int8 zero points and clamp bounds lie in [-128, 127]");
    return int(v);
  }

  /// requant=ADDRESS [zp=IN,OUT | zp=A,B,OUT (ELTWISE)] [clamp=MIN,MAX] (docs/isa.md).
  Requant read_requant(const std::vector<Field>& fields, bool two_inputs) const {
    Requant r;
    if (const Field* f = find(fields, "requant")) r.on = true, r.addr = sram_addr(*f);
    if (const Field* f = find(fields, "zp")) {
      const std::size_t n = two_inputs ? 3 : 2;
      const auto v = list(*f, n, n, two_inputs ? "zp=A,B,OUT: the zero points of a, b and the output"
                                               : "zp=IN,OUT: the zero points of the input and the output");
      r.in_zp = parse_int(v[0].text, v[0].col, "zp", -128, 127);
      if (two_inputs) r.b_zp = parse_int(v[1].text, v[1].col, "zp", -128, 127);
      r.out_zp = parse_int(v[n - 1].text, v[n - 1].col, "zp", -128, 127);
    }
    if (const Field* f = find(fields, "clamp")) {
      const auto v = list(*f, 2, 2, "clamp=MIN,MAX: the int8 output range after requantisation");
      r.clamp_min = parse_int(v[0].text, v[0].col, "clamp", -128, 127);
      r.clamp_max = parse_int(v[1].text, v[1].col, "clamp", -128, 127);
    }
    if (const Field* f = find(fields, "mask")) {
      if (f->value != "-128")
        fail(f->value_col, fmt::format("mask={}: the only mask is -128 (inputs at the grid's lowest code weigh 0 in "
                                       "an int8 softmax); write mask=-128 or leave it out", f->value));
      r.mask_lowest = true;
    }
    return r;
  }

  std::uint64_t parse_uint(const Field& f, std::uint64_t lo, std::uint64_t hi, const std::string& hint = "") const {
    return parse_uint(f.value, f.value_col, f.key, lo, hi, hint);
  }
  std::uint32_t sram_addr(const Field& f) const {
    return std::uint32_t(parse_uint(f, 0, 0xffffffffull,
                                    "SRAM addresses are 32-bit byte offsets into the scratchpad (0 .. 0xffffffff)"));
  }
  int dim(const Field& f) const { return int(parse_uint(f, 1, INT32_MAX, fmt::format("'{}' is a size >= 1", f.key))); }

  struct Item {
    std::string text;
    int col;
  };
  std::vector<Item> list(const Field& f, std::size_t min_n, std::size_t max_n, const std::string& usage) const {
    std::vector<Item> items;
    std::size_t start = 0;
    while (true) {
      std::size_t comma = f.value.find(',', start);
      if (comma == std::string::npos) comma = f.value.size();
      items.push_back({f.value.substr(start, comma - start), f.value_col + int(start)});
      if (comma == f.value.size()) break;
      start = comma + 1;
    }
    for (const Item& it : items)
      if (it.text.empty()) fail(it.col, fmt::format("empty element in the list of '{}'", echo(f.key)), usage);
    if (items.size() < min_n || items.size() > max_n)
      fail(f.value_col,
           fmt::format("'{}' has {} value{}; {}", echo(f.key), items.size(), items.size() == 1 ? "" : "s",
                       min_n == max_n ? fmt::format("it takes exactly {}", min_n)
                       : items.size() > max_n ? fmt::format("at most {} are allowed", max_n)
                                              : fmt::format("at least {} are required", min_n)),
           usage);
    return items;
  }

  float parse_float(const Field& f) const {
    const char* begin = f.value.data();
    const char* end = begin + f.value.size();
    float v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v, std::chars_format::general);
    if (ptr == begin)
      fail(f.value_col, fmt::format("malformed number '{}' for '{}'", echo(f.value), echo(f.key)),
           "write a decimal floating-point number such as 6, 0.1 or -1.5e-3");
    if (ec == std::errc::result_out_of_range)
      fail(f.value_col, fmt::format("value {} of '{}' is out of range for a 32-bit float", echo(f.value), echo(f.key)),
           "use a value within +-3.4e38 (or inf / -inf)");
    if (ptr != end)
      fail(f.value_col + int(ptr - begin),
           fmt::format("unexpected '{}' after the number '{}' in '{}'", std::string(ptr, end),
                       std::string(begin, ptr), f.key),
           "write a decimal floating-point number such as 6, 0.1 or -1.5e-3");
    if (std::isnan(v)) fail(f.value_col, fmt::format("'{}' must not be NaN", echo(f.key)), "give a number (inf is allowed)");
    return v;
  }

  std::string parse_name(const Field& f) const { return checked_name(f.value, f.value_col, f.key); }

  // .npuasm names are single words and never quoted: a word starting with '"' is a quoting
  // attempt (e.g. name="x or name="x"), rejected at the quote's column rather than read as a
  // name that contains quote characters.
  std::string checked_name(const std::string& text, int col, const std::string& what) const {
    if (!text.empty() && text[0] == '"') {
      const std::size_t close = text.find('"', 1);
      if (close == std::string::npos)
        fail(col, fmt::format("unclosed quote in {} '{}'", echo(what), echo(text)),
             ".npuasm names are single words and are not quoted: write it without the quote, e.g. " + what +
                 "=" + text.substr(1));
      fail(col, fmt::format("quoted {} '{}'", echo(what), echo(text)),
           ".npuasm names are single words and are not quoted: remove the quotes");
    }
    // The writer cannot print a control character in a name (writable_name), so the reader
    // takes none either: read_program(write_program(p)) == p holds for every program read.
    for (std::size_t i = 0; i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c < 0x20 || c == 0x7f)
        fail(col + int(i), fmt::format("{} holds the control character 0x{:02x}", what, c),
             "names are printable words: delete the character (editors often show it as ^X or not at all)");
    }
    return text;
  }

  template <class E, std::size_t N>
  E parse_enum(const Field& f, const E (&values)[N], const std::string& what) const {
    if (auto v = lookup(f.value, values)) return *v;
    fail(f.value_col, fmt::format("unknown {} '{}'", echo(what), echo(f.value)), suggest(echo(f.value), names(values)));
  }

  struct TokenAt {
    Token token;
    int col;
  };
  std::vector<TokenAt> parse_tokens(const Field& f) const {
    std::vector<TokenAt> out;
    for (const Item& it : list(f, 1, 64, "tokens are a comma-separated list such as ld2cp,st2cp"))
      if (auto t = lookup(it.text, kAllTokens))
        out.push_back({*t, it.col});
      else
        fail(it.col, fmt::format("unknown token '{}'", echo(it.text)),
             suggest(it.text, names(kAllTokens), "tokens are FROM2TO between the queues ld, cp, st"));
    return out;
  }

  // -------------------------------------------------------------------- the field table

  /// The parameters of one instruction, walking its opcode's column table.
  template <class P>
  P read_params(const std::vector<Field>& fields, Instruction& inst, const Word& head) {
    P p;
    for (const Column<P>& c : columns<P>()) {
      const Field* f = find(fields, c.key);
      if (c.kind < Kind::Tensor) {
        // (SYNC has no scalar columns; skipping it keeps GCC from warning about a uint64 member of a 4-byte struct.)
        if constexpr (!std::is_same_v<P, SyncParams>)
          if (f) read_scalar(c, *f, p);
      } else if (c.kind != Kind::Part) {
        read_group(c, fields, p, inst, head);
      }
    }
    return p;
  }

  template <class P>
  void read_scalar(const Column<P>& c, const Field& f, P& p) const {
    switch (c.kind) {
      case Kind::Sram: p.*c.u32 = sram_addr(f); break;
      case Kind::FlagSram: p.*c.flag = true, p.*c.u32 = sram_addr(f); break;
      case Kind::Dim: p.*c.i32 = dim(f); break;
      case Kind::Count: p.*c.u32 = std::uint32_t(parse_uint(f, c.lo, 0xffffffffull, c.hint)); break;
      case Kind::Uint64:
      case Kind::Hex64: p.*c.u64 = parse_uint(f, 0, UINT64_MAX); break;
      case Kind::NonNeg: p.*c.i32 = int(parse_uint(f, 0, INT32_MAX)); break;
      default: throw std::logic_error("npuasm: not a scalar column");
    }
  }

  /// A group column of P: the keys it covers are read here, by code of their own.
  template <class P>
  void read_group(const Column<P>& c, const std::vector<Field>& fields, P& p, Instruction& inst, const Word& head) {
    const Kind k = c.kind;
    if constexpr (std::is_same_v<P, DmaDesc>) {
      if (k == Kind::Tensor) inst.tensor = read_tensor_field(fields, head);
      if (k == Kind::Elem) read_elem(fields, p);
      if (k == Kind::DmaShape) read_dma_shape(fields, p, head);
    }
    if constexpr (std::is_same_v<P, MoveParams>)
      if (k == Kind::MoveShape) read_move_shape(fields, p);
    if constexpr (kWindowed<P>) {
      if (k == Kind::Stride2) read_stride2(fields, p.stride_h, p.stride_w);
      if (k == Kind::Pad) read_pad(fields, p.pad_top, p.pad_left, p.pad_bottom, p.pad_right);
    }
    if constexpr (kHasEpilogue<P>)
      if (k == Kind::Epilogue) p.epilogue = read_epilogue(fields);
    if constexpr (kHasRequant<P>)
      if (k == Kind::Requant) p.requant = read_requant(fields, std::is_same_v<P, EltwiseParams>);
    if (k == Kind::Op) read_op(*find(fields, c.key), p);
    if constexpr (std::is_same_v<P, ActParams>) {
      if (k == Kind::Param) read_param(fields, p);
      if (k == Kind::AlphaBeta) read_alpha_beta(fields, p.op, find(fields, "op"), p.alpha, p.beta);
    }
  }

  template <class P>
  void read_op(const Field& f, P& p) const {
    if constexpr (std::is_same_v<P, ActParams>) {
      if (f.value == "none") fail(f.value_col, "unknown ACT op 'none'", "ACT takes " + join(names(kVectorActs)));
      p.op = parse_enum(f, kVectorActs, "ACT op");
    } else if constexpr (std::is_same_v<P, EltwiseParams>) {
      p.op = parse_enum(f, kEltwiseOps, "ELTWISE op");
    } else if constexpr (std::is_same_v<P, PoolParams>) {
      p.op = parse_enum(f, kPoolOps, "POOL op");
    } else if constexpr (std::is_same_v<P, SyncParams>) {
      p.queue = parse_enum(f, kQueues, "queue");
    }
  }

  // -------------------------------------------------------------------- instructions

  void read_instruction(const std::vector<Word>& words) {
    const Word& head = words[0];
    const auto op = lookup(head.text, kOpcodes);
    if (!op) fail(head.col, fmt::format("unknown mnemonic '{}'", echo(head.text)), suggest(echo(head.text), names(kOpcodes)));
    const OpKeys& spec = keys_of(*op);
    const std::vector<Field> fields = parse_fields(words, 1, spec.keys, head.text);
    for (const auto& key : spec.required)
      if (!find(fields, key))
        fail(head.col, fmt::format("missing required key '{}' for {}", key, echo(head.text)),
             fmt::format("{} needs {}", echo(head.text), join(spec.required)));

    head_col_ = head.col;
    Instruction inst;
    inst.op = *op;
    inst.source_line = line_;
    if (const Field* f = find(fields, "layer")) inst.layer = parse_name(*f);
    inst.params = with_params_of(*op, [&](auto tag) -> decltype(inst.params) {
      return read_params<decltype(tag)>(fields, inst, head);
    });
    if (const std::string why = requant_problem(inst); !why.empty()) {
      // Point at the key the problem is about: zp, clamp or mask, else requant.
      const Field* rf = why.rfind("zp", 0) == 0      ? find(fields, "zp")
                        : why.rfind("clamp", 0) == 0 ? find(fields, "clamp")
                        : why.rfind("mask", 0) == 0  ? find(fields, "mask")
                                                     : nullptr;
      if (!rf) rf = find(fields, "requant");
      if (!rf) rf = find(fields, "zp");
      if (!rf) rf = find(fields, "clamp");
      fail(rf ? rf->key_col : head_col_, why, kRequantHint);
    }
    read_tokens(fields, inst);
    program_.instructions.push_back(std::move(inst));
  }

  void read_tokens(const std::vector<Field>& fields, Instruction& inst) const {
    const Queue q = inst.queue();
    const char* qn = to_string(q);
    std::vector<std::string> may_push, may_wait;
    for (const Token& t : kAllTokens) {
      if (t.from == q) may_push.push_back(to_string(t));
      if (t.to == q) may_wait.push_back(to_string(t));
    }
    if (const Field* f = find(fields, "wait"))
      for (const TokenAt& t : parse_tokens(*f)) {
        if (t.token.to != q)
          fail(t.col,
               fmt::format("{} runs on the {} queue and cannot wait on token '{}' (it is waited on by the {} queue)",
                           to_string(inst.op), qn, to_string(t.token), to_string(t.token.to)),
               fmt::format("a {} instruction may wait on {}", qn, join(may_wait)));
        inst.wait.push_back(t.token);
      }
    if (const Field* f = find(fields, "push"))
      for (const TokenAt& t : parse_tokens(*f)) {
        if (t.token.from != q)
          fail(t.col,
               fmt::format("{} runs on the {} queue and cannot push token '{}' (it is pushed by the {} queue)",
                           to_string(inst.op), qn, to_string(t.token), to_string(t.token.from)),
               fmt::format("a {} instruction may push {}", qn, join(may_push)));
        inst.push.push_back(t.token);
      }
  }

  std::string read_tensor_field(const std::vector<Field>& fields, const Word& head) const {
    const Field& tf = *find(fields, "tensor");
    auto it = tensor_index_.find(tf.value);
    if (it == tensor_index_.end()) {
      std::vector<std::string> declared;
      for (const auto& t : program_.tensors) declared.push_back(t.name);
      fail(tf.value_col, fmt::format("{} names tensor '{}', which is not declared", echo(head.text), tf.value),
           declared.empty() ? fmt::format("declare it first: '.tensor {} kind=... ddr=... bytes=...'", tf.value)
                            : suggest(tf.value, declared, "declared tensors") +
                                  "; declare a tensor with '.tensor NAME ...' before its first use");
    }
    return tf.value;
  }

  void read_elem(const std::vector<Field>& fields, DmaDesc& d) const {
    if (const Field* f = find(fields, "elem"))
      d.elem_bytes = int(parse_uint(*f, 1, 8, "'elem' is the element size in bytes: 1, 2, 4 or 8"));
    if (d.elem_bytes != 1 && d.elem_bytes != 2 && d.elem_bytes != 4 && d.elem_bytes != 8)
      fail(find(fields, "elem")->value_col, fmt::format("value {} of 'elem' is out of range", d.elem_bytes),
           "'elem' is the element size in bytes: 1, 2, 4 or 8");
  }

  void read_dma_shape(const std::vector<Field>& fields, DmaDesc& d, const Word& head) const {
    const Field& ef = *find(fields, "extent");
    const auto extents = list(ef, 1, 3, "'extent' takes 1 to 3 element counts: contiguous[,rows[,planes]]");
    for (std::size_t i = 0; i < extents.size(); ++i)
      d.extent[i] = std::uint32_t(parse_uint(extents[i].text, extents[i].col, "extent", 1, 0xffffffffull,
                                             "every extent is an element count >= 1 (use 1 for an unused dimension)"));
    const Field* sf = find(fields, "stride");
    const std::size_t n_stride = extents.size() - 1;
    if (n_stride == 0 && sf)
      fail(sf->key_col, "'stride' is not used when 'extent' has one dimension",
           "remove it, or give extent=N,ROWS with stride=ROW_STRIDE_BYTES");
    if (n_stride > 0 && !sf)
      fail(head.col, fmt::format("missing required key 'stride' (extent has {} dimensions)", extents.size()),
           fmt::format("give {} DDR stride{} in bytes: stride=ROW_BYTES{}", n_stride, n_stride == 1 ? "" : "s",
                       n_stride == 2 ? ",PLANE_BYTES" : ""));
    if (sf) {
      const auto strides = list(*sf, n_stride, n_stride,
                                fmt::format("extent has {} dimensions, so 'stride' takes {} value{} (DDR bytes)",
                                            extents.size(), n_stride, n_stride == 1 ? "" : "s"));
      for (std::size_t i = 0; i < strides.size(); ++i)
        d.ddr_stride_bytes[i] = parse_uint(strides[i].text, strides[i].col, "stride", 0, UINT64_MAX);
    }
  }

  /// stride=S or stride=SH,SW (each >= 1).
  void read_stride2(const std::vector<Field>& fields, int& sh, int& sw) const {
    const Field* f = find(fields, "stride");
    if (!f) return;
    const auto v = list(*f, 1, 2, "'stride' takes S (both) or SH,SW");
    sh = int(parse_uint(v[0].text, v[0].col, "stride", 1, INT32_MAX));
    sw = v.size() == 2 ? int(parse_uint(v[1].text, v[1].col, "stride", 1, INT32_MAX)) : sh;
  }

  /// pad=P (all four sides) or pad=TOP,LEFT,BOTTOM,RIGHT (ONNX pads order), each >= 0.
  void read_pad(const std::vector<Field>& fields, int& top, int& left, int& bottom, int& right) const {
    const Field* f = find(fields, "pad");
    if (!f) return;
    const auto v = list(*f, 1, 4, "'pad' takes P (all sides) or TOP,LEFT,BOTTOM,RIGHT");
    if (v.size() == 2 || v.size() == 3)
      fail(f->value_col, fmt::format("'pad' has {} values", v.size()),
           "'pad' takes P (all sides) or TOP,LEFT,BOTTOM,RIGHT");
    int p[4] = {0, 0, 0, 0};
    for (std::size_t i = 0; i < v.size(); ++i) p[i] = int(parse_uint(v[i].text, v[i].col, "pad", 0, INT32_MAX));
    if (v.size() == 1) p[1] = p[2] = p[3] = p[0];
    top = p[0], left = p[1], bottom = p[2], right = p[3];
  }

  /// alpha/beta of `act` (set by the caller), present exactly when the function uses them.
  void read_alpha_beta(const std::vector<Field>& fields, ActOp act, const Field* act_field, float& alpha,
                       float& beta) const {
    const std::string an = to_string(act);
    const std::string which = act_field ? act_field->key : "act";
    for (const char* key : {"alpha", "beta"}) {
      const bool used = std::string(key) == "alpha" ? uses_alpha(act) : uses_beta(act);
      const Field* f = find(fields, key);
      if (f && !used)
        fail(f->key_col, fmt::format("'{}' is not used by {}={}", key, which, an),
             fmt::format("{} takes {}; alpha/beta are used by clip (min, max), leaky_relu (slope), "
                         "hard_sigmoid (slope, offset), pow (exponent), layer_norm and rms_norm (eps), "
                         "softmax_online (scale, first), rope (head dim)",
                         an, alpha_meaning(act)));
      if (!f && used)
        fail(head_col_, fmt::format("missing required key '{}' for {}={}", key, which, an),
             fmt::format("{} needs {}", an, alpha_meaning(act)));
      if (f) (std::string(key) == "alpha" ? alpha : beta) = parse_float(*f);
    }
  }

  Epilogue read_epilogue(const std::vector<Field>& fields) const {
    Epilogue e;
    for (const Column<Epilogue>& c : columns<Epilogue>())
      if (const Field* f = find(fields, c.key)) read_scalar(c, *f, e);
    const Field* af = find(fields, "act");
    if (af) {
      if (af->value == "scale_shift")
        fail(af->value_col, "unknown act 'scale_shift' for an epilogue",
             "a fused BatchNorm is 'scale_shift=ADDRESS' in the epilogue; act takes " + join(names(kEpilogueActs)));
      if (const auto row_wise = lookup(af->value, kVectorActs); row_wise && is_row_wise(*row_wise))
        fail(af->value_col, fmt::format("act '{}' is row-wise and not an epilogue activation", af->value),
             fmt::format("run it as a stand-alone 'ACT op={}' after the CONV/GEMM; act takes {}", af->value,
                         join(names(kEpilogueActs))));
      e.act = parse_enum(*af, kEpilogueActs, "act");
    }
    read_alpha_beta(fields, e.act, af, e.act_alpha, e.act_beta);
    e.requant = read_requant(fields, false);
    return e;
  }

  // ACT param=: required by scale_shift and layer_norm, refused by every other op.
  void read_param(const std::vector<Field>& fields, ActParams& a) const {
    const Field* pf = find(fields, "param");
    if (pf && !uses_param(a.op))
      fail(pf->key_col, fmt::format("'param' is not used by op={}", to_string(a.op)),
           "'param' is the SRAM address of scale[c] and shift[c] for op=scale_shift, of gamma[D] and beta[D] "
           "for op=layer_norm, of gamma[D] for op=rms_norm, of the running state for op=softmax_online, or of "
           "cos[d] then sin[d] per row for op=rope, only");
    if (!pf && a.op == ActOp::ScaleShift)
      fail(head_col_, "missing required key 'param' for op=scale_shift",
           "give param=ADDRESS: scale[channels] then shift[channels] in SRAM");
    if (!pf && a.op == ActOp::LayerNorm)
      fail(head_col_, "missing required key 'param' for op=layer_norm",
           "give param=ADDRESS: gamma[D] then beta[D] in SRAM, D = elems/channels (the row length)");
    if (!pf && a.op == ActOp::RmsNorm)
      fail(head_col_, "missing required key 'param' for op=rms_norm",
           "give param=ADDRESS: gamma[D] in SRAM, D = elems/channels (the row length)");
    if (!pf && a.op == ActOp::SoftmaxOnline)
      fail(head_col_, "missing required key 'param' for op=softmax_online",
           "give param=ADDRESS: the running max m[rows], sum l[rows] and correction corr[rows] in SRAM, rows = channels");
    if (!pf && a.op == ActOp::Rope)
      fail(head_col_, "missing required key 'param' for op=rope",
           "give param=ADDRESS: cos[d] then sin[d] for each of the channels rows in SRAM, d = alpha (the head dim)");
    if (pf) a.param_addr = sram_addr(*pf);
  }

  /// MOVE in=A out=A extent=E0[,E1..E5] [in_stride=S0,..] [out_stride=S0,..]: extents innermost
  /// first (as LOAD's), strides in elements, one per extent; an omitted stride list is the packed
  /// one (S0 = 1, S1 = E0, S2 = E0 x E1, ...).
  void read_move_shape(const std::vector<Field>& fields, MoveParams& m) const {
    const int n = MoveParams::kMaxDims;
    const auto e = list(*find(fields, "extent"), 1, n,
                        fmt::format("'extent' takes 1 to {} element counts, innermost first: E0[,E1..]", n));
    m.rank = int(e.size());
    for (std::size_t i = 0; i < e.size(); ++i)
      m.extent[i] = std::uint32_t(parse_uint(e[i].text, e[i].col, "extent", 1, 0xffffffffull,
                                             "every extent is an element count >= 1"));
    auto strides = [&](const char* key, std::array<std::uint32_t, MoveParams::kMaxDims>& out) {
      const Field* f = find(fields, key);
      if (!f) {  // packed: saturates on absurd extents, which the checker then reports
        std::uint64_t st = 1;
        for (std::size_t i = 0; i < e.size(); ++i) {
          out[i] = std::uint32_t(std::min<std::uint64_t>(st, 0xffffffffull));
          st = std::min<std::uint64_t>(st * std::uint64_t(m.extent[i]), 0xffffffffull);
        }
        return;
      }
      const auto v = list(*f, e.size(), e.size(),
                          fmt::format("extent has {} dimension{}, so '{}' takes {} element stride{}, innermost first",
                                      e.size(), e.size() == 1 ? "" : "s", key, e.size(), e.size() == 1 ? "" : "s"));
      for (std::size_t i = 0; i < v.size(); ++i)
        out[i] = std::uint32_t(parse_uint(v[i].text, v[i].col, key, 0, 0xffffffffull,
                                          "strides are element counts in [0, 0xffffffff] (0 repeats an element)"));
    };
    strides("in_stride", m.in_stride);
    strides("out_stride", m.out_stride);
  }

  std::string source_;
  int line_ = 0;
  int head_col_ = 1;  // column of the current mnemonic (where "missing key" errors point)
  bool header_seen_ = false;
  int program_line_ = 0;
  Program program_;
  std::map<std::string, std::size_t> tensor_index_;
};

// ----------------------------------------------------------------------------------------
// Writer

class Writer {
 public:
  explicit Writer(const Program& p) : p_(p) {}

  std::string write() {
    out_ += fmt::format(".npuasm {}\n", p_.version);
    out_ += ".program";
    if (!p_.name.empty()) out_ += " name=" + checked_name(p_.name, "program name");
    if (!p_.strategy.empty()) out_ += " strategy=" + checked_name(p_.strategy, "strategy");
    out_ += fmt::format(" dtype={}", to_string(p_.dtype));
    if (const CompiledFor& c = p_.compiled_for; !c.hw.empty())
      out_ += fmt::format(" hw={} array={}x{} sram={} dataflow={}", checked_name(c.hw, "hw name"), c.rows, c.cols,
                          c.sram_bytes, checked_name(c.dataflow, "dataflow"));
    out_ += "\n";
    for (const TensorDecl& t : p_.tensors)
      out_ += fmt::format(".tensor {} kind={} ddr=0x{:x} bytes={}\n", checked_name(t.name, "tensor name"),
                          to_string(t.kind), t.ddr_addr, t.bytes);
    if (!p_.tensors.empty() && !p_.instructions.empty()) out_ += "\n";
    for (index_ = 0; index_ < p_.instructions.size(); ++index_) write(p_.instructions[index_]);
    return std::move(out_);
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    throw std::invalid_argument(fmt::format("write_program: instruction #{}: {}", index_, what));
  }

  std::string checked_name(const std::string& s, const char* what) const {
    if (!writable_name(s))
      throw std::invalid_argument(
          fmt::format("write_program: {} '{}' cannot be written in .npuasm (names are non-empty and contain no "
                      "whitespace, control characters or '#')",
                      what, s));
    return s;
  }

  void kv(const char* key, const std::string& value) { line_ += fmt::format(" {}={}", key, value); }
  void num(const char* key, long long v) { kv(key, std::to_string(v)); }
  void hex(const char* key, std::uint64_t v) { kv(key, fmt::format("0x{:x}", v)); }
  void flt(const char* key, float v) {
    char buf[64];
    // Shortest text that reads back to the same float (std::to_chars guarantees the round trip).
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    kv(key, std::string(buf, r.ptr));
  }

  void stride2(int sh, int sw) {
    if (sh == 1 && sw == 1) return;
    kv("stride", sh == sw ? std::to_string(sh) : fmt::format("{},{}", sh, sw));
  }
  void pad(int t, int l, int b, int r) {
    if (t == 0 && l == 0 && b == 0 && r == 0) return;
    kv("pad", t == l && l == b && b == r ? std::to_string(t) : fmt::format("{},{},{},{}", t, l, b, r));
  }
  void alpha_beta(ActOp act, float alpha, float beta) {
    if (uses_alpha(act)) flt("alpha", alpha);
    if (uses_beta(act)) flt("beta", beta);
  }
  void epilogue(const Epilogue& e) {
    for (const Column<Epilogue>& c : columns<Epilogue>()) write_scalar(c, e);
    requant(e.requant, false);
    if (e.act == ActOp::ScaleShift) bad("act=scale_shift is not an epilogue activation (use has_scale_shift)");
    if (is_row_wise(e.act))
      bad(fmt::format("act={} is row-wise and not an epilogue activation (use a stand-alone ACT)", to_string(e.act)));
    if (e.act != ActOp::None) kv("act", to_string(e.act));
    alpha_beta(e.act, e.act_alpha, e.act_beta);
  }
  void requant(const Requant& r, bool two_inputs) {
    if (!r.on) {  // POOL avg_pad's zp=IN,IN alone: the code of its padding (requant_problem refuses the rest)
      if (r.in_zp != 0 || r.out_zp != 0) kv("zp", fmt::format("{},{}", r.in_zp, r.out_zp));
      return;
    }
    hex("requant", r.addr);
    if (r.in_zp != 0 || r.b_zp != 0 || r.out_zp != 0)
      kv("zp", two_inputs ? fmt::format("{},{},{}", r.in_zp, r.b_zp, r.out_zp) : fmt::format("{},{}", r.in_zp, r.out_zp));
    if (r.clamp_min != -128 || r.clamp_max != 127) kv("clamp", fmt::format("{},{}", r.clamp_min, r.clamp_max));
    if (r.mask_lowest) kv("mask", "-128");
  }
  void tokens(const char* key, const std::vector<Token>& ts) {
    if (ts.empty()) return;
    std::vector<std::string> n;
    for (const Token& t : ts) {
      if (t.from == t.to) bad(fmt::format("token from the {} queue to itself", to_string(t.from)));
      n.push_back(to_string(t));
    }
    kv(key, join(n, ","));
  }

  template <class T>
  const T& params(const Instruction& inst) const {
    if (const T* p = std::get_if<T>(&inst.params)) return *p;
    bad(fmt::format("{} carries the parameters of another opcode", to_string(inst.op)));
  }

  /// The instruction's parameters, walking its opcode's column table.
  template <class P>
  void write_params(const Instruction& inst) {
    const P& p = params<P>(inst);
    check_writable(p);
    for (const Column<P>& c : columns<P>()) {
      if (c.kind < Kind::Tensor) write_scalar(c, p);
      else if (c.kind != Kind::Part) write_group(c, inst, p);
    }
  }

  template <class P>
  void write_scalar(const Column<P>& c, const P& p) {
    const bool always = c.need == Need::Required;
    switch (c.kind) {
      case Kind::Sram: hex(c.key, p.*c.u32); break;
      case Kind::FlagSram:
        if (p.*c.flag) hex(c.key, p.*c.u32);
        break;
      case Kind::Dim:
      case Kind::NonNeg:
        if (always || std::uint64_t(p.*c.i32) != c.omit) num(c.key, p.*c.i32);
        break;
      case Kind::Count:
        if (always || p.*c.u32 != c.omit) num(c.key, p.*c.u32);
        break;
      case Kind::Uint64:
        if (always || p.*c.u64 != c.omit) kv(c.key, std::to_string(p.*c.u64));
        break;
      case Kind::Hex64: hex(c.key, p.*c.u64); break;
      default: throw std::logic_error("npuasm: not a scalar column");
    }
  }

  /// A group column of P: the keys it covers are written here, by code of their own.
  template <class P>
  void write_group(const Column<P>& c, const Instruction& inst, const P& p) {
    const Kind k = c.kind;
    if constexpr (std::is_same_v<P, DmaDesc>) {
      if (k == Kind::Tensor) kv("tensor", checked_name(inst.tensor, "tensor name"));
      if (k == Kind::Elem && p.elem_bytes != 1) num("elem", p.elem_bytes);
      if (k == Kind::DmaShape) dma_shape(p);
    }
    if constexpr (std::is_same_v<P, MoveParams>)
      if (k == Kind::MoveShape) move_shape(p);
    if constexpr (kWindowed<P>) {
      if (k == Kind::Stride2) stride2(p.stride_h, p.stride_w);
      if (k == Kind::Pad) pad(p.pad_top, p.pad_left, p.pad_bottom, p.pad_right);
    }
    if constexpr (kHasEpilogue<P>)
      if (k == Kind::Epilogue) epilogue(p.epilogue);
    if constexpr (kHasRequant<P>)
      if (k == Kind::Requant) requant(p.requant, std::is_same_v<P, EltwiseParams>);
    if constexpr (std::is_same_v<P, SyncParams>) {
      if (k == Kind::Op) kv(c.key, to_string(p.queue));
    } else if constexpr (std::is_same_v<P, ActParams> || std::is_same_v<P, EltwiseParams> ||
                         std::is_same_v<P, PoolParams>) {
      if (k == Kind::Op) kv(c.key, to_string(p.op));
    }
    if constexpr (std::is_same_v<P, ActParams>) {
      if (k == Kind::Param && uses_param(p.op)) hex("param", p.param_addr);
      if (k == Kind::AlphaBeta) alpha_beta(p.op, p.alpha, p.beta);
    }
  }

  // What the reader would refuse, refused before anything is written.
  template <class P>
  void check_writable(const P&) const {}
  void check_writable(const ActParams& a) const {
    if (a.op == ActOp::None) bad("ACT with op=none");
    if (uses_param(a.op) && !a.has_param)
      bad(fmt::format("ACT op={} without its param operand (has_param is false)", to_string(a.op)));
  }
  void check_writable(const HostParams& h) const {
    if (h.nodes < 0) bad(fmt::format("HOST with nodes={} (a count, >= 0)", h.nodes));
  }
  void check_writable(const MoveParams& m) const {
    if (m.rank < 1 || m.rank > MoveParams::kMaxDims)
      bad(fmt::format("MOVE with rank={} (1 to {})", m.rank, MoveParams::kMaxDims));
    for (std::size_t i = std::size_t(m.rank); i < std::size_t(MoveParams::kMaxDims); ++i)
      if (m.extent[i] != 1 || m.in_stride[i] != 0 || m.out_stride[i] != 0)
        bad(fmt::format("MOVE dimension {} is past rank={} but not unused (extent 1, strides 0)", i, m.rank));
  }

  // extent=E0[,E1[,E2]] [stride=S0[,S1]]: dimensions up to the last one that is not the
  // default (extent 1, stride 0).
  void dma_shape(const DmaDesc& d) {
    std::size_t n = 1;
    for (std::size_t i = 1; i < 3; ++i)
      if (d.extent[i] != 1 || d.ddr_stride_bytes[i - 1] != 0) n = i + 1;
    std::vector<std::string> e, s;
    for (std::size_t i = 0; i < n; ++i) e.push_back(std::to_string(d.extent[i]));
    for (std::size_t i = 0; i + 1 < n; ++i) s.push_back(std::to_string(d.ddr_stride_bytes[i]));
    kv("extent", join(e, ","));
    if (!s.empty()) kv("stride", join(s, ","));
  }
  void move_shape(const MoveParams& m) {
    std::vector<std::string> e, si, so;
    for (std::size_t i = 0; i < std::size_t(m.rank); ++i) {
      e.push_back(std::to_string(m.extent[i]));
      si.push_back(std::to_string(m.in_stride[i]));
      so.push_back(std::to_string(m.out_stride[i]));
    }
    kv("extent", join(e, ","));
    kv("in_stride", join(si, ","));
    kv("out_stride", join(so, ","));
  }

  void write(const Instruction& inst) {
    if (const std::string why = requant_problem(inst); !why.empty()) bad(why);
    line_ = fmt::format("{:<7}", to_string(inst.op));
    if (!inst.layer.empty()) kv("layer", checked_name(inst.layer, "layer name"));
    const bool dma = inst.op == Opcode::Load || inst.op == Opcode::Store;
    if (!dma && !inst.tensor.empty())
      bad(fmt::format("{} names tensor '{}' but only LOAD and STORE name a tensor", to_string(inst.op), inst.tensor));
    with_params_of(inst.op, [&](auto tag) { write_params<decltype(tag)>(inst); });
    tokens("wait", inst.wait);
    tokens("push", inst.push);
    // The mnemonic is padded to 7 columns; the first key=value starts at column 9.
    out_ += line_ + "\n";
  }

  const Program& p_;
  std::size_t index_ = 0;
  std::string out_, line_;
};

}  // namespace

Program read_program(const std::string& text, const std::string& source) {
  check_line_lengths(text, source, ".npuasm program");
  return Reader(source).read(text);
}

Program read_program_file(const std::string& path) {
  require_regular_file(path, ".npuasm program");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": error: is a folder, not a program\n  fix: give the .npuasm text file itself");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError(fmt::format("{}: error: cannot open the program: {}\n  check the path (a .npuasm text file)",
                                  path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return read_program(ss.str(), path);
}

std::string write_program(const Program& program) { return Writer(program).write(); }

}  // namespace npu::isa
