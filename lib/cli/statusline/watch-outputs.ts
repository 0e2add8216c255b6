/**
 * What `claude-ps watch` does besides NDJSON when asked (docs/statusline.md): `--statusline-dir DIR`
 * keeps line files, `--exec CMD` runs a command per event. Built on the public watch events only.
 */
import { errorSentence } from '../../registry/system-error.js';
import type { EventEmitter } from 'node:events';
import type { SessionRecord } from '../../registry/types.js';
import type { WatchEvent } from '../../index.js';
import { UsageError } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { splitCommandLine } from './command-line.js';
import { ExecRunner } from './exec.js';
import type { HostPart } from './hosts-line.js';
import { LineFiles, type LineFilesOptions } from './line-files.js';
import { DEFAULT_FORMAT, parseStatuslineTemplate } from './template.js';

export const WATCH_OUTPUT_FLAGS = {
  'statusline-dir': { type: 'string', value: 'DIR', help: 'keep DIR/<pid>: the statusline line of each live session' },
  format: { type: 'string', short: 'f', value: 'TEMPLATE', help: 'the line files\' template (see `statusline --help`)' },
  exec: { type: 'string', value: 'CMD', help: 'run CMD once per event, the event in its environment (no shell)' },
  'exec-shell': { type: 'boolean', help: 'run the --exec command through /bin/sh -c' },
} as const;

export interface WatchOutputs {
  /** The line-file folder as taken (its real path, device and inode), when there is one. */
  readonly lineDir: { path: string; dev: number; ino: number } | undefined;
  /** Other hosts' parts for every line file (`watch --host … --statusline-dir`): the lines follow at once. */
  setHosts(parts: readonly HostPart[]): void;
  close(): void;
}

/** Checks the flags before anything starts: a mistake is a usage error (exit 2). */
function parseFlags(flags: ParsedArgs['flags']) {
  const dir = flags['statusline-dir'] as string | undefined;
  const format = flags.format as string | undefined;
  const exec = flags.exec as string | undefined;
  if (format !== undefined && dir === undefined) throw new UsageError('--format needs --statusline-dir');
  if (flags['exec-shell'] === true && exec === undefined) throw new UsageError('--exec-shell needs --exec');
  const template = dir === undefined ? undefined : parseStatuslineTemplate(format ?? DEFAULT_FORMAT);
  const command = exec === undefined ? undefined : flags['exec-shell'] === true ? { shell: exec } : { argv: splitCommandLine(exec) };
  return { dir, template, command };
}

/**
 * Checks the flags and takes what must be held before any event flows (the line-file folder and its
 * lock), then returns the function that attaches the outputs to a watcher.
 */
export async function openWatchOutputs(
  flags: ParsedArgs['flags'],
  env: NodeJS.ProcessEnv,
  sessionsDirs: readonly string[],
  report: (line: string) => void,
  about?: LineFilesOptions['about'],
): Promise<(watcher: EventEmitter) => WatchOutputs> {
  const { dir, template, command } = parseFlags(flags);
  const files =
    dir !== undefined && template !== undefined
      ? await LineFiles.open(dir, template, {
          sessionsDirs,
          about,
          onError: (e) => report(`--statusline-dir: ${errorSentence(e)}`),
        })
      : undefined;
  return (watcher) => startWatchOutputs(watcher, files, command, env, report);
}

function startWatchOutputs(
  watcher: EventEmitter,
  files: LineFiles | undefined,
  command: ReturnType<typeof parseFlags>['command'],
  env: NodeJS.ProcessEnv,
  report: (line: string) => void,
): WatchOutputs {
  const closers: Array<() => void> = [];
  let setHosts = (_parts: readonly HostPart[]) => {};
  if (files !== undefined) {
    const view = new Map<string, SessionRecord>();
    const touched = new Set<number>();
    let scheduled = false;
    // One pass over DIR per batch of events: the watcher emits a batch in one turn.
    const flush = () => {
      scheduled = false;
      try {
        files.update([...view.values()], touched);
      } catch (error) {
        report(`--statusline-dir: ${errorSentence(error)}`);
      }
      touched.clear();
    };
    const onChange = (event: WatchEvent) => {
      if (event.type === 'removed') view.delete(event.record.path);
      else view.set(event.record.path, event.record);
      if (event.type !== 'removed') touched.add(event.record.pid);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    };
    watcher.on('change', onChange);
    setHosts = (parts) => {
      files.setHosts(parts);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    };
    // Whatever ends this process (a signal handled, its reader gone, an error), the files go with it.
    const onExit = () => files.close();
    process.once('exit', onExit);
    closers.push(() => {
      watcher.off('change', onChange);
      process.off('exit', onExit);
      files.close();
    });
  }
  if (command !== undefined) {
    const runner = new ExecRunner({ command, env, report });
    const onChange = (event: WatchEvent) => runner.push(event);
    watcher.on('change', onChange);
    closers.push(() => {
      watcher.off('change', onChange);
      runner.close();
    });
  }
  return {
    lineDir: files ? { path: files.dir, ...files.identity } : undefined,
    setHosts: (parts) => setHosts(parts),
    close() {
      for (const close of closers.splice(0)) close();
    },
  };
}
