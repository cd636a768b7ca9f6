// Child processes and the signals that stop them (child_signals.hpp).
#include "npu/sim/experiment/child_signals.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

extern char** environ;

namespace npu::sim {

namespace {

bool ignored(int sig) {
  struct sigaction old {};
  return sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}

}  // namespace

ChildSignals::ChildSignals() {
  sigemptyset(&interrupt_set_);
  for (int sig : {SIGINT, SIGTERM})
    if (!ignored(sig)) sigaddset(&interrupt_set_, sig);
  wait_set_ = interrupt_set_;
  sigaddset(&wait_set_, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &wait_set_, &old_mask_);
}

ChildSignals::~ChildSignals() { pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr); }

pid_t ChildSignals::spawn(const std::vector<std::string>& args, const std::string& log_path) const {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &old_mask_);
  posix_spawnattr_setsigdefault(&attr, &interrupt_set_);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

ChildEvent ChildSignals::wait() {
  // A 200 ms bound on each sleep: a lost SIGCHLD (several children exiting at once merge
  // into one) costs at most that, never a hang.
  const timespec poll{0, 0}, nap{0, 200'000'000};
  for (;;) {
    siginfo_t info;
    const int sig = sigtimedwait(&interrupt_set_, &info, &poll);
    if (sig > 0) return note_signal(sig);
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) return {pid, status, 0};
    if (pid < 0 && errno == ECHILD) return {};
    // Sleeps until SIGCHLD, an interrupt or the nap's end.
    const int got = sigtimedwait(&wait_set_, &info, &nap);
    if (got == SIGINT || got == SIGTERM) return note_signal(got);
  }
}

ChildEvent ChildSignals::note_signal(int sig) {
  if (!first_signal_) first_signal_ = sig;
  ++signal_count_;
  return {0, 0, sig};
}

void ChildSignals::forward(const std::vector<pid_t>& pids) const {
  const int sig = signal_count_ > 1 ? SIGKILL : first_signal_;
  for (pid_t pid : pids) ::kill(pid, sig);
}

}  // namespace npu::sim
