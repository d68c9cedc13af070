#!/bin/sh
# Entrypoint of the redis stand-in, doing what the official redis image does: the official build
# turns protected mode off by default (other containers reach it on the compose network without
# a password), and as root it hands /data to the redis user and drops to it.
set -e

if [ "$1" = 'redis-server' ]; then
  shift
  set -- redis-server --protected-mode no "$@"
  if [ "$(id -u)" = '0' ]; then
    find . \! -user redis -exec chown redis '{}' +
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi

exec "$@"
