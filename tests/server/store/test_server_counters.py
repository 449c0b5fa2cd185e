"""The coordination counters of a server process (motley.server.store.counters): store statements, commits and news
messages, written to a folder named by MOTLEY_COUNTERS for the load benchmark."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: A process that opens a store, stores a finished match (its header, its moves in one batch, its result), loads
#: it twice and publishes one news message, then prints how many moves it stored.
SCRIPT = """
import asyncio, sys
from motley.server.site.news import LocalNews
from motley.server.store.storage import Storage
from motley.server.web.testing import store_finished_match

storage = Storage(sys.argv[1])
record = store_finished_match(storage, {"game": "fool", "players": 4, "seats": [{"kind": "bot", "bot": "random"}] * 4},
                              seed=7)
storage.load(record.id)
storage.load(record.id)

async def news() -> None:
    channel = LocalNews()
    await channel.start()
    async with channel.subscribe("lobby") as subscription:
        await channel.publish("lobby", {"table": record.id})
        await subscription.get()
    await channel.close()

asyncio.run(news())
print(len(record.moves))
"""


def _run(tmp_path: Path, folder: Path | None) -> int:
    env = {key: value for key, value in os.environ.items() if key != "MOTLEY_COUNTERS"}
    if folder is not None:
        env["MOTLEY_COUNTERS"] = str(folder)
    done = subprocess.run([sys.executable, "-c", SCRIPT, f"sqlite:///{tmp_path}/c.db"], env=env, check=True,
                          capture_output=True, text=True, timeout=120)
    return int(done.stdout.split()[-1])


def test_counters_written_at_exit(tmp_path: Path) -> None:
    """Every statement and commit of the store is counted, an executemany once, and each news message once
    published and once received; the process's file holds the final counts after it exits."""
    folder = tmp_path / "counters"
    moves = _run(tmp_path, folder)
    files = list(folder.glob("*.json"))
    assert len(files) == 1
    record = json.loads(files[0].read_text())
    assert record["pid"] == int(files[0].stem)
    # the match: a header, a batch of moves and a result (at least one commit each), two loads (a header and
    # the moves at least, each)
    assert record["commits"] >= 3
    assert record["statements"] >= record["commits"] + 4
    assert record["statements"] < moves  # the moves went in one executemany, not a statement each
    assert (record["news_published"], record["news_received"]) == (1, 1)

