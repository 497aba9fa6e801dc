"""Drive one notebook in JupyterLab through Playwright (sync API) and measure it in the page.

Everything that reads the page lives in ``PAGE_JS`` (installed with ``add_init_script``): the cell
census (prompts, error outputs, images), the control census (sliders, dropdowns, toggle buttons,
checkboxes, buttons, radio buttons, select lists) and the latency probe. The probe stamps ``t0`` with a
capture-phase listener on the first user event after it is armed (keydown, pointerdown, input, change)
and ``t1`` with a MutationObserver when an ``<img>`` with image data not on the page before appears
(a data: URL is compared as is: identical PNG bytes give an identical URL; a blob: URL, as an ipywidgets
Image widget makes on every update, is compared by the SHA-256 of its bytes), then ``t1p`` at the next
animation frame (the new figure is on screen). Latency = ``t1p - t0``, in page time.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field

#: How often Playwright asks the page whether the new figure is on screen (ms). Not on every animation frame
#: (``polling="raf"``): that keeps the page producing a frame every 16.7 ms while the kernel draws, work that shares
#: the two cores with the kernel and raised the medians it measured by about 5 ms (05's YaRN sliders, four
#: alternating runs). The latency itself is stamped in the page (``t0``, ``t1p``), not by this poll.
PROBE_POLL_MS = 20

PAGE_JS = r"""
(() => {
  if (window.__pe) return;
  const Q = (root, sel) => Array.from(root.querySelectorAll(sel));
  const pe = {};
  window.__pe = pe;
  pe.cells = () => Q(document, '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell');
  pe.status = () => (document.querySelector('#jp-main-statusbar') || {}).textContent || '';
  pe.idle = () => /\| Idle/.test(pe.status());
  const isLoaded = (img) => img.complete && img.naturalWidth > 0;

  pe.census = () => pe.cells().map((c, i) => {
    const code = c.classList.contains('jp-CodeCell');
    const prompt = code ? ((c.querySelector('.jp-InputArea-prompt') || {}).textContent || '').trim() : '';
    const outs = Q(c, '.jp-OutputArea-output');
    const stderr = Q(c, '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')
      .map(o => { const t = o.textContent; return t.length > 2100 ? t.slice(0, 1500) + ' [...] ' + t.slice(-600) : t; });
    const imgs = Q(c, '.jp-OutputArea-output img');
    const wimgs = Q(c, '.jupyter-widgets img');
    const text = c.querySelector('.jp-Cell-outputWrapper') ? c.querySelector('.jp-Cell-outputWrapper').textContent : '';
    return {
      i, code, prompt, stderr,
      nOut: outs.length,
      nImg: imgs.filter(isLoaded).length, nBroken: imgs.filter(im => !isLoaded(im)).length,
      // a model the front end cannot load is shown as JupyterLab's error view ("Click to show javascript error.",
      // class jupyter-widgets too): an error, not a rendered widget
      nWidgetViews: Q(c, '.jp-OutputArea-output > .jupyter-widgets')
        .filter(v => !v.querySelector('.jupyter-widgets-error-widget')).length,
      nWidgetImg: wimgs.filter(isLoaded).length,
      widgetError: Q(c, '.jupyter-widgets-error-widget').length > 0
        || /Error displaying widget|Error rendering output|Loading widget\.\.\./.test(text),
    };
  });

  pe.runState = () => {
    const cs = pe.census().filter(c => c.code);
    return {
      idle: pe.idle(), status: pe.status().slice(0, 120),
      nStar: cs.filter(c => c.prompt.includes('[*]')).length,
      nNum: cs.filter(c => /^\[\d+\]:?$/.test(c.prompt)).length,
      nCode: cs.length,
      nErr: cs.filter(c => c.stderr.length).length,
      errCells: cs.filter(c => c.stderr.length).map(c => c.i),
      prompts: cs.map(c => c.prompt),
    };
  };

  // ------------------------------------------------------------------ controls
  const label = (el) => {
    const l = el.querySelector(':scope > .widget-label, :scope > label');
    let t = l ? l.textContent.trim().replace(/\u200b/g, '') : '';
    if (!t) { const s = el.querySelector('span[title]'); t = s ? s.textContent.trim() : ''; }
    return t;
  };
  // ipywidgets 7's slider as jupyterlab_widgets 1.x draws it (the -ipyw7 modes): a jQuery UI slider, whose widget
  // instance (options, value) sits in jQuery's data on the element
  const jqSlider = (el) => {
    if (!el) return null;
    for (const k of Object.keys(el)) if (k.startsWith('jQuery') && el[k] && el[k].uiSlider) return el[k].uiSlider;
    return null;
  };
  // exact value of a noUiSlider handle (aria-value* attributes are rounded for display)
  const sliderValue = (h) => {
    if (h.classList.contains('ui-slider-handle')) {
      const jq = jqSlider(h.closest('.ui-slider'));
      if (!jq) return NaN;
      return Number(jq.options.range === true ? jq.values(Q(h.parentElement, '.ui-slider-handle').indexOf(h)) : jq.value());
    }
    const t = h.closest('.noUi-target');
    if (!t || !t.noUiSlider) return Number(h.getAttribute('aria-valuenow'));
    const v = t.noUiSlider.get(true);
    return Number(Array.isArray(v) ? v[Number(h.getAttribute('data-handle') || 0)] : v);
  };
  pe.controls = () => {
    let k = 0;
    const out = [];
    const seen = new Set();
    const add = (cellIdx, el, kind, info) => {
      el.setAttribute('data-pe-ctl', String(k));
      out.push(Object.assign({id: k, cell: cellIdx, kind, disabled: false}, info));
      seen.add(el); k += 1;
    };
    pe.cells().forEach((c, ci) => {
      Q(c, '.jupyter-widgets.widget-slider').forEach((w) => {
        const target = w.querySelector('.noUi-target');
        const handles = Q(w, '.noUi-handle, .ui-slider-handle');
        const jq = jqSlider(w.querySelector('.ui-slider'));
        const o = target && target.noUiSlider ? target.noUiSlider.options
          : jq ? {range: {min: jq.options.min, max: jq.options.max}, step: Number(jq.options.step)} : null;
        handles.forEach((h, hi) => {
          add(ci, h, 'slider', {
            label: label(w) + (handles.length > 1 ? (hi ? ' (upper)' : ' (lower)') : ''),
            min: o ? Number(o.range.min) : Number(h.getAttribute('aria-valuemin')),
            max: o ? Number(o.range.max) : Number(h.getAttribute('aria-valuemax')),
            value: sliderValue(h),
            step: o && typeof o.step === 'number' ? o.step : null,
            vertical: w.classList.contains('widget-vslider'),
            jquery: jq !== null,
            disabled: w.querySelector('[disabled]') !== null || h.hasAttribute('disabled'),
            readout: (w.querySelector('.widget-readout') || {}).textContent || null,
          });
          seen.add(h);
        });
        Q(w, '.widget-readout').forEach(r => seen.add(r));
      });
      Q(c, '.jupyter-widgets.widget-dropdown select, .jupyter-widgets.widget-select select').forEach((s) => {
        add(ci, s, 'dropdown', {label: label(s.closest('.jupyter-widgets')), disabled: s.disabled,
          options: Array.from(s.options).map(o => ({value: o.value, text: o.textContent})), value: s.value});
      });
      Q(c, '.widget-toggle-buttons').forEach((t) => {
        const bs = Q(t, 'button');
        bs.forEach(b => seen.add(b));
        add(ci, t, 'toggle-buttons', {label: label(t), disabled: bs.some(b => b.disabled),
          options: bs.map(b => b.textContent.trim()), value: bs.findIndex(b => b.classList.contains('mod-active'))});
      });
      Q(c, '.jupyter-widgets.widget-checkbox input[type=checkbox]').forEach((x) => {
        add(ci, x, 'checkbox', {label: label(x.closest('.jupyter-widgets')), disabled: x.disabled, value: x.checked});
      });
      Q(c, '.widget-radio-box').forEach((r) => {
        const xs = Q(r, 'input[type=radio]');
        xs.forEach(x => seen.add(x));
        add(ci, r, 'radio', {label: label(r.closest('.jupyter-widgets') || r), disabled: xs.some(x => x.disabled),
          options: xs.map(x => x.closest('label') ? x.closest('label').textContent.trim() : x.value),
          value: xs.findIndex(x => x.checked)});
      });
      Q(c, '.jupyter-widgets button').forEach((b) => {
        if (seen.has(b)) return;
        const toggle = b.classList.contains('widget-toggle-button');
        add(ci, b, toggle ? 'toggle-button' : 'button', {label: b.textContent.trim() || b.title, disabled: b.disabled,
          value: b.classList.contains('mod-active')});
      });
      // Anything interactive we do not know how to drive is reported, never silently skipped.
      Q(c, '.jupyter-widgets input, .jupyter-widgets select, .jupyter-widgets textarea, .jupyter-widgets [contenteditable=true]')
        .forEach((e) => {
          if (seen.has(e) || e.closest('[data-pe-ctl]')) return;
          if (e.classList.contains('widget-readout')) return;
          add(ci, e, 'unsupported', {label: (e.closest('.jupyter-widgets') || e).className + ' ' + e.tagName});
        });
    });
    return out;
  };
  pe.ctl = (id) => document.querySelector(`[data-pe-ctl="${id}"]`);
  pe.readControl = (id) => {
    const e = pe.ctl(id);
    if (!e) return null;
    if (e.classList.contains('noUi-handle') || e.classList.contains('ui-slider-handle')) {
      const w = e.closest('.widget-slider');
      return {value: sliderValue(e), readout: (w.querySelector('.widget-readout') || {}).textContent};
    }
    if (e.tagName === 'SELECT') return {value: e.value, readout: e.selectedOptions.length ? e.selectedOptions[0].textContent : ''};
    if (e.classList.contains('widget-toggle-buttons')) {
      const bs = Q(e, 'button');
      const act = bs.filter(b => b.classList.contains('mod-active'));
      return {value: bs.indexOf(act[0]), nActive: act.length, readout: act.map(b => b.textContent.trim()).join('|')};
    }
    if (e.classList.contains('widget-radio-box')) {
      const xs = Q(e, 'input[type=radio]');
      return {value: xs.findIndex(x => x.checked), readout: ''};
    }
    if (e.type === 'checkbox') return {value: e.checked, readout: String(e.checked)};
    if (e.tagName === 'BUTTON') return {value: e.classList.contains('mod-active'), readout: ''};
    return {value: null, readout: ''};
  };

  // ------------------------------------------------------------------ latency probe
  // Image identity: a data: URL is its own bytes; a blob: URL (ipywidgets Image widget: a new URL on every
  // update, even for identical bytes) is identified by the SHA-256 of the bytes it points to.
  const srcs = (root) => Q(root, 'img').map(i => i.getAttribute('src') || '');
  const idCache = new Map();
  const identity = async (src) => {
    if (!src || src.startsWith('data:')) return src;
    if (idCache.has(src)) return idCache.get(src);
    let id;
    try {
      const d = await crypto.subtle.digest('SHA-256', await (await fetch(src)).arrayBuffer());
      id = 'sha256:' + Array.from(new Uint8Array(d)).map(b => b.toString(16).padStart(2, '0')).join('');
    } catch (e) { id = 'unreadable:' + src; }
    idCache.set(src, id);
    return id;
  };
  pe.probe = null;
  const stamp = (ev) => { const p = pe.probe; if (p && p.t0 === null) { p.t0 = performance.now(); p.ev = ev.type; } };
  ['keydown', 'pointerdown', 'mousedown', 'input', 'change'].forEach(t => document.addEventListener(t, stamp, true));
  pe.arm = async () => {
    if (pe.probe && pe.probe.obs) pe.probe.obs.disconnect();
    const root = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
    const list = srcs(root);
    const baseIds = new Set(await Promise.all(list.map(identity)));
    const judged = new Set(list);
    const p = {t0: null, t1: null, t1p: null, ev: null, lastMut: performance.now(), nNew: 0, nSame: 0, newCell: null};
    p.obs = new MutationObserver(() => {
      p.lastMut = performance.now();
      if (p.t1 !== null) return;
      const tm = performance.now();
      let tp = null;
      requestAnimationFrame(() => { tp = performance.now(); });
      Q(root, 'img').forEach((img) => {
        const src = img.getAttribute('src') || '';
        if (judged.has(src)) return;
        judged.add(src);
        identity(src).then((id) => {
          if (baseIds.has(id)) { p.nSame += 1; return; }  // redrawn, but the very same image
          p.nNew += 1;
          if (p.t1 !== null) return;
          p.t1 = tm;  // the new image entered the page at tm; t1p = the first animation frame after that
          p.newCell = pe.cells().indexOf(img.closest('.jp-Cell'));
          if (tp !== null) p.t1p = tp; else requestAnimationFrame(() => { p.t1p = performance.now(); });
        });
      });
    });
    p.obs.observe(root, {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
    pe.probe = p;
  };
  pe.probeState = () => {
    const p = pe.probe;
    return p ? {t0: p.t0, t1: p.t1, t1p: p.t1p, ev: p.ev, nNew: p.nNew, nSame: p.nSame, newCell: p.newCell,
                quietMs: performance.now() - p.lastMut, idle: pe.idle()} : null;
  };
  pe.disarm = () => { if (pe.probe && pe.probe.obs) pe.probe.obs.disconnect(); pe.probe = null; };
})();
"""

#: The notebook panel on screen (JupyterLab keeps other tabs' panels in the DOM, hidden).
PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"
#: JupyterLab 4 menu item -> its JupyterLab 3.6 names
MENU_ITEM_LAB3 = {"Clear Outputs of All Cells": ["Clear All Outputs"]}

BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--disable-crash-reporter",  # no crashpad handler processes, nothing written to ~/.config/chromium
    "--disable-breakpad",
]

#: Actions per control (each one must change the figure; their latencies give the median and worst).
STEPS_PER_CONTROL = 5
#: Quiet time after bringing a control into view, before its first timed move (ms).
SETTLE_BEFORE_MS = 150


@dataclass
class ControlResult:
    cell: int
    kind: str
    label: str
    actions: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    kernel_ms: list[float | None] = field(default_factory=list)  # per move: the kernel's redraw time (its log)
    kernel_cpu_ms: list[float | None] = field(default_factory=list)  # per move: the CPU time of that redraw
    frames: list[dict] = field(default_factory=list)  # per move: the kernel's timing-log lines
    problems: list[str] = field(default_factory=list)

    @property
    def median_ms(self) -> float:
        xs = sorted(self.latencies_ms)
        if not xs:
            return math.nan
        n = len(xs)
        return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2

    @property
    def worst_ms(self) -> float:
        return max(self.latencies_ms) if self.latencies_ms else math.nan

    def report_row(self) -> dict:
        """The control's row of the browser report (JSON-ready: medians rounded, None without a move)."""
        moved = bool(self.latencies_ms)
        return {
            "cell": self.cell,
            "kind": self.kind,
            "label": self.label,
            "actions": self.actions,
            "latencies_ms": self.latencies_ms,
            "median_ms": round(self.median_ms, 1) if moved else None,
            "worst_ms": round(self.worst_ms, 1) if moved else None,
            "kernel_ms": self.kernel_ms,
            "kernel_cpu_ms": self.kernel_cpu_ms,
        }


def _num(text: str | None) -> float | None:
    if text is None:
        return None
    m = re.search(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text.replace("\u2212", "-"))
    return float(m.group(0)) if m else None


def readout_matches(readout: str | None, value: float) -> bool:
    """Does a slider's readout show ``value`` (linear slider) or ``base**value`` (log slider)?"""
    shown = _num(readout)
    if shown is None:
        return False
    digits = readout.strip().split("e")[0].split("E")[0]
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    candidates = [value] + ([10**value, 2**value, math.e**value] if abs(value) < 300 else [])
    for v in candidates:
        if abs(shown - v) <= max(0.51 * 10**-decimals, 0.006 * abs(v)):
            return True
    return False


class NotebookDriver:
    def __init__(self, page, lab, nb_path: str, *, timeout_s: float = 600) -> None:
        self.page = page
        self.lab = lab
        self.nb_path = nb_path
        self.timeout_ms = timeout_s * 1000

    # ---------------------------------------------------------------- steps
    def open(self) -> float:
        """Open the notebook; return seconds until it is rendered and its kernel is Idle."""
        t0 = time.perf_counter()
        # A workspace of its own: nothing restored from the notebook tested before (same server).
        ws = "pe-" + re.sub(r"[^A-Za-z0-9_-]", "-", self.nb_path)
        self.page.goto(self.lab.url(f"lab/workspaces/{ws}/tree/{self.nb_path}") + "&reset")
        self.page.wait_for_selector(f"{PANEL} .jp-Notebook .jp-Cell", timeout=120_000)
        self.page.wait_for_function("() => window.__pe && window.__pe.idle()", timeout=120_000)
        return time.perf_counter() - t0

    def menu(self, top: str, item: str) -> None:
        self.page.click(f".lm-MenuBar-itemLabel:text-is('{top}')")
        names = [item, *MENU_ITEM_LAB3.get(item, [])]  # JupyterLab 3 (the -ipyw7 modes' front end) names some otherwise
        self.page.click(", ".join(f".lm-Menu-itemLabel:text-is('{n}')" for n in names))

    def clear_outputs(self) -> None:
        """Show hidden inputs (their prompts tell whether they ran) and clear the stored outputs and counts,
        so that every prompt and image checked afterwards comes from this browser run."""
        self.menu("View", "Expand All Code")
        self.menu("Edit", "Clear Outputs of All Cells")
        self.page.wait_for_function(
            "() => { const s = __pe.runState(); return s.nNum === 0 && s.nStar === 0 && "
            "document.querySelectorAll('.jp-Notebook .jp-OutputArea-output img').length === 0; }",
            timeout=30_000,
        )

    def run_all(self, raises_cells: set[int] = frozenset()) -> tuple[float, dict]:
        """Run All from the menu; wait until every code cell shows ``[n]`` and the kernel is Idle, or, if a
        cell not tagged ``raises-exception`` (indices in ``raises_cells`` are) shows an error, until nothing
        has changed for 2 s. Return (seconds from the click to the last change, final run state).

        Prompts alone cannot tell "queued" from "not run": after any error output (tagged or not) JupyterLab
        4.6 turns the queued cells' ``[*]`` back into ``[ ]`` although the kernel still runs them.
        """
        t0 = time.perf_counter()
        self.menu("Run", "Run All Cells")
        deadline = t0 + self.timeout_ms / 1000
        last_sig, last_change = None, t0
        while True:
            st = self.page.evaluate("__pe.runState()")
            now = time.perf_counter()
            sig = (st["idle"], st["nStar"], st["nNum"], tuple(st["errCells"]))
            if sig != last_sig:
                last_sig, last_change = sig, now
            if st["idle"] and st["nStar"] == 0:
                if st["nNum"] == st["nCode"]:
                    break
                if any(i not in raises_cells for i in st["errCells"]) and now - last_change > 2.0:
                    break
            if now > deadline:
                raise TimeoutError(f"Run All not finished after {now - t0:.0f} s: {st}")
            time.sleep(0.1)
        elapsed = last_change - t0
        # Widgets and images render asynchronously after the last reply: give them a moment.
        self.page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.jp-Notebook img')).every(i => i.complete)", timeout=60_000
        )
        self.page.wait_for_timeout(300)
        return elapsed, self.page.evaluate("__pe.runState()")

    def run_cells(self, indices: list[int], raises_cells: set[int] = frozenset()) -> tuple[float, dict]:
        """Run the cells at ``indices`` (into the page's cells, in that order) one by one, as a learner would: click
        the cell's prompt (selects it, command mode), Ctrl+Enter (run it, stay on it: nothing is inserted), and wait
        until its prompt shows ``[n]`` and the kernel is Idle before the next. Stop after a cell that shows an error
        and is not in ``raises_cells``. Return (seconds from the first key press to the last cell done, run state).
        """
        t0 = time.perf_counter()
        deadline = t0 + self.timeout_ms / 1000
        cells = self.page.locator(f"{PANEL} .jp-Notebook .jp-Cell")
        for i in indices:
            cells.nth(i).locator(".jp-InputArea-prompt").click()
            self.page.wait_for_function(
                """(i) => { const c = __pe.cells()[i];
                  return c.classList.contains('jp-mod-active') && c.closest('.jp-Notebook').classList
                    .contains('jp-mod-commandMode'); }""",
                arg=i,
                timeout=10_000,
            )
            self.page.keyboard.press("Control+Enter")
            left_ms = max(1_000.0, (deadline - time.perf_counter()) * 1000)
            try:
                self.page.wait_for_function(
                    "(i) => __pe.idle() && /^\\[\\d+\\]:?$/.test(__pe.census()[i].prompt)", arg=i, timeout=left_ms
                )
            except Exception as e:
                st = self.page.evaluate("__pe.runState()")
                raise TimeoutError(f"cell {i} not done after {time.perf_counter() - t0:.0f} s: {st}") from e
            if i not in raises_cells and self.page.evaluate("(i) => __pe.census()[i].stderr.length > 0", i):
                break
        elapsed = time.perf_counter() - t0
        self.page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.jp-Notebook img')).every(i => i.complete)", timeout=60_000
        )
        self.page.wait_for_timeout(300)
        return elapsed, self.page.evaluate("__pe.runState()")

    def census(self) -> list[dict]:
        return self.page.evaluate("__pe.census()")

    def controls(self) -> list[dict]:
        return self.page.evaluate("__pe.controls()")

    # ---------------------------------------------------------------- one action, timed
    def _log_size(self) -> int:
        log = getattr(self.lab, "timing_log", None)
        return log.stat().st_size if log is not None and log.exists() else 0

    def kernel_frames(self, offset: int) -> list[dict]:
        """The kernel's timing-log lines (one per frame a panel drew) written after byte ``offset``."""
        log = getattr(self.lab, "timing_log", None)
        if log is None or not log.exists():
            return []
        with open(log, "rb") as f:
            f.seek(offset)
            return [json.loads(line) for line in f.read().decode().splitlines() if line.strip()]

    def _timed(self, action, timeout_ms: float = 15_000) -> tuple[float | None, dict]:
        self.page.evaluate("__pe.arm()")
        action()
        try:
            self.page.wait_for_function("() => __pe.probe.t1p !== null", timeout=timeout_ms, polling=PROBE_POLL_MS)
        except Exception:
            st = self.page.evaluate("__pe.probeState()")
            self.page.evaluate("__pe.disarm()")
            return None, st
        # settle: kernel idle and no DOM change in the notebook for 150 ms (the next move starts from rest)
        try:
            self.page.wait_for_function(
                "() => { const s = __pe.probeState(); return s.idle && s.quietMs > 150; }",
                timeout=timeout_ms,
                polling=50,
            )
        except Exception:
            st = self.page.evaluate("__pe.probeState()")
            st["unsettled"] = True
            self.page.evaluate("__pe.disarm()")
            return None, st
        st = self.page.evaluate("__pe.probeState()")
        self.page.evaluate("__pe.disarm()")
        if st["t0"] is None:
            return None, st
        return st["t1p"] - st["t0"], st

    def exercise(self, ctl: dict, steps: int = STEPS_PER_CONTROL) -> ControlResult:
        """Move one control ``steps`` times; each move must give a new figure and show the new value."""
        res = ControlResult(cell=ctl["cell"], kind=ctl["kind"], label=ctl["label"] or f"<unlabelled {ctl['kind']}>")
        if ctl["kind"] == "unsupported":
            res.problems.append(f"control the test cannot drive: {ctl['label']}")
            return res
        if ctl.get("disabled"):
            res.problems.append("control is disabled")
            return res
        loc = self.page.locator(f"[data-pe-ctl='{ctl['id']}']")
        plan = self._plan(ctl, steps)
        if not plan:
            res.problems.append(f"nothing to move: {ctl}")
        else:
            self._approach(loc, focus=ctl["kind"] == "slider")
        for desc, action, expect in plan:
            before = self.page.evaluate("i => __pe.readControl(i)", ctl["id"])
            offset = self._log_size()
            lat, st = self._timed(lambda action=action: action(loc))
            frames = self.kernel_frames(offset)
            after = self.page.evaluate("i => __pe.readControl(i)", ctl["id"])
            res.actions.append(desc)
            if lat is None:
                why = (
                    "no event reached the page"
                    if st and st.get("t0") is None
                    else "new figure, but the kernel never went idle / the page kept changing for 15 s"
                    if st and st.get("unsettled")
                    else "the figure was redrawn but the image is identical (no visible effect)"
                    if st and st.get("nSame")
                    else "no new figure within 15 s"
                )
                res.problems.append(
                    f"{desc}: {why} (value {before and before.get('readout')!r} -> {after and after.get('readout')!r})"
                )
                break
            res.latencies_ms.append(round(lat, 1))
            res.frames.append(frames)
            res.kernel_ms.append(round(sum(f["kernel_ms"] for f in frames), 1) if frames else None)
            res.kernel_cpu_ms.append(round(sum(f.get("cpu_ms", 0) for f in frames), 1) if frames else None)
            bad = expect(before, after)
            if bad:
                res.problems.append(f"{desc}: {bad}")
                break
        return res

    def _approach(self, loc, *, focus: bool) -> None:
        """Before a control's first timed move, do what a reader does before touching it: scroll it into view and
        (a slider, driven by keys) give it the focus, then let the page finish drawing that. Otherwise the scroll's
        and the focus ring's repaint would land inside the first move's measured window."""
        loc.scroll_into_view_if_needed()
        if focus:
            loc.focus()
        self.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        self.page.wait_for_timeout(SETTLE_BEFORE_MS)

    def _plan(self, ctl: dict, steps: int):
        kind = ctl["kind"]
        if kind == "slider":
            lo, hi, v, step = ctl["min"], ctl["max"], ctl["value"], ctl["step"] or 0
            n_steps = round((hi - lo) / step) if step else 100
            # fine sliders: PageUp/PageDown move 5 steps (noUiSlider; jQuery UI's, ipywidgets 7, move a fifth of
            # the range: arrows there)
            big = n_steps >= 50 and not ctl.get("jquery")
            up, down = (
                ("PageUp", "PageDown")
                if big
                else (("ArrowUp", "ArrowDown") if ctl["vertical"] else ("ArrowRight", "ArrowLeft"))
            )
            per = (5 if big else 1) * (step or (hi - lo) / 100)
            room_up = round((hi - v) / per) if per else 0
            room_down = round((v - lo) / per) if per else 0
            keys = [up] * steps if room_up >= steps else ([down] * steps if room_down >= steps else [])
            if not keys:  # short slider: go up as far as possible, then down
                keys = ([up] * room_up + [down] * steps)[:steps]

            def press(key):
                def act(loc):
                    loc.focus()
                    self.page.keyboard.press(key)

                return act

            def expect_moved(key):
                def check(before, after):
                    if after["value"] == before["value"]:
                        return f"slider value did not move ({before['value']})"
                    if after["readout"] == before["readout"]:
                        return f"readout still shows {before['readout']!r} after moving to {after['value']}"
                    if not readout_matches(after["readout"], after["value"]):
                        return f"readout {after['readout']!r} does not show the new value {after['value']}"
                    if (after["value"] > before["value"]) != (key in ("PageUp", "ArrowRight", "ArrowUp")):
                        return f"value moved the wrong way: {before['value']} -> {after['value']}"
                    return None

                return check

            return [(f"key {k}", press(k), expect_moved(k)) for k in keys]
        if kind == "dropdown":
            others = [o for o in ctl["options"] if o["value"] != ctl["value"]]
            seq = (others + [next(o for o in ctl["options"] if o["value"] == ctl["value"])])[:steps] if others else []

            def select(opt):
                return lambda loc: loc.select_option(opt["value"])

            def expect_sel(opt):
                return lambda b, a: (
                    None
                    if a["value"] == opt["value"] and a["readout"].strip() == opt["text"].strip()
                    else (f"dropdown shows {a['readout']!r}, expected {opt['text']!r}")
                )

            return [(f"select {o['text']!r}", select(o), expect_sel(o)) for o in seq]
        if kind in ("toggle-buttons", "radio"):
            n = len(ctl["options"])
            order = [(ctl["value"] + j) % n for j in range(1, n + 1)][:steps] if n > 1 else []
            sel = "button" if kind == "toggle-buttons" else "input[type=radio]"

            def click(j):
                return lambda loc: loc.locator(sel).nth(j).click()

            def expect_active(j):
                def check(b, a):
                    if a["value"] != j:
                        return f"option {ctl['options'][j]!r} not shown as selected (index {a['value']})"
                    if kind == "toggle-buttons" and a.get("nActive") != 1:
                        return f"{a.get('nActive')} buttons shown active"
                    return None

                return check

            return [(f"choose {ctl['options'][j]!r}", click(j), expect_active(j)) for j in order]
        if kind in ("checkbox", "toggle-button"):

            def flip(loc):
                loc.click()

            def expect_flip(b, a):
                return None if a["value"] != b["value"] else f"still shows {a['value']} after a click"

            return [
                (
                    f"click (was {bool((ctl['value'] + j) % 2) if isinstance(ctl['value'], bool) else '?'})",
                    flip,
                    expect_flip,
                )
                for j in range(min(steps, 2))
            ]
        if kind == "button":
            return [("click", lambda loc: loc.click(), lambda b, a: None) for _ in range(min(steps, 2))]
        return []
