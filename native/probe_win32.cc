// Windows probe: OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE), then GetProcessId,
// WaitForSingleObject(0) (or GetExitCodeProcess), GetProcessTimes. The decisions live in
// win32_state.h (tested with injected answers); this file only makes the calls.
#include "probe.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include "win32_state.h"

namespace claude_ps {
namespace {

static_assert(win32::kErrorAccessDenied == ERROR_ACCESS_DENIED, "ERROR_ACCESS_DENIED");
static_assert(win32::kErrorInvalidParameter == ERROR_INVALID_PARAMETER, "ERROR_INVALID_PARAMETER");
static_assert(win32::kStillActive == STILL_ACTIVE, "STILL_ACTIVE");

struct Win32Sys {
  win32::ProcQuery Query(int32_t pid) {
    win32::ProcQuery q;
    const DWORD id = static_cast<DWORD>(pid);
    // SYNCHRONIZE lets the wait tell "exited" from "exited with code 259"; a process that grants the
    // limited query right but not SYNCHRONIZE is asked again without it.
    bool can_wait = true;
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, id);
    if (h == nullptr && GetLastError() == ERROR_ACCESS_DENIED) {
      can_wait = false;
      h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, id);
    }
    if (h == nullptr) {
      q.open_error = GetLastError();
      if (q.open_error == 0) q.open_error = ERROR_GEN_FAILURE;  // a failure must never read as success
      return q;
    }
    q.actual_pid = GetProcessId(h);
    if (can_wait) {
      const DWORD w = WaitForSingleObject(h, 0);
      q.wait = w == WAIT_OBJECT_0 ? win32::kWaitSignaled : w == WAIT_TIMEOUT ? win32::kWaitTimeout : win32::kWaitFailed;
    }
    DWORD code = 0;
    q.exit_ok = GetExitCodeProcess(h, &code) != 0;
    q.exit_code = code;
    FILETIME creation, exit_time, kernel, user;
    q.times_ok = GetProcessTimes(h, &creation, &exit_time, &kernel, &user) != 0;
    if (q.times_ok) {
      q.creation = (static_cast<uint64_t>(creation.dwHighDateTime) << 32) | creation.dwLowDateTime;
    }
    CloseHandle(h);
    return q;
  }
};

}  // namespace

void ProbeBatch(const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  Win32Sys sys;
  win32::ProbeBatchWith(sys, pids, count, states, tokens);
}

long ClockTicksPerSecond() { return 0; }

}  // namespace claude_ps
