import sys

from scoring.cli.dispatch import main

sys.exit(main())
