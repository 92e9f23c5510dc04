"""``python -m proctor.collector``: the collector, as ``proctor collector`` will run it."""

from proctor.collector.server import main

raise SystemExit(main())
