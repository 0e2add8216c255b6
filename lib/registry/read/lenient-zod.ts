/**
 * The zod/mini schema of the lenient fields: each is optional, and a wrong type reads as absent.
 * Only records with a mistyped field reach it (schema.ts has an equivalent fast path for the rest),
 * so it is built, and in the bundles even evaluated, on first use.
 */
import * as z from 'zod/mini';
import { NUMBER_FIELDS, STRING_FIELDS, type LenientFields } from './fields.js';

let schema: z.ZodMiniType<LenientFields> | undefined;

export function lenientSchema(): z.ZodMiniType<LenientFields> {
  if (schema === undefined) {
    const optString = z.catch(z.optional(z.string()), undefined);
    const optNumber = z.catch(z.optional(z.number()), undefined);
    const shape: Record<string, typeof optString | typeof optNumber> = {};
    for (const key of STRING_FIELDS) shape[key] = optString;
    for (const key of NUMBER_FIELDS) shape[key] = optNumber;
    schema = z.object(shape) as unknown as z.ZodMiniType<LenientFields>;
  }
  return schema;
}
