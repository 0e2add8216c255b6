// Plain C++ with no macOS headers: the decisions of the darwin probe, separated from its two system
// calls so that they compile and are tested on Linux (test/proc/darwin-state.test.ts). probe_darwin.cc
// supplies the real calls; a test supplies injected answers.
#pragma once
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "probe.h"

namespace claude_ps {
namespace darwin {

// SZOMB from <sys/proc.h>; probe_darwin.cc checks the value with a static_assert.
constexpr int kZombieStat = 5;

// What one sysctl({CTL_KERN, KERN_PROC, KERN_PROC_PID, pid}) call answered.
struct ProcQuery {
  int rc = -1;            // sysctl's return value: 0 on success
  int error = 0;          // errno when rc != 0
  size_t length = 0;      // the length sysctl returned: 0 when no process has the PID
  size_t expected = 0;    // sizeof(struct kinfo_proc)
  int p_stat = 0;         // kp_proc.p_stat
  int64_t start_sec = 0;  // kp_proc.p_starttime.tv_sec
};

// The state (and token) an answered query means for a PID that kill(pid, 0) says exists.
inline ProbeState StateFromQuery(const ProcQuery& q, double* token) {
  *token = NAN;
  // A failing sysctl says nothing about existence, and kill said the PID exists: never gone.
  if (q.rc != 0) return kUnverified;
  // No kinfo_proc: the process exited between kill and sysctl.
  if (q.length == 0) return kGone;
  // A partial record cannot be trusted for a start time.
  if (q.length != q.expected) return kUnverified;
  *token = static_cast<double>(q.start_sec);
  return q.p_stat == kZombieStat ? kZombie : kAlive;
}

// Sys provides `int Kill0(int32_t pid)` (0, or the errno of kill(pid, 0)) and
// `ProcQuery Query(int32_t pid)`. Both are retried here on EINTR.
template <typename Sys>
void ProbeOne(Sys& sys, int32_t pid, uint8_t* state, double* token) {
  *token = NAN;
  // kill(0) and kill(-1) address process groups: never probe them.
  if (pid <= 0) {
    *state = kInvalid;
    return;
  }
  int kill_error;
  do {
    kill_error = sys.Kill0(pid);
  } while (kill_error == EINTR);
  // Only ESRCH means no such process; success and EPERM both mean it exists.
  if (kill_error == ESRCH) {
    *state = kGone;
    return;
  }
  ProcQuery q;
  do {
    q = sys.Query(pid);
  } while (q.rc != 0 && q.error == EINTR);
  *state = StateFromQuery(q, token);
}

template <typename Sys>
void ProbeBatchWith(Sys& sys, const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  for (size_t k = 0; k < count; ++k) ProbeOne(sys, pids[k], &states[k], &tokens[k]);
}

}  // namespace darwin
}  // namespace claude_ps
