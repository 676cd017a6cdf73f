"""python3 -m transcoded_client [--proto-dir PATH] [--out DIR]: generates the stubs."""
import sys

from .stubs import main

sys.exit(main())
