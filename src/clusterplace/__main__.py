"""``python -m clusterplace``."""

import sys

from clusterplace.cli.main import main

sys.exit(main())
