// Windows: no folder lock through the addon. `watch --statusline-dir` needs the POSIX guardian shell
// and flock(2) (docs/windows.md); the JS side reports ENOSYS as "cannot lock", never as "free".
#include "lock.h"

#include <cerrno>

namespace claude_ps {

int LockFolder(const char* /*path*/) { return -ENOSYS; }

}  // namespace claude_ps
