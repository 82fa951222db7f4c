#!/usr/bin/env bash
# Check PostgreSQL and Redis on their standard local ports; start whichever is down
# (commands from the machine's documentation), then wait until both answer.
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  echo "ensure-services: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! redis_up; then
  echo "ensure-services: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
for _ in $(seq 1 60); do
  if pg_up && redis_up; then
    echo "ensure-services: PostgreSQL and Redis are up"
    exit 0
  fi
  sleep 1
done
echo "ensure-services: PostgreSQL or Redis did not come up" >&2
exit 1
