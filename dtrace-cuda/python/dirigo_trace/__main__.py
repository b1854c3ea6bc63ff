"""python3 -m dirigo_trace: trace a KernelBench-style program."""
import sys

from .harness import main

sys.exit(main(sys.argv[1:]))
