// The "plain C reader" baseline for a full registry scan: what a careful C program would do to list
// the live records of <config>/sessions, and no more.
// readdir; keep names ^[1-9][0-9]*\.json$; openat (no symlinks, no blocking) + fstat (regular file,
// ≤ 256 KiB) + read; a minimal JSON field scan for "pid", "sessionId" and "procStart"; kill(pid, 0);
// for an existing PID, read /proc/<pid>/stat and compare its start time with procStart.
// Usage: scan SESSIONS_DIR ITERATIONS → prints "<wall ns per scan> <CPU ns per scan> <live records>".
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RECORD (256 * 1024)
static char record[MAX_RECORD + 1];
static int live_pids[100000];

static int canonical_name(const char* name, long* pid) {
  if (name[0] < '1' || name[0] > '9') return 0;
  long value = 0;
  const char* p = name;
  while (*p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
  if (strcmp(p, ".json") != 0) return 0;
  *pid = value;
  return 1;
}

// Finds "key": and returns a pointer to the value (after spaces), or NULL.
static const char* field(const char* json, const char* key) {
  const char* p = strstr(json, key);
  if (!p) return NULL;
  p += strlen(key);
  while (*p == ' ' || *p == ':') ++p;
  return p;
}

// The start time of a live non-zombie process as text, or 0 (gone), or -1 (exists, no usable stat).
static int stat_token(long pid, char* out, size_t cap) {
  char path[32], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t len = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (len <= 0) return -1;
  buf[len] = '\0';
  char* p = strrchr(buf, ')');
  if (!p) return -1;
  if (p[2] == 'Z' || p[2] == 'X') return 0;
  p += 2;
  for (int f = 0; f < 19 && p; ++f) p = strchr(p + 1, ' ');
  if (!p) return -1;
  size_t n = strcspn(p + 1, " ");
  if (n >= cap) return -1;
  memcpy(out, p + 1, n);
  out[n] = '\0';
  return 1;
}

static int by_pid(const void* a, const void* b) {
  return *(const int*)a - *(const int*)b;
}

static int scan(const char* dir) {
  int live = 0;
  DIR* d = opendir(dir);
  if (!d) return 0;
  const int dfd = dirfd(d);
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    long name_pid;
    if (!canonical_name(e->d_name, &name_pid)) continue;
    int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_RECORD) {
      close(fd);
      continue;
    }
    ssize_t len = read(fd, record, MAX_RECORD);
    close(fd);
    if (len <= 0) continue;
    record[len] = '\0';
    const char* pid_text = field(record, "\"pid\"");
    const char* session = field(record, "\"sessionId\"");
    if (!pid_text || !session || session[0] != '"' || session[1] == '"') continue;
    if (strtol(pid_text, NULL, 10) != name_pid) continue;
    if (kill((pid_t)name_pid, 0) != 0 && errno == ESRCH) continue;
    char now[32];
    int have = stat_token(name_pid, now, sizeof now);
    if (have == 0) continue;
    const char* recorded = field(record, "\"procStart\"");
    if (have > 0 && recorded && recorded[0] == '"') {
      size_t n = strcspn(recorded + 1, "\"");
      if (n != strlen(now) || strncmp(recorded + 1, now, n) != 0) continue;
    }
    live_pids[live++] = (int)name_pid;
  }
  closedir(d);
  // liveRecords returns records sorted by PID; so does this reader.
  qsort(live_pids, (size_t)live, sizeof live_pids[0], by_pid);
  return live;
}

static double now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: scan SESSIONS_DIR ITERATIONS\n");
    return 2;
  }
  const int iterations = atoi(argv[2]);
  int live = scan(argv[1]);
  double start = now_ns(CLOCK_MONOTONIC);
  double start_cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  for (int i = 0; i < iterations; ++i) live = scan(argv[1]);
  double elapsed = now_ns(CLOCK_MONOTONIC) - start;
  double cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - start_cpu;
  printf("%.0f %.0f %d\n", elapsed / iterations, cpu / iterations, live);
  return 0;
}
