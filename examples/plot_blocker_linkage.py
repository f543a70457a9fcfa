"""
Blocking: deduplicating and linking two tables
==============================================

Record linkage compares pairs of records; blocking keeps only the pairs likely to match.
:class:`~boostcm.hashing.Blocker` learns hash keys from pairs of records of known entities
(``method="learned"``, the thesis's chapter 3) or draws plain minhash bands
(``method="minhash-banding"``, no labels needed). Its quality is the recall (share of matching
pairs kept) against the reduction ratio (share of all pairs dropped). The records are generated
people with typos (:func:`boostcm.hashing.synthetic.generate_person_records`).
"""

import matplotlib.pyplot as plt
import numpy as np

from boostcm.hashing import Blocker
from boostcm.hashing.synthetic import generate_person_records

records = generate_person_records(1200, rng=np.random.default_rng(0))
fields = ["fname", "lname", "by", "bm", "bd"]
train, rest = records.iloc[:600], records.iloc[600:]
df_a, df_b = rest.iloc[:300], rest.iloc[300:]

# %%
# Deduplicate one table, link two
# -------------------------------
# The learned blocker trains on the first 600 records and is applied to the others; the banding
# blocker needs no labels.

blockers = {
    "learned": Blocker(fields=fields, n_rounds=30, random_state=0).fit(
        train, entity_id="entity_id"
    ),
    "minhash banding": Blocker(fields=fields, method="minhash-banding", random_state=0).fit(rest),
}
results = {}
for name, blocker in blockers.items():
    dedup = blocker.evaluate(blocker.candidate_pairs(rest), rest["entity_id"])
    link = blocker.evaluate(
        blocker.candidate_pairs(df_a, df_b), df_a["entity_id"], df_b["entity_id"]
    )
    results[name] = (dedup, link)
    for task, m in (("dedup", dedup), ("link", link)):
        print(
            f"{name:>15} {task}: recall {m['recall']:.3f}, "
            f"reduction ratio {m['reduction_ratio']:.4f}"
        )

# %%
# Recall against reduction ratio
# ------------------------------

fig, ax = plt.subplots(figsize=(6, 3.5))
for (name, (dedup, link)), color in zip(results.items(), ["C0", "C1"]):
    ax.scatter(
        dedup["reduction_ratio"],
        dedup["recall"],
        color=color,
        marker="o",
        label=f"{name}, deduplication",
    )
    ax.scatter(
        link["reduction_ratio"], link["recall"], color=color, marker="^", label=f"{name}, linkage"
    )
ax.set_xlabel("reduction ratio")
ax.set_ylabel("recall")
ax.set_title("600 held-out records (linkage: 300 × 300)")
ax.legend(fontsize="small", loc="lower left")
fig.tight_layout()
plt.show()
