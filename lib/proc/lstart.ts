/**
 * The `ps -o lstart=` text that Claude Code records as `procStart` on macOS, run with LC_ALL=C TZ=UTC:
 * `Www Mmm dd hh:mm:ss yyyy`, English names, the day padded with a space, whole seconds, UTC.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** Epoch seconds → lstart text, e.g. 1794217730 → `Mon Nov  9 09:48:50 2026`. */
export function formatLstart(epochSeconds: number): string {
  const d = new Date(Math.floor(epochSeconds) * 1000);
  const day = d.getUTCDate();
  return (
    `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${day < 10 ? ` ${day}` : day} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${d.getUTCFullYear()}`
  );
}

const LSTART = /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/** Collapses runs of whitespace and trims: the form in which lstart tokens are compared. */
export function normaliseLstart(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/** True when the text has the shape of an lstart token (after whitespace is collapsed). */
export function isLstartText(text: string): boolean {
  return LSTART.test(normaliseLstart(text));
}

/** lstart text (read as UTC) → epoch seconds, or undefined when it is not a valid lstart. */
export function parseLstart(text: string): number | undefined {
  const m = LSTART.exec(normaliseLstart(text));
  if (!m) return undefined;
  const [, , mon, dd, hh, mi, ss, yyyy] = m;
  const ms = Date.UTC(Number(yyyy), MONTHS.indexOf(mon!), Number(dd), Number(hh), Number(mi), Number(ss));
  const seconds = ms / 1000;
  // Reject impossible dates (Feb 30) instead of letting Date roll them over.
  return formatLstart(seconds) === normaliseLstart(text).replace(/ (\d) /, '  $1 ') ? seconds : undefined;
}
