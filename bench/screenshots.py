"""Regenerate the leaderboard screenshots in docs/ from the committed results/leaderboard.html (headless Chromium).

    .venv/bin/python bench/screenshots.py [--root .]

docs/leaderboard.png (1280 px: the top of the page, the table first), docs/leaderboard-390px.png (the same at
390 px), docs/leaderboard-disqualified.png (the Disqualified table with the quoted words), and
docs/leaderboard-explorer.png (one subject, "did not pass", a run opened) and docs/leaderboard-subject-profile.png
(the first subject's profile). Chromium is driven by tests/test_leaderboard_browser.py's DevTools client.
"""

from __future__ import annotations

import argparse
import base64
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent / "tests")]
from test_leaderboard_browser import CHROMIUM, DevTools, open_page  # noqa: E402

# (file, width, script run before the shot: it scrolls what is shown to the top of the viewport)
SHOTS = [
    ("leaderboard.png", 1280, "window.scrollTo(0, 0);"),
    ("leaderboard-390px.png", 390, "window.scrollTo(0, 0);"),
    ("leaderboard-disqualified.png", 1280, 'document.getElementById("disqualified").scrollIntoView();'),
    ("leaderboard-explorer.png", 1280, """
      const pick = (id, value) => { const s = document.getElementById(id); s.value = value;
                                    s.dispatchEvent(new Event("change", {bubbles: true})); };
      pick("explorer-subject", document.getElementById("explorer-subject").options[1].value);
      pick("explorer-outcome", "not-pass");
      const run = ["run-fail", "run-conditional", "run"].map(c => document.querySelector(`#explorer-table details.${c}`))
        .find(Boolean);
      if (run) run.open = true;
      document.getElementById("explorer").scrollIntoView();"""),
    ("leaderboard-subject-profile.png", 1280, """
      const profile = document.querySelector("details.profile-card"); profile.open = true;
      profile.dispatchEvent(new Event("toggle")); profile.scrollIntoView();"""),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("."))
    args = parser.parse_args(argv)
    if CHROMIUM is None:
        print("Chromium not found; install it with `apt-get install -y chromium`", file=sys.stderr)
        return 1
    page = (args.root / "results" / "leaderboard.html").resolve()
    client = DevTools(CHROMIUM, Path(tempfile.mkdtemp()))
    try:
        for name, width, script in SHOTS:
            client.deadline = time.monotonic() + 60
            session = open_page(client, page)
            height = 844 if width == 390 else 1000
            client.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                               "mobile": width < 600}, session)
            client.evaluate(session, f"(() => {{ {script} }})()")
            time.sleep(0.3)
            shot = client.send("Page.captureScreenshot", {"format": "png"}, session)
            (args.root / "docs" / name).write_bytes(base64.b64decode(shot["data"]))
            print(f"docs/{name}")
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
