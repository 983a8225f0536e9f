"""The cost of `import acp_core`, and of the first use of the common path, in fresh interpreters.

Best of N wall-clock milliseconds per case (the minimum is the least noisy on a shared machine),
side by side with a bare interpreter so the ratio, not the absolute figure, is what compares.
Run: `python benchmarks/import_time.py [N]`.
"""

from __future__ import annotations

import subprocess
import sys
import time

CASES = (
    ("bare interpreter", "pass"),
    ("import acp_core", "import acp_core"),
    ("import acp_core; use the codec", "import acp_core; acp_core.decode_message"),
    ("import acp_core; use step", "import acp_core; acp_core.step; acp_core.intents.EndTurn"),
)


def best_ms(code: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main(runs: int = 10) -> None:
    bare = None
    for label, code in CASES:
        ms = best_ms(code, runs)
        bare = ms if bare is None else bare
        sys.stdout.write(f"{label:<34} {ms:7.1f} ms  (+{ms - bare:6.1f} ms over bare)\n")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
