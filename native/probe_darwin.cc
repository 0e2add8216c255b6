// macOS probe: kill(pid, 0), then sysctl(KERN_PROC_PID) for the zombie state and the start time, all
// in-process (no `ps` spawn per PID). The decisions live in darwin_state.h, tested on Linux; this file
// only makes the two system calls.
#include <signal.h>
#include <sys/proc.h>
#include <sys/sysctl.h>
#include <sys/types.h>

#include <cerrno>
#include <cstring>

#include "darwin_state.h"
#include "probe.h"

namespace claude_ps {
namespace {

static_assert(SZOMB == darwin::kZombieStat, "darwin_state.h's zombie state must be <sys/proc.h>'s SZOMB");

struct DarwinSys {
  int Kill0(int32_t pid) { return kill(pid, 0) == 0 ? 0 : errno; }

  darwin::ProcQuery Query(int32_t pid) {
    int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_PID, pid};
    struct kinfo_proc info;
    std::memset(&info, 0, sizeof(info));
    size_t length = sizeof(info);
    darwin::ProcQuery q;
    q.rc = sysctl(mib, 4, &info, &length, nullptr, 0);
    q.error = q.rc == 0 ? 0 : errno;
    q.length = length;
    q.expected = sizeof(info);
    q.p_stat = info.kp_proc.p_stat;
    // The same whole seconds `ps -o lstart=` prints (it formats p_starttime.tv_sec).
    q.start_sec = static_cast<int64_t>(info.kp_proc.p_starttime.tv_sec);
    return q;
  }
};

}  // namespace

void ProbeBatch(const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  DarwinSys sys;
  darwin::ProbeBatchWith(sys, pids, count, states, tokens);
}

// Tokens on macOS are epoch seconds, not clock ticks.
long ClockTicksPerSecond() { return 0; }

}  // namespace claude_ps
