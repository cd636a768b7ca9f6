// Child processes of a runner (npu experiment, sweep, llm, verify) and the signals that stop
// them. While a ChildSignals object lives, SIGINT and SIGTERM sent to the parent alone (a
// `kill PID`, not a Ctrl-C to the whole process group) no longer kill it at once: the runner
// collects them, forwards them to its children, waits until every child is gone and only
// then returns, so nothing writes into the output folder after the parent (and its folder
// lock) is gone. docs/experiment.md, "Interrupted runs".
#pragma once

#include <sys/types.h>

#include <csignal>
#include <stdexcept>
#include <string>
#include <vector>

namespace npu::sim {

/// What ChildSignals::wait() saw: a child that exited (pid > 0, its waitpid status), an
/// interrupting signal (pid 0, signal SIGINT or SIGTERM), or no child left (pid -1).
struct ChildEvent {
  pid_t pid = -1;
  int status = 0;
  int signal = 0;
};

/// Blocks SIGINT, SIGTERM and SIGCHLD in this thread for its lifetime and receives them
/// synchronously (sigtimedwait), so a signal can never arrive between "is a child running?"
/// and "wait for it". A signal the process ignores (SIG_IGN, e.g. SIGINT of a background job
/// started by a non-interactive shell) stays ignored. The destructor restores the mask; a
/// signal still pending then acts as it would have (usually ending the process).
class ChildSignals {
 public:
  ChildSignals();
  ~ChildSignals();
  ChildSignals(const ChildSignals&) = delete;
  ChildSignals& operator=(const ChildSignals&) = delete;

  /// Starts `args[0]` with `args` (posix_spawn), stdout and stderr to `log_path` (truncated),
  /// stdin from /dev/null, with the signal mask and the default dispositions of SIGINT and
  /// SIGTERM restored, so the child dies of a forwarded signal. Returns -1 if it cannot start.
  pid_t spawn(const std::vector<std::string>& args, const std::string& log_path) const;

  /// Waits for the next child exit or interrupting signal (see ChildEvent). A pending
  /// interrupting signal is reported before any child exit.
  ChildEvent wait();

  /// The first SIGINT or SIGTERM received (0: none), and how many were received.
  int interrupted_by() const { return first_signal_; }
  int signals_received() const { return signal_count_; }

  /// Sends the first interrupting signal to each of `pids`; SIGKILL from the second signal on
  /// (a second Ctrl-C means "now").
  void forward(const std::vector<pid_t>& pids) const;

 private:
  ChildEvent note_signal(int sig);  ///< records an interrupting signal; its event

  sigset_t interrupt_set_{};  ///< SIGINT and SIGTERM, unless ignored
  sigset_t wait_set_{};       ///< interrupt_set_ + SIGCHLD
  sigset_t old_mask_{};
  int first_signal_ = 0;
  int signal_count_ = 0;
};

/// The exit status of a process stopped by `signal` (128 + signal: 130 SIGINT, 143 SIGTERM).
inline int interrupted_exit_status(int signal) { return 128 + signal; }

/// Thrown by a runner interrupted with nothing left worth writing (its children are gone);
/// the tool prints the message and exits with interrupted_exit_status(signal).
class Interrupted : public std::runtime_error {
 public:
  Interrupted(const std::string& what, int signal) : std::runtime_error(what), signal_(signal) {}
  int signal() const { return signal_; }

 private:
  int signal_;
};

}  // namespace npu::sim
