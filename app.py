"""ibench-ui entry point: `python app.py` serves the studio; `python app.py <verb>` runs a command (runners.cli)."""
from runners.cli import FAST_EXIT, _exit_now, main, run  # noqa: F401 (the command line's names, for callers of app)

if __name__ == "__main__":
    run()
