//===- TemporaryFiles.cpp - Temporaries removed on a signal ---------------===//
//
// The list is a fixed array of slots, each a path and an atomic state, so
// that the signal handler only loads atomics and calls unlink(), both
// async-signal-safe. The handler is installed at the first temporary, for
// the signals whose action is not to ignore them; it removes the listed
// temporaries and then does what the signal did before: the previous
// handler, or the default action (which ends the process).
//===----------------------------------------------------------------------===//
#include "TemporaryFiles.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace transfuse::rt {
namespace {

constexpr int kSignals[] = {SIGHUP, SIGINT, SIGTERM};
constexpr int kNumSignals = sizeof kSignals / sizeof kSignals[0];
struct sigaction previousActions[kNumSignals];

enum SlotState : int { kFree, kFilling, kListed };
struct Slot {
  std::atomic<int> state{kFree};
  char path[PATH_MAX];
};
static_assert(std::atomic<int>::is_always_lock_free,
              "the signal handler reads the slots' states");
constexpr int kNumSlots = 32;
Slot slots[kNumSlots];

void onSignal(int signal, siginfo_t *info, void *context) {
  int savedErrno = errno;
  for (Slot &slot : slots)
    if (slot.state.load() == kListed)
      ::unlink(slot.path);
  for (int i = 0; i < kNumSignals; ++i) {
    if (kSignals[i] != signal)
      continue;
    const struct sigaction &before = previousActions[i];
    if (before.sa_flags & SA_SIGINFO) {
      before.sa_sigaction(signal, info, context);
    } else if (before.sa_handler != SIG_DFL) {
      before.sa_handler(signal);
    } else {
      // The default action, once this handler returns and unblocks it.
      ::sigaction(signal, &before, nullptr);
      ::raise(signal);
    }
  }
  errno = savedErrno;
}

void installHandler() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = onSignal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal : kSignals)
    sigaddset(&action.sa_mask, signal);
  for (int i = 0; i < kNumSignals; ++i) {
    if (::sigaction(kSignals[i], nullptr, &previousActions[i]) != 0 ||
        previousActions[i].sa_handler == SIG_IGN)
      continue; // ignored, it removes nothing
    ::sigaction(kSignals[i], &action, nullptr);
  }
}

int list(const std::string &path) {
  if (path.size() >= PATH_MAX)
    return -1;
  for (int i = 0; i < kNumSlots; ++i) {
    int expected = kFree;
    if (!slots[i].state.compare_exchange_strong(expected, kFilling))
      continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].state.store(kListed);
    return i;
  }
  return -1;
}

/// Six characters of [0-9a-z], different in every call of every process.
std::string uniqueSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t bits =
      static_cast<uint64_t>(::getpid()) * 0x9e3779b97f4a7c15ull ^
      static_cast<uint64_t>(
          std::chrono::steady_clock::now().time_since_epoch().count()) ^
      (counter.fetch_add(1) + 1) * 0xbf58476d1ce4e5b9ull;
  bits ^= bits >> 31;
  bits *= 0x94d049bb133111ebull;
  bits ^= bits >> 29;
  std::string suffix(6, '0');
  for (char &c : suffix) {
    c = "0123456789abcdefghijklmnopqrstuvwxyz"[bits % 36];
    bits /= 36;
  }
  return suffix;
}

} // namespace

bool createTemporary(const std::string &target, Temporary &temporary) {
  static std::once_flag installed;
  std::call_once(installed, installHandler);
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Listed before it exists, so that no signal finds it unlisted.
    Temporary candidate{target + "." + uniqueSuffix() + ".tmp", -1, -1};
    candidate.slot = list(candidate.path);
    candidate.fd = ::open(candidate.path.c_str(),
                          O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (candidate.fd >= 0) {
      temporary = candidate;
      return true;
    }
    int error = errno;
    forgetTemporary(candidate);
    errno = error;
    if (error != EEXIST)
      return false;
  }
  return false; // errno is EEXIST
}

void forgetTemporary(Temporary &temporary) {
  if (temporary.slot >= 0)
    slots[temporary.slot].state.store(kFree);
  temporary.slot = -1;
}

void removeTemporary(Temporary &temporary) {
  if (temporary.fd >= 0)
    ::close(temporary.fd);
  temporary.fd = -1;
  ::unlink(temporary.path.c_str());
  forgetTemporary(temporary);
}

std::string outputTarget(const std::string &path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode))
    return path;
  char *real = ::realpath(path.c_str(), nullptr);
  if (!real)
    return path; // a dangling link: replaced itself
  std::string target = real;
  std::free(real);
  return target;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return ".";
  size_t end = path.find_last_not_of('/', slash);
  return end == std::string::npos ? "/" : path.substr(0, end + 1);
}

} // namespace transfuse::rt
