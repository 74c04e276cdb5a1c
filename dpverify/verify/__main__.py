"""``python -m dpverify.verify CERT.json [--json]``."""

import sys

from .cli import main

sys.exit(main())
