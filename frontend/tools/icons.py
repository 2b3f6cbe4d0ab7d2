"""Draw the app's PNG icons from our SVGs (``make icons``), in headless Chromium.

The icons of the web app manifest and of a phone's home screen: ``icon.svg`` (rounded corners) at
192 and 512 px, and ``icon-maskable.svg`` (full bleed, the cards in the central circle that every
mask keeps) at 512 px and at 180 px for iOS. The PNGs are committed; run this after editing an SVG.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[1] / "static" / "frontend" / "icons"
CHROMIUM = "/usr/bin/chromium"
DRAWN = {
    "icon-192.png": ("icon.svg", 192),
    "icon-512.png": ("icon.svg", 512),
    "icon-maskable-512.png": ("icon-maskable.svg", 512),
    "apple-touch-icon.png": ("icon-maskable.svg", 180),
}


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for name, (source, size) in DRAWN.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            svg = (ICONS / source).read_text()
            svg = svg.replace('width="512" height="512"', f'width="{size}" height="{size}"', 1)
            page.set_content(f'<body style="margin:0;background:transparent">{svg}</body>')
            page.screenshot(path=ICONS / name, omit_background=True)
            page.close()
            print(f"{name}: {size} × {size} from {source}")
        browser.close()


if __name__ == "__main__":
    main()
