-- Take or renew the beats' lease, in one step.
-- KEYS[1] the lease (its value: the holder), KEYS[2] the fencing epoch (a counter).
-- ARGV[1] the holder asking, ARGV[2] the lease's lifetime in milliseconds.
-- Returns the epoch the holder now leads under, or 0 when another beat holds the lease.
-- A holder renews only a lease that is still its own (compare and extend); whoever takes a
-- free lease counts the epoch one up, so every message sent under an older lease can be told
-- apart from those sent under this one.
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  local epoch = tonumber(redis.call('GET', KEYS[2]) or '0')
  if epoch > 0 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return epoch
  end
  -- The count was lost (a Redis that lost its data): begin a new epoch, as a new holder.
elseif holder then
  return 0
end
local epoch = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return epoch
