-- Give the beats' lease up, if it is still the caller's own (a beat that stops).
-- KEYS[1] the lease; ARGV[1] the holder. Returns 1 if it was released, 0 otherwise.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
