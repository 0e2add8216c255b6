/**
 * Keys from a terminal in raw mode, from the bytes read: arrows and paging keys in both the CSI
 * (`ESC [ A`) and SS3 (`ESC O A`) forms, Enter, Backspace, Escape, Ctrl-C / Ctrl-D / Ctrl-Z, and
 * printable characters. Pure, so every sequence is testable without a terminal.
 */
export type Key =
  | { name: 'up' | 'down' | 'pageup' | 'pagedown' | 'home' | 'end' | 'enter' | 'backspace' | 'escape' | 'interrupt' | 'eof' | 'suspend' | 'tab' }
  | { name: 'char'; char: string }
  /** Alt (Meta) with a character: a terminal sends ESC before it. Bound to nothing, so Alt+q never quits. */
  | { name: 'alt'; char: string };

const SEQUENCES: Readonly<Record<string, Key['name']>> = {
  '[A': 'up', OA: 'up', '[B': 'down', OB: 'down',
  '[5~': 'pageup', '[6~': 'pagedown',
  '[H': 'home', OH: 'home', '[1~': 'home', '[7~': 'home',
  '[F': 'end', OF: 'end', '[4~': 'end', '[8~': 'end',
};

// One escape sequence: CSI parameters and a final byte, or SS3 and one letter.
const ESCAPE = /^\x1b(\[[0-9;?]*[\x40-\x7e]|O[A-Za-z])/;

export function parseKeys(input: string): Key[] {
  const keys: Key[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (c === '\x1b') {
      const m = ESCAPE.exec(input.slice(i));
      if (m) {
        const name = SEQUENCES[m[1]!];
        if (name) keys.push({ name } as Key);
        i += m[0].length; // an unknown sequence (F5, a mouse report) is dropped whole
        continue;
      }
      // ESC and a printable character in one read is Alt+that character (xterm's metaSendsEscape, the
      // default of most terminals), not Escape then the character: Alt+q must not quit.
      const next = input.codePointAt(i + 1);
      if (next !== undefined && next >= 0x20 && next !== 0x7f && !(next >= 0x80 && next < 0xa0)) {
        const char = String.fromCodePoint(next);
        keys.push({ name: 'alt', char });
        i += 1 + char.length;
        continue;
      }
      keys.push({ name: 'escape' });
      i++;
      continue;
    }
    const code = input.codePointAt(i)!;
    const char = String.fromCodePoint(code);
    i += char.length;
    if (c === '\r' || c === '\n') keys.push({ name: 'enter' });
    else if (c === '\x7f' || c === '\b') keys.push({ name: 'backspace' });
    else if (c === '\t') keys.push({ name: 'tab' });
    else if (c === '\x03') keys.push({ name: 'interrupt' });
    else if (c === '\x04') keys.push({ name: 'eof' });
    else if (c === '\x1a') keys.push({ name: 'suspend' });
    else if (code >= 0x20 && !(code >= 0x7f && code < 0xa0)) keys.push({ name: 'char', char });
  }
  return keys;
}
