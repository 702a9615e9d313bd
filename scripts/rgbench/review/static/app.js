// rgbench review: keyboard-first grading. Served from the app with the page's token; no inline script.
"use strict";
(function () {
  const token = new URLSearchParams(window.location.search).get("token") || "";
  const form = document.getElementById("grade");
  const next = document.getElementById("next");
  const back = document.getElementById("back") || document.getElementById("queue-link");
  // plain n (next run, on the queue) and q (back to the queue), except while typing text
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    const typing = target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      (target.tagName === "INPUT" && !/^(radio|checkbox)$/.test(target.type));
    if (typing || event.ctrlKey || event.metaKey || event.altKey) { return; }
    const link = event.key === "n" ? next : event.key === "q" ? back : null;
    if (link) { event.preventDefault(); window.location.href = link.href; }
  });
  if (!form) {
    if (next || back) { (next || back).focus(); }
    return;
  }
  const messages = document.getElementById("messages");
  const saved = document.getElementById("saved");
  const groups = Array.from(form.querySelectorAll("fieldset.criterion"));

  // A criterion on a decimal scale is one number field (min, max and step from the schema); else radio buttons.
  function focusGroup(group) {
    const field = group.querySelector("input[type=number]");
    (field || group).focus();
  }

  function collect() {
    const scores = {};
    form.querySelectorAll("fieldset[data-criterion]").forEach(function (group) {
      const field = group.querySelector("input[type=number]");
      const checked = group.querySelector("input:checked");
      scores[group.dataset.criterion] = field ? (field.value === "" ? null : field.value) : (checked ? checked.value : null);
    });
    // a radio per value of the schema's enum, or a number field when the schema gives none (none at all when the
    // benchmark records no correctness)
    const correctness = form.querySelector("input[name=correctness]:checked") ||
      form.querySelector("input[type=number][name=correctness]");
    const fails = Array.from(form.querySelectorAll("input[name=fail]:checked")).map(function (box) {
      const evidence = form.querySelector("textarea[data-evidence-for='" + box.value + "']");
      return {code: box.value, evidence: evidence ? evidence.value : ""};
    });
    return {handle: form.dataset.handle, criterion_scores: scores,
            correctness: correctness && correctness.value !== "" ? correctness.value : null, fails: fails,
            comments: document.getElementById("comments").value, filters: form.dataset.filters};
  }

  function post(path, body) {
    return fetch(path + "?token=" + encodeURIComponent(token), {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": form.dataset.csrf},
      body: JSON.stringify(body)
    }).then(function (response) { return response.json(); });
  }

  function show(list) {
    messages.replaceChildren();
    list.forEach(function (text) {
      const item = document.createElement("li");
      item.textContent = text;
      messages.appendChild(item);
    });
    form.classList.toggle("invalid", list.length > 0);
  }

  // Messages appear only once a save was tried; from then on every change checks the form again.
  let tried = false;
  let timer = null;
  let checks = 0;
  function validateSoon() {
    if (!tried) { return; }
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      const mine = ++checks;
      post("/api/validate", collect()).then(function (answer) {
        if (mine === checks) { show(answer.messages || []); }
      });
    }, 150);
  }

  function save() {
    tried = true;
    window.clearTimeout(timer);
    checks++;
    saved.textContent = "saving…";
    post("/api/save", collect()).then(function (answer) {
      if (answer.saved) {
        saved.textContent = "saved " + answer.saved;
        form.dataset.saved = answer.saved;
        window.location.href = answer.next + (answer.next.indexOf("?") < 0 ? "?" : "&") +
          "token=" + encodeURIComponent(token) + (form.dataset.filters ? "&" + form.dataset.filters : "");
      } else {
        saved.textContent = "not saved";
        show(answer.messages || ["not saved"]);
      }
    });
  }

  // A digit that is not a level says which are (beside the criterion, until a level is set)
  function hint(group, key) {
    let note = group.querySelector(".key-hint");
    if (!note) {
      note = document.createElement("p");
      note.className = "key-hint";
      note.setAttribute("role", "status");
      group.appendChild(note);
    }
    const correctness = Boolean(group.dataset.correctness);
    const keys = Array.from(group.querySelectorAll("input[type=radio]"), function (r) { return r.value; })
      .sort(function (a, b) { return a - b; })
      .map(function (v) { return correctness && v === "0.5" ? "5 for 0.5" : v; });
    note.textContent = key === null ? "" : key + " is not a " +
      (correctness ? "key of correctness (keys: " : "level of this criterion (levels: ") + keys.join(", ") + ")";
  }

  groups.forEach(function (group, index) {
    group.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) { return; }
      if (group.querySelector("input[type=number]")) {
        // a decimal score is typed into its field; Enter moves on to the next criterion instead of saving
        if (event.key === "Enter") {
          event.preventDefault();
          const after = groups[index + 1];
          if (after) { focusGroup(after); } else { (document.getElementById("fails").querySelector("input") || group).focus(); }
        }
        return;
      }
      let value = event.key;
      if (group.dataset.correctness && (value === "5" || value === ".")) { value = "0.5"; }
      const radio = group.querySelector("input[value='" + value + "']");
      if (!radio) {
        if (/^[0-9]$/.test(event.key)) { hint(group, event.key); }
        return;
      }
      event.preventDefault();
      hint(group, null);
      radio.checked = true;
      validateSoon();
      const following = groups[index + 1];
      if (following) { focusGroup(following); return; }
      (document.getElementById("fails").querySelector("input") || group).focus();
    });
  });

  form.querySelectorAll("input[name=fail]").forEach(function (box) {
    box.addEventListener("change", function () {
      const evidence = form.querySelector("textarea[data-evidence-for='" + box.value + "']");
      evidence.hidden = !box.checked;
      if (box.checked) { evidence.focus(); }
    });
  });
  form.addEventListener("input", validateSoon);
  form.addEventListener("change", validateSoon);
  form.addEventListener("submit", function (event) { event.preventDefault(); save(); });
  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") { event.preventDefault(); save(); }
  });
  if (groups.length) { focusGroup(groups[0]); }
})();
