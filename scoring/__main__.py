import sys

from scoring.cli.commands import main

sys.exit(main())
