// Runs a command and prints "<wall ns> <CPU ns>" for it: wall time from fork to exit, and the user +
// system CPU time of the child and everything it waited for (wait4's rusage). The CPU figure is what
// the command costs even when other work on a shared machine delays it.
// Usage: run COMMAND [ARGS...]; the command's stdout goes to /dev/null, its exit status is passed on.
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: run COMMAND [ARGS...]\n");
    return 2;
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, 1);
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) return 1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  double wall = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
  double cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3;
  printf("%.0f %.0f\n", wall, cpu);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
