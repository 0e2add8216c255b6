/**
 * Parsing of a Linux `/proc/<pid>/stat` line, straight from the bytes (no string is built).
 * The command name may contain ')', spaces and newlines, so fields are counted after the LAST ')':
 * the state is field 3, the start time (clock ticks since boot) field 22.
 */

const CLOSE_PAREN = 0x29;
const SPACE = 0x20;

export interface StatFields {
  /** The state letter's char code (e.g. 0x52 'R', 0x5a 'Z'). */
  stateCode: number;
  /** Field 22, clock ticks since boot. */
  startTicks: number;
}

/** Returns the state char code and start ticks, or undefined when the line is malformed. */
export function parseStatBytes(buf: Uint8Array, length: number): StatFields | undefined {
  let i = buf.lastIndexOf(CLOSE_PAREN, length - 1);
  if (i < 0) return undefined;
  i++;
  let field = 2;
  let stateCode = 0;
  while (i < length) {
    while (i < length && buf[i] === SPACE) i++;
    if (i >= length) break;
    field++;
    if (field === 3) stateCode = buf[i]!;
    if (field === 22) {
      let value = 0;
      let digits = 0;
      for (let c = buf[i]!; i < length && c >= 0x30 && c <= 0x39; c = buf[++i]!) {
        value = value * 10 + (c - 0x30);
        digits++;
      }
      return digits > 0 ? { stateCode, startTicks: value } : undefined;
    }
    while (i < length && buf[i] !== SPACE) i++;
  }
  return undefined;
}

/** `Z` (zombie) and `X`/`x` (dead) mean the process has exited and awaits reaping. */
export function isExitedState(stateCode: number): boolean {
  return stateCode === 0x5a || stateCode === 0x58 || stateCode === 0x78;
}
