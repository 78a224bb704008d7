// spindle serve's only script: what the page does between requests. The pages work without
// it; it says how many runs are ticked, keeps the list of runs in progress current, and draws
// a live run's series as its points arrive (polling once a second).
"use strict";

const POLL_MS = 1000;
const SVG = "http://www.w3.org/2000/svg";

function updatePicked() {
  const pick = document.getElementById("pick");
  if (!pick) return;
  const ticked = (name) => document.querySelectorAll(`input[form="pick"][name="${name}"]:checked`).length;
  const a = ticked("a"), b = ticked("b");
  document.getElementById("compare").disabled = a === 0 || b === 0;
  document.getElementById("download").disabled = a + b === 0;
  document.getElementById("picked").textContent =
    a + b === 0 ? "Tick runs in A and B to compare; a download takes every ticked run." : `A: ${a} run(s), B: ${b} run(s)`;
}

async function fetchJson(url) {
  const r = await fetch(url, { cache: "no-store" });
  return r.ok ? r.json() : null;
}

// The runs page: the list of runs in progress, redrawn from /api/live (a run's agents under
// it, as the server drew them); when one ends, the page reloads to show its saved record
// (unless runs are ticked, which a reload would lose).
function watchRunning(section) {
  let shown = section.querySelectorAll("li[data-live]").length;
  const row = (r, words) => {
    const li = document.createElement("li");
    li.dataset.live = r.id;
    const a = document.createElement("a");
    a.href = `/live/${r.id}`;
    a.textContent = words;
    li.append(a);
    return li;
  };
  setInterval(async () => {
    const live = await fetchJson("/api/live");
    if (!live) return;
    const ticked = document.querySelectorAll('input[form="pick"]:checked').length;
    if (live.runs.length < shown && ticked === 0) {
      location.reload();
      return;
    }
    shown = live.runs.length;
    section.replaceChildren();
    if (live.runs.length === 0) return;
    const h = document.createElement("h2");
    h.textContent = "In progress";
    const ul = document.createElement("ul");
    const runs = new Map();
    for (const r of live.runs) runs.set(r.run, [...(runs.get(r.run) || []), r]);
    for (const agents of runs.values()) {
      if (agents.length === 1) {
        const li = row(agents[0], agents[0].what);
        li.append(` on ${agents[0].hostname}: ${agents[0].state}`);
        ul.append(li);
        continue;
      }
      const li = document.createElement("li");
      li.append(`${agents[0].what}, by ${agents.length} agents:`);
      const under = document.createElement("ul");
      for (const r of agents) {
        const agent = row(r, r.hostname);
        agent.append(`: ${r.state}`);
        under.append(agent);
      }
      li.append(under);
      ul.append(li);
    }
    section.append(h, ul);
  }, POLL_MS);
}

function svgEl(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// A line of operations/s over seconds, drawn like the report's line charts.
function drawSeries(svg, points) {
  const W = 760, H = 260, left = 70, bottom = 30, top = 10, right = 20;
  svg.replaceChildren();
  if (points.length === 0) return;
  const maxX = Math.max(1, ...points.map((p) => p[0]));
  // A round top and round steps (1, 2 or 5 times a power of ten), as the report's axes.
  const rough = Math.max(1, ...points.map((p) => p[1])) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const maxY = Math.ceil((rough * 4) / step) * step;
  const x = (v) => left + (v / maxX) * (W - left - right);
  const y = (v) => H - bottom - (v / maxY) * (H - bottom - top);
  svg.append(svgEl("path", { class: "ax", d: `M${left},${top}V${H - bottom}H${W - right}` }));
  for (let v = 0; v <= maxY + step / 2; v += step) {
    svg.append(svgEl("text", { x: left - 6, y: y(v) + 4, class: "l axis" }, Math.round(v).toLocaleString("en")));
  }
  svg.append(svgEl("text", { x: left, y: H - 8, class: "m axis" }, "0 s"));
  svg.append(svgEl("text", { x: W - right, y: H - 8, class: "l axis" }, `${Math.round(maxX)} s`));
  const d = points.map((p, i) => `${i ? "L" : "M"}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join("");
  svg.append(svgEl("path", { class: "s0", d, "data-points": points.length }));
  for (const p of points) svg.append(svgEl("circle", { cx: x(p[0]).toFixed(1), cy: y(p[1]).toFixed(1), r: 2 }));
}

function watchLive(svg) {
  const state = document.getElementById("live-state");
  const poll = async () => {
    const live = await fetchJson(`/api/live/${svg.dataset.live}`);
    if (!live || !live.run) {
      const saved = live && live.saved_run;
      state.textContent = saved ? `Finished: saved as run ${saved}. ` : "Finished: its record is saved with the stored runs. ";
      const a = document.createElement("a");
      a.href = saved ? `/run/${saved}` : "/";
      a.textContent = saved ? `See run ${saved}.` : "See the runs.";
      state.append(a);
      return;
    }
    state.textContent = live.run.state;
    drawSeries(svg, live.run.points);
    if (!live.run.stopped) setTimeout(poll, POLL_MS);
  };
  poll();
}

document.addEventListener("DOMContentLoaded", () => {
  document.addEventListener("change", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.form && e.target.form.id === "pick") updatePicked();
  });
  updatePicked();
  const running = document.getElementById("running");
  if (running) watchRunning(running);
  const chart = document.getElementById("live-chart");
  if (chart) watchLive(chart);
});
