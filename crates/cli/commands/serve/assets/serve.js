// spindle serve's only script: what the page does between requests. The pages work without
// it; it says how many runs are ticked and enables the buttons that need them.
"use strict";

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

document.addEventListener("DOMContentLoaded", () => {
  document.addEventListener("change", (e) => {
    if (e.target instanceof HTMLInputElement && e.target.form && e.target.form.id === "pick") updatePicked();
  });
  updatePicked();
});
