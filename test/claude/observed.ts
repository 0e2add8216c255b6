/**
 * What the real writer was seen to emit (Claude Code 2.1.332, this suite; docs/testing-with-claude-code.md),
 * in the order it writes them. The demo's records are checked against it (test/cli/demo.test.ts), and
 * the suite prints any field a newer Claude Code adds beyond it.
 */
export const OBSERVED_FIELDS = [
  'pid', 'sessionId', 'cwd', 'startedAt', 'procStart', 'version', 'peerProtocol', 'peerFeatures', 'kind',
  'entrypoint', 'pidDomain', 'asksForConvertedSkills', 'tmux', 'messagingSocketPath', 'name', 'nameSource',
  'nameSince', 'jobId', 'status', 'updatedAt', 'statusUpdatedAt', 'waitingFor',
] as const;

/** `waitingFor` while a tool waits for the user's approval. */
export const PERMISSION_PROMPT = 'permission prompt';

/** The body of a `<pid>.<sha256 of messagingSocketPath>.key` file. */
export const KEY_FIELDS = ['peerToken', 'procStart', 'pidDomain'] as const;
