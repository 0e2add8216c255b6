/** parseStatBytes for a stat line given as text: the tests' way to write cases readably. */
import { parseStatBytes } from '../../lib/proc/stat.js';

export function parseStatLine(line: string): { state: string; startTicks: number } | undefined {
  const bytes = Buffer.from(line, 'utf8');
  const fields = parseStatBytes(bytes, bytes.length);
  return fields && { state: String.fromCharCode(fields.stateCode), startTicks: fields.startTicks };
}
