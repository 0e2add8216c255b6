/**
 * A hand-written log-log SVG of time per registry scan against N, one line per implementation.
 * series: [{ name, points: [[n, ns], ...] }].
 */
const COLORS = ['#1b7f3b', '#2456a6', '#c2410c', '#7c3aed', '#6b7280', '#be123c'];
const W = 800;
const H = 440;
const PAD = { left: 78, right: 270, top: 40, bottom: 56 };

function decadeRange(values) {
  return [Math.floor(Math.log10(Math.min(...values))), Math.ceil(Math.log10(Math.max(...values)))];
}

function label(ns) {
  if (ns >= 1e9) return `${ns / 1e9} s`;
  if (ns >= 1e6) return `${ns / 1e6} ms`;
  if (ns >= 1e3) return `${ns / 1e3} µs`;
  return `${ns} ns`;
}

function escapeXml(text) {
  return text.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
}

export function scalingChart(series, title) {
  const xs = series.flatMap((s) => s.points.map(([n]) => n));
  const ys = series.flatMap((s) => s.points.map(([, ns]) => ns)).filter((v) => v > 0);
  const [x0, x1] = decadeRange(xs);
  const [y0, y1] = decadeRange(ys);
  const px = (n) => PAD.left + ((Math.log10(n) - x0) / (x1 - x0 || 1)) * (W - PAD.left - PAD.right);
  const py = (ns) => H - PAD.bottom - ((Math.log10(ns) - y0) / (y1 - y0 || 1)) * (H - PAD.top - PAD.bottom);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${PAD.left}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (let d = x0; d <= x1; d++) {
    const x = px(10 ** d);
    out.push(`<line x1="${x}" y1="${PAD.top}" x2="${x}" y2="${H - PAD.bottom}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${x}" y="${H - PAD.bottom + 18}" text-anchor="middle">${(10 ** d).toLocaleString('en-US')}</text>`);
  }
  for (let d = y0; d <= y1; d++) {
    const y = py(10 ** d);
    out.push(`<line x1="${PAD.left}" y1="${y}" x2="${W - PAD.right}" y2="${y}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${PAD.left - 8}" y="${y + 4}" text-anchor="end">${label(10 ** d)}</text>`);
  }
  out.push(
    `<text x="${(PAD.left + W - PAD.right) / 2}" y="${H - 14}" text-anchor="middle">records in the registry (N, log scale)</text>`,
    `<text transform="translate(18 ${(PAD.top + H - PAD.bottom) / 2}) rotate(-90)" text-anchor="middle">time per full scan (log scale)</text>`,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${W - PAD.left - PAD.right}" height="${H - PAD.top - PAD.bottom}" fill="none" stroke="#9ca3af"/>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.filter(([, ns]) => ns > 0);
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([n, ns]) => `${px(n).toFixed(1)},${py(ns).toFixed(1)}`).join(' ')}"/>`);
    for (const [n, ns] of pts) out.push(`<circle cx="${px(n).toFixed(1)}" cy="${py(ns).toFixed(1)}" r="3" fill="${color}"/>`);
    const ly = PAD.top + 10 + i * 20;
    out.push(`<line x1="${W - PAD.right + 14}" y1="${ly}" x2="${W - PAD.right + 36}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${W - PAD.right + 42}" y="${ly + 4}">${escapeXml(s.name.replaceAll('`', ''))}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
