"""Run the engine's command line: ``python -m games.engine``."""

import sys

from .cli import main

sys.exit(main())
