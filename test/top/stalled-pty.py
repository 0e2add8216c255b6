"""A terminal that stops reading, for test/top/stalled-terminal.test.ts.

Runs argv[2:] on a new pty (its controlling terminal, COLS x ROWS from argv[1] "200x60") and reads the
master side, except while stalled: the kernel's buffer fills and the program's writes come back short.
Commands on stdin, one a line: `stall`, `resume`, `type TEXT` (written to the program as keys),
`signal N`. Stdout: `pid N` once, `exit STATUS SECONDS_SINCE_SIGNAL` at the end. Everything read from
the program is appended to the file named by CPS_PTY_LOG.
"""
import fcntl, json, os, pty, select, signal, struct, sys, termios, time

log_path = os.environ["CPS_PTY_LOG"]
cols, rows = (int(x) for x in sys.argv[1].split("x"))
pid, master = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
os.kill(pid, signal.SIGWINCH)
print(f"pid {pid}", flush=True)
log = open(log_path, "ab", buffering=0)
stalled = False
signalled_at = None
stdin_open = True
while True:
    fds = [master] if not stalled else []
    if stdin_open:
        fds.append(sys.stdin.fileno())
    ready, _, _ = select.select(fds, [], [], 0.05)
    if master in ready:
        try:
            data = os.read(master, 65536)
            log.write(data)
        except OSError:
            pass
    if sys.stdin.fileno() in ready:
        line = sys.stdin.readline()
        if not line:
            stdin_open = False
        else:
            cmd, _, arg = line.rstrip("\n").partition(" ")
            if cmd == "stall":
                stalled = True
            elif cmd == "resume":
                stalled = False
            elif cmd == "type":
                os.write(master, arg.encode())
            elif cmd == "signal":
                signalled_at = time.monotonic()
                os.kill(pid, int(arg))
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        # What the program left in the buffer is read before the end.
        if not stalled:
            try:
                while True:
                    r, _, _ = select.select([master], [], [], 0.2)
                    if not r:
                        break
                    data = os.read(master, 65536)
                    if not data:
                        break
                    log.write(data)
            except OSError:
                pass
        code = os.waitstatus_to_exitcode(status)
        took = time.monotonic() - signalled_at if signalled_at else -1
        print(f"exit {code} {took:.3f}", flush=True)
        break
