// Plain C++ with no Windows headers: the decisions of the win32 probe, separated from its system calls
// so that they compile and are tested on Linux with injected answers (test/proc/win32-state.test.ts).
// probe_win32.cc supplies the real OpenProcess / GetProcessId / WaitForSingleObject /
// GetExitCodeProcess / GetProcessTimes answers; docs/windows.md says what each one proves.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "probe.h"

namespace claude_ps {
namespace win32 {

// From <winerror.h> and <winbase.h>; probe_win32.cc checks them with static_asserts.
constexpr uint32_t kErrorAccessDenied = 5;
constexpr uint32_t kErrorInvalidParameter = 87;
constexpr uint32_t kStillActive = 259;

// What WaitForSingleObject(handle, 0) answered, or that it could not be asked (no SYNCHRONIZE right).
enum WaitAnswer : uint8_t { kWaitNotAsked = 0, kWaitSignaled = 1, kWaitTimeout = 2, kWaitFailed = 3 };

// What the calls for one PID answered. Only the fields up to the first failure are meaningful.
struct ProcQuery {
  uint32_t open_error = 0;   // GetLastError() of OpenProcess; 0 when a handle was opened
  uint32_t actual_pid = 0;   // GetProcessId(handle): 0 when it failed
  WaitAnswer wait = kWaitNotAsked;
  bool exit_ok = false;      // GetExitCodeProcess succeeded
  uint32_t exit_code = 0;
  bool times_ok = false;     // GetProcessTimes succeeded
  uint64_t creation = 0;     // its creation FILETIME (100 ns since 1601-01-01 UTC)
};

// The token slot holds the FILETIME's 64 bits (read in JavaScript through a BigUint64Array over the
// same memory): a FILETIME is past 2^53, where a double would round it; 0 means unknown.
inline void StoreFiletime(double* slot, uint64_t filetime) { std::memcpy(slot, &filetime, sizeof filetime); }

// The state an answered query means for `pid`, and the token it proves (0 when none).
inline ProbeState StateFromQuery(int32_t pid, const ProcQuery& q, uint64_t* token) {
  *token = 0;
  // The one answer that proves no process has the PID.
  if (q.open_error == kErrorInvalidParameter) return kGone;
  // ACCESS_DENIED: a process exists that we may not query. Any other failure proves nothing either.
  if (q.open_error != 0) return kUnverified;
  if (q.actual_pid == 0) return kUnverified;
  // Windows looks PIDs up ignoring their two low bits, so OpenProcess(1001) opens process 1000: a
  // handle on another PID proves that no process has this one.
  if (q.actual_pid != static_cast<uint32_t>(pid)) return kGone;
  const uint64_t creation = q.times_ok ? q.creation : 0;
  bool exited;
  if (q.wait == kWaitSignaled || q.wait == kWaitTimeout) {
    exited = q.wait == kWaitSignaled;
  } else {
    // Without the wait, the exit code decides; a process that exited with code 259 reads as running
    // here (Windows cannot tell the two apart), which errs on the live side.
    if (!q.exit_ok) return kUnverified;
    exited = q.exit_code != kStillActive;
  }
  *token = creation;
  // Exited, its process object kept by a handle someone holds: the PID cannot be reused while it
  // exists, so whoever the claim named, that process is dead (Linux's zombie).
  if (exited) return kZombie;
  return creation == 0 ? kUnverified : kAlive;
}

// Sys provides `ProcQuery Query(int32_t pid)`.
template <typename Sys>
void ProbeOne(Sys& sys, int32_t pid, uint8_t* state, double* token) {
  StoreFiletime(token, 0);
  // Windows has no process groups, but 0 is the System Idle Process and no record names it.
  if (pid <= 0) {
    *state = kInvalid;
    return;
  }
  uint64_t filetime = 0;
  *state = StateFromQuery(pid, sys.Query(pid), &filetime);
  StoreFiletime(token, filetime);
}

template <typename Sys>
void ProbeBatchWith(Sys& sys, const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  for (size_t k = 0; k < count; ++k) ProbeOne(sys, pids[k], &states[k], &tokens[k]);
}

}  // namespace win32
}  // namespace claude_ps
