// `npu verify` on int8 configs (verify.hpp, check_int8_execution): the compiled int8 program
// runs with data in a forked child (SystemC elaborates once per process) and its raw int8
// outputs are compared bit for bit with the integer reference interpreter.
#include <sys/wait.h>
#include "npu/base/user_text.hpp"
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <fmt/format.h>

#include "npu/compiler/reference/reference_quantised.hpp"
#include "npu/sim/run/run_with_data.hpp"
#include "npu/sim/verify/verify.hpp"

namespace npu::sim {

namespace {

using Int8Outputs = std::map<std::string, std::vector<std::int8_t>>;

void put_u64(std::string& b, std::uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }

bool get_u64(const std::string& b, std::size_t& at, std::uint64_t& v) {
  if (b.size() - at < 8) return false;
  std::memcpy(&v, b.data() + at, 8);
  at += 8;
  return true;
}

bool get_bytes(const std::string& b, std::size_t& at, std::uint64_t n, std::string& out) {
  if (b.size() - at < n) return false;
  out.assign(b, at, n);
  at += n;
  return true;
}

/// Child side: error text (empty when it ran), then each int8 output as name and values.
std::string run_child(const compiler::CompileResult& compiled, const HwConfig& hw,
                      const std::map<std::string, std::vector<float>>& inputs) {
  std::string blob, err;
  Int8Outputs outs;
  try {
    outs = run_with_data(compiled, hw, inputs).outputs_int8;
  } catch (const std::exception& e) {
    err = e.what();
  }
  put_u64(blob, err.size());
  blob += err;
  put_u64(blob, outs.size());
  for (const auto& [name, v] : outs) {
    put_u64(blob, name.size());
    blob += name;
    put_u64(blob, v.size());
    blob.append(reinterpret_cast<const char*>(v.data()), v.size());
  }
  return blob;
}

/// Runs the simulation in a child; returns "" and fills `outs`, or why it did not run.
std::string simulate_forked(const compiler::CompileResult& compiled, const HwConfig& hw,
                            const std::map<std::string, std::vector<float>>& inputs, Int8Outputs& outs) {
  int fds[2];
  if (pipe(fds) != 0) return fmt::format("cannot create a pipe to the simulation process: {}", std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return fmt::format("cannot start the simulation process: {}", std::strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string blob = run_child(compiled, hw, inputs);
    for (std::size_t at = 0; at < blob.size();) {
      const ssize_t n = write(fds[1], blob.data() + at, blob.size() - at);
      if (n <= 0) _exit(3);
      at += std::size_t(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string blob;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    blob.append(buf, std::size_t(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return fmt::format("the simulation process died (signal {})", WTERMSIG(status));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "the simulation process failed to report its outputs";
  std::size_t at = 0;
  std::uint64_t n = 0, count = 0;
  std::string err;
  if (!get_u64(blob, at, n) || !get_bytes(blob, at, n, err)) return "the simulation process sent a truncated report";
  if (!err.empty()) return summary_line(err);
  if (!get_u64(blob, at, count)) return "the simulation process sent a truncated report";
  for (std::uint64_t k = 0; k < count; ++k) {
    std::string name, values;
    if (!get_u64(blob, at, n) || !get_bytes(blob, at, n, name) || !get_u64(blob, at, n) ||
        !get_bytes(blob, at, n, values))
      return "the simulation process sent a truncated report";
    outs[name].assign(values.begin(), values.end());
  }
  return "";
}

}  // namespace

Int8Check check_int8_execution(const compiler::CompileResult& compiled, const HwConfig& hw,
                               const compiler::Graph& quantised, const compiler::RefTensorMap& inputs) {
  Int8Check c;
  std::map<std::string, std::vector<float>> in;
  for (const auto& [name, t] : inputs)  // token ids as exact floats, as run_with_data takes them
    in[name] = t.is_float() ? t.f : std::vector<float>(t.i.begin(), t.i.end());
  compiler::QuantisedTensorMap ref;
  try {
    ref = compiler::run_quantised_reference(quantised, in);
  } catch (const std::exception& e) {
    const std::string m = e.what();
    c.status = "not run: integer reference: " + summary_line(m);
    return c;
  }
  Int8Outputs sim;
  const std::string why = simulate_forked(compiled, hw, in, sim);
  if (!why.empty()) {
    c.status = "not run: " + why;
    return c;
  }
  std::uint64_t differ = 0, total = 0;
  int max_lsb = 0;
  for (const auto& [name, r] : ref) {
    auto it = sim.find(name);
    if (it == sim.end() || it->second.size() != r.q.size()) {
      c.status = fmt::format("not run: the simulation gave no int8 output '{}' of {} values", name, r.q.size());
      c.outputs.clear();
      c.raw.clear();
      return c;
    }
    for (std::size_t i = 0; i < r.q.size(); ++i) {
      const int d = std::abs(int(it->second[i]) - int(r.q[i]));
      differ += d != 0;
      max_lsb = std::max(max_lsb, d);
    }
    total += r.q.size();
    compiler::QuantisedTensor s = r;
    s.q = it->second;
    compiler::RefTensor t;
    t.shape = r.shape;
    t.f = s.real();
    c.outputs[name] = std::move(t);
    compiler::RefTensor q;
    q.shape = r.shape;
    q.type = compiler::ElemType::Int64;
    q.i.assign(it->second.begin(), it->second.end());
    c.raw[name] = std::move(q);
  }
  c.run = true;
  c.status = differ == 0 ? "bit-exact"
                         : fmt::format("{} of {} int8 values differ from the integer reference (max {} LSB)", differ,
                                       total, max_lsb);
  return c;
}

}  // namespace npu::sim
