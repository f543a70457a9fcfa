"""pytest collects the guides' examples in docs/ (``--doctest-glob=*.md``) and the doctests of
Python files (``--doctest-modules``); the Sphinx configuration and the site's generated folders
are not tests (conf.py builds the API index when imported; the gallery copies run examples)."""

collect_ignore = ["conf.py"]
collect_ignore_glob = ["_build/*", "auto_examples/*", "api/*"]
