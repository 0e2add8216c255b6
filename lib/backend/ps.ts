// Placeholder replaced by the ps backend work (issue 7) before anything selects it.
import type { ProbeBackend } from './types.js';
import { killOnlyBackend } from './js-generic.js';
export const psBackend: ProbeBackend = { ...killOnlyBackend, name: 'ps', tokenForm: 'lstart' };
