// Plain C++ (no napi.h): the safe batch read of candidate files, POSIX (Linux and macOS).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace claude_ps {

// Shared with lib/backend/types.ts (READ_*).
enum ReadStatus : uint8_t {
  kReadOk = 0,
  kReadMissing = 1,
  kReadSymlink = 2,
  kReadNotRegular = 3,
  kReadTooLarge = 4,
  kReadUnreadable = 5,
};

// A file that did not fit in the caller's buffer (ByteSink). Never reaches lib/: the glue answers
// with the room the batch needs, and the caller reads the whole batch again into a bigger buffer.
constexpr uint8_t kReadNoRoom = 255;

// Per file, in `meta` (kMetaStride doubles): offset and length into `out`, inode, size, mtime in ms.
// Shared with lib/backend/files.ts (META_*).
constexpr size_t kMetaStride = 5;

// Where a batch read puts the bytes: the caller's own buffer (a JS Uint8Array), written in place, so
// the bytes are neither gathered in a vector nor copied into a new Buffer (at 10,000 records that was
// a 10 MiB reservation and a 6 MiB copy per scan). A file that does not fit is kReadNoRoom and the
// room it would have taken is added to `needed`.
struct ByteSink {
  char* data;
  size_t cap;
  size_t used;
  size_t needed;
};

// Room to try first for a file fstat says is `size` bytes (plus slack for growth), at most `want`.
inline size_t FirstRoom(uint64_t size, size_t want) {
  return size + 512 < want ? static_cast<size_t>(size) + 512 : want;
}

// Reads each of `count` NUL-separated names in `names` relative to `dir`: openat with
// O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, fstat (regular files only, size <= max_bytes), then at most
// max_bytes + 1 bytes so a file that grows while read is caught. Contents go one after another
// into `out`, from out->used on.
void ReadFilesAt(const char* dir, const char* names, size_t names_len, size_t count, size_t max_bytes,
                 uint8_t* status, double* meta, ByteSink* out);

// Per stamp in ListFolder's `stamps` (kStampStride doubles): device, inode, change time (seconds,
// nanoseconds), modification time (seconds, nanoseconds), size. Shared with lib/backend/list-folder.ts.
constexpr size_t kStampStride = 7;

// Lists `dir` through ONE descriptor: fstat, every entry name but . and .. (each appended to `names`
// and followed by a NUL), fstat of the same descriptor again: `stamps` gets the stamp before the
// listing, then the one after. Returns 0, or the errno of the first call that failed. Windows: ENOSYS
// (its listing stays in JS).
int ListFolder(const char* dir, std::string* names, double* stamps);

}  // namespace claude_ps
