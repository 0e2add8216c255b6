// The "plain C loop" baseline for the batch probe: the minimal system calls per PID, nothing else.
// kill(pid, 0); for a PID that exists, open/read/close /proc/<pid>/stat and take the state and
// field 22 (start time) after the last ')'.
// Usage: probe PIDFILE ITERATIONS → prints "<wall ns per batch> <CPU ns per batch> <alive> <zombie> <gone> <unverified>".
// One untimed warm-up batch first (each bench round is a fresh process).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int alive, zombie, gone, unverified;
static double tokens[100000];

static void probe_all(const int* pids, int count) {
  char path[32], buf[1024];
  alive = zombie = gone = unverified = 0;
  for (int k = 0; k < count; ++k) {
    const int pid = pids[k];
    tokens[k] = -1;
    if (kill(pid, 0) != 0 && errno == ESRCH) {
      ++gone;
      continue;
    }
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0) close(fd);
    if (len <= 0) {
      ++unverified;
      continue;
    }
    buf[len] = '\0';
    char* p = strrchr(buf, ')');
    if (!p) {
      ++unverified;
      continue;
    }
    char state = p[2];
    // Fields after ')': state is field 3, start time field 22 → skip 19 spaces after the state.
    p += 2;
    for (int f = 0; f < 19 && p; ++f) p = strchr(p + 1, ' ');
    tokens[k] = p ? strtod(p + 1, NULL) : -1;
    if (state == 'Z' || state == 'X') ++zombie; else ++alive;
  }
}

static double now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: probe PIDFILE ITERATIONS\n");
    return 2;
  }
  static int pids[100000];
  int count = 0;
  FILE* f = fopen(argv[1], "r");
  if (!f) return 1;
  while (count < 100000 && fscanf(f, "%d", &pids[count]) == 1) ++count;
  fclose(f);
  const int iterations = atoi(argv[2]);
  probe_all(pids, count);
  double start = now_ns(CLOCK_MONOTONIC);
  double start_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  for (int i = 0; i < iterations; ++i) probe_all(pids, count);
  double elapsed = now_ns(CLOCK_MONOTONIC) - start;
  double cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - start_cpu;
  printf("%.0f %.0f %d %d %d %d\n", elapsed / iterations, cpu / iterations, alive, zombie, gone, unverified);
  return 0;
}
