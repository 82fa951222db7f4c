-- Let one stamped beat job through, or say why not, in one step.
-- KEYS[1] the fencing epoch, KEYS[2] the last slot of this job that ran.
-- ARGV[1] the job's epoch, ARGV[2] its slot (Unix ms), ARGV[3] how long to keep the slot (ms).
-- Returns {verdict, seen}: {'run', last slot or -1}; {'stale' | 'unknown', the epoch now};
-- {'done', the last slot that ran}.
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local epoch = tonumber(ARGV[1])
if epoch < current then
  return {'stale', current}
end
if epoch > current then
  return {'unknown', current}
end
local slot = tonumber(ARGV[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '-1')
if slot <= last then
  return {'done', last}
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return {'run', last}
