#!/usr/bin/env bash
# Check PostgreSQL, Redis and RabbitMQ on their standard local ports; start whichever is down
# (commands from the machine's documentation), then wait until all of them answer.
# RabbitMQ is only a broker choice: on a machine without rabbitmq-server it is left out.
set -euo pipefail

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }
# RabbitMQ opens its AMQP listener last when it boots, so a connection to 5672 means it is up;
# this costs nothing, where `rabbitmq-diagnostics ping` starts an Erlang VM.
rabbitmq_up() { (exec 3<>/dev/tcp/127.0.0.1/5672) 2>/dev/null; }
with_rabbitmq=1
command -v rabbitmq-server >/dev/null || with_rabbitmq=0
all_up() { pg_up && redis_up && { [ "$with_rabbitmq" = 0 ] || rabbitmq_up; }; }

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
if [ "$with_rabbitmq" = 1 ] && ! rabbitmq_up; then
  echo "ensure-services: starting RabbitMQ"
  rabbitmq-server -detached || true
fi
for _ in $(seq 1 90); do
  if all_up; then
    echo "ensure-services: PostgreSQL, Redis$([ "$with_rabbitmq" = 1 ] && echo " and RabbitMQ") are up"
    exit 0
  fi
  sleep 1
done
pg_up || echo "ensure-services: PostgreSQL did not come up" >&2
redis_up || echo "ensure-services: Redis did not come up" >&2
[ "$with_rabbitmq" = 0 ] || rabbitmq_up || echo "ensure-services: RabbitMQ did not come up" >&2
exit 1
