#include "cli/signals.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace neardup::cli {

namespace {

// The terminating signals caught, besides SIGRTMIN..SIGRTMAX (whose values
// are known only at run time).
constexpr int kCaught[] = {
    SIGINT,    SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,
#ifdef SIGPWR
    SIGPWR,
#endif
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
};

template <typename F>
void ForEachCaught(F f) {
  for (const int signo : kCaught) f(signo);
  for (int signo = SIGRTMIN; signo <= SIGRTMAX; ++signo) f(signo);
}

static_assert(std::atomic<int>::is_always_lock_free, "the handler needs lock-free atomics");

// The temporary file to remove. Written only inside a SignalBlocker (so no
// handler reads it meanwhile); g_cleanup_set is published after the name is
// complete.
char g_cleanup_path[4096];
std::atomic<int> g_cleanup_set{0};

// A RecordWrite is alive (1) or not (0); the first signal that arrived and
// has not been acted on yet (0: none). Each side stores its own flag, then
// reads the other's (sequentially consistent), so a signal is never lost
// between the end of a write and the handler.
std::atomic<int> g_writing{0};
std::atomic<int> g_pending{0};

// SignalBlocker sections alive, on all threads, and on this one; set once a
// thread has begun to end the process. A section counts itself, then reads
// g_terminating; Terminate() sets g_terminating, then reads the count (both
// sequentially consistent): either the section sees it and never starts, or
// Terminate() sees the section and waits for its end.
std::atomic<int> g_sections{0};
thread_local int t_sections = 0;
std::atomic<int> g_terminating{0};

[[noreturn]] void Terminate(int signo) {
  g_terminating.store(1);
  // Sections of other threads are a few system calls long (this thread's own,
  // if it is in one, cannot end while it is here).
  while (g_sections.load() > t_sections) {
    const struct timespec pause = {0, 100'000};
    ::nanosleep(&pause, nullptr);
  }
  if (g_cleanup_set.load() != 0) ::unlink(g_cleanup_path);
  static const char kClear[] = "\r\033[K";
  if (::isatty(STDERR_FILENO)) {
    [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, kClear, sizeof kClear - 1);
  }
  ::_exit(128 + signo);
}

extern "C" void OnSignal(int signo) {
  const int saved_errno = errno;
  const int earlier = g_pending.exchange(signo);
  if (earlier != 0) Terminate(earlier);  // asked twice: stop now
  if (g_writing.load() == 0) Terminate(signo);
  errno = saved_errno;  // the write finishes, then ~RecordWrite exits
}

void FillCaught(sigset_t* set) {
  sigemptyset(set);
  ForEachCaught([set](int signo) { sigaddset(set, signo); });
}

}  // namespace

void InstallSignalHandlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  FillCaught(&sa.sa_mask);  // one handler at a time on a thread
  sa.sa_flags = SA_RESTART;
  ForEachCaught([&sa](int signo) {
    struct sigaction old;
    if (::sigaction(signo, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) return;
    ::sigaction(signo, &sa, nullptr);
  });
  ::signal(SIGPIPE, SIG_IGN);
}

void SetCleanupPath(const char* path) {
  if (path == nullptr) {
    g_cleanup_set.store(0);
    return;
  }
  const size_t n = std::strlen(path);
  if (n >= sizeof g_cleanup_path) return;
  g_cleanup_set.store(0);
  std::memcpy(g_cleanup_path, path, n + 1);
  g_cleanup_set.store(1);
}

SignalBlocker::SignalBlocker() {
  sigset_t all;
  sigfillset(&all);  // the kernel leaves SIGKILL and SIGSTOP out
  ::pthread_sigmask(SIG_BLOCK, &all, &saved_);
  ++t_sections;
  g_sections.fetch_add(1);
  if (t_sections == 1 && g_terminating.load() != 0) {
    // Another thread is ending the process and will not wait for this
    // section: do nothing more, and let it exit.
    g_sections.fetch_sub(1);
    for (;;) ::pause();
  }
}

SignalBlocker::~SignalBlocker() {
  g_sections.fetch_sub(1);
  --t_sections;
  ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

RecordWrite::RecordWrite() {
  g_writing.store(1);
  if (const int signo = g_pending.load(); signo != 0) Terminate(signo);
}

RecordWrite::~RecordWrite() {
  g_writing.store(0);
  if (const int signo = g_pending.load(); signo != 0) Terminate(signo);
}

}  // namespace neardup::cli
