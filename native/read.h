// Plain C++ (no napi.h): the safe batch read of candidate files, POSIX (Linux and macOS).
#pragma once
#include <cstddef>
#include <cstdint>
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

}  // namespace claude_ps
