/** Markdown output: times with units, ratios, tables, and the machine line. */
import { execSync } from 'node:child_process';
import { cpus, release } from 'node:os';

export function fmtTime(ns) {
  if (ns === undefined || Number.isNaN(ns)) return 'n/a';
  // A difference of medians can be below zero (a row within noise of its base).
  if (ns < 0) return `−${fmtTime(-ns)}`;
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  if (ns < 1e9) return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
  return `${(ns / 1e9).toFixed(2)} s`;
}

/** a / b as "1.23x". */
export function fmtRatio(a, b) {
  if (!a || !b) return 'n/a';
  return `${(a / b).toFixed(2)}x`;
}

export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

export function machineLine() {
  const cpu = cpus();
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {}
  return (
    `${cpu.length} cores · ${cpu[0]?.model.trim() ?? 'unknown CPU'} · Linux ${release()} · ` +
    `Node ${process.version} · commit ${commit} · ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`
  );
}

/** One line per target: what was asked, what was measured, met or not. */
export function targetLine(label, measured, limit, met) {
  return `- ${met ? '✅ met' : '❌ missed'}: ${label} — measured ${measured} (target ${limit})`;
}
