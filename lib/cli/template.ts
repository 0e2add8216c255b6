/**
 * The `summary --format` template language, small enough for a statusline:
 *   {key}          the count, e.g. `{busy}` → `2`
 *   {key:TEXT}     TEXT, with every `#` replaced by the count, only when the count is not 0
 *   {summary}      the default text (`2 busy · 1 waiting`)
 *   {{  }}         literal braces
 * Keys: live, interactive, background, busy, waiting, idle, shell, other, dead.
 */
import { UsageError } from './args.js';

export const COUNT_KEYS = ['live', 'interactive', 'background', 'busy', 'waiting', 'idle', 'shell', 'other', 'dead'] as const;
export type CountKey = (typeof COUNT_KEYS)[number];
export type Counts = Record<CountKey, number>;

type Part = string | { key: CountKey | 'summary'; text?: string };

const KNOWN: ReadonlySet<string> = new Set<string>([...COUNT_KEYS, 'summary']);

/**
 * Parses a template once; throws UsageError (exit 2) for an unknown key or an unbalanced brace.
 * `known` widens the key set for another renderer of the same language (the statusline's).
 */
export function parseTemplate(template: string, known: ReadonlySet<string> = KNOWN): Part[] {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const ch = template[i]!;
    if ((ch === '{' || ch === '}') && template[i + 1] === ch) {
      literal += ch;
      i++;
      continue;
    }
    if (ch === '}') throw new UsageError(`--format: unmatched "}" at position ${i + 1}`);
    if (ch !== '{') {
      literal += ch;
      continue;
    }
    const end = template.indexOf('}', i + 1);
    if (end === -1) throw new UsageError(`--format: unclosed "{" at position ${i + 1}`);
    const body = template.slice(i + 1, end);
    const colon = body.indexOf(':');
    const key = (colon === -1 ? body : body.slice(0, colon)).trim();
    if (!known.has(key)) {
      throw new UsageError(`--format: unknown key {${key}} (known: ${[...known].join(', ')})`);
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push(colon === -1 ? { key: key as CountKey } : { key: key as CountKey, text: body.slice(colon + 1) });
    i = end;
  }
  if (literal) parts.push(literal);
  return parts;
}

const DEFAULT_ORDER: readonly CountKey[] = ['busy', 'waiting', 'shell', 'idle', 'other'];

/** The default summary: non-zero status counts joined by ` · `, or `no sessions`. */
export function defaultSummary(c: Counts): string {
  const bits = DEFAULT_ORDER.filter((k) => c[k] > 0).map((k) => `${c[k]} ${k}`);
  return bits.length > 0 ? bits.join(' · ') : 'no sessions';
}

export function renderTemplate(parts: readonly Part[], c: Counts): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') out += p;
    else if (p.key === 'summary') out += defaultSummary(c);
    else if (p.text === undefined) out += String(c[p.key]);
    else if (c[p.key] !== 0) out += p.text.replaceAll('#', String(c[p.key]));
  }
  return out;
}
