// Safe batch read of candidate files (Windows): CreateFileW per file, never following a reparse point
// (Windows' symlinks and junctions), sharing read, write and delete so Claude Code can go on writing,
// renaming or deleting the file while we read it. A sharing violation (a writer that shares nothing)
// is retried briefly, then the file is `unreadable`: a skip, never a wait.
#include "read.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace claude_ps {
namespace {

// 100 ns intervals between 1601-01-01 and 1970-01-01.
constexpr uint64_t kFiletimeUnixEpoch = 116444736000000000ULL;
constexpr int kSharingRetries = 3;

std::wstring Widen(const char* utf8, size_t len) {
  if (len == 0) return std::wstring();
  const int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, static_cast<int>(len), nullptr, 0);
  if (n <= 0) return std::wstring();
  std::wstring out(static_cast<size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, static_cast<int>(len), &out[0], n);
  return out;
}

uint8_t OpenErrorStatus(DWORD err) {
  if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND || err == ERROR_INVALID_NAME ||
      err == ERROR_DIRECTORY) {
    return kReadMissing;
  }
  if (err == ERROR_CANT_ACCESS_FILE || err == ERROR_CANT_RESOLVE_FILENAME) return kReadSymlink;
  return kReadUnreadable;
}

HANDLE OpenRetry(const std::wstring& path, DWORD* error) {
  for (int attempt = 0;; ++attempt) {
    // BACKUP_SEMANTICS opens a folder too, so that it reads as not regular rather than unreadable.
    HANDLE h = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           nullptr, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (h != INVALID_HANDLE_VALUE) return h;
    *error = GetLastError();
    if (*error != ERROR_SHARING_VIOLATION || attempt + 1 >= kSharingRetries) return INVALID_HANDLE_VALUE;
    Sleep(1);
  }
}

uint8_t ReadOne(HANDLE h, size_t max_bytes, double* m, ByteSink* out) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) return kReadUnreadable;
  const uint64_t index = (static_cast<uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  const uint64_t size = (static_cast<uint64_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  const uint64_t mtime = (static_cast<uint64_t>(info.ftLastWriteTime.dwHighDateTime) << 32) | info.ftLastWriteTime.dwLowDateTime;
  m[2] = static_cast<double>(index);
  m[3] = static_cast<double>(size);
  m[4] = mtime >= kFiletimeUnixEpoch ? static_cast<double>(mtime - kFiletimeUnixEpoch) / 1e4 : 0;
  if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) return kReadSymlink;
  if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) || GetFileType(h) != FILE_TYPE_DISK) return kReadNotRegular;
  if (size > max_bytes) return kReadTooLarge;
  const size_t start = out->used;
  const size_t want = max_bytes + 1;  // one byte more than allowed proves the file grew past the cap
  // Room for what the handle's size says (plus slack for growth), grown on need up to the cap.
  size_t room = FirstRoom(size, want);
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
    const size_t ask = room - got > 0x40000000 ? 0x40000000 : room - got;
    DWORD n = 0;
    if (!ReadFile(h, out->data + start + got, static_cast<DWORD>(ask), &n, nullptr)) return kReadUnreadable;
    if (n == 0) break;
    got += n;
  }
  if (got > max_bytes) return kReadTooLarge;
  out->used = start + got;
  m[1] = static_cast<double>(got);
  return kReadOk;
}

// A path past MAX_PATH opens only in the \\?\ form (as Node's own fs does); without it the open would
// fail with ERROR_PATH_NOT_FOUND and a record Node can list would read as missing. That form takes the
// path literally, so only an absolute path with no "." or ".." segment is converted.
std::wstring LongForm(std::wstring path) {
  if (path.size() < MAX_PATH - 12) return path;
  for (auto& c : path) if (c == L'/') c = L'\\';
  if (path.find(L"\\.\\") != std::wstring::npos || path.find(L"\\..\\") != std::wstring::npos ||
      path.find(L"\\\\", 2) != std::wstring::npos) {
    return path;
  }
  const bool drive = path.size() > 2 && path[1] == L':' && path[2] == L'\\';
  if (drive) return L"\\\\?\\" + path;
  if (path.compare(0, 2, L"\\\\") == 0 && path.compare(0, 4, L"\\\\?\\") != 0) return L"\\\\?\\UNC\\" + path.substr(2);
  return path;
}

}  // namespace

void ReadFilesAt(const char* dir, const char* names, size_t names_len, size_t count, size_t max_bytes,
                 uint8_t* status, double* meta, ByteSink* out) {
  std::wstring folder = Widen(dir, std::strlen(dir));
  if (!folder.empty() && folder.back() != L'\\' && folder.back() != L'/') folder += L'\\';
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
    const size_t len = static_cast<size_t>(name_end - name);
    name = name_end + 1;
    // A name is one entry of the folder: a separator, or ':' (an alternate data stream), would
    // address another file.
    const std::wstring wide = Widen(name_end - len, len);
    if (folder.empty() || wide.empty() || wide.find_first_of(L"\\/:") != std::wstring::npos) {
      status[i] = kReadMissing;
      continue;
    }
    DWORD error = 0;
    HANDLE h = OpenRetry(LongForm(folder + wide), &error);
    if (h == INVALID_HANDLE_VALUE) {
      status[i] = OpenErrorStatus(error);
      continue;
    }
    status[i] = ReadOne(h, max_bytes, m, out);
    CloseHandle(h);
  }
}

// The Windows listing stays in JS (lib/registry/read/complete-listing.ts).
int ListFolder(const char*, std::string*, double*) { return ENOSYS; }

}  // namespace claude_ps
