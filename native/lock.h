// Plain C++ (no napi.h): a lock on a folder that the kernel releases with its last holder, POSIX.
#pragma once

namespace claude_ps {

// Opens `path` as a folder (O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC) and takes flock(LOCK_EX|LOCK_NB)
// on it. Returns the descriptor (the lock lives as long as it, or a copy made by dup or fork, is open),
// or -errno: -EWOULDBLOCK when another descriptor holds it, -ELOOP for a symlink, -ENOTDIR, ...
int LockFolder(const char* path);

}  // namespace claude_ps
