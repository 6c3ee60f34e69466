#!/bin/sh
PAYLOAD=$(cat)
case "$PAYLOAD" in
  *'"tool":"write_file"'*)
    case "$PAYLOAD" in
      *'/home/me/project'*) echo '{}' ;;
      *) echo '{"deny":true,"reason":"writes are limited to /home/me/project"}' ;;
    esac ;;
  *) echo '{}' ;;
esac
