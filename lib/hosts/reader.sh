# claude-ps remote reader, answer format 1 (docs/hosts.md). POSIX sh; needs nothing but a shell,
# od, tr, dd, ls, date, uname, readlink (Linux) and ps (macOS). It forks as little as it can: the
# remote's cores may be busy, and a read waits for its slowest step. Run by claude-ps as `ssh HOST sh -s`, with this text on stdin after
# one `set --` line naming the config dirs (none: $CLAUDE_CONFIG_DIR, else ~/.claude).
#
# It only MEASURES: it lists each config dir's sessions/, reads each <pid>.json (bounded, never
# through a symlink, never blocking on a FIFO), then asks the kernel about each file's PID. Every
# decision (what a record is, whether it is alive) is made by claude-ps on the calling machine, from
# this answer, which it treats as untrusted input. Free text is printed as hex, so no byte of a
# record, a path or a process name can break a line.
LC_ALL=C
export LC_ALL
PATH=/usr/bin:/bin:/usr/sbin:/sbin:$PATH
export PATH
set -f
MAX=262144

hex() { od -An -v -tx1 | tr -d ' \n'; }
say() { printf '%s' "$1" | hex; }
IFS_DEFAULT=' 	
'
ASCII=' !"#$%&'\''()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqrstuvwxyz{|}~'
# The hex of $1 into $h: in the shell itself for printable ASCII (paths, the domain), else by od.
sayto() {
  case $1 in *[!\ -~]*) h=$(say "$1"); return ;; esac
  h=
  s=$1
  while [ -n "$s" ]; do
    rest=${s#?}
    c=${s%"$rest"}
    s=$rest
    pre=${ASCII%%"$c"*}
    code=$((32 + ${#pre}))
    lo=$((code % 16))
    case $lo in 10) lo=a ;; 11) lo=b ;; 12) lo=c ;; 13) lo=d ;; 14) lo=e ;; 15) lo=f ;; esac
    h=$h$((code / 16))$lo
  done
}
# od's output ($1) joined in the shell, with no tr to start: $h the hex digits, $n the bytes. A long
# one (over 4 KiB of bytes: not a record Claude Code writes) goes through tr, not a word per byte.
joined() {
  if [ ${#1} -gt 12600 ]; then
    h=$(printf '%s' "$1" | tr -d ' \n')
    n=$((${#h} / 2))
    return
  fi
  set -- $1
  n=$#
  IFS=
  h="$*"
  IFS=$IFS_DEFAULT
}

echo 'claude-ps-reader 1'
echo "clock $(date +%s 2>/dev/null || echo -)"
case $(uname -s 2>/dev/null) in
  Linux) platform=linux ;;
  Darwin) platform=darwin ;;
  *) platform=other ;;
esac
if [ "${CLAUDE_PS_BACKEND-}" = ps ]; then probe=ps; elif [ "$platform" = darwin ]; then probe=ps; elif [ "$platform" = linux ]; then probe=proc; else probe=none; fi
echo "platform $platform"
echo "probe $probe"

# The pidDomain as Claude Code computes it on this machine (docs/hosts.md).
if [ "$platform" = linux ]; then
  mid=
  read -r mid 2>/dev/null </etc/machine-id
  ns=$(readlink /proc/self/ns/pid 2>/dev/null)
  sayto "linux:$mid:$ns"
  echo "domain $h"
elif [ "$platform" = darwin ]; then
  echo "domain $(say darwin)"
else
  echo 'domain -'
fi
wsl=0
if [ -n "${WSL_DISTRO_NAME-}" ]; then wsl=1; fi
release=
read -r release 2>/dev/null </proc/sys/kernel/osrelease
case $release in *[Mm]icrosoft*) wsl=1 ;; esac
echo "wsl $wsl"

# /proc numbers our processes only if it was mounted for our PID namespace: /proc/self, resolved by
# this very shell, must name $$ (as in lib/backend/js-linux.ts). Otherwise no stat is read.
proc=none
if [ "$probe" = proc ] && cd -P /proc/self 2>/dev/null; then
  if [ "$(pwd -P)" = "/proc/$$" ]; then proc=ours; else proc=foreign; fi
  # Back where ssh started us (the login folder): relative config dirs are relative to it.
  cd - >/dev/null 2>&1 || cd / || exit 1
fi
echo "proc $proc"

# GNU dd opens without following a symlink and without blocking on a FIFO; elsewhere the checks
# before and after the read stand in (docs/hosts.md says what that leaves open).
ddflags=
if dd if=/dev/null of=/dev/null iflag=nofollow,nonblock count=0 2>/dev/null; then ddflags='iflag=nofollow,nonblock'; fi

if [ $# -eq 0 ]; then
  if [ -n "${CLAUDE_CONFIG_DIR-}" ]; then set -- "$CLAUDE_CONFIG_DIR"; else set -- "${HOME-}/.claude"; fi
fi

pids=
for config in "$@"; do
  dir=$config/sessions
  sayto "$dir"
  echo "dir $h"
  if [ ! -e "$dir" ] && [ ! -L "$dir" ]; then echo 'listing missing'; continue; fi
  if ! [ -d "$dir" ] || ! ls -A "$dir" >/dev/null 2>&1; then
    echo "listing unreadable $(ls -A "$dir" 2>&1 >/dev/null | head -n 1 | hex)"
    continue
  fi
  echo 'listing ok'
  set +f
  for path in "$dir"/*.json; do
    set -f
    name=${path##*/}
    pid=${name%.json}
    case $pid in '' | 0* | *[!0-9]*) continue ;; esac
    if [ -L "$path" ]; then echo "file $name symlink"; continue; fi
    if [ ! -e "$path" ]; then continue; fi
    if [ ! -f "$path" ]; then echo "file $name not-regular"; continue; fi
    if [ ! -r "$path" ]; then echo "file $name unreadable"; pids="$pids $pid"; continue; fi
    # shellcheck disable=SC2086
    joined "$(dd if="$path" bs=$((MAX + 1)) count=1 $ddflags 2>/dev/null | od -An -v -tx1)"
    if [ -L "$path" ]; then echo "file $name symlink"; continue; fi
    if [ "$n" -gt $MAX ]; then echo "file $name too-large"; continue; fi
    echo "file $name ok $h"
    pids="$pids $pid"
  done
  set -f
done

# kill -0 into $r: 0 it exists (or EPERM: it exists), 1 no such process, 2 an answer we cannot read
# (exists). A PID that exists costs no process; only a refusal is asked again, for its message.
alive() {
  if kill -0 "$1" 2>/dev/null; then r=0; return; fi
  if m=$(kill -0 "$1" 2>&1); then r=0; return; fi
  case $m in *'No such process'*) r=1 ;; *) r=2 ;; esac
}

# After the reads, as the local scan does: a session that wrote its file before the read is seen.
listed=
existing=
for pid in $pids; do
  case " $listed " in *" $pid "*) continue ;; esac
  listed="$listed $pid"
  alive "$pid"
  first=$r
  [ "$first" = 1 ] || existing="$existing $pid"
  stat=-
  again=-
  if [ "$first" != 1 ] && [ "$proc" = ours ]; then
    joined "$(od -An -v -tx1 "/proc/$pid/stat" 2>/dev/null)"
    [ "$n" -gt 0 ] && stat=$h
  fi
  if [ "$first" != 1 ] && [ "$stat" = - ]; then
    alive "$pid"
    again=$r
  fi
  echo "pid $pid $first $stat $again"
done

if [ "$probe" = ps ]; then
  # One ps for the PIDs that exist (macOS ps fails the whole run for a PID above 99999), with its
  # exit status; its stderr only when the status is 1 (lib/proc/ps-output.ts: "none found" needs it empty).
  want=
  for pid in $existing; do
    [ "$pid" -le 99999 ] 2>/dev/null && want="$want,$pid"
  done
  if [ -n "$want" ]; then
    out=$(TZ=UTC ps -o pid=,stat=,lstart= -p "${want#,}" 2>/dev/null; echo "#$?")
    status=${out##*#}
    err=-
    if [ "$status" = 1 ]; then err=$(TZ=UTC ps -o pid=,stat=,lstart= -p "${want#,}" 2>&1 >/dev/null | hex); fi
    echo "ps $status $(say "${out%#*}") ${err:--}"
  fi
fi
echo 'end'
