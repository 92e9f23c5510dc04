"""``python -m proctor.cli``: the same as the ``proctor`` command."""

import sys

from proctor.cli import main

sys.exit(main())
