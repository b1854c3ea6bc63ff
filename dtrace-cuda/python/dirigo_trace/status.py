"""Exit statuses of the recorder, the one place the Python side spells them.

They are those of dirigo(7) (libcommon/diag.h, enum exit_status), and
RETRACE is dtrace-cuda's KB_RETRACE (dtrace-cuda/kb.h): a trace by shape
that needs values it did not compute, to be made again computing.
"""

OK = 0
BUG = 1
TROUBLE = 2
UNDECIDED = 3
RETRACE = 4
