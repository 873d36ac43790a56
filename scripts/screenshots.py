"""Screenshot every page of a running explorer: python scripts/screenshots.py [BASE_URL] [OUT_DIR]."""

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8501"
OUT = Path(sys.argv[2] if len(sys.argv) > 2 else "screenshots")
PAGES = {"leaderboard": "", "headline": "headline", "radar": "radar", "repeatability": "repeatability",
         "uncertainty": "uncertainty", "sandbox": "sandbox",
         "methodology": "methodology"}
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
READY = "[data-testid='stApp'][data-test-script-state='notRunning']"

OUT.mkdir(exist_ok=True)
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
    page = browser.new_page(viewport={"width": 1440, "height": 2600})
    for name, path in PAGES.items():
        page.goto(f"{BASE}/{path}")
        page.wait_for_selector(READY, timeout=60_000)
        page.wait_for_timeout(1500)
        page.screenshot(path=OUT / f"{name}.png", full_page=True)
        print(OUT / f"{name}.png")
    browser.close()
