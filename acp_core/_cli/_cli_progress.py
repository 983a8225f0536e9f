"""Progress of long commands on a terminal: one line on stderr, rewritten in place.

Owns: `ProgressLine` (a `Progress` callback that draws `phase NN% (done/total)`).
Must not know: whether the stream is a terminal — the command line decides that and passes
no callback at all when it is not (so piped and redirected runs stay quiet).
"""

from __future__ import annotations

from typing import TextIO

__all__ = ["ProgressLine"]


class ProgressLine:
    """Draws progress on `stream`; call `done()` at the end to clear the line."""

    def __init__(self, stream: TextIO, label: str) -> None:
        self.stream = stream
        self.label = label
        self.shown = ""

    def __call__(self, phase: str, done: int, total: int) -> None:
        share = 100 * done // total if total else 100
        text = f"{self.label}: {phase} {share}% ({done}/{total})"
        if text != self.shown:
            self.stream.write("\r" + text.ljust(len(self.shown)))
            self.stream.flush()
            self.shown = text

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""
