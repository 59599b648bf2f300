"""``python -m robodyn.cli``: the ``robodyn`` command."""

import sys

from .app import main

sys.exit(main())
