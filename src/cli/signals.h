// Terminating signals: what neardup does when asked to stop.
//
// InstallSignalHandlers() catches every signal whose default action ends
// the process and that is sent rather than raised by a fault (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ,
// SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT and the real-time signals
// SIGRTMIN..SIGRTMAX) and ignores SIGPIPE, so that a write to a closed pipe
// fails with EPIPE. Fault signals (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
// SIGTRAP, SIGSYS) keep their default action, a core dump. A signal that was
// ignored when neardup started (`nohup`, a background job of a
// non-interactive shell) stays ignored. On a caught signal the handler
// removes the temporary output file named by SetCleanupPath(), clears the
// progress line, and exits with status 128 + the signal number (130 for
// SIGINT, 143 for SIGTERM).
//
// No signal can leave the temporary file behind: it is created, and its name
// registered or forgotten, inside a SignalBlocker, which blocks every signal
// on its thread and makes a handler running on another thread wait until it
// ends. A signal thus finds either no file, or the file and its name.
//
// Records are never cut: while a RecordWrite is alive (one write() loop of
// whole records, see FdStreambuf), a signal only marks itself pending; the
// write finishes and then the process exits. A second signal while one is
// pending ends the process at once (a reader that never reads cannot hold
// neardup forever).
//
// Thread safety: the handler may run on any thread. SetCleanupPath() must be
// called inside a SignalBlocker, on the only thread that writes output.
#pragma once

#include <signal.h>

namespace neardup::cli {

void InstallSignalHandlers();

// Names the file to remove on a terminating signal; nullptr: none.
// REQUIRES: a SignalBlocker is alive on this thread; strlen(path) < 4096.
void SetCleanupPath(const char* path);

// A section that no terminating signal interrupts: blocks every signal on
// this thread (they are delivered when it ends), and a handler that runs on
// another thread meanwhile waits for its end before it cleans up and exits.
// If such a handler is already running when a section starts, the section
// never starts: the thread waits for the exit. Keep sections short (a few
// system calls) and never wait inside one for another thread. May nest.
class SignalBlocker {
 public:
  SignalBlocker();
  ~SignalBlocker();
  SignalBlocker(const SignalBlocker&) = delete;
  SignalBlocker& operator=(const SignalBlocker&) = delete;

 private:
  sigset_t saved_;
};

// A write of whole records in progress: a signal waits for its end.
class RecordWrite {
 public:
  RecordWrite();
  ~RecordWrite();  // exits the process if a signal came meanwhile
  RecordWrite(const RecordWrite&) = delete;
  RecordWrite& operator=(const RecordWrite&) = delete;
};

}  // namespace neardup::cli
