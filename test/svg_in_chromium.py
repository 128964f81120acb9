#!/usr/bin/env python3
"""Renders a `streamlife timeline --svg` picture in headless Chromium and checks it.

Usage: svg_in_chromium.py PICTURE.svg [--streams N] [--blocks A,B,...]
                          [--findings KIND@BLOCK,...] [--race-arrows N] [--event-arrows N]
                          [--screenshot OUT.png]

What a reader sees is what is checked, not the SVG's text:
  * the page is laid out by Chromium (--dump-dom after a script measured it):
    the stream lanes and block lanes the picture draws, stacked without
    overlapping; every lane label inside the label column; every finding
    marker inside its block's lane; the arrows drawn;
  * a screenshot is decoded (PNG, standard library only) and sampled: each
    finding marker's centre is red, and each drawn block has pixels of its
    colour, so the picture is not blank or unstyled.
Chromium is started as the tests' set-up requires: --headless --no-sandbox
--disable-gpu --disable-quic --no-first-run --disable-background-networking
--disable-component-update --disable-sync, with a fresh --user-data-dir.
Prints what it measured; exits 1 on the first expectation that fails.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--virtual-time-budget=5000"]

MEASURE = r"""
<script>
window.addEventListener('load', () => {
  const box = e => { const r = e.getBoundingClientRect();
                     return {x: r.left, y: r.top, w: r.width, h: r.height}; };
  const svg = document.querySelector('svg');
  const out = {width: svg.getBoundingClientRect().width,
               height: svg.getBoundingClientRect().height,
               streams: [], blocks: [], findings: [], labelsOutside: [],
               arrows: {race: 0, event: 0}, colours: {}};
  for (const g of document.querySelectorAll('g.stream-lane'))
    out.streams.push({name: g.dataset.name, box: box(g)});
  for (const g of document.querySelectorAll('g.block-lane')) {
    const rows = g.querySelectorAll('g.use-row').length;
    const work = g.querySelector('rect.work');
    out.blocks.push({block: g.dataset.block, box: box(g), rows: rows,
                     colour: work ? getComputedStyle(work).fill : null,
                     sample: work ? box(work) : null});
  }
  for (const g of document.querySelectorAll('g.finding')) {
    const c = g.querySelector('circle');
    out.findings.push({kind: g.dataset.kind, block: g.dataset.block, number: g.dataset.number,
                       centre: box(c)});
  }
  for (const t of document.querySelectorAll('text.lane-label'))
    if (box(t).x + box(t).w > 232) out.labelsOutside.push(t.textContent);
  out.arrows.race = document.querySelectorAll('path.arrow.race').length;
  out.arrows.event = document.querySelectorAll('path.arrow.event').length;
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>
"""


def chromium():
    for name in (os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run_chromium(binary, profile, args, url):
    command = [binary] + FLAGS + ["--user-data-dir=" + profile] + args + [url]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if result.returncode != 0:
        sys.exit("chromium failed (%d): %s" % (result.returncode, result.stderr.decode()[-800:]))
    return result.stdout.decode("utf-8", "replace")


def decode_png(path):
    """(width, height, rows of RGBA tuples) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("%s: not a PNG" % path)
    at, idat, width = 8, b"", 0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunk)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit("%s: unexpected PNG format" % path)
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, [[tuple(r[x * channels:x * channels + 3]) for x in range(width)]
                           for r in rows]


def close(colour, target, tolerance=40):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, target))


def parse_rgb(text):
    m = re.match(r"rgb\((\d+), (\d+), (\d+)\)", text or "")
    return tuple(int(v) for v in m.groups()) if m else None


def fail(text):
    print("FAIL: " + text)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("svg")
    parser.add_argument("--streams", type=int)
    parser.add_argument("--blocks")
    parser.add_argument("--findings", default=None)
    parser.add_argument("--race-arrows", type=int)
    parser.add_argument("--event-arrows", type=int)
    parser.add_argument("--screenshot")
    options = parser.parse_args()
    binary = chromium()
    if not binary:
        fail("no chromium on PATH")
    with open(options.svg, encoding="utf-8") as f:
        picture = f.read()
    work = tempfile.mkdtemp(prefix="svg-in-chromium.")
    try:
        page = os.path.join(work, "page.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write("<!DOCTYPE html><html><head><meta charset='utf-8'></head>"
                    "<body style='margin:0'>" + picture + MEASURE + "</body></html>")
        dom = run_chromium(binary, os.path.join(work, "profile-dom"), ["--dump-dom"],
                           "file://" + page)
        found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
        if not found:
            fail("the page did not run its measuring script")
        text = found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">") \
                             .replace("&amp;", "&")
        m = json.loads(text)
        width, height = int(m["width"] + 0.5), int(m["height"] + 0.5)
        shot = options.screenshot or os.path.join(work, "shot.png")
        # The same page, so that what was measured is where it is drawn.
        run_chromium(binary, os.path.join(work, "profile-shot"),
                     ["--screenshot=" + shot, "--window-size=%d,%d" % (width, height)],
                     "file://" + page)
        _, _, pixels = decode_png(shot)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("picture: %dx%d" % (width, height))
    for s in m["streams"]:
        print("stream lane: %s" % s["name"])
    for b in m["blocks"]:
        print("block lane: %s (%d stream rows)" % (b["block"], b["rows"]))
    for f in m["findings"]:
        print("finding marker %s: %s on block %s" % (f["number"], f["kind"], f["block"]))
    print("arrows: %d race, %d event" % (m["arrows"]["race"], m["arrows"]["event"]))

    if options.streams is not None and len(m["streams"]) != options.streams:
        fail("%d stream lanes, expected %d" % (len(m["streams"]), options.streams))
    if options.blocks is not None:
        want = [b for b in options.blocks.split(",") if b]
        got = [b["block"] for b in m["blocks"]]
        if got != want:
            fail("block lanes %s, expected %s" % (",".join(got), ",".join(want)))
    if options.findings is not None:
        want = sorted(f for f in options.findings.split(",") if f)
        got = sorted("%s@%s" % (f["kind"], f["block"]) for f in m["findings"])
        if got != want:
            fail("finding markers %s, expected %s" % (got, want))
    if options.race_arrows is not None and m["arrows"]["race"] != options.race_arrows:
        fail("%d race arrows, expected %d" % (m["arrows"]["race"], options.race_arrows))
    if options.event_arrows is not None and m["arrows"]["event"] != options.event_arrows:
        fail("%d event arrows, expected %d" % (m["arrows"]["event"], options.event_arrows))
    if m["labelsOutside"]:
        fail("labels run out of the label column: %s" % m["labelsOutside"])
    lanes = sorted([s["box"] for s in m["streams"]] + [b["box"] for b in m["blocks"]],
                   key=lambda r: r["y"])
    for upper, lower in zip(lanes, lanes[1:]):
        if upper["y"] + upper["h"] > lower["y"] + 0.5:
            fail("lanes overlap at y=%.1f" % lower["y"])
    for f in m["findings"]:
        lane = next((b for b in m["blocks"] if b["block"] == f["block"]), None)
        c = f["centre"]
        cx, cy = c["x"] + c["w"] / 2, c["y"] + c["h"] / 2
        if not lane or not (lane["box"]["y"] - 9 <= cy <= lane["box"]["y"] + lane["box"]["h"]):
            fail("finding marker %s is not on block %s's lane" % (f["number"], f["block"]))
        # A ring inside the marker, around its white number.
        ring = [pixels[int(cy + dy)][int(cx + dx)]
                for dx, dy in ((6, 0), (-6, 0), (0, 6), (0, -6), (4, 4), (-4, 4), (4, -4), (-4, -4))]
        if sum(close(p, (0xd6, 0x27, 0x28)) for p in ring) < 6:
            fail("finding marker %s is not red on screen: %s" % (f["number"], ring))
    for b in m["blocks"]:
        colour = parse_rgb(b["colour"])
        box = b["sample"]
        if not colour or not box:
            continue
        y = int(box["y"] + box["h"] / 2)
        row = pixels[y][int(box["x"]):int(box["x"] + box["w"]) + 1]
        if not any(close(p, colour, 12) for p in row):
            fail("block %s's work is not drawn in its colour %s" % (b["block"], colour))
    print("rendered: ok")


if __name__ == "__main__":
    main()
