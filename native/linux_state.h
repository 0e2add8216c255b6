// Plain C++ (no napi.h, no procfs): the decisions of the Linux probe, separated from its two system
// calls so that a test can inject the answers the kernel gives only in a race (test/proc/linux-state).
// probe_linux.cc supplies the real kill(pid, 0) and /proc/<pid>/stat read; a test supplies injected ones.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "probe.h"

namespace claude_ps {
namespace procfs {

// The command name may hold ')', spaces and newlines: fields are counted after the LAST ')'.
// After it: " S ppid ..." — the state is field 3, starttime field 22 (the 20th after the state).
inline bool ParseStat(const char* buf, size_t len, char* state, double* starttime) {
  size_t close_paren = len;
  for (size_t i = len; i > 0; --i) {
    if (buf[i - 1] == ')') {
      close_paren = i - 1;
      break;
    }
  }
  if (close_paren == len) return false;
  size_t i = close_paren + 1;
  int field = 2;  // the ')' ends field 2 (comm)
  while (i < len) {
    while (i < len && buf[i] == ' ') ++i;
    if (i >= len) break;
    ++field;
    if (field == 3) *state = buf[i];
    if (field == 22) {
      double value = 0;
      bool any = false;
      while (i < len && buf[i] >= '0' && buf[i] <= '9') {
        value = value * 10 + (buf[i] - '0');
        any = true;
        ++i;
      }
      if (!any) return false;
      *starttime = value;
      return true;
    }
    while (i < len && buf[i] != ' ') ++i;
  }
  return false;
}

// Sys provides `int Kill0(int32_t pid)` (0, or the errno of kill(pid, 0)) and
// `long ReadStat(int32_t pid, char* buf, size_t cap)` (bytes read, or -1 when it cannot be read).
template <typename Sys>
void ProbeOne(Sys& sys, int32_t pid, char* buf, size_t cap, uint8_t* state, double* token) {
  *token = NAN;
  // kill(0) and kill(-1) address process groups: never probe them.
  if (pid <= 0) {
    *state = kInvalid;
    return;
  }
  // Only ESRCH means no such process; success and EPERM both mean it exists.
  if (sys.Kill0(pid) == ESRCH) {
    *state = kGone;
    return;
  }
  const long len = sys.ReadStat(pid, buf, cap);
  char s = 0;
  double start = NAN;
  if (len <= 0 || !ParseStat(buf, static_cast<size_t>(len), &s, &start)) {
    // kill said it exists, yet its stat cannot be read: hidepid or EPERM (it still exists), or it
    // exited and was reaped in between. Asking kill again tells the two apart, so a vanished process
    // is gone rather than unverified; a PID reused in between still exists and stays unverified.
    *state = sys.Kill0(pid) == ESRCH ? kGone : kUnverified;
    return;
  }
  *token = start;
  *state = (s == 'Z' || s == 'X' || s == 'x') ? kZombie : kAlive;
}

template <typename Sys>
void ProbeBatchWith(Sys& sys, const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  char buf[1024];
  for (size_t k = 0; k < count; ++k) ProbeOne(sys, pids[k], buf, sizeof(buf), &states[k], &tokens[k]);
}

}  // namespace procfs
}  // namespace claude_ps
