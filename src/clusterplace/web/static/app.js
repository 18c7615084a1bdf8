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
  if (!response.ok) throw new Error(body.detail || response.statusText);
  return body;
}

// -- placement page: click a rejected cluster, read why not ---------------------------
function placementPage() {
  const table = $("table.fates");
  const panel = $("#why-not");
  const [ns, name] = table.dataset.placement.split("/");
  const show = async (row) => {
    table.querySelectorAll("tr.active").forEach((r) => r.classList.remove("active"));
    row.classList.add("active");
    const cluster = row.dataset.cluster;
    panel.hidden = false;
    panel.replaceChildren(el("h3", {}, `Why not ${cluster}?`), el("p", { class: "muted" }, "Scheduling again with each change…"));
    try {
      const answer = await api(`/api/placements/${encodeURIComponent(ns)}/${encodeURIComponent(name)}/why-not/${encodeURIComponent(cluster)}`);
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
      panel.replaceChildren(el("p", { class: "error" }, String(err.message)));
    }
  };
  table.querySelectorAll("tr.rejected").forEach((row) => {
    row.addEventListener("click", () => show(row));
    row.addEventListener("keydown", (ev) => { if (ev.key === "Enter") show(row); });
  });
}

// -- heatmap: one canvas, not a million nodes ------------------------------------------
async function heatmapPage() {
  const data = await api("/api/heatmap");
  const canvas = $("#heatmap");
  const info = $("#heat-info");
  const cols = data.clusters.length, rows = data.rows.length;
  const cell = Math.max(1, Math.min(22, Math.floor(1400 / Math.max(cols, 1)), Math.floor(2000 / Math.max(rows, 1))));
  const left = cell >= 8 ? 170 : 0, top = cell >= 8 ? 110 : 0;
  canvas.width = left + cols * cell + (left ? 90 : 2);
  canvas.height = top + rows * cell + 2;
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  let lo = Infinity, hi = -Infinity;
  for (const r of data.rows) for (const [, t] of r.cells) { lo = Math.min(lo, t); hi = Math.max(hi, t); }
  const span = hi > lo ? hi - lo : 1;
  const grid = data.rows.map(() => new Map());
  data.rows.forEach((r, y) => {
    for (const [x, t] of r.cells) {
      grid[y].set(x, t);
      const f = (t - lo) / span;
      ctx.fillStyle = `hsl(210 70% ${92 - f * 57}%)`;
      ctx.fillRect(left + x * cell, top + y * cell, cell, cell);
    }
    if (cell >= 3) {
      ctx.strokeStyle = "#1d2330"; ctx.lineWidth = cell >= 8 ? 2 : 1;
      for (const x of r.selected) ctx.strokeRect(left + x * cell + 1, top + y * cell + 1, cell - 2, cell - 2);
    } else {
      ctx.fillStyle = "#1d2330";
      for (const x of r.selected) ctx.fillRect(left + x * cell, top + y * cell, cell, cell);
    }
  });
  if (left) {
    ctx.fillStyle = "#344054"; ctx.font = "12px system-ui, sans-serif"; ctx.textBaseline = "middle";
    data.rows.forEach((r, y) => ctx.fillText(r.placement, 4, top + y * cell + cell / 2, left - 8));
    ctx.save();
    data.clusters.forEach((c, x) => {
      ctx.save(); ctx.translate(left + x * cell + cell / 2, top - 6); ctx.rotate(-Math.PI / 3);
      ctx.fillText(c, 0, 0, top * 1.1); ctx.restore();
    });
    ctx.restore();
  }
  canvas.dataset.rendered = `${rows}x${cols}`;
  const at = (ev) => {
    const box = canvas.getBoundingClientRect();
    const x = Math.floor((ev.clientX - box.left - left) / cell), y = Math.floor((ev.clientY - box.top - top) / cell);
    return x >= 0 && y >= 0 && x < cols && y < rows ? [x, y] : null;
  };
  canvas.addEventListener("mousemove", (ev) => {
    const hit = at(ev);
    if (!hit) { info.textContent = "\u00a0"; return; }
    const [x, y] = hit, r = data.rows[y], t = grid[y].get(x);
    const chosen = r.selected.includes(x) ? " · selected" : "";
    info.textContent = `${r.placement} × ${data.clusters[x]}: ${t === undefined ? "not feasible" : "score " + t}${chosen}`;
  });
  canvas.addEventListener("click", (ev) => {
    const hit = at(ev);
    if (hit) location.href = `/placements/${data.rows[hit[1]].placement}`;
  });
}

// -- what-if: edits in sessionStorage only --------------------------------------------
const KEY = "clusterplace.what-if";
const loadEdits = () => JSON.parse(sessionStorage.getItem(KEY) || "[]");
const saveEdits = (edits) => sessionStorage.setItem(KEY, JSON.stringify(edits));

function whatIfPage() {
  const kind = $("#edit-kind"), cluster = $("#edit-cluster"), placement = $("#edit-placement");
  const key = $("#edit-key"), value = $("#edit-value"), error = $("#edit-error");
  const hints = {
    label: ["label key", "value"], claim: ["claim name", "value"], taint: ["key", "value:NoSelect"],
    count: ["", "number"], predicate: ["", "env=prod,tier in (gold)"], weight: ["Balance | Steady | AddOn/RES/SCORE", "weight -10..10"],
  };
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
  const add = (op, expr) => { const edits = loadEdits(); edits.push({ op, expression: expr }); saveEdits(edits); refresh(); };
  $("#edit-form").addEventListener("submit", (ev) => { ev.preventDefault(); add("set", expression(false)); });
  $("#edit-unset").addEventListener("click", () => add("unset", expression(true)));
  $("#edit-raw-add").addEventListener("click", () => {
    const raw = $("#edit-raw").value.trim();
    if (raw) add(raw.includes("=") ? "set" : "unset", raw);
  });
  $("#edits-clear").addEventListener("click", () => { saveEdits([]); $("#patch").hidden = true; refresh(); });
  $("#edits-export").addEventListener("click", async () => {
    const result = await compute();
    if (!result) return;
    const pre = $("#patch"); pre.hidden = false; pre.textContent = result.patch || "# no edits";
    const link = el("a", { href: URL.createObjectURL(new Blob([result.patch], { type: "application/yaml" })), download: "what-if-patch.yaml" }, "download");
    pre.after(link);
  });
  const compute = async () => {
    const edits = loadEdits();
    const body = { set: edits.filter((e) => e.op === "set").map((e) => e.expression), unset: edits.filter((e) => e.op === "unset").map((e) => e.expression) };
    error.hidden = true;
    try { return await api("/api/what-if", { method: "POST", body: JSON.stringify(body) }); }
    catch (err) { error.hidden = false; error.textContent = err.message; return null; }
  };
  const refresh = async () => {
    const edits = loadEdits();
    const list = $("#edits");
    list.replaceChildren(...edits.map((e, i) => {
      const drop = el("button", { type: "button", class: "small", "aria-label": "remove edit" }, "✕");
      drop.addEventListener("click", () => { const all = loadEdits(); all.splice(i, 1); saveEdits(all); refresh(); });
      return el("li", {}, el("code", {}, `--${e.op} ${e.expression}`), " ", drop);
    }));
    const table = $("#diff"), summary = $("#diff-summary");
    if (!edits.length) { table.hidden = true; summary.textContent = "No edits yet."; return; }
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
function livePage() {
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
        body.prepend(el("tr", {}, el("td", { class: "small" }, e.series?.lastObservedTime || e.eventTime || ""), el("td", {}, `${e.metadata?.namespace}/${e.regarding?.name ?? ""}`),
          el("td", {}, e.type || ""), el("td", {}, e.reason || ""), el("td", { class: "small" }, e.note || "")));
      }
      while (body.rows.length > 1000) body.lastElementChild.remove(); // the newest 1,000 stay
    } finally { setTimeout(tick, 2000); }
  };
  tick();
}

// -- modules: the plan matrix -----------------------------------------------------------
async function modulesPage() {
  const data = await api("/api/modules");
  const table = $("#module-matrix");
  table.querySelector("thead").replaceChildren(el("tr", {}, el("th", {}, "Definition"), ...data.clusters.map((c) => el("th", {}, c))));
  table.querySelector("tbody").replaceChildren(...data.definitions.map((d) => el("tr", {},
    el("td", { class: "name" }, `${d.kind}/${d.name}`),
    ...d.verdicts.map((v) => el("td", { class: v.eligible ? "yes" : "no", title: v.reason }, v.eligible ? "✓" : "✗")))));
}

const pages = { placement: placementPage, heatmap: heatmapPage, "what-if": whatIfPage, live: livePage, modules: modulesPage };
document.addEventListener("DOMContentLoaded", () => { const run = pages[document.body.dataset.page]; if (run) run(); });
