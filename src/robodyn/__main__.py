"""``python -m robodyn``: the ``robodyn`` command."""

import sys

from .cli.app import main

sys.exit(main())
