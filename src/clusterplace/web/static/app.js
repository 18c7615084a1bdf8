// clusterplace explorer: a little vanilla JS over the JSON API (see /docs).
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
};

async function api(path, options = {}) {
  const response = await fetch(path, { headers: { "Content-Type": "application/json" }, ...options });
  const body = await response.json();
  if (!response.ok) {
    const detail = Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join("; ") : body.detail;
    throw new Error(detail || response.statusText);
  }
  return body;
}

const number = (n) => n.toLocaleString("en-US");

// -- placement page: click a rejected cluster, read why not ---------------------------
// Wide, the panel sits beside the table and sticks to the top as the page scrolls; on a
// narrow screen (the table takes the whole width) it opens in a row right under the
// cluster clicked, so it is read next to that row, not below a hundred others.
function placementPage() {
  const table = $("table.fates");
  const panel = $("#why-not");
  const home = panel.parentElement;
  const narrow = window.matchMedia("(max-width: 1000px)");
  const [ns, name] = table.dataset.placement.split("/");
  let active = null;
  const place = () => {
    let holder = table.querySelector("tr.why-not-row");
    if (narrow.matches && active) {
      if (!holder) holder = el("tr", { class: "why-not-row" }, el("td", { colspan: String(active.cells.length) }));
      active.after(holder);
      holder.firstElementChild.append(panel);
    } else {
      if (panel.parentElement !== home) home.append(panel);
      if (holder) holder.remove();
    }
  };
  narrow.addEventListener("change", place);
  // Narrow: the row and its panel in view together (the row on top when both do not fit).
  const reveal = () => {
    if (!narrow.matches || !active) return;
    const box = panel.getBoundingClientRect(), row = active.getBoundingClientRect();
    if (row.top < 0 || box.bottom > window.innerHeight) active.scrollIntoView({ block: "start" });
  };
  const show = async (row) => {
    table.querySelectorAll("tr.active").forEach((r) => r.classList.remove("active"));
    row.classList.add("active");
    active = row;
    const cluster = row.dataset.cluster;
    panel.hidden = false;
    panel.replaceChildren(el("h3", {}, `Why not ${cluster}?`), el("p", { class: "muted" }, "Scheduling again with each change…"));
    place();
    reveal();
    try {
      const answer = await api(`/api/placements/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/why-not/${encodeURIComponent(cluster)}`);
      if (active !== row) return; // another row was clicked meanwhile
      const parts = [el("h3", {}, `Why not ${cluster}?`), el("p", {}, el("strong", {}, answer.stage + ": "), answer.reason)];
      for (const note of answer.notes) parts.push(el("p", { class: "small muted" }, note));
      if (answer.suggestions.length) {
        parts.push(el("p", { class: "small" }, "Each change below was verified: after it, the placement selects the cluster."));
        const list = el("ol", { class: "suggestions" });
        for (const s of answer.suggestions) {
          const item = el("li", { class: "suggestion" }, el("div", {}, s.summary + (s.rank ? ` (rank ${s.rank})` : "")));
          for (const e of s.edits) item.append(el("code", {}, `--${e.op} ${e.expression}`));
          const tryIt = el("a", { href: "/what-if", class: "small" }, "try in what-if →");
          tryIt.addEventListener("click", () => saveEdits(s.edits.map((e) => ({ op: e.op, expression: e.expression }))));
          item.append(tryIt);
          list.append(item);
        }
        parts.push(list);
      } else {
        parts.push(el("p", {}, "No change found that makes the placement select it."));
      }
      panel.replaceChildren(...parts);
    } catch (err) {
      if (active !== row) return;
      panel.replaceChildren(el("p", { class: "error" }, String(err.message)));
    }
    reveal();
  };
  table.querySelectorAll("tr.rejected").forEach((row) => {
    row.addEventListener("click", () => show(row));
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter") show(row); });
  });
}

// -- heatmap: one canvas the size of the view, drawing only what is in view -----------
// The grid scrolls under fixed gutters: placement names on the left, cluster (or label
// value) names on top, so both stay readable at any size; zoom sets the cell size.
const HEAT_ROWS = 250; // placements per page of the heatmap
const LABEL_PX = 14; // a name is written for every row/column at least this tall/wide
const BIN_PX = 24; // Fit width's binned columns: wide enough to write a count in
const DIAGONAL = 210; // the longest a column's slanted name is written
const FONT = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";

function hslToRgb(h, s, l) {
  const k = (n) => (n + h / 30) % 12, a = s * Math.min(l, 1 - l);
  const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

// A run of names as "first … last", the last without the words it shares with the first
// ("aws-prod-eu-0012 … 0040"); one name alone as itself.
function span(first, last) {
  if (first === last) return first;
  let cut = 0;
  while (cut < first.length && first[cut] === last[cut]) cut++;
  while (cut > 0 && /[a-z0-9]/i.test(first[cut - 1])) cut--;
  return `${first} … ${last.slice(cut)}`;
}

function tickText(v) { return Number.isInteger(v) ? number(v) : v.toFixed(1); }

async function heatmapPage() {
  const view = $("#heat-view"), plane = $("#heat-plane"), canvas = $("#heatmap"), info = $("#heat-info");
  const zoom = $("#heat-zoom"), groupSel = $("#heat-group"), scale = $("#heat-scale"), pager = $("#heat-pager");
  const each = $("#heat-each");
  const ctx = canvas.getContext("2d");
  const query = new URLSearchParams(location.search);
  let offset = Math.max(0, parseInt(query.get("offset") || "0", 10) || 0);
  let groupBy = query.get("groupBy") || "";
  let cell = Math.max(0, Math.min(32, parseInt(query.get("zoom") || "0", 10) || 0));
  let bin = Math.max(1, parseInt(query.get("bin") || "1", 10) || 1); // base columns a column
  let base = null; // the columns as the server gave them
  let m = null; // what is drawn: names, values, gutters
  let hover = null; // {x, y}: the column and row under the mouse (-1: none)
  let pending = false;
  const idle = "Hover a cell to read it; click to open the placement.";

  const remember = () => {
    const params = new URLSearchParams();
    if (groupBy) params.set("groupBy", groupBy);
    if (offset) params.set("offset", offset);
    if (m && m.bin > 1) params.set("bin", m.bin);
    params.set("zoom", cell);
    history.replaceState(null, "", `?${params}`);
  };
  const shade = (v) => (v - m.lo) / (m.hi > m.lo ? m.hi - m.lo : 1);
  const fit = (text, width) => {
    if (ctx.measureText(text).width <= width) return text;
    let lo = 0, hi = text.length;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (ctx.measureText(text.slice(0, mid) + "…").width <= width) lo = mid; else hi = mid - 1; }
    return text.slice(0, lo) + "…";
  };

  const load = async () => {
    const params = new URLSearchParams({ offset, limit: HEAT_ROWS });
    if (groupBy) params.set("groupBy", groupBy);
    const data = await api(`/api/heatmap?${params}`);
    showHubProblem(data.hubProblem);
    if (groupSel.options.length === 1) {
      for (const k of data.labelKeys) groupSel.append(el("option", { value: k.key }, `by ${k.key} (${k.values} value${k.values === 1 ? "" : "s"})`));
    }
    groupSel.value = data.groupBy || "";
    const grouped = Boolean(data.groupBy);
    const rows = data.rows.length;
    // Per column (a cluster, or a label's value): the feasible clusters' mean total,
    // how many are feasible and selected, the best total; binned columns sum these.
    const names = grouped ? data.groups.map((g) => g.label) : data.clusters;
    const sizes = grouped ? data.groups.map((g) => g.clusters) : data.clusters.map(() => 1);
    const cols = names.length;
    const value = new Float64Array(rows * cols).fill(NaN), sel = new Uint32Array(rows * cols);
    const feasible = new Uint32Array(rows * cols), best = new Float64Array(rows * cols).fill(NaN);
    data.rows.forEach((r, y) => {
      if (grouped) {
        for (const [g, n, chosen, mean, top] of r.groups) {
          const i = y * cols + g;
          value[i] = mean; feasible[i] = n; sel[i] = chosen; best[i] = top;
        }
      } else {
        for (const [x, t] of r.cells) { const i = y * cols + x; value[i] = t; feasible[i] = 1; best[i] = t; }
        for (const x of r.selected) sel[y * cols + x] = 1;
      }
    });
    const [lo, hi] = data.range || [0, 0];
    base = { names, sizes, cols, value, sel, feasible, best };
    m = { data, grouped, rows, rowNames: data.rows.map((r) => r.placement), lo, hi };
    columns();
    legend();
    paging();
    if (!cell) cell = Math.max(LABEL_PX, Math.min(24, Math.floor((view.clientWidth - m.L) / Math.max(m.cols, 1))));
    layout();
  };

  // The columns drawn: each of the base's, or (bin > 1) runs of ``bin`` neighbours in
  // name order, each summing its members: feasible and selected counts, the mean and
  // best total. Then the gutters' sizes for their names.
  const columns = () => {
    const k = Math.max(1, Math.min(bin, base.cols)), rows = m.rows;
    if (k === 1) {
      Object.assign(m, {
        cols: base.cols, value: base.value, sel: base.sel, feasible: base.feasible, best: base.best,
        members: base.sizes, labels: base.names,
        colNames: m.grouped ? base.names.map((c, i) => `${c} (${number(base.sizes[i])})`) : base.names,
      });
    } else {
      const n = Math.ceil(base.cols / k), bc = base.cols;
      const value = new Float64Array(rows * n).fill(NaN), sel = new Uint32Array(rows * n);
      const feasible = new Uint32Array(rows * n), best = new Float64Array(rows * n).fill(NaN);
      const members = [], labels = [], colNames = [];
      for (let b = 0; b < n; b++) {
        const a = b * k, z = Math.min(bc, a + k);
        let size = 0;
        for (let c = a; c < z; c++) size += base.sizes[c];
        members.push(size);
        labels.push(span(base.names[a], base.names[z - 1]));
        colNames.push(m.grouped ? `${labels[b]} (${number(size)})` : labels[b]); // sizes: in the scale line, on hover
        for (let y = 0; y < rows; y++) {
          let f = 0, s = 0, sum = 0, top = NaN;
          for (let c = a; c < z; c++) {
            const i = y * bc + c, nf = base.feasible[i];
            s += base.sel[i];
            if (!nf) continue;
            f += nf; sum += base.value[i] * nf;
            if (Number.isNaN(top) || base.best[i] > top) top = base.best[i];
          }
          const j = y * n + b;
          feasible[j] = f; sel[j] = s;
          if (f) { value[j] = Math.round((sum / f) * 10) / 10; best[j] = top; }
        }
      }
      Object.assign(m, { cols: n, value, sel, feasible, best, members, labels, colNames });
    }
    m.bin = k;
    m.summed = m.grouped || k > 1; // a cell counts clusters: write how many are selected
    m.bitmap = null;
    ctx.font = `600 ${FONT}`; // a hovered name is written bold: leave it the room
    const widest = (names) => names.reduce((w, n) => Math.max(w, ctx.measureText(n).width), 0);
    m.L = Math.ceil(Math.min(260, widest(m.rowNames) + 18));
    m.diagonal = Math.min(DIAGONAL, widest(m.colNames) + 8);
    m.T = Math.ceil(Math.max(36, Math.min(195, m.diagonal * Math.sin(Math.PI / 3) + 12)));
    each.hidden = k === 1;
  };

  const legend = () => {
    $("#legend-title").textContent = m.grouped ? "mean total score of a group's feasible clusters"
      : m.bin > 1 ? "mean total score of a column's feasible clusters" : "total score";
    const ticks = $("#legend-ticks");
    if (!m.data.range) { ticks.replaceChildren(el("span", {}, "no cluster is feasible")); return; }
    const values = m.hi > m.lo ? [0, 0.25, 0.5, 0.75, 1].map((f) => m.lo + f * (m.hi - m.lo)) : [m.lo];
    const round = m.hi - m.lo >= 10 ? (v) => Math.round(v) : (v) => Math.round(v * 10) / 10;
    ticks.replaceChildren(...values.map((v) => el("span", {}, tickText(round(v)))));
  };

  const paging = () => {
    const { total } = m.data;
    if (total <= HEAT_ROWS) { pager.replaceChildren(); return; }
    const parts = [`placements ${number(offset + 1)}–${number(offset + m.rows)} of ${number(total)} `];
    if (offset > 0) {
      const prev = el("button", { type: "button" }, "‹ previous");
      prev.addEventListener("click", () => { offset = Math.max(0, offset - HEAT_ROWS); remember(); load(); });
      parts.push(prev);
    }
    if (offset + HEAT_ROWS < total) {
      const next = el("button", { type: "button" }, "next ›");
      next.addEventListener("click", () => { offset += HEAT_ROWS; remember(); load(); });
      parts.push(next);
    }
    pager.replaceChildren(...parts);
  };

  // Rows keep a readable height while there are few of them, however narrow the columns.
  const rowHeight = () => Math.max(cell, m.rows <= 60 ? LABEL_PX : 1);
  const step = (size) => Math.max(1, Math.ceil(LABEL_PX / size));
  const reach = () => Math.ceil(m.diagonal * Math.cos(Math.PI / 3)) + 6; // the last names lean right

  const layout = () => {
    zoom.value = cell;
    const ch = rowHeight(), planeW = m.L + m.cols * cell + reach(), planeH = m.T + m.rows * ch;
    plane.style.width = `${planeW}px`;
    plane.style.height = `${planeH}px`;
    const dpr = window.devicePixelRatio || 1;
    const w = Math.min(planeW, view.clientWidth), h = Math.min(planeH, view.clientHeight);
    canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    const every = step(cell);
    const binned = m.bin > 1 ? `; ${m.bin} ${m.grouped ? "values" : "clusters"} a column, ${number(base.cols)} in ${number(m.cols)} columns` : "";
    scale.textContent = `${cell} px a column${binned}` + (every > 1 ? `; every ${every}th name written (hover for the others, zoom in for all)` : "");
    canvas.dataset.rendered = `${m.rows}x${m.cols}`;
    canvas.dataset.bin = m.bin;
    canvas.dataset.cell = cell;
    canvas.dataset.labelStep = every;
    canvas.dataset.gutters = `${m.L},${m.T}`; // where the grid starts, right of and below the names
    remember();
    draw();
  };

  const bitmap = () => {
    if (m.bitmap) return m.bitmap;
    const small = document.createElement("canvas");
    small.width = Math.max(1, m.cols); small.height = Math.max(1, m.rows);
    const image = small.getContext("2d").createImageData(small.width, small.height);
    for (let i = 0; i < m.rows * m.cols; i++) {
      const v = m.value[i];
      const [r, g, b] = m.sel[i] ? [29, 35, 48] : Number.isNaN(v) ? [255, 255, 255] : hslToRgb(210, 0.7, (92 - shade(v) * 57) / 100);
      image.data.set([r, g, b, 255], i * 4);
    }
    small.getContext("2d").putImageData(image, 0, 0);
    return (m.bitmap = small);
  };

  const draw = () => {
    pending = false;
    const dpr = window.devicePixelRatio || 1;
    const W = canvas.width / dpr, H = canvas.height / dpr;
    const sx = view.scrollLeft, sy = view.scrollTop, { L, T, cols } = m, ch = rowHeight();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
    const c0 = Math.max(0, Math.floor(sx / cell)), c1 = Math.min(cols, Math.ceil((sx + W - L) / cell));
    const r0 = Math.max(0, Math.floor(sy / ch)), r1 = Math.min(m.rows, Math.ceil((sy + H - T) / ch));
    ctx.save(); ctx.beginPath(); ctx.rect(L, T, W - L, H - T); ctx.clip();
    if (hover) {
      ctx.fillStyle = "#e8eefc";
      if (hover.y >= 0) ctx.fillRect(L, T + hover.y * ch - sy, W - L, ch);
      if (hover.x >= 0) ctx.fillRect(L + hover.x * cell - sx, T, cell, H - T);
    }
    if (cell < 4 || ch < 4) {
      ctx.imageSmoothingEnabled = false;
      if (c1 > c0 && r1 > r0) ctx.drawImage(bitmap(), c0, r0, c1 - c0, r1 - r0, L + c0 * cell - sx, T + r0 * ch - sy, (c1 - c0) * cell, (r1 - r0) * ch);
    } else {
      const gap = cell >= 8 ? 1 : 0, line = cell >= 10 ? 2 : 1;
      ctx.strokeStyle = "#1d2330"; ctx.lineWidth = line;
      ctx.font = "11px system-ui, sans-serif"; ctx.textAlign = "center"; ctx.textBaseline = "middle";
      for (let r = r0; r < r1; r++) {
        for (let c = c0; c < c1; c++) {
          const i = r * cols + c, v = m.value[i];
          if (Number.isNaN(v)) continue;
          const x = L + c * cell - sx, y = T + r * ch - sy, f = shade(v);
          ctx.fillStyle = `hsl(210 70% ${92 - f * 57}%)`;
          ctx.fillRect(x, y, cell - gap, ch - gap);
          if (m.sel[i]) ctx.strokeRect(x + line / 2, y + line / 2, cell - gap - line, ch - gap - line);
          if (m.summed && m.sel[i] && cell >= 22) {
            ctx.fillStyle = f > 0.55 ? "#fff" : "#1d2330";
            ctx.fillText(String(m.sel[i]), x + (cell - gap) / 2, y + (ch - gap) / 2);
          }
        }
      }
    }
    if (hover && hover.x >= 0 && hover.y >= 0) {
      ctx.strokeStyle = "#c4320a"; ctx.lineWidth = 2;
      ctx.strokeRect(L + hover.x * cell - sx - 1, T + hover.y * ch - sy - 1, cell + 1, ch + 1);
    }
    ctx.restore();
    // The gutters, drawn over whatever scrolled under them.
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, L, H); ctx.fillRect(0, 0, W, T);
    ctx.font = FONT; ctx.textAlign = "left"; ctx.textBaseline = "middle";
    const everyRow = step(ch), every = step(cell);
    ctx.save(); ctx.beginPath(); ctx.rect(0, T, L, H - T); ctx.clip();
    for (let r = r0; r < r1; r++) {
      const on = hover && hover.y === r;
      if (r % everyRow && !on) continue;
      const y = T + r * ch - sy + ch / 2;
      if (on) { ctx.fillStyle = "#e8eefc"; ctx.fillRect(0, T + r * ch - sy, L, ch); }
      ctx.fillStyle = on ? "#1d2330" : "#344054";
      ctx.font = on ? `600 ${FONT}` : FONT;
      ctx.fillText(fit(m.rowNames[r], L - 12), 6, y);
    }
    ctx.restore();
    ctx.save(); ctx.beginPath(); ctx.rect(L, 0, W - L, T); ctx.clip();
    for (let c = c0; c < c1; c++) {
      const on = hover && hover.x === c;
      if (c % every && !on) continue;
      ctx.save();
      ctx.translate(L + c * cell - sx + cell / 2, T - 5); ctx.rotate(-Math.PI / 3);
      ctx.fillStyle = on ? "#c4320a" : "#344054";
      ctx.font = on ? `600 ${FONT}` : FONT;
      ctx.fillText(fit(m.colNames[c], m.diagonal), 0, 0);
      ctx.restore();
    }
    ctx.restore();
    ctx.strokeStyle = "#d0d5dd"; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(L - 0.5, T); ctx.lineTo(L - 0.5, H); ctx.moveTo(L, T - 0.5); ctx.lineTo(W, T - 0.5); ctx.stroke();
    ctx.fillStyle = "#667085"; ctx.font = "11px system-ui, sans-serif";
    ctx.fillText(`${number(m.rows)} placements`, 6, T - 24);
    ctx.fillText(`× ${number(base.cols)} ${m.grouped ? "values" : "clusters"} →`, 6, T - 10);
  };
  const redraw = () => { if (!pending) { pending = true; requestAnimationFrame(draw); } };

  const at = (ev) => {
    const box = canvas.getBoundingClientRect();
    const x = ev.clientX - box.left, y = ev.clientY - box.top;
    const c = x >= m.L ? Math.floor((x - m.L + view.scrollLeft) / cell) : -1;
    const r = y >= m.T ? Math.floor((y - m.T + view.scrollTop) / rowHeight()) : -1;
    return { x: c < m.cols ? c : -1, y: r < m.rows ? r : -1 };
  };
  const describe = ({ x, y }) => {
    const p = y >= 0 ? m.rowNames[y] : null, c = x >= 0 ? m.colNames[x] : null;
    if (p && c) {
      const i = y * m.cols + x, v = m.value[i];
      if (m.summed) {
        const label = m.labels[x], n = number(m.members[x]);
        return Number.isNaN(v)
          ? `${p} × ${label}: none of its ${n} clusters is feasible`
          : `${p} × ${label}: ${number(m.feasible[i])} of ${n} clusters feasible, ${number(m.sel[i])} selected · total score mean ${v}, best ${m.best[i]}`;
      }
      return `${p} × ${c}: ${Number.isNaN(v) ? "not feasible" : "total score " + v}${m.sel[i] ? " · selected" : ""}`;
    }
    if (p) return `${p} (click to open)`;
    if (c) return c;
    return idle;
  };
  canvas.addEventListener("mousemove", (ev) => {
    if (!m) return;
    const h = at(ev);
    if (hover && h.x === hover.x && h.y === hover.y) return;
    hover = h.x < 0 && h.y < 0 ? null : h;
    info.textContent = describe(h);
    redraw();
  });
  canvas.addEventListener("mouseleave", () => { hover = null; info.textContent = idle; redraw(); });
  canvas.addEventListener("click", (ev) => {
    const h = at(ev);
    if (h.y < 0) return;
    const search = !m.summed && h.x >= 0 ? `?search=${encodeURIComponent(m.colNames[h.x])}` : "";
    location.href = `/placements/${m.rowNames[h.y]}${search}`;
  });
  view.addEventListener("scroll", redraw);
  window.addEventListener("resize", () => m && layout());

  const setCell = (next) => {
    next = Math.max(1, Math.min(32, Math.round(next)));
    if (!m || next === cell) return;
    const half = (view.clientWidth - m.L) / 2, halfH = (view.clientHeight - m.T) / 2;
    const fx = (view.scrollLeft + half) / cell, fy = (view.scrollTop + halfH) / rowHeight();
    cell = next;
    layout();
    view.scrollLeft = fx * cell - half; view.scrollTop = fy * rowHeight() - halfH;
    redraw();
  };
  zoom.addEventListener("input", () => setCell(Number(zoom.value)));
  $("#heat-in").addEventListener("click", () => setCell(cell < 4 ? cell + 1 : cell * 1.25));
  $("#heat-out").addEventListener("click", () => setCell(cell <= 4 ? cell - 1 : cell / 1.25));
  // Fit width: every column at least LABEL_PX wide, so every name is written; when the
  // width cannot hold that many, neighbouring columns are binned into as few as it holds.
  $("#heat-fit").addEventListener("click", () => {
    if (!m) return;
    const room = view.clientWidth - m.L - Math.ceil(DIAGONAL * Math.cos(Math.PI / 3)) - 6;
    const fits = Math.floor(room / Math.max(base.cols, 1)) >= LABEL_PX;
    bin = fits ? 1 : Math.ceil(base.cols / Math.max(1, Math.floor(room / BIN_PX)));
    columns();
    cell = Math.max(LABEL_PX, Math.min(32, Math.floor((view.clientWidth - m.L - reach()) / Math.max(m.cols, 1))));
    view.scrollLeft = 0;
    legend();
    layout();
  });
  each.addEventListener("click", () => {
    bin = 1; columns(); cell = LABEL_PX; view.scrollLeft = 0; legend(); layout();
  });
  groupSel.addEventListener("change", () => { groupBy = groupSel.value; bin = 1; cell = 0; view.scrollLeft = 0; remember(); load(); });
  $("#heat-controls").addEventListener("submit", (ev) => ev.preventDefault());
  info.textContent = idle;
  await load();
}

// -- what-if: edits in sessionStorage only, each checked by the server as it is added ---
const KEY = "clusterplace.what-if";
const loadEdits = () => {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) || "[]");
    return Array.isArray(stored)
      ? stored.filter((e) => e && (e.op === "set" || e.op === "unset") && typeof e.expression === "string")
      : [];
  } catch { return []; }
};
const saveEdits = (edits) => sessionStorage.setItem(KEY, JSON.stringify(edits));
const checkEdits = (edits) => api("/api/what-if/check", { method: "POST", body: JSON.stringify({ edits }) });

function whatIfPage() {
  const kind = $("#edit-kind"), cluster = $("#edit-cluster"), placement = $("#edit-placement");
  const key = $("#edit-key"), value = $("#edit-value"), error = $("#edit-error"), rawError = $("#raw-error");
  const summary = $("#diff-summary"), table = $("#diff"), dropped = $("#dropped");
  const hints = {
    label: ["label key", "value"], claim: ["claim name", "value"], taint: ["key", "value:NoSelect"],
    count: ["", "number"], predicate: ["", "env=prod,tier in (gold)"], weight: ["Balance | Steady | AddOn/RES/SCORE", "weight -10..10"],
  };
  const say = (node, text) => { node.textContent = text || ""; node.hidden = !text; };
  const sync = () => {
    const onCluster = ["label", "claim", "taint"].includes(kind.value);
    cluster.hidden = !onCluster; placement.hidden = onCluster;
    const [k, v] = hints[kind.value];
    key.hidden = !k; key.placeholder = k; value.placeholder = v;
  };
  kind.addEventListener("change", sync); sync();
  const expression = (unset) => {
    const k = key.value.trim(), v = value.value.trim();
    switch (kind.value) {
      case "label": return `cluster/${cluster.value}:labels.${k}` + (unset ? "" : `=${v}`);
      case "claim": return `cluster/${cluster.value}:claims.${k}` + (unset ? "" : `=${v}`);
      case "taint": return `cluster/${cluster.value}:taints` + (unset ? `.${k}` : `+=${k}${v.startsWith(":") ? v : "=" + v}`);
      case "count": return `placement/${placement.value}:numberOfClusters` + (unset ? "" : `=${v}`);
      case "predicate": return `placement/${placement.value}:predicates` + (unset ? "" : `=${v}`);
      default: return `placement/${placement.value}:weights.${k}` + (unset ? "" : `=${v}`);
    }
  };
  // Check the edit with those already listed; keep it only if the server can apply it.
  const add = async (op, expr, errorNode, onAdded) => {
    say(errorNode, "");
    const edits = loadEdits();
    if (edits.some((e) => e.op === op && e.expression === expr)) { say(errorNode, `--${op} ${expr} is listed already`); return; }
    let answer;
    try { answer = await checkEdits([...edits, { op, expression: expr }]); }
    catch (err) { say(errorNode, `--${op} ${expr}: ${err.message}`); return; }
    const mine = answer.edits[answer.edits.length - 1];
    const broken = answer.edits.slice(0, -1).find((e) => e.error);
    if (mine.error || broken) {
      say(errorNode, mine.error || `with it, --${broken.op} ${broken.expression} cannot be applied: ${broken.error}`);
      return;
    }
    edits.push({ op, expression: expr });
    saveEdits(edits);
    if (onAdded) onAdded();
    refresh();
  };
  $("#edit-form").addEventListener("submit", (ev) => { ev.preventDefault(); add("set", expression(false), error); });
  $("#edit-unset").addEventListener("click", () => add("unset", expression(true), error));
  $("#raw-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = $("#edit-raw");
    let raw = input.value.trim(), op = null;
    const option = raw.match(/^--(set|unset)(?:\s+|=)(.*)$/s);
    if (option) { op = option[1]; raw = option[2].trim(); }
    if (!raw) return;
    add(op || (raw.includes("=") ? "set" : "unset"), raw, rawError, () => { input.value = ""; });
  });
  $("#edits-clear").addEventListener("click", () => { saveEdits([]); $("#patch").hidden = true; say(dropped, ""); refresh(); });
  const download = el("a", { class: "small", download: "what-if-patch.yaml", hidden: "" }, "download");
  $("#patch").after(download);
  $("#edits-export").addEventListener("click", async () => {
    const pre = $("#patch");
    const result = await compute();
    pre.hidden = false;
    if (!result) { pre.textContent = "# the edits could not be computed: see the diff below"; download.hidden = true; return; }
    pre.textContent = result.patch || "# no edits";
    download.href = URL.createObjectURL(new Blob([result.patch], { type: "application/yaml" }));
    download.hidden = !result.patch;
  });
  const compute = async () => {
    const edits = loadEdits();
    const body = { set: edits.filter((e) => e.op === "set").map((e) => e.expression), unset: edits.filter((e) => e.op === "unset").map((e) => e.expression) };
    try { return await api("/api/what-if", { method: "POST", body: JSON.stringify(body) }); }
    catch (err) {
      table.hidden = true;
      summary.className = "error";
      summary.textContent = `The diff could not be computed: ${err.message}`;
      return null;
    }
  };
  const render = (edits) => {
    $("#edits").replaceChildren(...edits.map((e, i) => {
      const drop = el("button", { type: "button", class: "small", "aria-label": "remove edit" }, "✕");
      drop.addEventListener("click", () => { const all = loadEdits(); all.splice(i, 1); saveEdits(all); refresh(); });
      return el("li", {}, el("code", {}, `--${e.op} ${e.expression}`), " ", drop);
    }));
  };
  const refresh = async () => {
    let edits = loadEdits();
    summary.className = "muted";
    if (edits.length) {
      // A reload, or a hub that changed since, may have made a kept edit invalid: drop it, say why.
      try {
        const answer = await checkEdits(edits);
        const bad = answer.edits.filter((e) => e.error);
        if (bad.length) {
          edits = answer.edits.filter((e) => !e.error).map(({ op, expression: x }) => ({ op, expression: x }));
          saveEdits(edits);
          dropped.replaceChildren(...bad.map((e) => el("span", { class: "dropped" }, el("code", {}, `--${e.op} ${e.expression}`), ` was dropped: ${e.error}`)));
          dropped.hidden = false;
        }
      } catch (err) {
        render(edits);
        table.hidden = true;
        summary.className = "error";
        summary.textContent = `The edits could not be checked: ${err.message}`;
        return;
      }
    }
    render(edits);
    if (!edits.length) { table.hidden = true; summary.textContent = "No edits yet."; return; }
    summary.textContent = "Scheduling with the edits…";
    const result = await compute();
    if (!result) return;
    const rows = result.placements.map((p) => el("tr", { "data-placement": p.placement },
      el("td", { class: "name" }, el("a", { href: `/placements/${p.placement}` }, p.placement)),
      el("td", { class: "gained" }, p.gained.map((c) => "+" + c).join(" ")),
      el("td", { class: "lost" }, p.lost.map((c) => "−" + c).join(" ")),
      el("td", {}, `${p.selectedBefore} → ${p.selectedAfter}`),
      el("td", { class: "small" }, p.scores.map((s) => `${s.cluster}: ${s.before ?? "–"} → ${s.after ?? "–"}`).join(", "))));
    table.querySelector("tbody").replaceChildren(...rows);
    table.hidden = !rows.length;
    summary.textContent = rows.length
      ? `${rows.length} placement(s) change; ${result.rescheduled} scheduled again in ${(result.seconds * 1000).toFixed(1)} ms.`
      : `No placement changes (${result.rescheduled} scheduled again).`;
  };
  refresh();
}

// -- the hub's problem line: a live hub that cannot be read shows its last good state --
function showHubProblem(text) {
  let line = $("#hub-problem");
  if (!line && text) {
    line = el("p", { class: "error hub-problem", id: "hub-problem", role: "alert" });
    document.querySelector("main").prepend(line);
  }
  if (line) {
    line.textContent = text ? `The hub cannot be read: ${text}` : "";
    line.hidden = !text;
  }
}

// -- live: poll the hub's state and new events ----------------------------------------
// A time as "3 s ago" (the full time on hover), kept current at every poll.
function ago(text) {
  const then = Date.parse(text);
  if (Number.isNaN(then)) return text || "–";
  const s = Math.round((Date.now() - then) / 1000);
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400 * 2) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

function whenCell(text) {
  const then = Date.parse(text);
  const full = Number.isNaN(then) ? text : `${new Date(then).toLocaleString()} (${text})`;
  return el("time", { datetime: text, title: full }, ago(text));
}

function livePage() {
  if (!$("#live-events")) return; // no controller given: the page says how to give one
  let offset = 0;
  const tick = async () => {
    try {
      const data = await api(`/api/live?since=${offset}`);
      offset = data.offset;
      $("#live-placements tbody").replaceChildren(...data.placements.map((p) => el("tr", {},
        el("td", { class: "name" }, `${p.namespace}/${p.name}`), el("td", {}, p.satisfied ? "✓" : "✗"),
        el("td", {}, `${p.selected} / ${p.wanted ?? "all"}`), el("td", { class: "small" }, p.status))));
      const problem = $("#live-problem");
      problem.textContent = data.problem ? `Events could not be read: ${data.problem}` : "";
      problem.hidden = !data.problem;
      showHubProblem(data.hubProblem);
      const body = $("#live-events tbody");
      for (const e of data.events) {
        const when = e.series?.lastObservedTime || e.eventTime || e.deprecatedLastTimestamp || e.metadata?.creationTimestamp || "";
        body.prepend(el("tr", {}, el("td", { class: "when" }, whenCell(when)), el("td", {}, `${e.metadata?.namespace}/${e.regarding?.name ?? ""}`),
          el("td", {}, e.type || ""), el("td", {}, e.reason || ""), el("td", { class: "small" }, e.note || "")));
      }
      while (body.rows.length > 1000) body.lastElementChild.remove(); // the newest 1,000 stay
      for (const t of body.querySelectorAll("time[datetime]")) t.textContent = ago(t.getAttribute("datetime"));
    } finally { setTimeout(tick, 2000); }
  };
  tick();
}

// -- modules: the plan matrix, turned around (clusters down) above 8 clusters ----------
async function modulesPage() {
  const table = $("#module-matrix");
  if (!table) return; // no module given: the page says how to give one
  const data = await api("/api/modules");
  const mark = (v) => el("td", { class: v.eligible ? "yes" : "no", title: v.reason }, v.eligible ? "✓" : "✗");
  const defs = data.definitions, n = data.clusters.length;
  $("#module-name").textContent = `Module ${data.module}: ${defs.length} definition${defs.length === 1 ? "" : "s"} × ${number(n)} cluster${n === 1 ? "" : "s"}`
    + (data.clustersAsRows ? " (one row per cluster)" : "");
  table.classList.toggle("by-cluster", data.clustersAsRows);
  if (data.clustersAsRows) {
    const short = (d) => `${d.kind.replace(/Definition$/, "").toLowerCase()}/${d.name}`;
    table.querySelector("thead").replaceChildren(el("tr", {}, el("th", {}, "Cluster"),
      ...defs.map((d) => el("th", { title: `${d.kind}/${d.name}` }, short(d))), el("th", {}, "Definitions")));
    table.querySelector("tbody").replaceChildren(...data.clusters.map((c, i) => el("tr", { "data-cluster": c },
      el("td", { class: "name" }, c), ...defs.map((d) => mark(d.verdicts[i])),
      el("td", { class: "count" }, `${defs.filter((d) => d.verdicts[i].eligible).length}/${defs.length}`))));
    return;
  }
  table.querySelector("thead").replaceChildren(el("tr", {}, el("th", {}, "Definition"), ...data.clusters.map((c) => el("th", {}, c)), el("th", {}, "Clusters")));
  table.querySelector("tbody").replaceChildren(...defs.map((d) => el("tr", {},
    el("td", { class: "name" }, `${d.kind}/${d.name}`), ...d.verdicts.map(mark),
    el("td", { class: "count" }, `${d.verdicts.filter((v) => v.eligible).length}/${n}`))));
}

const pages = { placement: placementPage, heatmap: heatmapPage, "what-if": whatIfPage, live: livePage, modules: modulesPage };
document.addEventListener("DOMContentLoaded", () => { const run = pages[document.body.dataset.page]; if (run) run(); });
