/**
 * One copy of the built library per backend, side by side in this process. Each copy is the same
 * dist/index.js imported under a distinct URL (so it has its own backend selection), with
 * CC_SESSIONS_BACKEND set while it selects, exactly as a user would force one.
 */
export async function loadBackend(name) {
  const url = new URL(`../../dist/index.js?backend=${name}`, import.meta.url);
  const previous = process.env.CC_SESSIONS_BACKEND;
  process.env.CC_SESSIONS_BACKEND = name;
  try {
    const lib = await import(url.href);
    const info = lib.backend(); // selects now, while the variable is set
    if (info.name !== name) throw new Error(`asked for backend ${name}, got ${info.name} (${info.reason})`);
    return lib;
  } finally {
    if (previous === undefined) delete process.env.CC_SESSIONS_BACKEND;
    else process.env.CC_SESSIONS_BACKEND = previous;
  }
}
