"""``python -m boostcm.cli``: the ``boostcm`` command."""

import sys

from . import main

sys.exit(main())
