"""Learning to hash via boosting for record-linkage blocking (TH chapter 3).

vectorize: records -> strings -> shingles -> minhash; pairs: true pairs, entity split, Assumption
3.2 sampling; boosting: Algorithm 4; lsh: Algorithm 5; metrics: recall / RR / PC / PQ by bucketing;
baselines: TLSH and KLSH; experiment / aggregate: the HASH-T3.x workflow jobs.

Functions that draw random numbers take ``rng``: a numpy Generator or an int seed.
"""

from .baselines import klsh_blocks, klsh_projections, tlsh_blocks
from .blocker import Blocker, evaluate_pairs
from .boosting import StumpEnsemble, fit_pair_boost
from .lsh import HashFamily, draw_hash_family
from .metrics import BlockingEvaluator, evaluate_blocking
from .pairs import matching_pairs, records_entity_codes, sample_training_pairs, split_by_entity
from .vectorize import MinHasher, minhash_signatures, record_strings

__all__ = [
    "Blocker",
    "BlockingEvaluator",
    "HashFamily",
    "MinHasher",
    "StumpEnsemble",
    "draw_hash_family",
    "evaluate_blocking",
    "evaluate_pairs",
    "fit_pair_boost",
    "klsh_blocks",
    "klsh_projections",
    "matching_pairs",
    "minhash_signatures",
    "record_strings",
    "records_entity_codes",
    "sample_training_pairs",
    "split_by_entity",
    "tlsh_blocks",
]
