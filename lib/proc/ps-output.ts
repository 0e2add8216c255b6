/**
 * Pure reading of one `ps -o pid=,stat=,lstart= -p a,b,c` run (with LC_ALL=C TZ=UTC). No process is
 * spawned here: the caller hands over what the run produced, so every macOS and procps answer can be
 * fed in by a test.
 *
 * Facts this relies on (docs/macos.md): absent PIDs are simply missing from the output; exit 1 with an
 * empty stderr means none of the PIDs exist; values are padded (macOS ends every line in spaces); on
 * macOS a PID above 99999 or an empty list element makes the whole run fail (a message on stderr,
 * exit 1, no rows), so the caller filters those out first and such a run is never "none found".
 */
import { parseLstart } from './lstart.js';

export interface PsRow {
  /** The STAT column, e.g. `Ss`, `R+`, `Z`. */
  stat: string;
  /** The start time in epoch seconds, or undefined when the lstart text did not parse. */
  start: number | undefined;
  /** STAT starts with Z (zombie) or X (dead, procps): exited, awaiting reaping. */
  exited: boolean;
}

/** What one ps run says. */
export interface PsAnswer {
  /**
   * True when the run is a valid answer: a PID missing from `rows` was not found by ps. False when ps
   * itself failed (did not start, timed out, was killed, exited with an error): a missing PID is then
   * unknown, never gone.
   */
  complete: boolean;
  rows: Map<number, PsRow>;
}

/** The outcome of a run as spawnSync reports it. */
export interface PsRun {
  /** Exit status, or null when the child was killed by a signal (e.g. the timeout) or never ran. */
  status: number | null;
  stdout: string;
  stderr: string;
  /** Set when the spawn failed (ENOENT, ETIMEDOUT, ENOBUFS…). */
  error?: Error | undefined;
}

// `  123 Ss   Mon Nov  9 09:48:50 2026   `: PID, STAT without spaces, then the lstart text.
const ROW = /^\s*([1-9][0-9]*)\s+(\S+)\s+(\S.*?)\s*$/;

/** Parses the rows of ps output; lines that are not rows (blank, garbage, a header) are skipped. */
export function parsePsRows(stdout: string): Map<number, PsRow> {
  const rows = new Map<number, PsRow>();
  for (const line of stdout.split('\n')) {
    const m = ROW.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if (!Number.isSafeInteger(pid)) continue;
    const stat = m[2]!;
    const first = stat.charCodeAt(0);
    rows.set(pid, { stat, start: parseLstart(m[3]!), exited: first === 0x5a || first === 0x58 });
  }
  return rows;
}

/** Reads one ps run: its rows, and whether a PID missing from them may be taken as not found. */
export function readPsRun(run: PsRun): PsAnswer {
  const rows = parsePsRows(run.stdout);
  // Exit 0: the rows are the answer. Exit 1 with a silent stderr: none of the PIDs was found (any row
  // printed anyway is still a fact). Anything else — a spawn error, a signal (the timeout), a message
  // on stderr — is ps failing, and the rows it managed to print are all that is known.
  const complete = run.error === undefined && (run.status === 0 || (run.status === 1 && run.stderr.trim() === ''));
  return { complete, rows };
}
