-- Touch a traversal's heartbeat with the server's clock, in one step so that two
-- writers cannot interleave a clock read and a write.
-- KEYS[1] the heartbeat key; ARGV[1] time to live in milliseconds.
-- KEYS[2], if given, the point of a node whose action is under way: it is marked started, so
-- that a repeat of the node that triggered it does not trigger it again (a node that has
-- begun keeps itself going through its own messages).
local now = redis.call('TIME')
redis.call('SET', KEYS[1], now[1] .. '.' .. string.format('%06d', tonumber(now[2])), 'PX',
  tonumber(ARGV[1]))
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'started', '1')
end
return 1
