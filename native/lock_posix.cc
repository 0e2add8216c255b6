// flock(2) on a folder, Linux and macOS. A folder, not a file in it: nothing to create, unlink or
// take for junk, so there is no check-then-unlink race, and the lock goes with the last descriptor
// however its holders die (kill -9 included). The caller decides what holding it means.
#include "lock.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace claude_ps {

int LockFolder(const char* path) {
  int fd;
  do {
    fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -errno;
  int rc;
  do {
    rc = flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int saved = errno == EAGAIN ? EWOULDBLOCK : errno;
    close(fd);
    return -saved;
  }
  return fd;
}

}  // namespace claude_ps
