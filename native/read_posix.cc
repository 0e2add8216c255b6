// Safe batch read of candidate files (Linux and macOS): one directory fd, openat per file.
#include "read.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

namespace claude_ps {
namespace {

uint8_t OpenErrorStatus(int err) {
  // O_NOFOLLOW on a symlink fails with ELOOP (EMLINK on FreeBSD).
  if (err == ELOOP || err == EMLINK) return kReadSymlink;
  if (err == ENOENT || err == ENOTDIR) return kReadMissing;
  return kReadUnreadable;
}

// A failed openat of a name in an open folder: a socket cannot be opened at all (ENXIO; EOPNOTSUPP on
// macOS) and a device may refuse (EACCES, ENXIO), so the file type decides, not the errno. Only a
// regular file that cannot be opened is unreadable.
uint8_t OpenFailureStatus(int dirfd, const char* name, int err) {
  const uint8_t status = OpenErrorStatus(err);
  if (status != kReadUnreadable) return status;
  struct stat st;
  int r;
  do {
    r = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
  } while (r != 0 && errno == EINTR);
  if (r != 0) return errno == ENOENT ? kReadMissing : kReadUnreadable;
  if (S_ISLNK(st.st_mode)) return kReadSymlink;
  if (!S_ISREG(st.st_mode)) return kReadNotRegular;
  return kReadUnreadable;
}

double MtimeMs(const struct stat& st) {
#ifdef __APPLE__
  return static_cast<double>(st.st_mtimespec.tv_sec) * 1000.0 + static_cast<double>(st.st_mtimespec.tv_nsec) / 1e6;
#else
  return static_cast<double>(st.st_mtim.tv_sec) * 1000.0 + static_cast<double>(st.st_mtim.tv_nsec) / 1e6;
#endif
}

int OpenRetry(int dirfd, const char* name, int flags) {
  int fd;
  do {
    fd = openat(dirfd, name, flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Reads one open file into out; returns its status.
uint8_t ReadOne(int fd, size_t max_bytes, double* m, ByteSink* out) {
  struct stat st;
  if (fstat(fd, &st) != 0) return kReadUnreadable;
  m[2] = static_cast<double>(st.st_ino);
  m[3] = static_cast<double>(st.st_size);
  m[4] = MtimeMs(st);
  if (!S_ISREG(st.st_mode)) return kReadNotRegular;
  if (st.st_size < 0 || static_cast<size_t>(st.st_size) > max_bytes) return kReadTooLarge;
  const size_t start = out->used;
  const size_t want = max_bytes + 1;  // one byte more than allowed proves the file grew past the cap
  // Room for what fstat saw (plus slack for growth), not the cap: most files are ~1 KiB.
  size_t room = FirstRoom(static_cast<uint64_t>(st.st_size), want);
  size_t got = 0;
  for (;;) {
    if (got == room) {
      if (room == want) break;
      room = room * 2 > want ? want : room * 2;
    }
    if (room > out->cap - start) {
      out->needed += room;
      return kReadNoRoom;
    }
    ssize_t n = read(fd, out->data + start + got, room - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return kReadUnreadable;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
    // A short read of a regular file is its end at that moment: skip the extra read() that says 0.
    if (got < room) break;
  }
  if (got > max_bytes) return kReadTooLarge;
  out->used = start + got;
  m[1] = static_cast<double>(got);
  return kReadOk;
}

void StampOf(const struct stat& st, double* s) {
  s[0] = static_cast<double>(st.st_dev);
  s[1] = static_cast<double>(st.st_ino);
#ifdef __APPLE__
  s[2] = static_cast<double>(st.st_ctimespec.tv_sec);
  s[3] = static_cast<double>(st.st_ctimespec.tv_nsec);
  s[4] = static_cast<double>(st.st_mtimespec.tv_sec);
  s[5] = static_cast<double>(st.st_mtimespec.tv_nsec);
#else
  s[2] = static_cast<double>(st.st_ctim.tv_sec);
  s[3] = static_cast<double>(st.st_ctim.tv_nsec);
  s[4] = static_cast<double>(st.st_mtim.tv_sec);
  s[5] = static_cast<double>(st.st_mtim.tv_nsec);
#endif
  s[6] = static_cast<double>(st.st_size);
}

}  // namespace

namespace {

// After the listing, the same descriptor is fstat'ed again; then the path must still name that
// folder (see ListFolder). Fills the second stamp; returns 0 or the errno of the fstat.
int StampAfter(int fd, const char* dir, double* stamps) {
  struct stat st;
  if (fstat(fd, &st) != 0) return errno;
  StampOf(st, stamps + kStampStride);
  // The names were read from this descriptor, but the records are then read by path: if the path
  // no longer names this folder (renamed away, another put in its place), the proof must fail, as
  // the by-path stamps of the JS path would. A path that cannot be stat'ed gets a size no folder has.
  struct stat now;
  if (stat(dir, &now) != 0) {
    stamps[kStampStride + 6] = -1;
  } else if (now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
    StampOf(now, stamps + kStampStride);
  }
  return 0;
}

void AppendName(const char* n, std::string* names) {
  if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) return;
  names->append(n);
  names->push_back('\0');
}

#ifdef __linux__
// Linux: getdents64 straight into a stack buffer. fdopendir(3) would fcntl the descriptor twice and
// allocate a 32 KiB DIR for every listing, two system calls of a 10-record scan's ~70.
struct LinuxDirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

int ReadNames(int fd, std::string* names) {
  alignas(8) char buf[32768];
  for (;;) {
    const long n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;  // the listing is incomplete, and says so
    }
    if (n == 0) return 0;
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const LinuxDirent64*>(buf + at);
      AppendName(e->d_name, names);
      at += e->d_reclen;
    }
  }
}
#endif

}  // namespace

int ListFolder(const char* dir, std::string* names, double* stamps) {
  int fd;
  do {
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return err;
  }
  StampOf(st, stamps);
#ifdef __linux__
  int err = ReadNames(fd, names);
  if (err == 0) err = StampAfter(fd, dir, stamps);
  close(fd);
  return err;
#else
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int err = errno;
    close(fd);
    return err;
  }
  int err = 0;
  for (;;) {
    errno = 0;
    const struct dirent* e = readdir(d);
    if (e == nullptr) {
      err = errno;  // 0 at the end; else the listing is incomplete, and says so
      break;
    }
    AppendName(e->d_name, names);
  }
  if (err == 0) err = StampAfter(dirfd(d), dir, stamps);
  closedir(d);
  return err;
#endif
}

void ReadFilesAt(const char* dir, const char* names, size_t names_len, size_t count, size_t max_bytes,
                 uint8_t* status, double* meta, ByteSink* out) {
  int dirfd;
  do {
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  } while (dirfd < 0 && errno == EINTR);
  const uint8_t dir_status = dirfd < 0 ? OpenErrorStatus(errno) : static_cast<uint8_t>(kReadOk);
  const int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  const char* name = names;
  const char* end = names + names_len;
  for (size_t i = 0; i < count; ++i) {
    double* m = meta + i * kMetaStride;
    m[0] = static_cast<double>(out->used);
    m[1] = m[2] = m[3] = m[4] = 0;
    if (name >= end) {  // fewer names than count: nothing to open
      status[i] = kReadMissing;
      continue;
    }
    const char* next = static_cast<const char*>(memchr(name, '\0', static_cast<size_t>(end - name)));
    const char* name_end = next ? next : end;
    // Names are NUL-separated; the last one ends at names_len, so copy it to terminate it.
    char buf[256];
    const size_t len = static_cast<size_t>(name_end - name);
    if (dir_status != kReadOk) {
      status[i] = dir_status;
    } else if (len == 0 || len >= sizeof(buf)) {
      status[i] = kReadMissing;
    } else {
      memcpy(buf, name, len);
      buf[len] = '\0';
      int fd = OpenRetry(dirfd, buf, flags);
      if (fd < 0) {
        status[i] = OpenFailureStatus(dirfd, buf, errno);
      } else {
        status[i] = ReadOne(fd, max_bytes, m, out);
        close(fd);
      }
    }
    name = name_end + 1;
  }
  if (dirfd >= 0) close(dirfd);
}

}  // namespace claude_ps
