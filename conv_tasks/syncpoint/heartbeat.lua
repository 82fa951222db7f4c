-- Touch a traversal's heartbeat with the server's clock, in one step so that two
-- writers cannot interleave a clock read and a write.
-- KEYS[1] the heartbeat key; ARGV[1] time to live in milliseconds.
local now = redis.call('TIME')
redis.call('SET', KEYS[1], now[1] .. '.' .. string.format('%06d', tonumber(now[2])), 'PX',
  tonumber(ARGV[1]))
return 1
