"""``python -m unice.ice_score`` entry point."""

import sys

from unice.ice_score.cli import main

if __name__ == "__main__":
    sys.exit(main())
