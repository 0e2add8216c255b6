/**
 * The statusline's template: the `summary` language (lib/cli/template.ts) with more keys.
 *   {busy} … {dead}, {summary}   every session, as `summary` counts them
 *   {others.busy} …, {others.summary}   the same for the other sessions only
 *   {others}        the default line: `⏳ api-3f (permission prompt) · 2 busy`, '' when none runs
 *   {waiters}       the waiting others: `api-3f (permission prompt), web-1`
 *   {hosts}         other hosts (`--host`): `box2: ⏳ web-1 (permission prompt)`, `box3: unreachable`
 *   {self.status}, {self.waitingFor}, {self.name}   this session's own record ('' when unknown)
 * `{key:TEXT}` prints TEXT with each `#` replaced by the value, only when the value is not 0 or ''.
 */
import { COUNT_KEYS, defaultSummary, parseTemplate, type Counts } from '../template.js';
import { hostsText } from './hosts-line.js';
import { sanitise, type StatuslineView } from './view.js';

export const DEFAULT_FORMAT = '{others}';

const SELF_KEYS = ['self.status', 'self.waitingFor', 'self.name'] as const;
export const STATUSLINE_KEYS: ReadonlySet<string> = new Set([
  ...COUNT_KEYS,
  'summary',
  ...COUNT_KEYS.map((k) => `others.${k}`),
  'others.summary',
  'others',
  'waiters',
  'hosts',
  ...SELF_KEYS,
]);

export type StatuslineTemplate = ReturnType<typeof parseTemplate>;

/** Parses once; a bad template is a UsageError naming the key or the brace. */
export function parseStatuslineTemplate(template: string): StatuslineTemplate {
  return parseTemplate(template, STATUSLINE_KEYS);
}

/** At most this many waiters are named in the default line; the rest are counted. */
const NAMED_WAITERS = 3;
const ORDER = ['busy', 'shell', 'idle', 'other'] as const;

/** The default line about the others: each waiter named, then the other statuses counted. */
export function othersLine(view: StatuslineView): string {
  const bits = view.waiters
    .slice(0, NAMED_WAITERS)
    .map((w) => `⏳ ${w.label}${w.waitingFor ? ` (${w.waitingFor})` : ''}`);
  const unnamed = view.waiters.length - NAMED_WAITERS;
  if (unnamed > 0) bits.push(`+${unnamed} waiting`);
  for (const k of ORDER) if (view.others[k] > 0) bits.push(`${view.others[k]} ${k}`);
  const hosts = hostsText(view.hosts);
  if (hosts !== '') bits.push(hosts);
  return bits.join(' · ');
}

function value(key: string, view: StatuslineView): number | string {
  if (key === 'summary') return defaultSummary(view.all);
  if (key === 'others') return othersLine(view);
  if (key === 'hosts') return hostsText(view.hosts);
  if (key === 'others.summary') return defaultSummary(view.others);
  if (key === 'waiters') return view.waiters.map((w) => w.label + (w.waitingFor ? ` (${w.waitingFor})` : '')).join(', ');
  if (key === 'self.status') return sanitise(view.self?.status, 16);
  if (key === 'self.waitingFor') return sanitise(view.self?.waitingFor, 32);
  if (key === 'self.name') return sanitise(view.self?.name, 24);
  if (key.startsWith('others.')) return view.others[key.slice(7) as keyof Counts];
  return view.all[key as keyof Counts];
}

export function renderStatusline(parts: StatuslineTemplate, view: StatuslineView): string {
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') {
      out += p;
      continue;
    }
    const v = value(p.key, view);
    const text = String(v);
    if (p.text === undefined) out += text;
    // A function replacement: a name holding `$&` or `$1` must come out as written.
    else if (v !== 0 && v !== '') out += p.text.replaceAll('#', () => text);
  }
  return out;
}
