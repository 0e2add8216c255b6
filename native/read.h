// Plain C++ (no napi.h): the safe batch read of candidate files, POSIX (Linux and macOS).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

// Per file, in `meta` (kMetaStride doubles): offset and length into `out`, inode, size, mtime in ms.
// Shared with lib/backend/files.ts (META_*).
constexpr size_t kMetaStride = 5;

// Reads each of `count` NUL-separated names in `names` relative to `dir`: openat with
// O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, fstat (regular files only, size <= max_bytes), then at most
// max_bytes + 1 bytes so a file that grows while read is caught. Contents are appended to `out`.
void ReadFilesAt(const char* dir, const char* names, size_t names_len, size_t count, size_t max_bytes,
                 uint8_t* status, double* meta, std::vector<char>* out);

// Per stamp in ListFolder's `stamps` (kStampStride doubles): device, inode, change time (seconds,
// nanoseconds), modification time (seconds, nanoseconds), size. Shared with lib/backend/list-folder.ts.
constexpr size_t kStampStride = 7;

// Lists `dir` through ONE descriptor: fstat, every entry name but . and .. (each appended to `names`
// and followed by a NUL), fstat of the same descriptor again: `stamps` gets the stamp before the
// listing, then the one after. Returns 0, or the errno of the first call that failed. Windows: ENOSYS
// (its listing stays in JS).
int ListFolder(const char* dir, std::string* names, double* stamps);

}  // namespace claude_ps
