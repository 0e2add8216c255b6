# claude-ps remote reader, answer format 1 (docs/hosts.md). POSIX sh; needs nothing but a shell,
# od, tr, dd, ls, awk, sort, sleep, date, uname, stat (to prove a listing complete), readlink (Linux),
# ps (macOS) and, where there is one, GNU timeout. It forks as little as it can, and no more for
# 3,000 records than for 3: the remote's cores may be busy, and a read waits for its slowest step.
# Run by claude-ps as `ssh HOST sh -s`, with this text on stdin after one `set --` line naming the
# config dirs (none: $CLAUDE_CONFIG_DIR, else ~/.claude).
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
# ls's output is parsed (types, sizes, names): none of the user's settings may change its columns.
unset QUOTING_STYLE TIME_STYLE LS_BLOCK_SIZE BLOCK_SIZE POSIXLY_CORRECT
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

NL='
'
start=$PWD
# The folder's stamp (change time first, then device, inode, modification time, size) from stat(1):
# GNU and busybox take -c, macOS and the BSDs -f. None: a listing cannot be proven complete.
stampfmt=
if stat -c '%z|%d|%i|%y|%s' / >/dev/null 2>&1; then stampfmt=gnu
elif stat -f '%Fc|%d|%i|%Fm|%z' / >/dev/null 2>&1; then stampfmt=bsd
fi
stamp() {
  if [ "$stampfmt" = gnu ]; then st=$(stat -c '%z|%d|%i|%y|%s' . 2>/dev/null) || st=
  elif [ "$stampfmt" = bsd ]; then st=$(stat -f '%Fc|%d|%i|%Fm|%z' . 2>/dev/null) || st=
  else st=; fi
}
# A pause longer than one step of the clock that stamped $1's change time (lib/registry/read/
# complete-listing.ts): 20 ms, or 2 s where it has no sub-millisecond part (FAT). One sleep(1);
# a sleep without fractions sleeps a whole second more.
pause() {
  case ${1%%|*} in
    *.[0-9][0-9][0-9]000000* | '') sleep 2.1 2>/dev/null || sleep 3 ;;
    *.*) sleep 0.03 2>/dev/null || sleep 1 ;;
    *) sleep 2.1 2>/dev/null || sleep 3 ;;
  esac
}
# The canonical names in the current folder into $names (one space before each).
names_here() {
  set +f
  set -- *.json
  set -f
  names=
  for name do
    case $name in [1-9]*.json) case ${name%.json} in *[!0-9]*) ;; *) names="$names $name" ;; esac ;; esac
  done
  # A record an interrupted prune left aside (`.<pid>.json.prune-<hex>`, and its journal) may be a live
  # session's only copy. The local reader reads those; this reader does not, so it must not prove the
  # listing: the host is then "cannot tell", never a "no" (docs/hosts.md). In the same window as the
  # names above, so the stamps around both prove them together.
  set +f
  set -- .[1-9]*.json.prune-*
  set -f
  stranded=
  if [ -e "$1" ] || [ -L "$1" ]; then stranded=$1; fi
}
# The listing rule of the local reader (docs/guard.md): a listing counts when the folder's stamps are
# the same before and after it, and the same as around the previous listing, which began more than a
# clock step earlier with the same names: a change hidden from both would have had to fall in the
# change time's own step. Else the folder is listed again, 5 times in all; then $proven stays empty.
prove() {
  proven=
  prev=
  prevnames=
  looks=0
  while [ $looks -lt 5 ]; do
    looks=$((looks + 1))
    stamp
    b=$st
    names_here
    stamp
    if [ -n "$b" ] && [ "$b" = "$st" ]; then
      if [ "$b" = "$prev" ] && [ "$names" = "$prevnames" ]; then proven=1; return; fi
      prev=$b
      prevnames=$names
    else
      prev=
    fi
    [ $looks -lt 5 ] && pause "$b"
  done
}

# kill -0 into $r: 0 it exists (or EPERM: it exists), 1 no such process, 2 an answer we cannot read
# (exists). A PID that exists costs no process; only a refusal is asked again, for its message.
alive() {
  if kill -0 "$1" 2>/dev/null; then r=0; return; fi
  if m=$(kill -0 "$1" 2>&1); then r=0; return; fi
  case $m in *'No such process'*) r=1 ;; *) r=2 ;; esac
}

# A file line of the folder being read, kept in $lines: printed after `listing ok` only once the
# folder is known not to have changed since its listing was proven (see read_folder).
put() { lines="$lines$1$NL"; }
# A listed name at neither a file nor a link any more: the folder changed under its reads (a session
# ended, prune's put-back move). Sets $lost, and the folder is read again (read_folder), never
# answered a file short: a live session at its other name would read as gone.
gone() { ! [ -e "$1" ] && ! [ -L "$1" ]; }

# One candidate read alone, with every check of its own: dd, bounded, never through a symlink and
# never blocking on a FIFO where GNU dd can promise it, the symlink check again after the read.
read_one() {
  if [ -L "$1" ]; then put "file $1 symlink"; return; fi
  if [ ! -e "$1" ]; then lost=1; return; fi
  if [ ! -f "$1" ]; then if gone "$1"; then lost=1; else put "file $1 not-regular"; fi; return; fi
  if [ ! -r "$1" ]; then if gone "$1"; then lost=1; else put "file $1 unreadable"; pids="$pids ${1%.json}"; fi; return; fi
  # shellcheck disable=SC2086
  joined "$(dd if="$1" bs=$((MAX + 1)) count=1 $ddflags 2>/dev/null | od -An -v -tx1)"
  if [ -L "$1" ]; then put "file $1 symlink"; return; fi
  # Gone by now: its bytes may be none of its record (dd opened nothing).
  if gone "$1"; then lost=1; return; fi
  if [ "$n" -gt $MAX ]; then put "file $1 too-large"; return; fi
  put "file $1 ok $h"
  pids="$pids ${1%.json}"
}

# The types and sizes of a batch of candidates, from one `ls -lnd` (lstat: a link is a link), as
# "name:type:size" words into $sig (one space before each).
sig_of() {
  out=$(ls -lnd -- "$@" 2>/dev/null)
  sig=
  IFS=$NL
  # shellcheck disable=SC2086
  set -- $out
  IFS=$IFS_DEFAULT
  for line do
    # shellcheck disable=SC2086
    set -- $line
    [ $# -ge 9 ] || continue
    case $1 in -*) t=f ;; l*) t=l ;; *) t=o ;; esac
    case $5 in *[!0-9]* | '') continue ;; esac
    sig="$sig $9:$t:$5"
  done
}

# A batch of candidates of the current folder, read with a constant number of processes: one ls for
# their types and sizes, one od over the regular ones (bounded by their total size), one awk to cut
# its hex at the sizes, one ls after. A batch whose types or sizes changed in between, or whose bytes
# do not add up, is read again one file at a time (read_one). od follows links and would wait at a
# FIFO put there after the first ls: under GNU timeout(1) where there is one, and the after-checks
# catch a link that stayed.
read_batch() {
  asked="$*"
  sig_of "$@"
  # shellcheck disable=SC2086
  set -- $sig
  toread=
  sizes=
  want=
  sum=0
  # ls answers in the order of the listing (both sorted bytewise); a name it did not answer for
  # (gone since, or an ls that failed) is read alone, so no failure of ls hides a file.
  for name in $asked; do
    if [ "${1%%:*}" != "$name" ]; then read_one "$name"; continue; fi
    word=$1
    shift
    rest=${word#*:}
    t=${rest%%:*}
    size=${rest#*:}
    case $t in
      l) put "file $name symlink"; continue ;;
      o) put "file $name not-regular"; continue ;;
    esac
    if [ "$size" -gt $MAX ]; then put "file $name too-large"; continue; fi
    if [ ! -r "$name" ]; then
      if gone "$name"; then lost=1; else put "file $name unreadable"; pids="$pids ${name%.json}"; fi
      continue
    fi
    # At most 4 MiB a batch (a shell variable of twice that); a large record past it is read alone.
    if [ $((sum + size)) -gt 4194304 ]; then read_one "$name"; continue; fi
    toread="$toread $name"
    sizes="$sizes $size"
    want="$want $word"
    sum=$((sum + size))
  done
  [ -n "$toread" ] || return 0
  # shellcheck disable=SC2086
  hexall=$($guard od -An -v -tx1 -N $((sum + 1)) -- $toread 2>/dev/null | tr -d ' \n')
  okay=
  if [ ${#hexall} -eq $((sum * 2)) ]; then
    # shellcheck disable=SC2086
    sig_of $toread
    [ "$sig" = "$want" ] && okay=1
  fi
  if [ -z "$okay" ]; then
    for name in $toread; do read_one "$name"; done
    return 0
  fi
  # awk says it cut the whole line ("#cut N"): an awk that failed, or kept part of the line, leaves
  # the batch to be read file by file, never a folder short of files.
  cuts=0
  for name in $toread; do cuts=$((cuts + 1)); done
  cut=$(printf '%s\n%s\n%s\n' "$toread" "$sizes" "$hexall" | awk -v total=$((sum * 2)) '
    NR == 1 { n = split($0, name, " ") }
    NR == 2 { split($0, size, " ") }
    NR == 3 && length($0) == total {
      at = 1
      for (i = 1; i <= n; i++) { len = size[i] * 2; print "file " name[i] " ok " substr($0, at, len); at += len }
      if (at == total + 1) print "#cut " n
    }' 2>/dev/null)
  case $cut in
    *"$NL#cut $cuts" | "#cut $cuts") ;;
    *)
      for name in $toread; do read_one "$name"; done
      return 0
      ;;
  esac
  cut=${cut%"#cut $cuts"}
  lines="$lines$cut"
  for name in $toread; do pids="$pids ${name%.json}"; done
}

# GNU timeout(1) bounds the batch od where the dd flags say GNU (a FIFO put in is then a short read).
guard=
if [ -n "$ddflags" ] && timeout 5 true 2>/dev/null; then guard='timeout 5'; fi

# Prove the listing, read its files, then stamp the folder again: the reads count only when the
# stamp is still the proven one (no name added, removed or moved since it was listed; a record
# rewritten in place does not touch the folder). A listed name gone before its read (prune's
# put-back move, a session ending) would otherwise be a file line short: a proven "no" or a
# `removed` for a session that is alive at its other name. Else all again, 5 times in all, as
# the local scan reads a folder again when a listed record vanished (lib/registry/read/scan.ts).
read_folder() {
  tries=0
  pids0=$pids
  while :; do
    tries=$((tries + 1))
    pids=$pids0
    prove
    if [ -z "$proven" ]; then
      echo "listing unproven $(say 'the folder kept changing while it was listed, 5 times')"
      return
    fi
    if [ -n "$stranded" ]; then
      echo "listing unproven $(say "an interrupted prune left a record aside ($stranded): claude-ps prune there puts it back")"
      return
    fi
    proof=$b
    lines=
    lost=
    # Batches of at most 1000 names: bounded command lines.
    batch=
    count=0
    for name in $names; do
      batch="$batch $name"
      count=$((count + 1))
      if [ $count -ge 1000 ]; then
        # shellcheck disable=SC2086
        read_batch $batch
        batch=
        count=0
      fi
    done
    # shellcheck disable=SC2086
    [ -z "$batch" ] || read_batch $batch
    stamp
    if [ -z "$lost" ] && [ "$st" = "$proof" ]; then
      echo 'listing ok'
      printf '%s' "$lines"
      lines=
      return
    fi
    if [ $tries -ge 5 ]; then
      pids=$pids0
      echo "listing unproven $(say 'the folder changed while its records were read, 5 times')"
      return
    fi
    pause "$proof"
  done
}

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
  case $dir in /*) to=$dir ;; *) to=./$dir ;; esac
  if ! cd "$to" 2>/dev/null; then
    echo "listing unreadable $( (cd "$to") 2>&1 | head -n 1 | hex)"
    continue
  fi
  if [ -z "$stampfmt" ]; then
    echo "listing unproven $(say 'this host has no stat(1) to prove a listing complete')"
  else
    read_folder
  fi
  cd "$start" || cd / || exit 1
done

# After the reads, as the local scan does: a session that wrote its file before the read is seen.
# Every PID once (a PID in two config dirs), all asked in one subshell: kill is a builtin there,
# and a refusal is asked again for its message. Lines "= PID 0" (exists) or the message and "= PID ?".
kills=
if [ -n "$pids" ]; then
  # shellcheck disable=SC2086
  kills=$(printf '%s\n' $pids | sort -u | while read -r p; do
    if kill -0 "$p" 2>/dev/null; then echo "= $p 0"; elif kill -0 "$p" 2>&1; then echo "= $p 0"; else echo "= $p ?"; fi
  done)
fi
existing=
m=
IFS=$NL
for line in $kills; do
  IFS=$IFS_DEFAULT
  case $line in
    '= '*) ;;
    *) m="$m$line"; continue ;;
  esac
  # shellcheck disable=SC2086
  set -- $line
  pid=$2
  first=$3
  if [ "$first" = '?' ]; then
    case $m in *'No such process'*) first=1 ;; *) first=2 ;; esac
  fi
  m=
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
IFS=$IFS_DEFAULT

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
