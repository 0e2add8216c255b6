/**
 * The controlling terminal in a Linux `/proc/<pid>/stat` line: field 7, `tty_nr`, the device number
 * in the kernel's encoding (the same one `stat(2)` gives as a device file's `st_rdev`), 0 for none.
 * Fields are counted after the LAST ')', since the command name may contain ')' and spaces.
 */
export function ttyNrOfStatLine(line: string): number | undefined {
  const close = line.lastIndexOf(')');
  if (close < 0) return undefined;
  // After ") ": state (3), ppid (4), pgrp (5), session (6), tty_nr (7).
  const fields = line.slice(close + 2).split(' ');
  const text = fields[4];
  if (text === undefined || !/^-?[0-9]{1,12}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}
