"""External bots: any program that speaks JSON lines on stdin/stdout (protocol ``motley-bot/1``).

For each decision motley writes one line, a JSON object::

    {"protocol": "motley-bot/1", "type": "act", "game": "fools_errand", "params": {...}, "seat": 0,
     "observation": {...the seat's observation...}, "legal_moves": ["draw", "play joker"],
     "legal_actions": [0, 1]}

and the program answers one line: ``{"move": "draw"}`` (or the bare move string ``draw``, or
``{"action": 0}``). The full description is in docs/external_bots.md.

Failures never stop a game. A program that crashes or does not answer within ``timeout`` seconds is
stopped, and its seat is played by the ``fallback`` bot for the rest of the game; an answer that is not
JSON, names no move or names an illegal one is refused for that decision only (the fallback bot plays it).
Every failure is logged and kept in :attr:`ExternalBot.errors` with the reason.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import random
import shlex
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from typing import IO, Any, NoReturn

from motley.bots.base import Bot
from motley.bots.spec import make_bot, parse_bot_spec, register_bot_kind
from motley.core import Game, MotleyError, Observation, jsonsafe
from motley.core.errors import OptionError
from motley.core.options import Option

PROTOCOL = "motley-bot/1"
log = logging.getLogger(__name__)


class ExternalBotError(MotleyError):
    """An external bot crashed, timed out or answered something that is not a legal move."""


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # end of output: the program has exited or closed stdout


class ExternalBot(Bot):
    """A bot run as a separate program (see the module docstring for the protocol).

    Args:
        game: the game to play.
        cmd: the command line, split like a shell would (``"node examples/bots/random_bot.js"``).
        timeout: seconds allowed per answer (> 0; checked by the declaration, through ``make_bot``).
        fallback: spec of the bot that plays when the program fails (``"random"``, ``"heuristic"``...).
    Raises:
        MotleyError: for an empty command or a fallback bot that cannot be built.
    """

    name = "external"

    def __init__(self, game: Game, cmd: str = "", timeout: float = 5.0, fallback: str = "random") -> None:
        super().__init__(game)
        self.argv = shlex.split(cmd.strip().strip("\"'"))
        if not self.argv:
            raise MotleyError("external bot needs a command: external(cmd='node my_bot.js')")
        self.timeout = timeout
        self.fallback = make_bot(fallback, game)
        self.errors: list[str] = []
        self.failed = False
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: IO[str] | None = None

    # ---- process -----------------------------------------------------------------------------
    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None:
            self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  (lives as long as the program)
            try:
                self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              stderr=self._stderr, text=True, bufsize=1)
            except OSError as exc:
                self._fail(f"cannot start external bot {self.argv[0]!r}: {exc}")
            assert self._proc.stdout is not None
            threading.Thread(target=_pump, args=(self._proc.stdout, self._lines), daemon=True).start()
        return self._proc

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        tail = self._stderr.read()[-300:].strip()
        return f"; it said: {tail}" if tail else ""

    def close(self) -> None:
        """Stop the program (it is restarted by the next decision unless the bot has failed)."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown there is nothing left to report to
            self.close()

    # ---- one decision ------------------------------------------------------------------------
    def act(self, observation: Observation, legal_actions: Sequence[int], rng: random.Random) -> int:
        if self.failed:
            return self.fallback.act(observation, legal_actions, rng)
        # Our action ids name the same move in every world consistent with the observation, so any
        # determinization names the moves (a private rng keeps the game's random stream untouched).
        world = self.game.sample_state(observation, random.Random(0))
        moves = [world.action_to_string(a) for a in legal_actions]
        try:
            answer = self._ask(observation, moves, legal_actions)
            return self._parse(answer, world, legal_actions)
        except ExternalBotError as exc:
            self.errors.append(str(exc))
            log.warning("%s; seat %s played by the %s bot", exc, observation.get("seat"), self.fallback.name)
            return self.fallback.act(observation, legal_actions, rng)

    def _ask(self, observation: Observation, moves: list[str], legal_actions: Sequence[int]) -> str:
        proc = self._start()
        message = {"protocol": PROTOCOL, "type": "act", "game": self.game.name, "params": self.game.params,
                   "seat": observation.get("seat"), "observation": observation, "legal_moves": moves,
                   "legal_actions": list(legal_actions)}
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            proc.stdin.flush()
            line = self._lines.get(timeout=self.timeout)
        except (BrokenPipeError, OSError):
            line = None
        except queue.Empty:
            self._fail(f"external bot {self.argv[0]!r} did not answer within {self.timeout:g} s")
        if line is None:
            proc.wait(timeout=5)
            self._fail(f"external bot {self.argv[0]!r} exited (code {proc.returncode}){self._stderr_tail()}")
        return line

    def _fail(self, reason: str) -> NoReturn:
        self.failed = True
        self.close()
        raise ExternalBotError(reason)

    def _parse(self, answer: str, world: Any, legal_actions: Sequence[int]) -> int:
        text = answer.strip()
        move: Any = text
        if text.startswith("{"):
            try:
                data = jsonsafe.loads(text, "the external bot's answer", max_bytes=65_536, max_depth=8)
            except jsonsafe.JSONInputError as exc:
                raise ExternalBotError(f"external bot answered malformed JSON {text[:80]!r}: {exc}") from None
            if isinstance(data, dict) and isinstance(data.get("action"), int):
                if data["action"] not in legal_actions:
                    raise ExternalBotError(f"external bot answered illegal action {data['action']}")
                return int(data["action"])
            move = data.get("move") if isinstance(data, dict) else None
        if not isinstance(move, str) or not move:
            raise ExternalBotError(f"external bot answer names no move: {text[:80]!r}")
        try:
            action = int(world.string_to_action(move))
        except MotleyError as exc:
            raise ExternalBotError(f"external bot answered an illegal move: {exc}") from None
        if action not in legal_actions:
            raise ExternalBotError(f"external bot answered {move!r}, which is not legal now")
        return action


def _positive_seconds(value: float) -> float:
    if not value > 0.0:
        raise OptionError(f"option 'timeout' must be above 0 seconds; got {value!r}")
    return value


def _bot_spec(value: str) -> str:
    """A fallback bot's spec, checked and written canonically."""
    return str(parse_bot_spec(value))


register_bot_kind("external", ExternalBot, (
    Option("cmd", "", "the program's command line, quoted: cmd='node my_bot.js'"),
    Option("timeout", 5.0, "seconds allowed per answer", kind="float", check=_positive_seconds),
    Option("fallback", "random", "spec of the bot that plays when the program fails", check=_bot_spec),
), doc="a program speaking JSON lines on stdin/stdout (docs/external_bots.md)")
