// Terminating signals: what neardup does when asked to stop.
//
// InstallSignalHandlers() catches every terminating signal a process can
// catch (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
// SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF) and ignores SIGPIPE, so that a write
// to a closed pipe fails with EPIPE. A signal that was ignored when neardup
// started (`nohup`, a background job of a non-interactive shell) stays
// ignored. On a caught signal the handler removes the temporary output file
// named by SetCleanupPath(), clears the progress line, and exits with status
// 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
//
// Records are never cut: while a RecordWrite is alive (one write() loop of
// whole records, see FdStreambuf), a signal only marks itself pending; the
// write finishes and then the process exits. A second signal while one is
// pending ends the process at once (a reader that never reads cannot hold
// neardup forever).
//
// Thread safety: the handler may run on any thread. SetCleanupPath() must be
// called with the signals blocked (SignalBlocker) on the only thread that
// writes output.
#pragma once

#include <signal.h>

namespace neardup::cli {

void InstallSignalHandlers();

// Names the file to remove on a terminating signal; nullptr: none.
// REQUIRES: a SignalBlocker is alive on this thread; strlen(path) < 4096.
void SetCleanupPath(const char* path);

// Blocks the caught signals on this thread for its lifetime (they are
// delivered when it ends).
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
