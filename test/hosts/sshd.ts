/**
 * A real OpenSSH server on 127.0.0.1 for the hosts tests, started and stopped by the test (by PID),
 * in its own PID namespace (`unshare --pid --fork --mount-proc`): a verdict measured on the wrong
 * side of the connection then shows. Node is hidden inside it (a bind mount of /dev/null, in its own
 * mount namespace), and a session's PATH holds only a few tools: the remote has no Node at all.
 *
 * Each server reads a `mode` file per session: `normal` runs the command, `hang` sleeps, `garbage`
 * prints text that is no answer, `flood` an answer that never ends, `darwin` runs it as a macOS
 * stand-in (injected answers, not a Mac): in a mount namespace of the session's own, an empty /proc,
 * and `uname` and `ps` replaced by scripts answering from a table the test writes (`darwin()`).
 * Needs root (sshd, unshare) and /usr/sbin/sshd; `sshdMissing()` says why not, for the one-line skip (CI=true fails instead).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SSHD = '/usr/sbin/sshd';
/**
 * bash, run by sshd, sources ~/.bashrc even for `ssh HOST cmd`: this machine's root rc file (pyenv
 * init, twice) cost ~155 ms of CPU per session, ten times the reader. The remotes are clean machines:
 * an empty rc file in their own mount namespace.
 */
const CLEAN_RC = '{ [ ! -f /root/.bashrc ] || mount --bind /dev/null /root/.bashrc; }';

export function sshdMissing(): string | undefined {
  if (process.platform !== 'linux') return 'the sshd tests run on Linux';
  if (!existsSync(SSHD)) return `${SSHD} is missing (Debian: apt-get install openssh-server)`;
  if (process.getuid?.() !== 0) return 'the sshd tests need root (sshd and unshare --pid)';
  if (spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status !== 0) return 'unshare --pid is not allowed here';
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export type SessionMode = 'normal' | 'hang' | 'garbage' | 'flood' | 'darwin';

/** One process as the fake macOS `ps` reports it: `ps -o pid=,stat=,lstart=` columns. */
export interface DarwinProcess {
  pid: number;
  stat: string;
  /** As macOS prints it under TZ=UTC, e.g. `Tue Dec  1 10:00:00 2026`. */
  lstart: string;
}

export interface TestHost {
  /** The ssh alias for this server in `lab.sshConfig`; `<alias>-wrongkey` offers a key it refuses. */
  alias: string;
  port: number;
  /** The remote's HOME: its registry is `<home>/.claude/sessions`. */
  home: string;
  sessionsDir: string;
  mode(mode: SessionMode): void;
  /** Sessions from now on run as a macOS stand-in whose `ps` knows exactly these processes. */
  darwin(table: readonly DarwinProcess[]): void;
  /** Each run of the fake `ps` so far: its arguments and its TZ, one string each. */
  psCalls(): string[];
  /** Runs a command on the remote (in its namespace), returns stdout; throws on failure. */
  run(command: string): string;
  /** The sshd listener's PID (ours: the child of the unshare the test started). */
  serverPid(): number;
  /** Stops the server (its namespace ends with it) and waits until it has exited. */
  stop(): Promise<void>;
  /** Stops it and starts it again on the same port (a new PID namespace: its sessions are gone). */
  restart(): Promise<void>;
}

export interface Lab {
  dir: string;
  sshConfig: string;
  /** CLAUDE_PS_SSH and an XDG_RUNTIME_DIR of the lab's own (its ControlPath sockets). */
  env: NodeJS.ProcessEnv;
  start(alias: string): Promise<TestHost>;
  /** The folder of the remotes' PATH (a few tools, no Node). */
  bin: string;
  /** An alias whose port nothing listens on. */
  downAlias: string;
  /** Stops every server and removes the folder. */
  close(): Promise<void>;
}

function keygen(path: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path]);
  if (r.status !== 0) throw new Error(`ssh-keygen failed: ${r.stderr}`);
}

const TOOLS = ['sh', 'cat', 'od', 'tr', 'dd', 'ls', 'head', 'uname', 'date', 'readlink', 'sleep', 'mkdir', 'printf', 'awk', 'setsid', 'rm', 'mv', 'kill', 'ps'];

export async function makeLab(): Promise<Lab> {
  const dir = mkdtempSync(join(tmpdir(), 'cps-sshd-'));
  chmodSync(dir, 0o755);
  keygen(join(dir, 'client_key'));
  keygen(join(dir, 'wrong_key'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const tool of TOOLS) {
    const where = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (where.startsWith('/')) spawnSync('ln', ['-s', where, join(bin, tool)]);
  }
  const runtime = join(dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const sshConfig = join(dir, 'ssh_config');
  const downPort = await freePort();
  const hostBlocks: string[] = [];
  const writeConfig = () => {
    const block = (alias: string, port: number, key: string) =>
      [
        `Host ${alias}`,
        '  HostName 127.0.0.1',
        `  Port ${port}`,
        '  User root',
        `  IdentityFile ${join(dir, key)}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
        '  StrictHostKeyChecking accept-new',
        '  LogLevel ERROR',
      ].join('\n');
    writeFileSync(sshConfig, [block('down', downPort, 'client_key'), ...hostBlocks].join('\n') + '\n');
    return block;
  };
  const block = writeConfig();
  const servers = new Map<string, { child: ChildProcess; exited: Promise<void> }>();
  // restart() replaces a server's entry: close() ends whichever runs.

  async function start(alias: string): Promise<TestHost> {
    const port = await freePort();
    const own = join(dir, alias);
    const home = join(own, 'home');
    const sessionsDir = join(home, '.claude', 'sessions');
    mkdirSync(sessionsDir, { recursive: true });
    keygen(join(own, 'hostkey'));
    const modeFile = join(own, 'mode');
    writeFileSync(modeFile, 'normal');
    const fake = join(own, 'darwin');
    mkdirSync(fake);
    writeFileSync(join(fake, 'uname'), '#!/bin/sh\necho Darwin\n', { mode: 0o755 });
    writeFileSync(join(fake, 'table'), '');
    // macOS ps as docs/macos.md describes it: rows for the PIDs it knows (padded, trailing blanks),
    // exit 1 with an empty stderr when it knows none, a PID above 99999 fails the whole run.
    writeFileSync(
      join(fake, 'ps'),
      [
        '#!/bin/sh',
        `printf '%s TZ=%s\n' "$*" "\${TZ-}" >> ${fake}/calls`,
        '[ "$1 $2 $3" = "-o pid=,stat=,lstart= -p" ] || { echo "fake ps: unexpected: $*" >&2; exit 2; }',
        'found=1',
        'IFS=,',
        'for want in $4; do',
        '  [ "$want" -le 99999 ] 2>/dev/null || { echo "ps: process id too large: $want" >&2; exit 1; }',
        `  while IFS='|' read -r pid stat lstart; do`,
        `    [ "$pid" = "$want" ] && { printf '%5s %-4s %s   \n' "$pid" "$stat" "$lstart"; found=0; }`,
        `  done < ${fake}/table`,
        'done',
        'exit $found',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const session = join(own, 'session.sh');
    writeFileSync(
      session,
      [
        '#!/bin/sh',
        `case $(cat ${modeFile}) in`,
        '  hang) exec sleep 60 ;;',
        "  garbage) printf 'HTTP/1.1 200 OK\\r\\n\\r\\n<html>welcome</html>\\n'; exit 0 ;;",
        "  flood) printf 'claude-ps-reader 1\\n'; exec yes 'file 1.json ok 7b7d' ;;",
        // Once more as $0 inside the new namespace, where /proc is empty: then on to the command.
        '  darwin)',
        '    if [ -d /proc/self ]; then',
        `      exec /usr/bin/unshare --mount /bin/sh -c 'mount -t tmpfs none /proc && mount --bind ${fake}/uname /usr/bin/uname && mount --bind ${fake}/ps /usr/bin/ps && exec "$0"' "$0"`,
        '    fi ;;',
        'esac',
        `HOME=${home} PATH=${bin}`,
        'export HOME PATH',
        'unset CLAUDE_CONFIG_DIR',
        'exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"',
        '',
      ].join('\n'),
    );
    chmodSync(session, 0o755);
    const pub = spawnSync('cat', [join(dir, 'client_key.pub')], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(own, 'authorized_keys'), `command="${session}" ${pub}\n`);
    const config = join(own, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${join(own, 'hostkey')}`,
        `AuthorizedKeysFile ${join(own, 'authorized_keys')}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'StrictModes no',
        'PermitRootLogin prohibit-password',
        `PidFile ${join(own, 'sshd.pid')}`,
        'MaxSessions 64',
        'MaxStartups 64',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    mkdirSync('/run/sshd', { recursive: true });
    const node = process.execPath;
    let child!: ChildProcess;
    let exited!: Promise<void>;
    const launch = async () => {
      // PID 1 of its own namespace: when it exits, the kernel ends every process of that namespace.
      child = spawn(
        'unshare',
        ['--pid', '--fork', '--mount-proc', '--kill-child', 'sh', '-c', `mount --bind /dev/null ${node} && ${CLEAN_RC} && exec ${SSHD} -D -e -f ${config}`],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const current = child;
      exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      servers.set(alias, { child, exited });
      const deadline = Date.now() + 15_000;
      while (!(await accepts(port))) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`sshd did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    await launch();
    const stop = async () => {
      // unshare ignores SIGTERM while it waits; SIGKILL ends it, and --kill-child its sshd (PID 1 there).
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    };
    hostBlocks.push(block(alias, port, 'client_key'), block(`${alias}-wrongkey`, port, 'wrong_key'));
    writeConfig();
    const env = labEnv();
    return {
      alias,
      port,
      home,
      sessionsDir,
      mode: (mode) => writeFileSync(modeFile, mode),
      darwin(table) {
        writeFileSync(join(fake, 'table'), table.map((p) => `${p.pid}|${p.stat}|${p.lstart}\n`).join(''));
        writeFileSync(modeFile, 'darwin');
      },
      psCalls() {
        try {
          return readFileSync(join(fake, 'calls'), 'utf8').split('\n').filter((l) => l !== '');
        } catch {
          return [];
        }
      },
      run(command) {
        const r = spawnSync('ssh', ['-F', sshConfig, '-o', 'BatchMode=yes', '-o', 'ControlMaster=no', alias, command], {
          encoding: 'utf8',
          env,
          timeout: 20_000,
        });
        if (r.status !== 0) throw new Error(`ssh ${alias} ${command}: exit ${r.status}: ${r.stderr}`);
        return r.stdout;
      },
      serverPid() {
        const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'latin1').trim();
        return Number(children.split(' ')[0]);
      },
      stop,
      async restart() {
        await stop();
        // unshare is gone, but its sshd dies a moment later (the kernel's parent-death signal): until
        // then the port still answers, and a new sshd would be "up" when it is the old one, dying.
        const deadline = Date.now() + 15_000;
        while (await accepts(port)) {
          if (Date.now() > deadline) throw new Error(`the old sshd on port ${port} did not go`);
          await new Promise((r) => setTimeout(r, 20));
        }
        await launch();
      },
    };
  }

  const labEnv = (): NodeJS.ProcessEnv => ({
    ...process.env,
    CLAUDE_PS_SSH: `ssh -F ${sshConfig}`,
    XDG_RUNTIME_DIR: runtime,
  });

  return {
    dir,
    sshConfig,
    env: labEnv(),
    start,
    bin,
    downAlias: 'down',
    async close() {
      for (const { child, exited } of servers.values()) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      }
      // The shared connections' masters (our own ssh children) exit once their server is gone.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts, on the remote, a detached `sleep` that writes its own record (its PID and start ticks as
 * the REMOTE numbers them) and returns that PID. It ends with the server's namespace.
 */
export function startRemoteSession(host: TestHost, fields: Record<string, unknown> = {}): number {
  const extra = Object.entries(fields)
    .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join('');
  const script = [
    'setsid sleep 600 </dev/null >/dev/null 2>&1 &',
    'pid=$!',
    "ticks=$(awk '{ sub(/.*\\) /, \"\"); print $20 }' /proc/$pid/stat)",
    `domain="linux:$(cat /etc/machine-id):$(readlink /proc/self/ns/pid)"`,
    `extra='${extra.replaceAll("'", "'\\''")}'`,
    `printf '{"pid":%s,"sessionId":"s-%s","procStart":"%s","pidDomain":"%s","kind":"interactive"%s}' "$pid" "$pid" "$ticks" "$domain" "$extra" > "$HOME/.claude/sessions/$pid.json.tmp"`,
    'mv "$HOME/.claude/sessions/$pid.json.tmp" "$HOME/.claude/sessions/$pid.json"',
    'echo $pid',
  ].join('\n');
  return Number(host.run(script).trim());
}
