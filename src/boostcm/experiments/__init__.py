"""The workflow's glue: job drivers, chunking, aggregation, the config and the ``boostcm`` CLI.

The methods live in ``boostcm.<domain>`` and need only the core dependencies; this package runs
the papers' experiments with them and needs the ``workflow`` extra. Library users do not need it.

Modules: ``cli`` (the ``boostcm`` command), ``config`` (schema validation with defaults, the
generated config reference), ``workflow`` (start-up helpers of the Snakefile), and one module per
experiment family: ``datasets`` (EB-T1, EB-T5), ``hashing`` (HASH-T3.x), ``conformal`` (CP-F1.1,
CP-F4.1), ``conformal_bounds`` (CP-F4.2a/b).
"""
