// Public API: re-exports only.
export { backend, probe, pidExists, processStartToken } from './backend/index.js';
export type { BackendInfo, ProbeResult } from './backend/index.js';
export type { BackendName, ProbeState } from './backend/types.js';
export { recordedToken, classifyToken, compareTokens } from './proc/token.js';
export type { TokenForm } from './proc/token.js';
export { formatLstart, parseLstart } from './proc/lstart.js';
