#!/bin/sh
# One misbehaving plugin per mode ($1); the tests write a manifest that runs it.
case "$1" in
  empty-object) cat >/dev/null; echo '{}' ;;
  silent) cat >/dev/null ;;
  ignore-term)
    trap '' TERM  # inherited by sleep: only SIGKILL ends this group
    while :; do sleep 1; done ;;
  flood) head -c 100000000 /dev/zero ;;
  grandchild-exits)
    sleep 30 &
    echo "grandchild $!" >&2
    echo '{}' ;;
  grandchild-waits)
    sleep 30 &
    wait ;;
  not-json) echo 'hello, world' ;;
  partial) printf '{"deny": tr' ;;
  array) echo '[1, 2]' ;;
  deny-string) echo '{"deny":"yes"}' ;;
  notice-number) echo '{"notice":42}' ;;
  bad-arguments) echo '{"arguments":"{not json"}' ;;
  exit1) echo 'something broke' >&2; exit 1 ;;
  segv) kill -SEGV $$ ;;
  *) echo "unknown mode $1" >&2; exit 2 ;;
esac
