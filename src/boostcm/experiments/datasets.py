"""Dataset-property tables (EB-T1, EB-T5): our processed counts beside the paper's.

Whether they agree is decided by :func:`boostcm.claims.dataset_properties_verdict`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..datasets.catalog import dataset_entry, dataset_files
from ..datasets.processing import dataset_metadata
from ..targets import paper_table, split_pm


def dataset_properties_table(target_id: str, processed_files, paper_dir) -> pd.DataFrame:
    """One row per dataset of the published table: paper counts and ours (from `processed_files`,
    the parquet files named <dataset>.parquet that this run built).

    Datasets without a processed file keep NaN in our columns and say why in `availability`.
    """
    built = {Path(f).stem: Path(f) for f in processed_files}
    paper = paper_table(target_id, paper_dir)
    rows = []
    for _, r in paper.iterrows():
        name = r["Dataset"]
        row = {
            "dataset": name,
            "paper_rows": int(r["Observations"]),
            "paper_features": int(r["Features"]),
            "paper_positive_pct": split_pm(r["Positives"])[0],
        }
        if name in built:
            m = dataset_metadata(built[name])
            row.update(
                rows=m["rows"],
                features=m["features"],
                positive_pct=m["positive_pct"],
                availability="built",
            )
        else:
            manual = any(f.get("manual") for f in dataset_files(name))
            row.update(
                rows=None,
                features=None,
                positive_pct=None,
                availability="not built: manual download"
                if manual
                else "not built: not in data.datasets (or not obtainable offline)",
            )
        row["notes"] = dataset_entry(name).get("notes") or ""
        rows.append(row)
    return pd.DataFrame(rows)
