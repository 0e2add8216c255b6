// Plain C++ (no napi.h): kernel handles that become readable when something ends, one file per OS
// (exit_linux.cc, exit_darwin.cc). exit_poller.cc polls them through libuv.
#pragma once
#include <cstdint>

namespace claude_ps {

// A descriptor that turns readable when process `pid` exits (becomes a zombie or is reaped), or
// -errno: -ESRCH (no such process), -ENOSYS (the kernel has no such handle), -EPERM, -EMFILE...
// Linux: pidfd_open(2). macOS: a kqueue holding EVFILT_PROC / NOTE_EXIT for pid. Close-on-exec.
int OpenExitHandle(int32_t pid);

// A descriptor that turns readable when the reader of `fd` (a pipe, socket or terminal) goes away,
// or -errno (-EPERM: fd is a regular file, which has no reader to lose).
// Linux: an epoll set holding fd (EPOLLERR / EPOLLHUP are always reported). macOS: a kqueue with
// EVFILT_WRITE on fd and a low-water mark no pipe can reach, so it fires only at EOF.
int OpenHangupHandle(int fd);

// The soft and hard RLIMIT_NOFILE of this process (-1: unlimited) in *soft / *hard: 0, or -errno.
// Exit handles are budgeted from the soft limit (lib/registry/watch/exits.ts).
int OpenFileLimit(double* soft, double* hard);

// "pidfd" or "kqueue": what OpenExitHandle uses here.
const char* ExitMechanism();

}  // namespace claude_ps
