"""Rate limits per connection, held across every worker in Redis: a token bucket for steps
per second, and a set of leases for actions in flight.

An action that finds no room is not run: its node asks to be polled again after the wait
this says, and holds no worker meanwhile. A slot in flight is a lease that every step of
the action renews and its end gives back; the lease of a worker that died runs out by
itself. Both scripts read Redis' own clock, so hosts' clocks do not matter.
"""

from __future__ import annotations

from typing import Any

# Steps per second: a bucket of up to `burst` tokens, refilled at `rate` a second. Returns the
# seconds to wait for a token (0: one was taken).
_BUCKET = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local held = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(held[1]) or burst
local ts = tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - ts) * rate)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = (1 - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 60)
return tostring(wait)
"""

# Actions in flight: a sorted set of action tokens scored by when their lease runs out. A
# holder renews; a newcomer enters while there is room. Returns 1 (go) or 0 (wait).
_FLIGHT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZSCORE', KEYS[1], ARGV[1])
if held or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
return 0
"""

# How long a newcomer waits before asking again for a slot in flight.
FLIGHT_RETRY = 1.0


class RateLimiter:
    """The limits of every connection, under one key prefix of one Redis database."""

    def __init__(self, client: Any, *, prefix: str, lease: float) -> None:
        self._client = client
        self._prefix = prefix
        self._lease_ms = int(lease * 1000)
        self._bucket = client.register_script(_BUCKET)
        self._flight = client.register_script(_FLIGHT)

    def _key(self, scope: str, kind: str) -> str:
        return f"{self._prefix}:limit:{kind}:{scope}"

    def take_step(self, scope: str, per_second: float) -> float:
        """Seconds to wait before this step may run (0: it may run now)."""
        burst = max(1.0, per_second)
        waited = self._bucket(keys=[self._key(scope, "rate")], args=[per_second, burst])
        return float(waited)

    def hold(self, scope: str, token: str, in_flight: int) -> bool:
        """Whether the action `token` may go on (it holds, or now took, a slot in flight)."""
        taken = self._flight(
            keys=[self._key(scope, "flight")], args=[token, in_flight, self._lease_ms]
        )
        return bool(taken)

    def let_go(self, scope: str, token: str) -> None:
        """The action `token` ended: its slot in flight is free."""
        self._client.zrem(self._key(scope, "flight"), token)
