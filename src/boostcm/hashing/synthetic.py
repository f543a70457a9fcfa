"""Generated person records with typo'd duplicates, for tests and the scaling benchmark."""

from __future__ import annotations

import numpy as np
import pandas as pd

_SYLLABLES = np.array(
    [
        "an",
        "ber",
        "chri",
        "da",
        "el",
        "fer",
        "gus",
        "hai",
        "in",
        "jo",
        "kla",
        "lu",
        "ma",
        "ner",
        "o",
        "pe",
        "qui",
        "ro",
        "sa",
        "ti",
        "ul",
        "ve",
        "wil",
        "xa",
        "yo",
        "ze",
        "sch",
        "mei",
        "er",
        "mann",
        "burg",
        "hof",
        "lin",
        "stein",
    ]
)
_ALPHABET = np.array(list("abcdefghijklmnopqrstuvwxyz"))


def _names(n: int, rng: np.random.Generator, lo: int, hi: int) -> np.ndarray:
    parts = rng.integers(lo, hi + 1, size=n)
    sy = _SYLLABLES[rng.integers(0, _SYLLABLES.size, size=(n, hi))]
    return np.array(["".join(row[:p]) for row, p in zip(sy, parts)], dtype=object)


def _typo(s: str, rng: np.random.Generator) -> str:
    if len(s) < 2:
        return s + str(_ALPHABET[rng.integers(0, 26)])
    i = int(rng.integers(0, len(s)))
    kind = int(rng.integers(0, 4))
    c = str(_ALPHABET[rng.integers(0, 26)])
    if kind == 0:
        return s[:i] + c + s[i + 1 :]
    if kind == 1:
        return s[:i] + s[i + 1 :]
    if kind == 2:
        return s[:i] + c + s[i:]
    j = min(i + 1, len(s) - 1)
    t = list(s)
    t[i], t[j] = t[j], t[i]
    return "".join(t)


def generate_person_records(
    n: int, dup_fraction: float = 0.1, rng: np.random.Generator | None = None
) -> pd.DataFrame:
    """n records (first name, last name, birth date) of which about dup_fraction are duplicates.

    A duplicate copies an original and gets one or two typos (substitution, deletion, insertion,
    transposition) in its names, or one changed birth-date field. Columns: fname, lname, by, bm,
    bd, entity_id.
    """
    if int(n) < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    if not 0.0 <= dup_fraction < 1.0:
        raise ValueError(f"dup_fraction must lie in [0, 1), got {dup_fraction}")
    rng = np.random.default_rng(0) if rng is None else rng
    n_dup = int(round(dup_fraction * n))
    n_orig = n - n_dup
    n_first = max(50, n_orig // 20)
    n_last = max(100, n_orig // 5)
    first_pool = _names(n_first, rng, 1, 3)
    last_pool = _names(n_last, rng, 2, 4)
    fname = first_pool[rng.integers(0, n_first, size=n_orig)]
    lname = last_pool[rng.integers(0, n_last, size=n_orig)]
    by = rng.integers(1920, 2005, size=n_orig)
    bm = rng.integers(1, 13, size=n_orig)
    bd = rng.integers(1, 29, size=n_orig)
    src = rng.integers(0, n_orig, size=n_dup)
    dfn, dln = fname[src].copy(), lname[src].copy()
    dby, dbm, dbd = by[src].copy(), bm[src].copy(), bd[src].copy()
    what = rng.integers(0, 4, size=n_dup)
    for t in range(n_dup):
        w = what[t]
        if w == 0:
            dfn[t] = _typo(dfn[t], rng)
        elif w == 1:
            dln[t] = _typo(dln[t], rng)
        elif w == 2:
            dfn[t] = _typo(dfn[t], rng)
            dln[t] = _typo(dln[t], rng)
        else:
            dbd[t] = int(rng.integers(1, 29))
    df = pd.DataFrame(
        {
            "fname": np.concatenate([fname, dfn]),
            "lname": np.concatenate([lname, dln]),
            "by": np.concatenate([by, dby]),
            "bm": np.concatenate([bm, dbm]),
            "bd": np.concatenate([bd, dbd]),
            "entity_id": np.concatenate([np.arange(n_orig), src]),
        }
    )
    perm = rng.permutation(n)
    return df.iloc[perm].reset_index(drop=True)
