/**
 * One copy of the built library per backend, side by side in this process. Each copy is the same
 * dist/index.js imported under a distinct URL (so it has its own backend selection), with
 * CLAUDE_PS_BACKEND set while it selects, exactly as a user would force one.
 *
 * The library's file reader follows CLAUDE_PS_BACKEND at each call (its probe backend is chosen
 * once), so every measured call of a copy runs with the variable set to that copy's backend too:
 * wrap measured functions with `asBackend`.
 */
const copies = new WeakMap();

export async function loadBackend(name) {
  const url = new URL(`../../dist/index.js?backend=${name}`, import.meta.url);
  const lib = await asBackend(name, () => import(url.href))();
  const info = asBackend(name, () => lib.backend())(); // selects now, while the variable is set
  if (info.name !== name) throw new Error(`asked for backend ${name}, got ${info.name} (${info.reason})`);
  copies.set(lib, name);
  return lib;
}

/** The backend name a copy was loaded for. */
export function backendOf(lib) {
  return copies.get(lib);
}

/** fn, run with CLAUDE_PS_BACKEND=name (restored afterwards). */
export function asBackend(name, fn) {
  return (...args) => {
    const previous = process.env.CLAUDE_PS_BACKEND;
    process.env.CLAUDE_PS_BACKEND = name;
    try {
      return fn(...args);
    } finally {
      if (previous === undefined) delete process.env.CLAUDE_PS_BACKEND;
      else process.env.CLAUDE_PS_BACKEND = previous;
    }
  };
}
