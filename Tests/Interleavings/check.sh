#!/usr/bin/env bash
# Checks every interleaving of the delivery mechanisms' models with spin (the Debian package):
# each model must hold for 2 and 3 threads, and each seeded bug in it (-DBUG=n) must be caught,
# so a model that stops catching anything fails here too.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# verify MODEL ARGS...: prints spin's verdict, and the number of errors it found on stdout's last line.
verify() {
  local model=$1
  shift
  (
    cd "$work"
    spin -a "$@" "$OLDPWD/$model" > /dev/null
    gcc -O2 -DSAFETY -DCOLLAPSE "$@" -o pan pan.c
    ./pan -m2000000 > out.txt 2>&1 || true
    grep -o 'assertion violated.*' out.txt | head -1 >&2 || true
    grep -E 'states, stored' out.txt | sed 's/^ */    /' >&2
    grep -oE 'errors: [0-9]+' out.txt | grep -oE '[0-9]+'
  )
}

failed=0
# model: the seeded bugs it has
for entry in "serial_drain.pml:3" "single_value.pml:3" "subject_conduit.pml:4" "gated_fanin.pml:4"; do
  model=${entry%%:*}
  bugs=${entry##*:}
  for threads in 2 3; do
    errors=$(verify "$model" -DTHREADS=$threads)
    if [ "$errors" = 0 ]; then
      echo "ok: $model holds for $threads threads"
    else
      echo "FAIL: $model, $threads threads: $errors errors"
      failed=1
    fi
  done
  for bug in $(seq 1 "$bugs"); do
    errors=$(verify "$model" -DBUG=$bug)
    if [ "$errors" != 0 ]; then
      echo "ok: $model catches seeded bug $bug"
    else
      echo "FAIL: $model misses seeded bug $bug"
      failed=1
    fi
  done
done
exit $failed
