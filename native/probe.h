// Plain C++ (no napi.h): the system calls behind the addon, one implementation per OS.
#pragma once
#include <cstddef>
#include <cstdint>

namespace claude_ps {

// Shared with lib/backend/types.ts (STATE_*).
enum ProbeState : uint8_t {
  kInvalid = 0,
  kGone = 1,
  kAlive = 2,
  kUnverified = 3,
  kZombie = 4,
};

// For each pids[i]: states[i] and tokens[i] (NaN when unknown).
// Linux: token = starttime in clock ticks (field 22 of /proc/<pid>/stat).
// macOS: token = process start time in whole epoch seconds (kp_proc.p_starttime.tv_sec).
// Windows: token = the creation FILETIME, its 64 bits stored in the slot (win32_state.h), 0 when unknown.
void ProbeBatch(const int32_t* pids, size_t count, uint8_t* states, double* tokens);

// sysconf(_SC_CLK_TCK) on Linux; 0 where tokens are not ticks.
long ClockTicksPerSecond();

}  // namespace claude_ps
