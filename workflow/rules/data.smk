# Raw data: one fetch rule per dataset (mirror first, then the network; sha256 verified), and one
# processing rule turning raw files into results/data/processed/<dataset>.parquet.
from boostcm.datasets import dataset_names

DATASETS = config["data"]["datasets"]
_unknown = sorted(set(DATASETS) - set(dataset_names()))
if _unknown:
    raise ValueError(
        f"config data.datasets: unknown dataset(s) {_unknown}; see src/boostcm/datasets/catalog.yaml"
    )

for _name in dataset_names():

    rule:
        name:
            f"fetch_{_name.replace('-', '_')}"
        output:
            raw_files(_name),
        log:
            f"results/logs/fetch/{_name}.log",
        localrule: True
        conda:
            CONDA_ENV
        params:
            dataset=_name,
            layout=data_layout(_name),
        # on failure the error (with its "Offline? Put the file at <mirror>/..." hint) goes to the
        # console too, not only to the log: it is the first thing a run without a mirror meets
        shell:
            "boostcm fetch {params.dataset} --layout {params.layout} --raw-dir results/data/raw > {log} 2>&1"
            " || {{ tail -n 1 {log} >&2; exit 1; }}"


rule process_dataset:
    input:
        lambda wildcards: raw_files(wildcards.dataset),
    output:
        "results/data/processed/{dataset}.parquet",
    log:
        "results/logs/process/{dataset}.log",
    conda:
        CONDA_ENV
    resources:
        **measured("process_dataset"),
    params:
        layout=lambda wildcards: data_layout(wildcards.dataset),
    shell:
        "boostcm process {wildcards.dataset} --layout {params.layout} --raw-dir results/data/raw"
        " --out {output} > {log} 2>&1"
