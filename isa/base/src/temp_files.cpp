// Removal of registered temporary files on a fatal signal (temp_files.hpp).
#include "npu/base/temp_files.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace npu {

namespace {

constexpr std::size_t kMaxPath = 4096;
constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};

// One slot per temporary file: `used` is set after the path is written and cleared before
// it is reused, so the handler only reads complete paths.
struct Slot {
  std::atomic<bool> used{false};
  char path[kMaxPath];
};

Slot g_slots[kMaxTempFiles];
std::mutex g_mutex;  // registrations and removals (never taken by the handler)
struct sigaction g_previous[sizeof kSignals / sizeof kSignals[0]];
bool g_installed = false;

// Unlinks every registered file, restores the signal's previous disposition and raises it
// again: the process ends (or continues) as it would have without us. Only async-signal-safe
// calls (unlink, sigaction, raise).
void on_signal(int sig) {
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) ::unlink(s.path);
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i)
    if (kSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  ::raise(sig);
}

void install_handler() {
  if (g_installed) return;
  g_installed = true;
  for (std::size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    struct sigaction old {};
    ::sigaction(kSignals[i], nullptr, &old);
    g_previous[i] = old;
    // A signal the process ignores (nohup, a shell's background job) stays ignored; one with
    // a handler of its own (npu experiment's child forwarding) keeps it.
    if (old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) sigaddset(&sa.sa_mask, s);
    ::sigaction(kSignals[i], &sa, nullptr);
  }
}

}  // namespace

void register_temp_file(const std::string& path) {
  if (path.size() >= kMaxPath) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  install_handler();
  for (Slot& s : g_slots) {
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true, std::memory_order_release);
    return;
  }
}

void unregister_temp_file(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_relaxed) && path == s.path) {
      s.used.store(false, std::memory_order_release);
      return;
    }
}

}  // namespace npu
