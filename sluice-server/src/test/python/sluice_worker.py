#!/usr/bin/env python3
"""A Sluice worker in Python with the standard library only.

It registers with a Sluice server, claims jobs of one queue over the HTTP API, squares the number "n" of each
job's JSON payload and completes the job with {"square": n * n}. A payload without a number fails its job for
good (retrying cannot help); a lease the server says was lost is left alone (the job runs again elsewhere).

    python3 sluice_worker.py --url http://127.0.0.1:8080/ --queue squares --jobs 20

It exits 0 once it has completed --jobs jobs, 1 if no job came for --idle-seconds before that.
"""

import argparse
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request


class SluiceWorker:
    """One remote worker: its id on the server, and the calls it makes."""

    def __init__(self, url, queue, name, concurrency=1, lease_ms=30000, token=None):
        self.token = token
        self.base = "%s/api/v1/queues/%s/workers" % (url.rstrip("/"), urllib.parse.quote(queue, safe=""))
        registered = self.call("POST", self.base, {"name": name, "concurrency": concurrency, "leaseMs": lease_ms})
        self.url = "%s/%s" % (self.base, registered["workerId"])

    def call(self, method, url, body=None, timeout=10.0):
        """Sends one request; answers the JSON body, or None for 204 No Content."""
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request, timeout=timeout) as response:
            if response.status == 204:
                return None
            return json.loads(response.read().decode("utf-8"))

    def claim(self, wait_ms=20000):
        """The next job with its lease token, or None if none came within wait_ms."""
        return self.call("POST", "%s/claim?waitMs=%d" % (self.url, wait_ms), timeout=wait_ms / 1000 + 10)

    def report(self, job, outcome, body=None):
        """Reports the job's outcome: complete, fail, rate-limited or renew. False if the lease was lost."""
        try:
            self.call("POST", "%s/leases/%s/%s" % (self.url, job["token"], outcome), body)
            return True
        except urllib.error.HTTPError as refused:
            if refused.code == 409:  # the lease ended: another worker may run the job; do nothing more with it
                return False
            raise

    def stop(self):
        self.call("DELETE", self.url)


def square(job):
    """The work: {"n": 7} -> {"square": 49}."""
    n = json.loads(job["payload"]).get("n")
    if not isinstance(n, int):
        raise ValueError("payload has no whole number n: %s" % job["payload"])
    return {"square": n * n}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--queue", required=True)
    parser.add_argument("--jobs", type=int, required=True)
    parser.add_argument("--name", default="python-%d" % os.getpid())
    parser.add_argument("--idle-seconds", type=float, default=30)
    args = parser.parse_args()

    worker = SluiceWorker(args.url, args.queue, args.name, token=os.environ.get("SLUICE_TOKEN"))
    completed = 0
    try:
        while completed < args.jobs:
            job = worker.claim(wait_ms=int(args.idle_seconds * 1000))
            if job is None:
                print("no job came for %s s; completed %d of %d" % (args.idle_seconds, completed, args.jobs))
                return 1
            try:
                result = square(job)
            except ValueError as bad_input:
                worker.report(job, "fail", {"error": str(bad_input), "retry": False})
                continue
            if worker.report(job, "complete", {"result": result}):
                completed += 1
    finally:
        worker.stop()
    print("completed %d jobs" % completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
