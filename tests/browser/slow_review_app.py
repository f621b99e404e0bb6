"""`python app.py` with the Review queue of InteractionBench taking 3 s to build, as on a busy server; the first
such build writes `<db>.slow-done` when it returns. For tests/browser/test_review_order.py only."""
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import ibench_ui.review_service as review  # noqa: E402
from app import main  # noqa: E402

_real = review.queue_rows
_db = Path(sys.argv[sys.argv.index("--db") + 1])


def _slow(ctx, benchmark, *rest):
    rows = _real(ctx, benchmark, *rest)
    if benchmark == "interactionbench":
        time.sleep(3)
        _db.with_suffix(".slow-done").touch()
    return rows


review.queue_rows = _slow

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
