/**
 * The lenient record fields and their types, declared once: schema.ts reads documents by these
 * lists, LenientFields is derived from them, and parseClaim copies each into the SessionRecord field
 * of the same name (where the compiler checks the types agree).
 */

export const STRING_FIELDS = [
  'cwd', 'procStart', 'procStartFt', 'pidDomain', 'version', 'kind', 'entrypoint', 'name', 'status',
  'waitingFor', 'messagingSocketPath', 'bridgeSessionId', 'tmux',
] as const;
export const NUMBER_FIELDS = ['startedAt', 'updatedAt', 'statusUpdatedAt'] as const;

/** The lenient fields, under their own names. Unknown fields are ignored here and kept in `raw`. */
export const LENIENT_FIELDS: readonly string[] = [...STRING_FIELDS, ...NUMBER_FIELDS];

export type LenientFields = { [K in (typeof STRING_FIELDS)[number]]?: string } & {
  [K in (typeof NUMBER_FIELDS)[number]]?: number;
};
