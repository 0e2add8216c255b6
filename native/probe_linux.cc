// Linux probe: kill(pid, 0) first, then /proc/<pid>/stat for the state and the start token. The
// decisions live in linux_state.h (tested with injected answers); this file only makes the calls.
#include "probe.h"

#include <cerrno>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "linux_state.h"

namespace claude_ps {
namespace {

// Writes "/proc/<pid>/stat" into buf without snprintf (this runs thousands of times per call).
void StatPath(int32_t pid, char* buf) {
  char digits[12];
  int n = 0;
  for (uint32_t v = static_cast<uint32_t>(pid); v != 0; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
  const char prefix[] = "/proc/";
  int pos = 0;
  for (const char* p = prefix; *p; ++p) buf[pos++] = *p;
  while (n > 0) buf[pos++] = digits[--n];
  const char suffix[] = "/stat";
  for (const char* p = suffix; *p; ++p) buf[pos++] = *p;
  buf[pos] = '\0';
}

// Reads at most cap bytes of the file; -1 when it cannot be opened or read. A short read is the end:
// procfs hands a stat line over whole in one read(2), so asking again for the 0 that says so is a
// system call per live PID for nothing (the C reader the bench compares with reads once too).
ssize_t ReadSmallFile(const char* path, char* buf, size_t cap) {
  int fd;
  do {
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  size_t total = 0;
  while (total < cap) {
    ssize_t got = read(fd, buf + total, cap - total);
    if (got < 0) {
      if (errno == EINTR) continue;
      close(fd);
      return -1;
    }
    if (got == 0) break;
    const size_t asked = cap - total;
    total += static_cast<size_t>(got);
    if (static_cast<size_t>(got) < asked) break;
  }
  close(fd);
  return static_cast<ssize_t>(total);
}

struct LinuxSys {
  int Kill0(int32_t pid) { return kill(pid, 0) == 0 ? 0 : errno; }

  long ReadStat(int32_t pid, char* buf, size_t cap) {
    char path[32];
    StatPath(pid, path);
    return static_cast<long>(ReadSmallFile(path, buf, cap));
  }
};

}  // namespace

void ProbeBatch(const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  LinuxSys sys;
  procfs::ProbeBatchWith(sys, pids, count, states, tokens);
}

long ClockTicksPerSecond() { return sysconf(_SC_CLK_TCK); }

}  // namespace claude_ps
