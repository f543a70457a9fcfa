"""The workflow config: validation against its JSON schema, with the schema's defaults filled in,
and the generated reference page (``config/README.md``).

The schema (``workflow/schemas/config.schema.yaml``) is the one place where a default is written;
the rules read ``config[...]`` after :func:`validate_config` has filled every default in.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path


def load_schema(path: str | os.PathLike) -> dict:
    """Read the config schema (YAML).

    Parameters
    ----------
    path : str or path-like
        The schema file.

    Returns
    -------
    dict
        The schema.
    """
    import yaml

    return yaml.safe_load(Path(path).read_text())


def load_config_files(files, schema_path: str | os.PathLike) -> dict:
    """The config Snakemake runs with for ``--configfile files``: merged, validated, completed.

    Later files override earlier ones key by key, nested sections merged recursively by
    Snakemake's own merge (``snakemake.utils.update_config``, what ``--configfile a b`` does),
    then :func:`validate_config` fills every default.

    Parameters
    ----------
    files : sequence of path
        Config files (YAML) in the order given to Snakemake.
    schema_path : str or path-like
        The config schema.

    Returns
    -------
    dict
        The validated config with every default filled in.
    """
    import yaml
    from snakemake.utils import update_config

    config: dict = {}
    for f in files:
        update_config(config, yaml.safe_load(Path(f).read_text()) or {})
    return validate_config(config, load_schema(schema_path))


def validate_config(config: dict, schema: dict) -> dict:
    """Validate `config` in place and fill in every default of `schema`.

    A section that is absent takes its default (``{}``), whose own keys then take theirs, so after
    this call every key the schema gives a default exists.

    Parameters
    ----------
    config : dict
        The config as loaded from YAML (modified in place).
    schema : dict
        The JSON schema (draft 2020-12) with ``default`` annotations.

    Returns
    -------
    dict
        `config`, completed.

    Raises
    ------
    jsonschema.ValidationError
        Naming the offending key or value (e.g. a misspelt key, a wrong type).
    """
    from jsonschema import Draft202012Validator, validators

    base = Draft202012Validator
    check_properties = base.VALIDATORS["properties"]

    def fill_defaults(validator, properties, instance, subschema):
        if isinstance(instance, dict):
            for name, prop in properties.items():
                if "default" in prop and name not in instance:
                    instance[name] = copy.deepcopy(prop["default"])
        yield from check_properties(validator, properties, instance, subschema)

    filling = validators.extend(base, {"properties": fill_defaults})
    error = next(iter(sorted(filling(schema).iter_errors(config), key=str)), None)
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "config"
        message = f"{where}: {error.message}"
        if error.validator == "additionalProperties" and "properties" in error.schema:
            message += f"; the keys allowed here are {', '.join(error.schema['properties'])}"
        raise type(error)(message)
    return config


def _leaves(schema: dict, prefix: str = ""):
    """(dotted key, property schema, required) for every documented key, depth first."""
    required = set(schema.get("required", ()))
    for name, prop in schema.get("properties", {}).items():
        key = f"{prefix}{name}"
        yield key, prop, name in required
        if prop.get("type") == "object" and "properties" in prop:
            yield from _leaves(prop, key + ".")
        elif isinstance(prop.get("additionalProperties"), dict):
            yield from _leaves(prop["additionalProperties"], key + ".<name>.")


def _type_of(prop: dict) -> str:
    if "enum" in prop:
        return " \\| ".join(map(str, prop["enum"]))
    if "oneOf" in prop:
        return " or ".join(_type_of(p) for p in prop["oneOf"])
    kind = prop.get("type", "")
    kinds = kind if isinstance(kind, list) else [kind]
    if "array" in kinds and "items" in prop:
        kinds = [f"list of {_type_of(prop['items'])}" if k == "array" else k for k in kinds]
    return " or ".join(kinds)


def schema_markdown(schema: dict) -> str:
    """The reference page of the config: every key with its type, default and meaning.

    Parameters
    ----------
    schema : dict
        The config schema.

    Returns
    -------
    str
        Markdown text (what ``config/README.md`` holds).
    """
    lines = [
        "# Workflow configuration",
        "",
        "Generated from `workflow/schemas/config.schema.yaml` by",
        "`boostcm config-docs --schema workflow/schemas/config.schema.yaml --out config/README.md`;",
        "edit the schema, not this page. A key missing from a config file takes the default below",
        "(the papers' settings). `config/config.yaml` is the full reproduction, `config/ci.yaml` the",
        "small profile CI runs; `--config key=value` overrides one key on the command line.",
        "",
        " ".join(schema.get("description", "").split()),
        "",
        "| key | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for key, prop, required in _leaves(schema):
        if prop.get("type") == "object" and "properties" in prop:
            default = "(section)"
        elif "default" in prop:
            default = json.dumps(prop["default"])
            if len(default) > 60:
                default = default[:57] + "..."
            default = f"`{default}`".replace("|", "\\|")
        else:
            default = "required" if required else "(see meaning)"
        text = " ".join(prop.get("description", "").split()).replace("|", "\\|")
        lines.append(f"| `{key}` | {_type_of(prop)} | {default} | {text} |")
    return "\n".join(lines) + "\n"


def write_run_config(config: dict, directory: str | os.PathLike) -> Path:
    """Write the validated `config` as JSON for the jobs that read their settings from it
    (``boostcm ... --configfile``); return its path.

    The file is named by a hash of its content and written only when absent, so it never changes
    once written: a dry run with another config (``boostcm cost``, ``snakemake -n``) adds a file
    beside it rather than rewriting the one a running job reads. Key order is kept.

    Parameters
    ----------
    config : dict
        The config after :func:`validate_config`.
    directory : str or path-like
        Where to write it (the workflow: ``.snakemake/boostcm``).

    Returns
    -------
    pathlib.Path
        The absolute path of ``<directory>/config-<hash>.json``.
    """
    import hashlib

    from .._io import atomic_path

    text = json.dumps(config)
    path = (
        Path(directory).resolve() / f"config-{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    )
    if not path.exists():
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    return path
