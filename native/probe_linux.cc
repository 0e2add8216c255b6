// Linux probe: kill(pid, 0) first, then /proc/<pid>/stat for the state and the start token.
#include "probe.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace ccs {
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

// Reads at most cap bytes of the file; -1 when it cannot be opened or read.
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
    total += static_cast<size_t>(got);
  }
  close(fd);
  return static_cast<ssize_t>(total);
}

// The command name may hold ')', spaces and newlines: fields are counted after the LAST ')'.
// After it: " S ppid ..." — the state is field 3, starttime field 22 (the 20th after the state).
bool ParseStat(const char* buf, size_t len, char* state, double* starttime) {
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

}  // namespace

void ProbeBatch(const int32_t* pids, size_t count, uint8_t* states, double* tokens) {
  char path[32];
  char buf[1024];
  for (size_t k = 0; k < count; ++k) {
    const int32_t pid = pids[k];
    tokens[k] = NAN;
    // kill(0) and kill(-1) address process groups: never probe them.
    if (pid <= 0) {
      states[k] = kInvalid;
      continue;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) {
      states[k] = kGone;
      continue;
    }
    // The PID exists (kill succeeded or said EPERM).
    StatPath(pid, path);
    ssize_t len = ReadSmallFile(path, buf, sizeof(buf));
    char state = 0;
    double start = NAN;
    if (len <= 0 || !ParseStat(buf, static_cast<size_t>(len), &state, &start)) {
      // hidepid, EPERM or a process that exited between the two calls: exists, token unknown.
      states[k] = kUnverified;
      continue;
    }
    tokens[k] = start;
    states[k] = (state == 'Z' || state == 'X' || state == 'x') ? kZombie : kAlive;
  }
}

long ClockTicksPerSecond() { return sysconf(_SC_CLK_TCK); }

}  // namespace ccs
