"""Bot kinds declare their options (``motley.bots.spec``): a spec string is parsed once into a typed, frozen
``BotSpec``, refused with a message naming the kind, the option and the value, and ``make_bot`` builds the bot
from it."""

from __future__ import annotations

import inspect
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import motley
from motley.bots import BotSpec, bot_kind, bot_kinds, has_heuristic, make_bot, parse_bot_spec, web_bot_kinds
from motley.bots.ismcts import ISMCTSBot
from motley.cli.main import app
from motley.core import MotleyError, game_spec
from motley.core.options import Option

runner = CliRunner()
KINDS_WITH_CLASSES = ("random", "heuristic", "external", "ismcts", "network")


@pytest.mark.parametrize(("text", "canonical"), [
    ("random", "random"),
    ("ISMCTS", "ismcts"),
    ("ismcts(simulations=1000)", "ismcts"),  # a default is not written
    ("ismcts(infer_trust=table,points=0.25,infer_chain=2,simulations=4000)",
     "ismcts(simulations=4000,points=0.25,infer_chain=2,infer_trust=table)"),  # declaration order
    ("ismcts( uct_c = 2 , rollout = RANDOM )", "ismcts(uct_c=2.0,rollout=random)"),
    ("ismcts(seconds=0.5)", "ismcts(seconds=0.5)"),
    ("ismcts(seconds=none)", "ismcts"),
    ("external(cmd='node my_bot.js',timeout=2)", "external(cmd='node my_bot.js',timeout=2.0)"),
    ("external(cmd=bot,fallback=ismcts(simulations=10,uct_c=1))",
     "external(cmd=bot,fallback='ismcts(simulations=10)')"),
    ("network(weights=none)", "network"),
    ("best", "best"),
])
def test_a_spec_string_parses_to_its_canonical_form(text: str, canonical: str) -> None:
    spec = BotSpec.parse(text)
    assert str(spec) == canonical
    assert BotSpec.parse(canonical) == spec and hash(BotSpec.parse(canonical)) == hash(spec)
    assert parse_bot_spec(spec) is spec


def test_a_spec_holds_typed_values_and_is_frozen() -> None:
    spec = BotSpec.parse("ismcts(simulations=4000,uct_c=2,points=0.25,infer_trust=table,seconds=1)")
    assert dict(spec.options) == {"simulations": 4000, "seconds": 1.0, "uct_c": 2.0, "points": 0.25,
                                  "infer_trust": "table"}
    assert isinstance(spec.options["simulations"], int) and isinstance(spec.options["uct_c"], float)
    with pytest.raises(AttributeError):
        spec.kind = "random"  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.options["simulations"] = 5  # type: ignore[index]
    assert BotSpec("ismcts", {"simulations": "4000", "uct_c": 1}) == BotSpec.parse("ismcts(simulations=4000)")
    assert len({spec, BotSpec.parse(str(spec))}) == 1
    resolved = spec.resolved()
    assert list(resolved) == [o.name for o in bot_kind("ismcts").options]
    assert resolved["rollout"] == "auto" and resolved["simulations"] == 4000


@pytest.mark.parametrize("kind", bot_kinds())
def test_every_kinds_declaration_is_valid(kind: str) -> None:
    """Names unique, defaults accepted by their own option, choices hold the default, bounds and served caps in
    order, and (for a bot class) the constructor's parameters and defaults are the declared ones."""
    entry = bot_kind(kind)
    names = [o.name for o in entry.options]
    assert len(names) == len(set(names)) and entry.doc
    for option in entry.options:
        assert option.kind in ("str", "int", "float", "bool", "json") and option.doc
        if option.default is not None and option.default != "":
            assert option.parse(option.default) == option.default
        if option.choices:
            assert option.default in option.choices
        if option.minimum is not None and option.maximum is not None:
            assert option.minimum <= option.maximum
        if option.served is not None:
            low, high = option.served
            assert low <= high and option.parse(low) == low and option.parse(high) == high
    if kind in KINDS_WITH_CLASSES:
        params = list(inspect.signature(entry.factory).parameters.values())[1:]
        assert [p.name for p in params] == names
        assert [p.default for p in params] == [o.default for o in entry.options]


def test_the_web_kinds_and_the_heuristic_are_read_from_the_declarations() -> None:
    assert web_bot_kinds() == ["random", "heuristic", "ismcts", "best"]
    for name in motley.registered_games():
        assert has_heuristic(name) == (game_spec(name).heuristic is not None)
        assert ("heuristic" in web_bot_kinds(name)) == has_heuristic(name)
    assert bot_kind("ismcts").option("simulations").served == (10, 5000)


@pytest.mark.parametrize(("text", "named"), [
    ("genius", "unknown bot 'genius'"),
    ("ismcts(depth=3)", "unknown option 'depth' for bot ismcts"),
    ("ismcts(simulations=many)", "ismcts: option 'simulations' takes a whole number; got 'many'"),
    ("ismcts(simulations=2.5)", "option 'simulations' takes a whole number"),
    ("ismcts(uct_c=high)", "ismcts: option 'uct_c' takes a number; got 'high'"),
    ("ismcts(uct_c=inf)", "option 'uct_c' takes a number"),
    ("ismcts(simulations=0)", "ismcts: option 'simulations' must be at least 1; got '0'"),
    ("ismcts(points=1.5)", "option 'points' must be at most 1.0; got '1.5'"),
    ("ismcts(seconds=0)", "option 'seconds' must be above 0"),
    ("ismcts(infer_epsilon=0)", "option 'infer_epsilon' must be in (0, 1)"),
    ("ismcts(rollout=smart)", "option 'rollout' must be one of auto, random, heuristic; got 'smart'"),
    ("ismcts(ties=split)", "unknown option 'ties'"),  # measured, not adopted, removed
    ("ismcts(tree=public)", "unknown option 'tree'"),  # measured, not adopted, removed
    ("best(simulations=5)", "best takes no options; got 'simulations'"),
    ("external(cmd=x,timeout=0)", "option 'timeout' must be above 0"),
    ("external(cmd=x,fallback=genius)", "unknown bot 'genius'"),
    ("ismcts(simulations=10", "must end with ')'"),
    ("ismcts(simulations)", "has no '=value'"),
    ("ismcts(simulations=1,simulations=2)", "given twice"),
])
def test_a_bad_spec_is_refused_naming_what_is_wrong(text: str, named: str) -> None:
    with pytest.raises(MotleyError) as caught:
        BotSpec.parse(text)
    assert named in str(caught.value)
    with pytest.raises(MotleyError):
        make_bot(text, motley.load_game("fool"))


NUMBERS = [o for o in bot_kind("ismcts").options if o.kind in ("int", "float")]


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_numbers_out_of_bounds_are_refused_and_in_bounds_kept(data: st.DataObject) -> None:
    option = data.draw(st.sampled_from(NUMBERS))
    value = data.draw(st.integers(-10**6, 10**6) if option.kind == "int" else st.floats(-1e3, 1e3))
    low = -float("inf") if option.minimum is None else option.minimum
    high = float("inf") if option.maximum is None else option.maximum
    text = f"ismcts({option.name}={value})"
    if not low <= value <= high:
        with pytest.raises(MotleyError, match=f"option '{option.name}' must be"):
            BotSpec.parse(text)
        return
    try:
        spec = BotSpec.parse(text)
    except MotleyError as exc:  # an open bound of its own check (seconds > 0, 0 < infer_epsilon < 1)
        assert option.check is not None and option.name in str(exc)
        return
    typed = spec.resolved()[option.name]
    assert typed == value and type(typed) is (int if option.kind == "int" else float)
    assert BotSpec.parse(str(spec)) == spec


@given(st.sampled_from([o for o in bot_kind("ismcts").options if o.choices]), st.text(min_size=1, max_size=8))
def test_a_word_outside_the_choices_is_refused(option: Option, word: str) -> None:
    if word.strip().lower() in {str(c).lower() for c in option.choices} or set(word) & set(",()[]{}'\"=") \
            or not word.strip():
        return
    with pytest.raises(MotleyError, match=f"option '{option.name}' must be one of"):
        BotSpec.parse(f"ismcts({option.name}={word})")


@pytest.mark.parametrize("text", ["random", "heuristic", "ismcts(simulations=40,uct_c=0.5)", "best",
                                  "ismcts(simulations=30,infer_chain=2,points=0.25,infer_trust=table)"])
def test_make_bot_with_a_spec_or_its_string_builds_equal_bots(text: str) -> None:
    game = motley.load_game("fool(players=5,rounds=1)")
    from_string, from_spec = make_bot(text, game), make_bot(BotSpec.parse(text), game)
    assert type(from_string) is type(from_spec) and from_string.name == from_spec.name
    state = game.new_initial_state(seed=3)
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    seat, legal = state.current_player(), state.legal_actions()
    moves = [bot.act(state.observation(seat), legal, random.Random(7)) for bot in (from_string, from_spec)]
    assert moves[0] == moves[1]
    assert from_string.explain() == from_spec.explain()


def test_make_bot_gives_the_constructor_typed_values() -> None:
    bot = make_bot("ismcts(simulations=40,uct_c=2,seconds=none)", motley.load_game("fool"))
    assert isinstance(bot, ISMCTSBot)
    assert (bot.simulations, bot.uct_c, bot.seconds) == (40, 2.0, None)
    assert type(bot.uct_c) is float


def test_motley_bots_json_lists_every_kind_with_its_options() -> None:
    result = runner.invoke(app, ["bots", "--json"])
    assert result.exit_code == 0
    listing = {kind["name"]: kind for kind in json.loads(result.stdout)}
    assert list(listing) == bot_kinds()
    ismcts = listing["ismcts"]
    assert ismcts["web"] and not listing["network"]["web"] and listing["heuristic"]["needs_heuristic"]
    assert [o["name"] for o in ismcts["options"]] == [o.name for o in bot_kind("ismcts").options]
    simulations = ismcts["options"][0]
    assert simulations == {"name": "simulations", "kind": "int", "default": 1000, "minimum": 1, "maximum": None,
                           "choices": [], "doc": bot_kind("ismcts").options[0].doc, "served": [10, 5000]}
    rollout = next(o for o in ismcts["options"] if o["name"] == "rollout")
    assert rollout["choices"] == ["auto", "random", "heuristic"]
    assert listing["best"]["options"] == []
    plain = runner.invoke(app, ["bots"]).stdout
    assert "simulations = 1000" in plain and "web tables 10..5000" in plain
