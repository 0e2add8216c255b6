/**
 * The `ps -o lstart=` text that Claude Code records as `procStart` on macOS, run with LC_ALL=C TZ=UTC:
 * strftime `%a %b %e %H:%M:%S %Y` — English names, the day padded with a space, whole seconds, UTC.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/**
 * Epoch seconds → lstart text, e.g. 1794217730 → `Mon Nov  9 09:48:50 2026`. Fractions are dropped
 * (the kernel's start time is truncated to whole seconds the same way). Throws a RangeError for a
 * value that is not a finite time: that is a programmer error, not registry content.
 */
export function formatLstart(epochSeconds: number): string {
  const d = new Date(Math.floor(epochSeconds) * 1000);
  if (!Number.isFinite(epochSeconds) || Number.isNaN(d.getTime())) {
    throw new RangeError(`formatLstart: not a representable epoch second: ${epochSeconds}`);
  }
  const day = d.getUTCDate();
  return (
    `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${day < 10 ? ` ${day}` : day} ` +
    `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${d.getUTCFullYear()}`
  );
}

// After whitespace is collapsed. The day is not zero-padded (`%e`), the year has four digits.
const LSTART =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]) ([0-9]{4})$/;

/** Collapses runs of whitespace and trims: the form in which lstart tokens are compared. */
export function normaliseLstart(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

/**
 * lstart text (read as UTC, whitespace collapsed) → epoch seconds, or undefined when it is not text
 * `ps` could have printed: a wrong shape, an impossible date (Feb 30, Feb 29 of a common year) or a
 * weekday that does not match the date.
 */
export function parseLstart(text: string): number | undefined {
  const m = LSTART.exec(normaliseLstart(text));
  if (!m) return undefined;
  const [, wday, mon, dd, hh, mi, ss, yyyy] = m;
  const year = Number(yyyy);
  const month = MONTHS.indexOf(mon!);
  const day = Number(dd);
  const d = new Date(Date.UTC(year, month, day, Number(hh), Number(mi), Number(ss)));
  // Date.UTC rolls impossible dates over (and maps years 0–99 to 1900+): a changed field rejects.
  d.setUTCFullYear(year, month, day);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month || d.getUTCDate() !== day) return undefined;
  if (DAYS[d.getUTCDay()] !== wday) return undefined;
  return d.getTime() / 1000;
}

/** True when the text is an lstart token `ps` could have printed (see parseLstart). */
export function isLstartText(text: string): boolean {
  return parseLstart(text) !== undefined;
}
