// macOS exit handles: one kqueue per watched process, holding EVFILT_PROC / NOTE_EXIT. A kqueue
// descriptor is itself pollable (readable once an event is pending), so libuv polls it like a pidfd
// (uv_poll_init falls back to fcntl for O_NONBLOCK where a kqueue refuses FIONBIO).
// Compiles only on darwin.
#include "exit.h"

#include <cerrno>
#include <climits>
#include <fcntl.h>
#include <sys/types.h>  // before sys/event.h, which uses its types
#include <sys/event.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <unistd.h>

namespace claude_ps {
namespace {

int NewKqueue() {
  const int kq = kqueue();
  if (kq < 0) return -errno;
  // kqueues are not inherited by fork(2), but an exec after vfork-style spawns could see it: cloexec.
  if (fcntl(kq, F_SETFD, FD_CLOEXEC) != 0) {
    const int saved = errno;
    close(kq);
    return -saved;
  }
  return kq;
}

int Register(int kq, const struct kevent* change) {
  int rc;
  do {
    rc = kevent(kq, change, 1, nullptr, 0, nullptr);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    const int saved = errno;
    close(kq);
    return -saved;
  }
  return kq;
}

}  // namespace

int OpenExitHandle(int32_t pid) {
  if (pid <= 0) return -EINVAL;
  const int kq = NewKqueue();
  if (kq < 0) return kq;
  struct kevent change;
  // ESRCH when the process is gone (or already a zombie); EPERM under a sandbox.
  EV_SET(&change, static_cast<uintptr_t>(pid), EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, nullptr);
  return Register(kq, &change);
}

int OpenHangupHandle(int fd) {
  if (fd < 0) return -EBADF;
  // Only a pipe or a socket can lose its reader; anything else is always writable and would fire at once.
  struct stat st;
  if (fstat(fd, &st) != 0) return -errno;
  if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) return -EPERM;
  const int kq = NewKqueue();
  if (kq < 0) return kq;
  struct kevent change;
  // EVFILT_WRITE with a low-water mark above any pipe's capacity: it never fires for free space,
  // only with EV_EOF, when the reader has gone.
  EV_SET(&change, static_cast<uintptr_t>(fd), EVFILT_WRITE, EV_ADD | EV_CLEAR, NOTE_LOWAT, INT_MAX, nullptr);
  return Register(kq, &change);
}

int OpenFileLimit(double* soft, double* hard) {
  struct rlimit lim {};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return -errno;
  *soft = lim.rlim_cur == RLIM_INFINITY ? -1.0 : static_cast<double>(lim.rlim_cur);
  *hard = lim.rlim_max == RLIM_INFINITY ? -1.0 : static_cast<double>(lim.rlim_max);
  return 0;
}

const char* ExitMechanism() { return "kqueue"; }

}  // namespace claude_ps
