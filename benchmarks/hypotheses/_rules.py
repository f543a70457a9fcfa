"""The outcome rules of the tested hypotheses (config/hypotheses/*.yaml, issue #34).

Kept in this one module so that the library's own evaluation can replace it. ``rule_params``:

* ``at_most``: ``measure`` (a measured key) and ``threshold``; holds when measure <= threshold;
* ``at_least``: the same; holds when measure >= threshold;
* ``closer_to_published``: lists ``alt``, ``current`` (measured keys) and ``published``
  (numbers), one per compared quantity; holds when |alt_i - published_i| < |current_i -
  published_i| for every i;
* ``within_se``: ``measure`` (a measured key), ``published`` (a number), ``se`` (a measured key)
  and ``k``; holds when |measure - published| <= k * se.
"""

from __future__ import annotations

import math

KINDS = ("at_most", "at_least", "closer_to_published", "within_se")


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def outcome(rule_params: dict, measured: dict) -> str:
    """Return "holds" or "does not hold" for the measured numbers under the rule.

    Parameters
    ----------
    rule_params : dict
        The entry's ``rule_params`` (``kind`` and the keys of that kind, see the module).
    measured : dict
        Named measured numbers.

    Returns
    -------
    str
        ``"holds"`` or ``"does not hold"``.

    Raises
    ------
    ValueError
        For an unknown kind, a missing measured key, mismatched lists or a non-finite number.
    """
    kind = rule_params.get("kind")
    if kind not in KINDS:
        raise ValueError(f"unknown rule kind {kind!r}; expected one of {KINDS}")

    def get(key):
        if key not in measured:
            raise ValueError(f"the rule reads {key!r}, which was not measured")
        v = float(measured[key])
        if not math.isfinite(v):
            raise ValueError(f"measured {key!r} is not finite: {v}")
        return v

    if kind in ("at_most", "at_least"):
        m, t = get(rule_params["measure"]), float(rule_params["threshold"])
        ok = m <= t if kind == "at_most" else m >= t
    elif kind == "closer_to_published":
        alt = _as_list(rule_params["alt"])
        cur = _as_list(rule_params["current"])
        pub = [float(p) for p in _as_list(rule_params["published"])]
        if not len(alt) == len(cur) == len(pub) or not alt:
            raise ValueError("alt, current and published must be lists of one length >= 1")
        ok = all(abs(get(a) - p) < abs(get(c) - p) for a, c, p in zip(alt, cur, pub))
    else:
        m, se = get(rule_params["measure"]), get(rule_params["se"])
        ok = abs(m - float(rule_params["published"])) <= float(rule_params["k"]) * se
    return "holds" if ok else "does not hold"
