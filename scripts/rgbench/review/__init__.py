"""The local grading page (``rgbench review``) and the planned second grades (``rgbench assign``).

runs.py: which runs a reviewer still grades, blind handles, filters and the per-reviewer shuffle;
assignments.py: the stratified sample of second grades; scoring_doc.py: the scoring a form makes,
its validation and its write-once save; pages.py: the HTML; server.py: the 127.0.0.1 server;
commands.py: ``main(argv)`` of both commands.
"""
