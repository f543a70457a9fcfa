"""What an executed notebook shows at its end: the verdict it wrote, in a few lines."""

from __future__ import annotations

import html
from urllib.parse import quote

__all__ = ["VerdictSummary", "verdict_summary"]


class VerdictSummary:
    """A verdict shown in a notebook: its status, its summary and a link to its target's page.

    Jupyter shows it as HTML (:meth:`_repr_html_`), a console as text. The link is relative to
    ``results/notebooks/<ID>.ipynb``: ``../report/targets/<ID>.html``, the page of the results
    site (``results/report``) that shows the target with its figure, table, rule and claims.

    Parameters
    ----------
    verdict : dict
        The verdict as written (what ``Verdict.write`` returns): ``id``, ``status``,
        ``summary``.

    Attributes
    ----------
    id, status, summary : str
        Of the verdict.
    href : str
        The relative link to the target's page.

    Examples
    --------
    >>> from boostcm.report.notebook import VerdictSummary
    >>> s = VerdictSummary({"id": "EB-T1", "status": "agrees", "summary": "10 of 10 agree"})
    >>> print(repr(s))
    EB-T1: agrees - 10 of 10 agree
    Target page: ../report/targets/EB-T1.html
    """

    def __init__(self, verdict: dict):
        self.id = str(verdict["id"])
        self.status = str(verdict["status"])
        self.summary = str(verdict.get("summary", ""))
        self.href = f"../report/targets/{quote(self.id)}.html"

    def __repr__(self) -> str:
        return f"{self.id}: {self.status} - {self.summary}\nTarget page: {self.href}"

    def _repr_html_(self) -> str:
        e = html.escape
        return (
            f"<p><b>{e(self.id)}: {e(self.status)}</b> &mdash; {e(self.summary)}</p>"
            f'<p><a href="{e(self.href)}">{e(self.id)} in the results site</a> '
            "(its figure, ours beside the paper, the rule and the claims)</p>"
        )


def verdict_summary(verdict: dict) -> VerdictSummary:
    """The verdict a notebook wrote, to show as its last output.

    Parameters
    ----------
    verdict : dict
        What ``Verdict.write`` returned.

    Returns
    -------
    VerdictSummary
        Shown by Jupyter as the status, the summary and a link to the target's page.

    Examples
    --------
    >>> from boostcm.report.notebook import verdict_summary
    >>> verdict_summary({"id": "QS-T1", "status": "built", "summary": "s"}).href
    '../report/targets/QS-T1.html'
    """
    return VerdictSummary(verdict)
