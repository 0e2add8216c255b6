// Holds the benchmark's fixture processes: `holder live K` forks K children that sleep in pause(),
// `holder zombie K` forks K children that exit at once and are left unreaped (state Z).
// `holder reaped K` forks K children that exit, reaps each at once, prints their PIDs and exits: PIDs
// that were real processes a moment ago and now belong to nobody (the "dead" claims).
// Prints one child PID per line, then "ready". When its stdin closes (the bench is done, or died),
// it kills what is left of its own children and reaps them all, so nothing outlives the bench.
// Children are reaped only here, so their PIDs cannot be reused while the bench signals them.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: holder live|zombie|reaped COUNT\n");
    return 2;
  }
  const int live = strcmp(argv[1], "live") == 0;
  const int reaped = strcmp(argv[1], "reaped") == 0;
  const int count = atoi(argv[2]);
  pid_t* kids = calloc((size_t)(count > 0 ? count : 1), sizeof(pid_t));
  const pid_t self = getpid();
  int made = 0;
  for (; made < count; ++made) {
    pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      if (!live) _exit(0);
      // A live child dies with its holder, even if the holder is killed outright.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != self) _exit(0);
      close(0);
      close(1);
      for (;;) pause();
    }
    kids[made] = pid;
    if (reaped) waitpid(pid, NULL, 0);
    printf("%d\n", (int)pid);
  }
  printf(made == count ? "ready\n" : "short\n");
  fflush(stdout);
  if (reaped) return 0;
  char buf[256];
  while (read(0, buf, sizeof buf) > 0) {
  }
  for (int i = 0; i < made; ++i) kill(kids[i], SIGKILL);
  for (int i = 0; i < made; ++i) waitpid(kids[i], NULL, 0);
  return 0;
}
