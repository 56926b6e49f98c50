"""``python -m eutaxy.cli`` runs the ``eutaxy`` command."""

import sys

from eutaxy.cli.main import main

sys.exit(main())
