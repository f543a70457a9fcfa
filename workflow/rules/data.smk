# Raw data: one fetch rule per dataset (mirror first, then the network; sha256 verified), and one
# processing rule turning raw files into results/data/processed/<dataset>.parquet.
from boostcm.datasets import dataset_entry, load_catalog

CATALOG = load_catalog()
DATASETS = config["data"]["datasets"]
for _name in DATASETS:
    if _name not in CATALOG:
        raise ValueError(f"config data.datasets: unknown dataset {_name!r}; see config/datasets.yaml")


def raw_files(name):
    return [f"results/data/raw/{f['path']}" for f in CATALOG[name]["files"]]


for _name in CATALOG:

    rule:
        name:
            f"fetch_{_name.replace('-', '_')}"
        localrule: True
        output:
            raw_files(_name),
        params:
            dataset=_name,
            mirror=lambda wildcards: data_mirror(),
        log:
            f"results/logs/fetch/{_name}.log",
        shell:
            "boostcm fetch {params.dataset} --raw-dir results/data/raw"
            " $( [ -n '{params.mirror}' ] && echo --mirror '{params.mirror}' ) > {log} 2>&1"


rule process_dataset:
    input:
        lambda wildcards: raw_files(wildcards.dataset),
    output:
        "results/data/processed/{dataset}.parquet",
    log:
        "results/logs/process/{dataset}.log",
    shell:
        "boostcm process {wildcards.dataset} --raw-dir results/data/raw --out {output} > {log} 2>&1"
