// Linux exit handles: pidfd_open(2) (5.3+), through syscall(2) so that a libc without the wrapper
// (glibc < 2.36, musl) still gets it; ENOSYS on an older kernel.
#include "exit.h"

#include <cerrno>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434  // the same number on every architecture (the unified syscall table)
#endif

namespace claude_ps {

int OpenExitHandle(int32_t pid) {
  if (pid <= 0) return -EINVAL;
  // pidfd_open sets O_CLOEXEC itself. A pidfd is readable once the whole thread group has exited.
  long fd;
  do {
    fd = syscall(SYS_pidfd_open, static_cast<long>(pid), 0L);
  } while (fd < 0 && errno == EINTR);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

int OpenHangupHandle(int fd) {
  const int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return -errno;
  // No events asked for: EPOLLERR (a pipe's last reader closed) and EPOLLHUP (a socket or terminal
  // hung up) are reported anyway, and nothing else, so the set stays quiet while the reader is there.
  struct epoll_event ev {};
  ev.events = 0;
  ev.data.fd = fd;
  if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
    const int saved = errno;  // EPERM: a regular file or /dev/null, which cannot lose a reader
    close(ep);
    return -saved;
  }
  return ep;
}

int OpenFileLimit(double* soft, double* hard) {
  struct rlimit lim {};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return -errno;
  *soft = lim.rlim_cur == RLIM_INFINITY ? -1.0 : static_cast<double>(lim.rlim_cur);
  *hard = lim.rlim_max == RLIM_INFINITY ? -1.0 : static_cast<double>(lim.rlim_max);
  return 0;
}

const char* ExitMechanism() { return "pidfd"; }

}  // namespace claude_ps
