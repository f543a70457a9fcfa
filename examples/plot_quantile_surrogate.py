"""
Precision at the top: the quantile surrogate at a small τ
=========================================================

When only the top τ share of the scores is acted on (an alert budget, a short list), the
metric is the precision at that rate. The quantile surrogate of Mackey, Luo & Eban
(:class:`~boostcm.baselines.QuantileSurrogate`) trains a linear scorer for it: the threshold is a
kernel estimate of the (1 − τ)-quantile of the scores, and the loss counts the negatives above
it. A logistic regression, trained for the whole ranking, is the comparison.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from boostcm.baselines import QuantileSurrogate
from boostcm.metrics import precision_at_rate

X, y = make_classification(
    n_samples=3000,
    n_features=10,
    n_informative=4,
    weights=[0.9],
    flip_y=0.05,
    class_sep=0.8,
    random_state=0,
)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
print(f"positives: {y.mean():.1%}")

# %%
# One quantile surrogate per rate τ
# ---------------------------------

taus = [0.01, 0.02, 0.05, 0.1]
logistic = LogisticRegression(max_iter=1000).fit(X_train, y_train)
log_scores = logistic.decision_function(X_test)
ours, theirs = [], []
for tau in taus:
    model = QuantileSurrogate(tau=tau, n_epochs=100, n_init=1, random_state=0)
    model.fit(X_train, y_train)
    ours.append(precision_at_rate(model.decision_function(X_test), y_test, tau))
    theirs.append(precision_at_rate(log_scores, y_test, tau))
    print(f"tau = {tau:.2f}: quantile surrogate {ours[-1]:.3f}, logistic {theirs[-1]:.3f}")

# %%
# Test precision at the top τ
# ---------------------------

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(taus, ours, "o-", label="quantile surrogate (one per τ)")
ax.plot(taus, theirs, "s--", label="logistic regression")
ax.axhline(y_test.mean(), color="grey", lw=0.8, ls=":", label="positive rate")
ax.set_xscale("log")
ax.set_xticks(taus, [f"{t:g}" for t in taus])
ax.set_xlabel("τ (share of the test set flagged)")
ax.set_ylabel("precision at τ")
ax.legend(fontsize="small")
fig.tight_layout()
plt.show()
