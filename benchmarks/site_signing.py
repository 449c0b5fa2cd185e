"""Cost of the signed internal channel of a site (:mod:`motley.server.site.signing`): microseconds to sign one internal
request (HMAC-SHA256 over its method, target, client, destination, timestamp and nonce; a fresh random nonce) and
to check one (the HMAC again, the clock, the nonce taken), each the median of ``--runs`` runs of ``--calls`` calls,
and the memory of the nonces remembered (one entry per internal request of the last ``WINDOW`` seconds).

    PYTHONPATH=src .venv/bin/python benchmarks/site_signing.py            # 20,000 calls, 5 runs
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

from motley.server.site.signing import Verifier, sign

SECRET = b"0123456789abcdef0123456789abcdef0123456789abcdef"
TARGET, CLIENT, DESTINATION = "/api/tables/a1b2c3d4e5f6/join?seat=1", "203.0.113.7", "10.0.0.2:8000"
PROCESS = "a1b2c3d4e5f60718"


def per_call(calls: int) -> tuple[float, float, float]:
    """Microseconds per :func:`sign` and per :meth:`Verifier.check` over ``calls`` requests, and KiB held by the
    verifier's remembered nonces after them."""
    start = time.perf_counter()
    headers = [sign(SECRET, "POST", TARGET, CLIENT, DESTINATION, PROCESS) for _ in range(calls)]
    signed = (time.perf_counter() - start) / calls * 1e6
    verifier = Verifier(SECRET, DESTINATION, PROCESS)
    start = time.perf_counter()
    for header in headers:
        verifier.check("POST", TARGET, CLIENT, header)
    checked = (time.perf_counter() - start) / calls * 1e6
    tracemalloc.start()  # apart from the timing: tracing slows every allocation
    traced = Verifier(SECRET, DESTINATION, PROCESS)
    for header in headers:
        traced.check("POST", TARGET, CLIENT, header)
    held = tracemalloc.get_traced_memory()[0] / 1024
    tracemalloc.stop()
    return signed, checked, held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    runs = [per_call(args.calls) for _ in range(args.runs)]
    sign_us, check_us, held = (statistics.median(r[i] for r in runs) for i in range(3))
    print(f"sign {sign_us:.1f} us, check {check_us:.1f} us a request; {args.calls:,} nonces remembered: "
          f"{held:,.0f} KiB ({held * 1024 / args.calls:.0f} bytes each)")


if __name__ == "__main__":
    main()
