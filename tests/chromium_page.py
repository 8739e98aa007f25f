#!/usr/bin/env python3
"""Load an HTML page in a real headless Chromium and say what happened.

A small client of the Chrome DevTools protocol over --remote-debugging-pipe
(Chromium reads commands from fd 3 and writes replies and events to fd 4,
each a JSON text ended by a NUL byte), with nothing but Python's standard
library.  The page gets no script of ours: everything is asked of the
browser through the protocol, after the page has loaded.

Usage: chromium_page.py PAGE.html OUT_DIR
Writes OUT_DIR/page.png (the first screen, 1280x900), OUT_DIR/chart.png (the
first chart as it shows on the page) and prints one JSON object:

  console      console messages of level error or warning, uncaught
               exceptions, and the browser's own error log entries
  dialogs      JavaScript dialogs the page opened (alert, confirm, ...)
  requests     every URL the page asked for; outside: those that are not a
               file in the page's folder (or below it)
  failed       requests that failed, with the reason
  images       [{src, natural_width, natural_height, complete}]
  scripts      how many <script> elements the page has
  hrefs        every href="#x" on the page; missing_ids: those with no id x
  duplicate_ids ids that occur more than once
  text         the page's visible text (document.body.innerText)
  click        after a click on the last experiment in the table of contents:
               {href, hash, top} (top: where the target's top ended up)
  page_png     {width, height, colours}: the screenshot, decoded
  chart_png    the same for the first chart's screenshot (null: no chart)

Exit status 0 when the page loaded, 77 when Chromium could not be started or
did not answer (the reason on stderr: the caller skips), 1 otherwise.
"""
import base64
import fcntl
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zlib

TIMEOUT = 60.0  # s for the whole visit
WIDTH, HEIGHT = 1280, 900


class NoBrowser(Exception):
    """Chromium did not start or stopped answering."""


class Browser:
    def __init__(self, profile, log):
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise NoBrowser("chromium not installed")
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()

        def fds():
            # fd 3 and 4 may be taken by the pipes themselves: lift both
            # out of the way before placing them
            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(out_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--disable-component-update", "--mute-audio",
                "--hide-scrollbars", "--user-data-dir=" + profile,
                "--window-size=%d,%d" % (WIDTH, HEIGHT),
                "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=log, close_fds=False, preexec_fn=fds)
        os.close(cmd_r)
        os.close(out_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.replies = {}
        self.deadline = time.monotonic() + TIMEOUT

    def close(self):
        try:
            os.close(self.cmd_w)
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self.out_r)

    def _read_message(self, until=None):
        """The next message; None when `until` (a monotonic time) came
        first.  Past the visit's deadline, Chromium is not answering."""
        while b"\0" not in self.buf:
            end = min(self.deadline, until) if until else self.deadline
            left = end - time.monotonic()
            if left <= 0:
                if until and until < self.deadline:
                    return None
                raise NoBrowser("chromium did not answer within %.0f s" % TIMEOUT)
            ready, _, _ = select.select([self.out_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.out_r, 1 << 20)
            if not chunk:
                raise NoBrowser("chromium exited (status %s)" % self.proc.wait())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        """A command; its result (events that come first are kept)."""
        self.next_id += 1
        my_id = self.next_id
        msg = {"id": my_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        try:
            os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        except BrokenPipeError:
            raise NoBrowser("chromium exited (status %s)" % self.proc.wait())
        # a reply may arrive while a dialog is answered in between: keep
        # replies by id until their command takes them
        while my_id not in self.replies:
            m = self._read_message()
            if "id" in m:
                self.replies[m["id"]] = m
            else:
                self.events.append(m)
                self._answer_dialog(m)
        m = self.replies.pop(my_id)
        if "error" in m:
            raise RuntimeError("%s: %s" % (method, m["error"]))
        return m.get("result", {})

    def wait_event(self, method, timeout):
        """Wait for an event (also among those already seen); None when
        it did not come within timeout seconds."""
        end = time.monotonic() + timeout
        while True:
            for m in self.events:
                if m.get("method") == method:
                    return m
            m = self._read_message(end)
            if m is None:
                return None
            if "id" in m:
                self.replies[m["id"]] = m
                continue
            self.events.append(m)
            self._answer_dialog(m)

    def _answer_dialog(self, m):
        """A JavaScript dialog blocks its page until answered: dismiss it
        (the event stays among the events, for the report)."""
        if m.get("method") == "Page.javascriptDialogOpening":
            self.send("Page.handleJavaScriptDialog", {"accept": False}, m.get("sessionId"))


def png_facts(data):
    """{width, height, colours} of an 8-bit RGB/RGBA PNG (what Chromium
    writes), decoded with zlib: the number of distinct colours tells a
    blank picture from one that shows something."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return {"width": 0, "height": 0, "colours": 0, "error": "not a PNG"}
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"IDAT":
            idat += body
    w, h = int.from_bytes(ihdr[0:4], "big"), int.from_bytes(ihdr[4:8], "big")
    depth, ctype, interlace = ihdr[8], ihdr[9], ihdr[12]
    if depth != 8 or ctype not in (2, 6) or interlace:
        return {"width": w, "height": h, "colours": 0, "error": "unexpected PNG kind"}
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours, i = bytearray(stride), set(), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[x] = (line[x] + pred) & 255
        # every fourth pixel of every fourth row is plenty to count colours
        if _ % 4 == 0:
            for x in range(0, stride, 4 * bpp):
                colours.add(bytes(line[x:x + 3]))
        prev = line
    return {"width": w, "height": h, "colours": len(colours)}


def evaluate(b, session, expr):
    r = b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                    "awaitPromise": True}, session)
    if "exceptionDetails" in r:
        raise RuntimeError("evaluate %s: %s" % (expr, r["exceptionDetails"]))
    return r["result"].get("value")


PAGE_FACTS = """(() => {
  const ids = {}, dup = [];
  for (const e of document.querySelectorAll('[id]'))
    if (ids[e.id]) dup.push(e.id); else ids[e.id] = true;
  const hrefs = [...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute('href'));
  return {
    images: [...document.images].map(i => ({src: i.getAttribute('src'),
      natural_width: i.naturalWidth, natural_height: i.naturalHeight, complete: i.complete})),
    scripts: document.scripts.length,
    hrefs: hrefs,
    missing_ids: hrefs.filter(h => !document.getElementById(decodeURIComponent(h.slice(1)))),
    duplicate_ids: dup,
    text: document.body.innerText,
  };
})()"""


def visit(b, page, out_dir):
    url = pathlib.Path(page).as_uri()
    target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log", "Network"):
        b.send(domain + ".enable", {}, s)
    b.send("Page.navigate", {"url": url}, s)
    if not b.wait_event("Page.loadEventFired", 30):
        raise RuntimeError("the page did not finish loading in 30 s")
    facts = evaluate(b, s, PAGE_FACTS)

    shot = b.send("Page.captureScreenshot", {"format": "png"}, s)["data"]
    png = base64.b64decode(shot)
    with open(os.path.join(out_dir, "page.png"), "wb") as f:
        f.write(png)
    facts["page_png"] = png_facts(png)
    facts["chart_png"] = None
    box = evaluate(b, s, """(() => { const i = document.images[0]; if (!i) return null;
        i.scrollIntoView(); const r = i.getBoundingClientRect();
        return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; })()""")
    if box and box["width"] > 0 and box["height"] > 0:
        box["scale"] = 1
        shot = b.send("Page.captureScreenshot", {"format": "png", "clip": box,
                                                 "captureBeyondViewport": True}, s)["data"]
        png = base64.b64decode(shot)
        with open(os.path.join(out_dir, "chart.png"), "wb") as f:
            f.write(png)
        facts["chart_png"] = png_facts(png)

    # a real click on the table of contents' last link: the page must
    # scroll its target to the top
    link = evaluate(b, s, """(() => { scrollTo(0, 0); const l = [...document.querySelectorAll(
        'nav ol ol a[href^="#"]')].pop(); if (!l) return null; const r = l.getBoundingClientRect();
        return {href: l.getAttribute('href'), x: r.x + r.width / 2, y: r.y + r.height / 2}; })()""")
    facts["click"] = None
    if link:
        for kind in ("mousePressed", "mouseReleased"):
            b.send("Input.dispatchMouseEvent", {"type": kind, "x": link["x"], "y": link["y"],
                                                "button": "left", "clickCount": 1}, s)
        time.sleep(0.3)  # let the scroll settle (no smooth scrolling is asked for)
        facts["click"] = evaluate(b, s, """(() => { const t = document.getElementById(
            decodeURIComponent(location.hash.slice(1)));
            return {href: %s, hash: location.hash,
                    top: t ? t.getBoundingClientRect().top : null}; })()"""
                                  % json.dumps(link["href"]))

    facts["console"], facts["dialogs"], facts["requests"], facts["failed"] = [], [], [], []
    for m in b.events:
        p, meth = m.get("params", {}), m.get("method")
        if meth == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            facts["console"].append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif meth == "Runtime.exceptionThrown":
            x = p["exceptionDetails"]
            facts["console"].append("%s %s" % (x.get("text"), x.get("exception", {}).get(
                "description", "")))
        elif meth == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
            e = p["entry"]
            facts["console"].append("%s %s: %s %s" % (e.get("source"), e.get("level"),
                                                      e.get("text"), e.get("url", "")))
        elif meth == "Page.javascriptDialogOpening":
            facts["dialogs"].append("%s: %s" % (p.get("type"), p.get("message")))
        elif meth == "Network.requestWillBeSent":
            facts["requests"].append(p["request"]["url"])
        elif meth == "Network.loadingFailed":
            facts["failed"].append("%s: %s" % (p.get("requestId"), p.get("errorText")))
    folder = os.path.dirname(page) + "/"
    facts["outside"] = [u for u in facts["requests"] if not (
        u.startswith("file://") and
        urllib.parse.unquote(urllib.parse.urlsplit(u).path).startswith(folder))]
    return facts


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    page, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=out_dir)
    log_path = os.path.join(out_dir, "chromium.log")
    with open(log_path, "wb") as log:
        try:
            b = Browser(profile, log)
        except (NoBrowser, OSError) as e:
            print("chromium cannot start: %s" % e, file=sys.stderr)
            return 77
        try:
            try:
                b.send("Browser.getVersion")
            except NoBrowser as e:
                tail = open(log_path, errors="replace").read().strip().splitlines()[-3:]
                print("chromium cannot start: %s: %s" % (e, " / ".join(tail)), file=sys.stderr)
                return 77
            facts = visit(b, page, out_dir)
        finally:
            b.close()
            shutil.rmtree(profile, ignore_errors=True)
    json.dump(facts, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
