// The canvas of a panel (helpers/widgets/_canvas.py): the background PNG, then each moving line stroked from its
// float32 data mapped through its axes' pixel box and limits, then the sprites (Agg's own pixels) pasted on top.
// Only maps and strokes: every number shown is computed in Python.

function bytesOf(v) {
  if (!v) return new Uint8Array(0);
  if (v instanceof DataView) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return new Uint8Array(0);
}

function fraction(v, lo, hi, log) {
  if (log) {
    if (!(v > 0)) return NaN; // matplotlib masks non-positive values on a log axis
    return (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo));
  }
  return (v - lo) / (hi - lo);
}

// Agg's snapping (matplotlib's PathSnapper): a path of only horizontal and vertical segments (<= 1024 vertices)
// has its vertices moved to pixel centres (odd widths) or pixel edges (even widths).
function snapped(points, width) {
  if (points.length > 1024 || points.length < 2) return points;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1], [x1, y1] = points[i];
    if (Number.isNaN(x0) || Number.isNaN(x1)) continue;
    if (Math.abs(x0 - x1) >= 1e-4 && Math.abs(y0 - y1) >= 1e-4) return points;
  }
  const s = Math.round(width) % 2 ? 0.5 : 0.0;
  return points.map(([x, y]) => [Math.floor(x + 0.5) + s, Math.floor(y + 0.5) + s]);
}

function strokeLine(ctx, L, ax, data, H) {
  const [bx, by, bw, bh] = ax.box;
  const n = L.n, xs = data.subarray(L.offset, L.offset + n), ys = data.subarray(L.offset + n, L.offset + 2 * n);
  let pts = new Array(n);
  for (let i = 0; i < n; i++) {
    const fx = L.x === "axes" ? xs[i] : fraction(xs[i], ax.xlim[0], ax.xlim[1], ax.xlog);
    const fy = L.y === "axes" ? ys[i] : fraction(ys[i], ax.ylim[0], ax.ylim[1], ax.ylog);
    pts[i] = [bx + bw * fx, H - (by + bh * fy)];
  }
  pts = snapped(pts, L.width);
  ctx.save();
  if (L.clip) {
    const [cx, cy, cw, ch] = L.clip;
    const l = Math.max(Math.floor(cx + 0.5), 0), t = Math.max(Math.floor(H - (cy + ch) + 0.5), 0);
    const r = Math.floor(cx + cw + 0.5), b = Math.floor(H - cy + 0.5);
    ctx.beginPath();
    ctx.rect(l, t, r - l, b - t);
    ctx.clip();
  }
  const [r, g, b, a] = L.color;
  ctx.strokeStyle = `rgba(${Math.round(r * 255)}, ${Math.round(g * 255)}, ${Math.round(b * 255)}, ${a})`;
  ctx.lineWidth = L.width;
  ctx.lineCap = L.cap;
  ctx.lineJoin = L.join;
  ctx.setLineDash(L.dashes);
  ctx.lineDashOffset = L.dash_offset;
  ctx.beginPath();
  let pen = false;
  for (const [x, y] of pts) {
    if (!Number.isFinite(x) || !Number.isFinite(y)) { pen = false; continue; }
    if (pen) ctx.lineTo(x, y); else { ctx.moveTo(x, y); pen = true; }
  }
  ctx.stroke();
  ctx.restore();
}

export default {
  render({ model, el }) {
    const canvas = document.createElement("canvas");
    canvas.className = "pe-canvas-frames";
    canvas.style.display = "block";
    canvas.__peModel = model; // the browser suite reads the model's frames and asks for a full redraw through it
    el.appendChild(canvas);
    const ctx = canvas.getContext("2d");
    let background = null, backgroundVersion = -1, drawn = 0, busy = false;
    let sprites = new Map(); // box -> its pixels, as in the last frame received
    let latest = null; // the last frame received, waiting to be drawn

    // Every message is read when it arrives, in order (a sprite not sent again is the one of the message before);
    // only the newest frame is drawn, at once (synchronously, unless a new background must be decoded first).
    const receive = () => {
      const arrived = performance.now();
      const raw = bytesOf(model.get("data"));
      const sp = bytesOf(model.get("sprite_data"));
      const kept = new Map(), pasted = [];
      for (const [x, y, w, h, offset] of model.get("sprites")) {
        const box = `${x},${y},${w},${h}`;
        const image = offset < 0 ? sprites.get(box)
          : new ImageData(new Uint8ClampedArray(sp.slice(offset, offset + w * h * 4).buffer), w, h);
        if (image) { kept.set(box, image); pasted.push([image, x, y]); }
      }
      sprites = kept;
      latest = {
        version: model.get("background_version"),
        png: model.get("background_version") === backgroundVersion ? null : bytesOf(model.get("background")).slice(),
        W: model.get("width"), H: model.get("height"), axes: model.get("axes"), lines: model.get("lines"),
        data: new Float32Array(raw.slice().buffer), // a copy: the buffer's offset may not be aligned
        key: model.get("key"), arrived, pasted,
      };
      draw();
    };

    const draw = async () => {
      if (busy) return; // the running draw takes the newest frame when it is done
      busy = true;
      try {
        while (latest) {
          const f = latest;
          latest = null;
          if (f.version !== backgroundVersion) {
            if (!f.png || !f.png.length) continue;
            background = await createImageBitmap(new Blob([f.png], { type: "image/png" }));
            backgroundVersion = f.version;
            if (latest) continue; // a newer frame arrived meanwhile
          }
          if (canvas.width !== f.W || canvas.height !== f.H) {
            canvas.width = f.W; canvas.height = f.H;
            canvas.style.width = f.W + "px"; canvas.style.height = f.H + "px";
          }
          ctx.setTransform(1, 0, 0, 1, 0, 0);
          ctx.globalCompositeOperation = "copy";
          ctx.drawImage(background, 0, 0);
          ctx.globalCompositeOperation = "source-over";
          for (const L of f.lines) strokeLine(ctx, L, f.axes[L.axes], f.data, f.H);
          for (const [image, x, y] of f.pasted) ctx.putImageData(image, x, y);
          drawn += 1;
          canvas.dataset.peFrame = String(drawn);
          canvas.dataset.peDrawMs = (performance.now() - f.arrived).toFixed(1); // message to frame drawn
          canvas.dataset.peArrived = f.arrived.toFixed(1); // when the message arrived (page time)
          canvas.dataset.peKey = f.key; // set last: the frame is on the canvas
        }
      } finally {
        busy = false;
      }
      if (drawn && !model.get("rendered")) {
        model.set("rendered", true);
        model.save_changes();
      }
    };
    model.on("change:frame", receive);
    receive();
    return () => model.off("change:frame", receive);
  },
};
