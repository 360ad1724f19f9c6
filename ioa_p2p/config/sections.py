"""The one typed parser of a TOML table into a frozen dataclass: every table of ``config.toml`` (and every
adapter's ``[agent.options]``) is read by :func:`parse_section`.

A section is a frozen, slotted dataclass; its field type hints say what each key takes:

- ``bool`` (``true``/``false``), ``int`` (not a bool), ``float`` (an int is accepted; NaN and infinities
  are refused), ``str``, ``Literal["a", "b"]`` (one of the choices, of the same type: ``Literal[True,
  False, "auto"]`` takes a boolean or ``"auto"``),
- ``tuple[str, ...]`` (a TOML list of strings), ``dict[str, Any]`` (a TOML table, kept as a dict),
- ``X | None`` (None is accepted from Python callers; TOML has no null).

:func:`setting` declares a field with constraints (``low``/``high`` inclusive bounds, ``above`` an
exclusive lower bound, ``one_or_list`` to accept one string for a list, ``check`` for a domain check such
as "a valid peer ID", ``unit`` and ``what`` for the message). Every refusal is one typed error (by default
:class:`~ioa_p2p.errors.ConfigError`; adapters pass :class:`~ioa_p2p.errors.AdapterOptionsError`) whose
message names the table and the key and says what the key takes::

    [limits].frame_timeout must be a positive number of seconds, not 0
    unknown keys in [relay] of /home/me/.ioa/config.toml: ['hops']; known keys: [...] (remove or rename them)

Cross-key rules (``[discovery].republish`` shorter than ``ttl``) stay with the section's owner, after the
parse.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass
from typing import Any, Literal, TypeVar

from ioa_p2p.errors import ConfigError

#: The key of a field's ``metadata`` holding its :class:`Rule`.
RULE = "ioa_p2p.config.rule"

D = TypeVar("D")


@dataclass(frozen=True, slots=True)
class Rule:
    """What a key takes beyond its type (set through :func:`setting`)."""

    low: float | None = None  #: value >= low
    high: float | None = None  #: value <= high
    above: float | None = None  #: value > above
    one_or_list: bool = False  #: a single string is taken as a one-item list
    check: Callable[[Any], str | None] | None = None  #: a domain check: the problem, or None when fine
    unit: str = ""  #: "seconds", said in messages
    what: str = ""  #: says what the key takes, instead of the description made from the type


def setting(
    default: Any = MISSING,
    *,
    factory: Callable[[], Any] | None = None,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
    one_or_list: bool = False,
    check: Callable[[Any], str | None] | None = None,
    unit: str = "",
    what: str = "",
) -> Any:
    """A dataclass field with a :class:`Rule` (no ``default`` and no ``factory``: a required key)."""
    rule = Rule(low, high, above, one_or_list, check, unit, what)
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={RULE: rule})
    return dataclasses.field(default=default, metadata={RULE: rule})


def parse_section(
    cls: type[D],
    table: Any,
    where: str,
    *,
    error: type[ConfigError] = ConfigError,
    noun: str = "keys",
    given: Mapping[str, Any] | None = None,
    ignore_unknown: bool = False,
) -> D:
    """Build the frozen dataclass ``cls`` from ``table`` (None: an empty table; absent keys: defaults).

    ``where`` names the table in messages: ``"[limits]"``, ``"[relay] of /path/config.toml"``,
    ``"[agent.options] of adapter 'http'"`` (a key is named ``[limits].frame_timeout``...). ``noun`` is
    what the table's entries are called ("keys", "options"). ``given`` holds the fields the caller sets
    (not read from the table). ``ignore_unknown`` leaves keys ``cls`` does not know to their other readers
    (``[agent]`` is shared by discovery and the adapter). Raises ``error`` on any bad input.
    """
    if table is None:
        table = {}
    if not isinstance(table, Mapping):
        raise error(f"{where} must be a table, not {table!r}")
    given = dict(given or {})
    known = {f.name: f for f in dataclasses.fields(cls) if f.init and f.name not in given}  # type: ignore[arg-type]
    unknown = sorted(str(key) for key in table if key not in known)
    if unknown and not ignore_unknown:
        raise error(
            f"unknown {noun} in {where}: {unknown}; known {noun}: {sorted(known)} (remove or rename them)"
        )
    missing = [name for name, f in known.items() if _required(f) and name not in table]
    if missing:
        raise error(f"{where} lacks the required {noun} {missing}; add them")
    hints = typing.get_type_hints(cls)
    values = {
        name: read_value(table[name], hints[name], rule_of(f), key_name(where, name), error)
        for name, f in known.items()
        if name in table
    }
    return cls(**given, **values)


def read_value(value: Any, hint: Any, rule: Rule, key: str, error: type[ConfigError] = ConfigError) -> Any:
    """``value`` checked against the type ``hint`` and ``rule`` (and converted: int -> float, list ->
    tuple, table -> dict); ``error`` naming ``key`` when it does not fit."""
    if _is_optional(hint):
        if value is None:
            return None
        hint = _inner(hint)
    ok, value = _convert(value, hint, rule)
    if ok and _in_range(value, rule):
        problem = rule.check(value) if rule.check is not None else None
        if problem:
            raise error(f"{key}: {problem}")
        return value
    raise error(f"{key} must be {describe(hint, rule)}, not {value!r}")


def describe(hint: Any, rule: Rule = Rule()) -> str:
    """What a key of type ``hint`` under ``rule`` takes, in words ("a positive number of seconds")."""
    if rule.what:
        return rule.what
    if _is_optional(hint):
        return describe(_inner(hint), rule)
    if hint is bool:
        return "true or false"
    if hint is str:
        return "text"
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        if any(isinstance(c, bool) for c in choices):  # spelled as in TOML: true, false or "auto"
            words = [str(c).lower() if isinstance(c, bool) else f'"{c}"' for c in choices]
            return ", ".join(words[:-1]) + f" or {words[-1]}"
        return f"one of {list(choices)}"
    if typing.get_origin(hint) is tuple:
        return "text or a list of text" if rule.one_or_list else "a list of text"
    if typing.get_origin(hint) is dict:
        return "a table"
    noun = "integer" if hint is int else "number"
    unit = f" of {rule.unit}" if rule.unit else ""
    return _ranged(noun, unit, rule)


def key_name(where: str, key: str) -> str:
    """``[limits]`` + ``frame_timeout`` -> ``[limits].frame_timeout``; ``[relay] of x.toml`` + ``hop`` ->
    ``[relay].hop of x.toml``."""
    head, space, tail = where.partition(" ")
    if head.startswith("[") and head.endswith("]"):
        return f"{head}.{key}{space}{tail}"
    return f"{where}: {key}"


def rule_of(f: dataclasses.Field[Any]) -> Rule:
    rule = f.metadata.get(RULE)
    return rule if isinstance(rule, Rule) else Rule()


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is MISSING and f.default_factory is MISSING


def _is_optional(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    return origin in (types.UnionType, typing.Union) and type(None) in typing.get_args(hint)


def _inner(hint: Any) -> Any:
    (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
    return inner


def _convert(value: Any, hint: Any, rule: Rule) -> tuple[bool, Any]:
    """(fits, converted value)."""
    origin = typing.get_origin(hint)
    if hint is bool:
        return isinstance(value, bool), value
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool), value
    if hint is float:
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        return number, float(value) if number else value
    if hint is str:
        return isinstance(value, str), value
    if origin is Literal:  # the same type as a choice (true is not 1, and a bool only where one is listed)
        return any(type(choice) is type(value) and choice == value for choice in typing.get_args(hint)), value
    if origin is tuple:
        if rule.one_or_list and isinstance(value, str):
            value = [value]
        fits = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        return fits, tuple(value) if fits else value
    if origin is dict:
        return isinstance(value, Mapping), dict(value) if isinstance(value, Mapping) else value
    raise TypeError(f"parse_section cannot read a field of type {hint!r}")


def _in_range(value: Any, rule: Rule) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return True
    if rule.low is not None and value < rule.low:
        return False
    if rule.high is not None and value > rule.high:
        return False
    return rule.above is None or value > rule.above


def _ranged(noun: str, unit: str, rule: Rule) -> str:
    article = "an" if noun == "integer" else "a"
    low, high, above = rule.low, rule.high, rule.above
    if high is None and low == 0 and above is None:
        return f"a non-negative {noun}{unit}"
    if high is None and above == 0 and low is None:
        return f"a positive {noun}{unit}"
    if low is not None and high is not None:
        return f"{article} {noun}{unit} between {_num(low)} and {_num(high)}"
    bounds = [f">= {_num(low)}" if low is not None else "", f"> {_num(above)}" if above is not None else ""]
    bounds.append(f"<= {_num(high)}" if high is not None else "")
    said = " and ".join(b for b in bounds if b)
    return f"{article} {noun}{unit}" + (f" {said}" if said else "")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


__all__ = ["RULE", "Rule", "describe", "key_name", "parse_section", "read_value", "setting"]
