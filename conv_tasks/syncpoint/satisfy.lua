-- Satisfy one predecessor of one SyncPoint: atomic (a Lua script runs alone) and idempotent.
--
-- KEYS[1]  the SyncPoint hash             KEYS[2]  the traversal's heartbeat key
-- ARGV[1]  the predecessor                ARGV[2]  its data, already JSON-encoded
-- ARGV[3]  time to live in milliseconds
--
-- Hash fields (written by SyncPointStore.create, then here):
--   "p:<pred>"   1 for each predecessor the point waits for
--   "d:<pred>"   that predecessor's data; present once it has satisfied the point
--   "remaining"  how many predecessors are still missing
--   "completer"  the predecessor whose call brought "remaining" to 0
--
-- Returns {outcome, completer or "", pred1, data1, pred2, data2, ...}; the
-- (pred, data) pairs are given only to the call that completed the point and
-- to later duplicates of that same predecessor, so that it can trigger again.
-- "missing" and "unexpected" write nothing: neither is progress.

local point = KEYS[1]
local heartbeat = KEYS[2]
local pred = ARGV[1]
local ttl = tonumber(ARGV[3])

if redis.call('EXISTS', point) == 0 then
  return {'missing', ''}
end
if redis.call('HEXISTS', point, 'p:' .. pred) == 0 then
  return {'unexpected', ''}
end

local function merged(reply)
  local fields = redis.call('HGETALL', point)
  for i = 1, #fields, 2 do
    local name = fields[i]
    if string.sub(name, 1, 2) == 'd:' then
      reply[#reply + 1] = string.sub(name, 3)
      reply[#reply + 1] = fields[i + 1]
    end
  end
  return reply
end

local reply
if redis.call('HSETNX', point, 'd:' .. pred, ARGV[2]) == 0 then
  -- Seen before: the first data stays, the count is not touched.
  local completer = redis.call('HGET', point, 'completer')
  if completer == pred then
    reply = merged({'duplicate', completer})
  else
    reply = {'duplicate', completer or ''}
  end
else
  local remaining = redis.call('HINCRBY', point, 'remaining', -1)
  if remaining == 0 then
    redis.call('HSET', point, 'completer', pred)
    reply = merged({'completed', pred})
  else
    reply = {'pending', ''}
  end
end

redis.call('PEXPIRE', point, ttl)
-- The server's clock, not the caller's: workers on many hosts compare these.
local now = redis.call('TIME')
redis.call('SET', heartbeat, now[1] .. '.' .. string.format('%06d', tonumber(now[2])), 'PX', ttl)
return reply
