"""``python -m dpverify.verify CERT.json [--json]``."""

import sys

from .cli import main

__all__: list[str] = []

sys.exit(main())
