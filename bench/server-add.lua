-- wrk script for bench/run-server.sh: every request adds one job over Sluice's HTTP API
-- (POST /api/v1/queues/{q}/jobs; the URL given to wrk names the queue). No job id: the engine assigns one, so no
-- add is a duplicate and each answer is 201; wrk counts any other answer as "Non-2xx or 3xx responses".
-- The payload is 100 bytes, as the queue benchmarks' jobs are.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"name":"bench","payload":"' .. string.rep("x", 100) .. '"}'
