"""Capture: Claude Code transcripts → candidate decisions → the review queue.

* ``transcripts`` — which files and records count, reading new bytes, messages;
* ``extract`` — rules, the quality gate, provenance, redaction;
* ``state`` — ``capture-state.json`` (offsets per transcript);
* ``run`` — one bounded, incremental capture run.

Import the submodules directly; this package imports nothing heavy.
"""
