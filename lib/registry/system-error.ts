/**
 * System errors told as sentences about the user's own path: "cannot write the snapshot
 * /srv/x.json: it is a folder (EISDIR)", never Node's bare `EISDIR: illegal operation on a directory,
 * rename '/srv/.x.json.4242.9f….tmp'`, which names a temp file the user never asked for.
 */

const PHRASES: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EEXIST: 'it already exists',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
  EROFS: 'the file system is read-only',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on the system',
  EIO: 'an input/output error',
  EBUSY: 'the resource is busy',
  EXDEV: 'it is on another file system',
  ETXTBSY: 'the file is busy',
};

/** `permission denied` for `EACCES`, or undefined for a code without a phrase here. */
export function systemErrorPhrase(code: string): string | undefined {
  return Object.hasOwn(PHRASES, code) ? PHRASES[code] : undefined;
}

/** `permission denied (EACCES)`, or the system's own words for a code without a phrase here. */
export function describeSystemError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string' && Object.hasOwn(PHRASES, code)) return `${PHRASES[code]} (${code})`;
  const message = error instanceof Error ? error.message : String(error);
  // Node's own text is "CODE: words, syscall 'path'": keep the words, never the internal path.
  const words = /^[A-Z0-9_]+: ([^,]+)/.exec(message)?.[1];
  return typeof code === 'string' ? `${words ?? 'failed'} (${code})` : message;
}

/** An Error whose message is `cannot <what> <path>: <why>`, keeping `code` and the cause. */
export function pathError(what: string, path: string, error: unknown): Error {
  const wrapped = new Error(`cannot ${what} ${path}: ${describeSystemError(error)}`, { cause: error });
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === 'string') (wrapped as NodeJS.ErrnoException).code = code;
  return wrapped;
}

const TEMP_FILE = /^(.*)\/\.[^/]*\.[0-9a-f]{12}\.tmp$/;

const VERBS: Readonly<Record<string, string>> = {
  open: 'open',
  mkdir: 'create the folder',
  rename: 'replace',
  unlink: 'remove',
  rmdir: 'remove the folder',
  scandir: 'list',
  opendir: 'list',
  stat: 'look at',
  lstat: 'look at',
  access: 'access',
  write: 'write',
  read: 'read',
  link: 'create',
  symlink: 'create',
  chmod: 'change the mode of',
  watch: 'watch',
};

/**
 * The message to show for any error: Node's system errors (`EEXIST: file already exists, mkdir
 * '/x'`) become `cannot create the folder /x: it already exists (EEXIST)`; a rename names its
 * target, the user's path, never the temp file it came from. Other errors keep their message.
 */
export function errorSentence(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof e.code !== 'string' || typeof e.syscall !== 'string' || !e.message.startsWith(`${e.code}:`)) return e.message;
  const path = e.syscall === 'rename' && typeof e.dest === 'string' ? e.dest : e.path;
  const verb = Object.hasOwn(VERBS, e.syscall) ? VERBS[e.syscall] : e.syscall;
  // A temp file of ours (`.<name>.<pid>.<hex>.tmp`, made to be renamed): the folder is what the user named.
  const temp = path === undefined ? undefined : TEMP_FILE.exec(path);
  if (temp) return `cannot write in ${temp[1] || '/'}: ${describeSystemError(e)}`;
  if (path) return `cannot ${verb} ${path}: ${describeSystemError(e)}`;
  // A write to a descriptor (stdout, stderr) has no path: it is the command's own output.
  return e.syscall === 'write' ? `cannot write the output: ${describeSystemError(e)}` : `${verb} failed: ${describeSystemError(e)}`;
}
