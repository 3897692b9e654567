// git nudge dashboard. Plain DOM, no framework. Everything from the
// workspace (notes, labels, paths, patches) is untrusted: it only ever goes
// into textContent, never into HTML.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { page: "tasks", tasks: [], selected: null, status: null, busy: false };

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  if (props) for (const [k, v] of Object.entries(props)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "disabled") e.disabled = !!v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

// ---- the token ----
// The address git nudge dashboard prints carries the token, and it stays
// in the address bar: the server lets the page, its script and style in
// only with it (the HTML it serves names them with the token), so a
// reload works. The page sends it as an Authorization header with every
// API request and the event stream. No cookie: cookies are not scoped by
// port, so any server on 127.0.0.1 would get it.
const token = (() => {
  const q = new URLSearchParams(location.search);
  const t = q.get("token") || "";
  const page = q.get("page");
  if (t && page) {
    // ?page=checkpoints becomes #checkpoints; the token stays.
    history.replaceState(null, "", "/?token=" + encodeURIComponent(t) + (page === "checkpoints" || page === "operations" ? "#" + page : location.hash));
  }
  return t;
})();
function authHeaders(extra) {
  return Object.assign({ "Authorization": "Bearer " + token }, extra || {});
}

// What the page says when the server is gone or no longer knows the
// token (it was restarted: each start makes a new token).
const NO_ANSWER = "The dashboard did not answer: it stopped or restarted. Start it again if needed (git nudge dashboard) and open the address it printed; then check here what this click did.";
const NEW_TOKEN = "The dashboard restarted (this page's token is no longer valid): open the new address it printed.";
function gone(msg) {
  const b = $("#gone");
  b.textContent = msg;
  b.hidden = false;
  $("#live").textContent = "disconnected";
  $("#live").classList.remove("on");
  $("#live").classList.add("gone");
}

const lost = (r) => r.status === 0 || r.status === 401;

async function api(method, path, data) {
  const headers = authHeaders({ "Accept": "application/json" });
  const init = { method, credentials: "omit", headers };
  if (data !== undefined) { headers["Content-Type"] = "application/json"; init.body = JSON.stringify(data); }
  let r;
  try { r = await fetch(path, init); }
  catch (_) { return { ok: false, status: 0, body: { error: NO_ANSWER } }; }
  let body = null;
  try { body = await r.json(); } catch (_) { body = null; }
  if (r.status === 401) { gone(NEW_TOKEN); body = { error: NEW_TOKEN }; }
  return { ok: r.ok, status: r.status, body };
}

// ---- results where the click was ----
// place puts a result, refusal or confirmation right after the element
// that caused it, scrolls it into view and moves focus to it, so that a
// click never seems to do nothing.
function place(box, after) {
  if (!box.hasAttribute("tabindex")) box.setAttribute("tabindex", "-1");
  if (after && after.isConnected) after.after(box);
  reveal(box);
  return box;
}
function reveal(node) {
  if (!node || !node.isConnected) return;
  node.focus({ preventScroll: true });
  node.scrollIntoView({ block: "nearest" });
}
// confirmBox asks before a step that is hard to take back: text, then a
// button that does it and one that does not. Focus goes to the question.
function confirmBox(text, yes, onYes, onNo, extra) {
  const box = el("div", { class: "confirm", role: "group", "aria-label": "Confirm" });
  box.append(el("div", { class: "question", text }));
  if (extra) box.append(extra);
  box.append(el("div", { class: "buttons" },
    el("button", { class: "danger confirm-yes", text: yes, onclick: (ev) => { ev.stopPropagation(); onYes(); } }),
    el("button", { class: "confirm-no", text: "Cancel", onclick: (ev) => { ev.stopPropagation(); onNo(); } })));
  box.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.stopPropagation(); onNo(); } });
  return box;
}
// keepFocus redraws rows with draw() and, when a row of body had the
// focus, gives it to the new row with the same data-id.
function keepFocus(body, draw) {
  const a = document.activeElement;
  const inside = a && a !== document.body && body.contains(a);
  const id = inside && a.parentNode === body && a.dataset ? a.dataset.id : null;
  // Focus elsewhere (on a narrow page, the diff below the list) stays
  // where the reader sees it when the redrawn rows change height.
  if (!inside) { holdPlace(draw); return; }
  draw();
  if (document.activeElement === a) return;
  // A result or question moved into a redrawn row keeps the focus.
  if (a.isConnected) { a.focus({ preventScroll: true }); return; }
  if (id) {
    const tr = body.querySelector('tr[data-id="' + CSS.escape(id) + '"]');
    if (tr) tr.focus({ preventScroll: true });
  }
}
// holdPlace runs draw() and then scrolls the page so that the focused
// element, when it survived the redraw, is where it was on the screen:
// content drawn or removed above it does not carry it out of view.
function holdPlace(draw) {
  const a = document.activeElement;
  const top = a && a !== document.body ? a.getBoundingClientRect().top : null;
  draw();
  if (top === null || !a.isConnected) return;
  const moved = a.getBoundingClientRect().top - top;
  if (moved) window.scrollBy(0, moved);
}
// onRows makes a table body's rows act on click and on Enter (or Space)
// when the row itself has the focus; clicks in a row's buttons or inline
// boxes are theirs.
function onRows(body, act) {
  body.addEventListener("click", (ev) => {
    if (ev.target.closest("button, a, .confirm, .result, .inline")) return;
    const tr = ev.target.closest("tr");
    if (tr && tr.dataset.id) act(tr);
  });
  body.addEventListener("keydown", (ev) => {
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.tagName === "TR" && ev.target.dataset.id) {
      ev.preventDefault();
      act(ev.target);
    }
  });
}

// ---- long lists ----
// A list longer than a few hundred rows is drawn as a window: the rows in
// view and a margin around them, between two spacer rows (one in thead,
// one in tfoot, so "tbody tr" is always a real row) that stand for the
// rest. Scrolling moves the window. Ten thousand checkpoints then cost
// the page a hundred rows, not ten thousand.
const WHOLE = 300; // up to this many rows, all are drawn
const views = new Map();
function spacerRow(section, cols) {
  const td = el("td", { class: "spacer" });
  td.colSpan = cols;
  section.append(el("tr", { class: "spacer", "aria-hidden": "true" }, td));
  return td;
}
function showRows(table, items, makeRow) {
  let v = views.get(table);
  if (!v) {
    const cols = table.tHead.rows[0].cells.length;
    v = { table, body: table.tBodies[0], rowH: 0 };
    v.top = spacerRow(table.tHead, cols);
    v.bottom = spacerRow(table.tFoot || table.createTFoot(), cols);
    views.set(table, v);
  }
  v.items = items;
  v.makeRow = makeRow;
  v.from = v.to = -1;
  drawRows(v);
}
function drawRows(v) {
  const n = v.items.length;
  let from = 0, to = n;
  const h = v.rowH || 30;
  if (n > WHOLE) {
    const first = Math.min(n - 1, Math.max(0, Math.floor(-v.table.tHead.rows[0].getBoundingClientRect().bottom / h)));
    const last = first + Math.ceil(window.innerHeight / h);
    // Keep the window while the rows in view stay well inside it.
    if (v.from >= 0 && (first - v.from >= 20 || v.from === 0) && (v.to - last >= 20 || v.to === n)) return;
    from = Math.max(0, first - 60);
    to = Math.min(n, last + 60);
  }
  v.from = from;
  v.to = to;
  // The rows are made inside keepFocus's draw: a row may take over a
  // node shown in the old one (a question, a result), and moving it out
  // of the page must come after keepFocus noted that it had the focus.
  keepFocus(v.body, () => {
    const frag = document.createDocumentFragment();
    for (let i = from; i < to; i++) frag.append(v.makeRow(v.items[i]));
    v.body.replaceChildren(frag);
  });
  if (n > WHOLE && !v.rowH && v.body.firstChild) {
    v.rowH = v.body.firstChild.getBoundingClientRect().height || 30;
    if (v.rowH !== h) { v.from = -1; drawRows(v); return; }
  }
  v.top.style.height = (from * h) + "px";
  v.bottom.style.height = ((n - to) * h) + "px";
}
let drawing = false;
function onScroll() {
  if (drawing) return;
  drawing = true;
  requestAnimationFrame(() => {
    drawing = false;
    for (const v of views.values()) if (v.items.length > WHOLE && v.table.offsetParent) drawRows(v);
  });
}
window.addEventListener("scroll", onScroll, { passive: true });
window.addEventListener("resize", onScroll);

// ---- ages, labels ----
// The wording of internal/age.Since, which the command line's lists use.
function ago(iso, now) {
  const t = Date.parse(iso);
  if (isNaN(t)) return "—";
  const s = ((now || Date.now()) - t) / 1000;
  if (s < 60) return "just now";
  if (s < 3600) return Math.floor(s / 60) + "m ago";
  if (s < 2 * 86400) return Math.floor(s / 3600) + "h ago";
  return Math.floor(s / 86400) + "d ago";
}
const stateLabel = (s) => s === "recovery_required" ? "Recovery required" : s;
const branchLabel = (b) => b == null ? "(detached HEAD)" : b.replace(/^refs\/heads\//, "");
const mark = (t) => t === "baseline" ? "─" : t === "pre-restore" ? "⤿" : "✔";
const orDash = (s) => (s == null || s === "") ? "—" : s;
const short = (c) => (c || "").slice(0, 7);
function noteOf(t) {
  if (t.note) return t.note.split("\n")[0];
  if (t.command && t.command.length) return "$ " + shellJoin(t.command);
  return "";
}

// An error document {"error","reasons","next","exit"} shown as the command
// line shows it: the message, then every reason, then what to do next.
function errorBox(doc, prefix) {
  const box = el("div", { class: "result bad" });
  const msg = doc && doc.error ? doc.error : "the server did not answer";
  box.append(el("div", { class: "msg", text: (prefix || "") + msg }));
  if (doc && doc.reasons && doc.reasons.length) {
    box.append(el("ul", null, ...doc.reasons.map((r) => el("li", { text: r }))));
  }
  if (doc && doc.next) box.append(el("div", { class: "next", text: doc.next }));
  return box;
}

// ---- pages ----
function showPage() {
  const p = (location.hash || "#tasks").slice(1);
  state.page = ["tasks", "checkpoints", "operations"].includes(p) ? p : "tasks";
  for (const name of ["tasks", "checkpoints", "operations"]) {
    $("#page-" + name).hidden = name !== state.page;
    $("#nav-" + name).classList.toggle("on", name === state.page);
  }
  refresh();
}

async function refresh() {
  if (state.page === "tasks") await loadTasks();
  else if (state.page === "checkpoints") await loadCheckpoints();
  else if (state.page === "operations") await loadOps();
}

// ---- tasks ----
// Loads overlap (a live update while a click's reload runs): an answer
// that a later load overtook is dropped, so older data never replaces
// newer rows (and the result shown in one of them).
const loads = { tasks: 0, checkpoints: 0, ops: 0 };
async function loadTasks() {
  loadTaskCommands();
  const seq = ++loads.tasks;
  const [x, r] = await Promise.all([api("GET", "/api/nudge/executor"), api("GET", "/api/nudge/tasks")]);
  if (seq !== loads.tasks) return; // a later load draws
  state.executing = x.ok && x.body.executing;
  const note = $("#executor-note");
  note.hidden = !x.ok || x.body.executing;
  if (x.ok) note.textContent = "Queued tasks are not run by this dashboard: " + x.body.reason + ".";
  const body = $("#tasks tbody");
  // A server gone or restarted: the banner says so; the page keeps what
  // it shows.
  if (lost(r) || lost(x)) { gone(lost(r) ? r.body.error : x.body.error); return; }
  if (!r.ok) { body.replaceChildren(); $("#task").replaceChildren(errorBox(r.body)); return; }
  state.tasks = r.body;
  const tpl = el("tr", { tabindex: "0" }, el("td", { class: "id" }), el("td", null, el("span", { class: "state" })), el("td"), el("td"), el("td"), el("td", { class: "wide" }));
  const now = Date.now();
  const frag = document.createDocumentFragment();
  for (const t of r.body) {
    const tr = tpl.cloneNode(true);
    tr.setAttribute("data-id", t.id);
    let c = tr.firstChild;
    c.textContent = t.id;
    c = c.nextSibling;
    c.firstChild.className = "state " + t.state;
    c.firstChild.textContent = stateLabel(t.state) + (validationFailed(t) ? " (validation failed)" : "");
    c = c.nextSibling;
    c.textContent = ago(t.created, now);
    c = c.nextSibling;
    c.textContent = t.result ? countFiles((t.files || []).length) : "";
    c = c.nextSibling;
    c.textContent = branchLabel(t.branch);
    c.nextSibling.textContent = noteOf(t);
    tr.setAttribute("aria-label", t.id + ", " + stateLabel(t.state) + (validationFailed(t) ? " (validation failed)" : "") + ": " + noteOf(t));
    if (t.id === state.selected) tr.className = "sel";
    frag.append(tr);
  }
  keepFocus(body, () => body.replaceChildren(frag));
  $("#tasks-empty").hidden = r.body.length > 0;
  if (state.selected) {
    const t = r.body.find((x) => x.id === state.selected);
    if (!t) { state.selected = null; $("#task").replaceChildren(el("p", { class: "note", text: "That task is gone." })); }
    else if (!state.busy) {
      // The list's records leave out the review comments: the open task
      // is drawn from its whole record (as selectTask does), so a live
      // update never draws it without them.
      const full = await api("GET", "/api/nudge/tasks/" + encodeURIComponent(t.id));
      if (seq !== loads.tasks || state.busy || state.selected !== t.id) return;
      await renderTask(full.ok ? full.body : t, false);
    }
  }
}

// New task: the commands of git config nudge.command.<name>, queued as
// git nudge queue would and run by the server's executor. The page sends
// a name, never a command.
async function loadTaskCommands() {
  const r = await api("GET", "/api/nudge/commands");
  const panel = $("#newtask");
  if (lost(r)) return;
  const none = !r.ok || !r.body.commands.length;
  panel.hidden = none;
  $("#newtask-hint").hidden = !none || !r.ok;
  if (none) return;
  const off = !r.body.execution;
  const key = JSON.stringify(r.body);
  if (panel.dataset.key === key) return;
  panel.dataset.key = key;
  $("#newtask-buttons").replaceChildren(...r.body.commands.map((c) =>
    el("button", { "data-name": c.name, text: c.name, title: off ? "the dashboard was started with --no-execution" : "Queue a task that runs: " + c.command,
      disabled: off, onclick: () => newTask(c.name) })));
}

async function newTask(name) {
  const r = await api("POST", "/api/nudge/queue/" + encodeURIComponent(name));
  let box;
  if (r.ok) {
    const who = state.executing ? "this dashboard runs it next" : "git nudge work runs it";
    box = el("div", { class: "result", text: "Queued " + r.body.id + " (" + name + "): " + who + "." });
  } else box = errorBox(r.body, "New task " + name + ": ");
  box.id = "newtask-result";
  $("#newtask-result").replaceWith(box);
  if (r.ok) { state.selected = r.body.id; await selectTask(r.body.id); }
  await loadTasks();
}

async function selectTask(id) {
  state.selected = id;
  for (const tr of document.querySelectorAll("#tasks tbody tr")) tr.classList.toggle("sel", tr.dataset.id === id);
  // A task with a result: its diff is asked for together with its record
  // (renderDiff takes that answer), not one round trip after it.
  const listed = state.tasks.find((x) => x.id === id);
  state.diffFetch = listed && listed.result ? { id, result: listed.result, answer: api("GET", "/api/nudge/tasks/" + encodeURIComponent(id) + "/diff") } : null;
  const r = await api("GET", "/api/nudge/tasks/" + encodeURIComponent(id));
  if (!r.ok) { const box = errorBox(r.body); $("#task").replaceChildren(box); place(box, null); return; }
  await renderTask(r.body, true);
}
// openTask is a row's click or Enter: the task opens in the detail pane;
// when the pane is below the list (narrow screens), it is brought into
// view and its title takes the focus.
async function openTask(id) {
  performance.mark("task:open");
  await selectTask(id);
  const pane = $("#task");
  const top = pane.getBoundingClientRect().top;
  if (top >= window.innerHeight * 0.6 || top < 0) {
    const h = $("#task-title");
    h.focus({ preventScroll: true });
    h.scrollIntoView({ block: "start" });
  }
}

const validationFailed = (t) => !!(t.validation && t.validation.state === "failed");
const can = {
  apply: (s) => s === "ready" || s === "undone",
  undo: (s) => s === "applied",
  save: (s) => s === "applied",
  drop: (s) => !["applying", "undoing", "recovery_required", "applied", "running", "preparing", "validating"].includes(s),
};

let shownTask = "";
let renders = 0; // renderTask calls so far: a diff fetched for an older one is not drawn
let lastComments = { id: null, list: [] };
async function renderTask(t, fresh) {
  const pane = $("#task");
  // A record without "comments" (the list's) keeps the ones last shown.
  if (t.comments === undefined && lastComments.id === t.id) t = Object.assign({}, t, { comments: lastComments.list });
  else if (t.comments !== undefined) lastComments = { id: t.id, list: t.comments };
  // A change of the comments alone redraws the comments, not the diff.
  const key = JSON.stringify(Object.assign({}, t, { comments: null, updated: null }));
  if (!fresh && key === shownTask) {
    const c = $("#comments");
    if (c && c.dataset.key !== JSON.stringify(t.comments || [])) renderComments(t, null);
    return;
  }
  shownTask = key;
  const seq = ++renders;
  // Redrawing the task already shown keeps its diff on the page until the
  // new one is drawn: what it holds (a file's result, the focus, the place
  // scrolled to) does not vanish for the time of a fetch.
  const shown = pane.querySelector("#diff");
  const oldDiff = shown && shown.dataset.task === t.id && t.result && t.state !== "recovery_required" ? shown : null;
  const keepResult = fresh ? null : pane.querySelector("#action-result");
  const fields = el("dl", { class: "fields" });
  const field = (k, v) => { if (v != null && v !== "") fields.append(el("dt", { text: k }), el("dd", { text: v })); };
  field("state", stateLabel(t.state));
  field("note", t.note);
  field("created", t.created);
  field("branch", branchLabel(t.branch));
  field("head", t.head || "(no commit yet)");
  field("snapshot", t.snapshot + (t.clean ? " (clean)" : " (dirty)"));
  field("worktree", t.worktree);
  if (t.command && t.command.length) field("command", shellJoin(t.command) + (t.exit_code != null ? "  (exit status " + t.exit_code + ")" : ""));
  field("result", t.result);
  field("applied", t.applied_at);
  field("undone", t.undone_at);
  field("saved in", t.saved_in);
  field("error", t.error);
  const recovery = t.state === "recovery_required";
  const buttons = el("div", { class: "buttons", id: "task-buttons" });
  if (!recovery) {
    buttons.append(
      el("button", { id: "btn-apply", class: "primary", text: "Apply", disabled: !can.apply(t.state) || validationFailed(t), "aria-describedby": validationFailed(t) ? "apply-why" : null, onclick: () => act(t.id, "apply") }),
      el("button", { id: "btn-undo", text: "Undo", disabled: !can.undo(t.state), onclick: () => act(t.id, "undo") }),
      el("button", { id: "btn-save", text: "Save version", disabled: !can.save(t.state), onclick: () => act(t.id, "save") }),
      el("button", { id: "btn-drop", text: "Drop", disabled: !can.drop(t.state), onclick: () => askDrop(t.id) }));
  }
  // What is redrawn sits above a kept diff: a focused line or file title
  // in that diff stays where it was on the screen.
  holdPlace(() => {
    for (const c of [...pane.children]) if (c !== oldDiff && c !== keepResult) c.remove();
    const add = (n) => pane.insertBefore(n, oldDiff);
    add(el("h2", { id: "task-title", tabindex: "-1", text: t.id + " · " + stateLabel(t.state) + (validationFailed(t) ? " (validation failed)" : "") }));
    add(fields);
    add(buttons);
    if (validationFailed(t) && can.apply(t.state)) {
      buttons.after(el("p", { id: "apply-why", class: "disabled-note", text: "Apply: validation failed (see Validation below). git nudge apply " + t.id + " --unvalidated applies it anyway." }));
    }
    if (t.validation) add(validationPanel(t));
    if (t.setup) add(el("div", { class: "panel", id: "setup" }, el("h3", { text: "Setup" }),
      el("p", { text: "The setup commands changed " + countFiles((t.setup_files || []).length) + " (commit " + short(t.setup) + "); these are not part of the result and are never applied:" }),
      el("ul", null, ...(t.setup_files || []).map((f) => el("li", null, el("code", { text: f.status + " " + f.path }))))));
    if (t.attempt) add(attemptsPanel(t));
    if (t.command && t.command.length) add(runLogPanel(t));
    if (keepResult) {
      const had = keepResult.contains(document.activeElement) ? document.activeElement : null;
      buttons.after(keepResult);
      if (had) had.focus({ preventScroll: true });
    }
  });
  if (recovery) { await renderRecovery(t.id, pane, t); return; }
  if (!t.result) return;
  // A live update that changes nothing the diff shows (same result, state,
  // validation and files) keeps the diff as drawn: a file opened with
  // "Show", the focus and the place scrolled to stay where they were.
  if (!fresh && oldDiff && oldDiff.dataset.key === diffKey(t) && !oldDiff.hasAttribute("aria-busy")) {
    const c = $("#comments");
    if (c && c.dataset.key !== JSON.stringify(t.comments || [])) renderComments(t, null);
    return;
  }
  await renderDiff(t, pane, seq);
}

// diffKey names what a task's diff view is drawn from.
const diffKey = (t) => JSON.stringify([t.result, t.state, validationFailed(t), t.files || []]);

function validationPanel(t) {
  const v = t.validation;
  const p = el("div", { class: "panel", id: "validation" }, el("h3", { text: "Validation: " + v.state }));
  if (v.reason) p.append(el("p", { text: v.reason }));
  if (v.commands && v.commands.length) p.append(el("ul", null, ...v.commands.map((c) => el("li", null,
    el("span", { class: c.exit_code === 0 ? "ok" : "bad", text: c.exit_code === 0 ? "ok" : c.timed_out ? "timed out" : "exit " + (c.exit_code == null ? "?" : c.exit_code) }), " ",
    el("code", { text: c.command }), " (" + (c.duration_ms / 1000).toFixed(1) + " s)" + (c.error ? ": " + c.error : "")))));
  if (v.log) p.append(el("p", { class: "hint" }, "Log: ", el("code", { text: v.log })));
  return p;
}

// The attempts started together with t (run --attempts: one snapshot),
// side by side as git nudge compare sets them; each links to its task.
function attemptsPanel(t) {
  const body = el("tbody");
  const p = el("div", { class: "panel", id: "attempts" }, el("h3", { text: "Attempts of snapshot " + short(t.snapshot) }),
    el("div", { class: "scrollx" }, el("table", { class: "recover attempts" },
      el("thead", null, el("tr", null, ...["#", "task", "state", "files", "+/−", "validation"].map((h) => el("th", { scope: "col", text: h })))), body)));
  api("GET", "/api/nudge/tasks/" + encodeURIComponent(t.id) + "/attempts").then((r) => {
    if (!r.ok) { p.append(errorBox(r.body)); return; }
    body.replaceChildren(...r.body.map((a) => el("tr", { "data-id": a.id, class: a.id === t.id ? "sel" : "" },
      el("td", { text: String(a.attempt) }),
      el("td", null, a.id === t.id ? el("strong", { text: a.id + " (this one)" }) :
        el("a", { href: "#tasks", text: a.id, onclick: (ev) => { ev.preventDefault(); openTask(a.id); } })),
      el("td", null, el("span", { class: "state " + a.state, text: stateLabel(a.state) })),
      el("td", { text: countFiles((a.files || []).length) }),
      el("td", { class: "counts", text: "+" + a.added + " −" + a.deleted }),
      el("td", { text: a.validation }))));
  });
  return p;
}

// The run log's tail (GET .../log, at most LOG_TAIL bytes), loaded when
// the panel is opened. It is text: it goes into a <pre>'s textContent.
const LOG_TAIL = 65536;
function runLogPanel(t) {
  const body = el("div", { class: "logbody" });
  const d = el("details", { class: "panel", id: "runlog" }, el("summary", null, el("h3", { text: "Run log" })), body);
  d.addEventListener("toggle", async () => {
    if (!d.open || d.dataset.loaded) return;
    d.dataset.loaded = "1";
    body.replaceChildren(el("p", { class: "note", text: "Loading the log…" }));
    const r = await api("GET", "/api/nudge/tasks/" + encodeURIComponent(t.id) + "/log?tail=" + LOG_TAIL);
    if (!r.ok) { delete d.dataset.loaded; body.replaceChildren(errorBox(r.body)); return; }
    const g = r.body;
    if (!g.exists) { body.replaceChildren(el("p", { class: "note", id: "runlog-none", text: "No run log (" + g.path + ")." })); return; }
    body.replaceChildren(
      el("p", { class: "hint", id: "runlog-what" }, (g.cut ? "The last " + LOG_TAIL / 1024 + " KiB of " + Math.ceil(g.size / 1024) + " KiB: " : g.size + " bytes: "), el("code", { text: g.path })),
      el("pre", { class: "log", id: "runlog-text", tabindex: "0", text: g.tail || "(empty)" }));
  });
  return d;
}

// A recorded file version in words: its mode and short blob id, or
// "absent" (the path did not exist).
const fileVersion = (v) => !v || !v.blob ? "absent" : (v.mode || "") + " " + v.blob.slice(0, 12) + (v.raw_blob ? " (raw " + v.raw_blob.slice(0, 12) + ")" : "");

async function renderRecovery(id, pane, t) {
  const r = await api("GET", "/api/nudge/tasks/" + encodeURIComponent(id) + "/recover");
  if (!r.ok) { pane.append(errorBox(r.body)); return; }
  const rep = r.body;
  const rows = (rep.files || []).map((f) => el("tr", null,
    el("td", { "data-label": "now holds", class: "m-" + f.matches, text: f.matches }),
    el("td", { "data-label": "path" }, el("code", { text: f.path })),
    el("td", { "data-label": "before", class: "ver" }, el("code", { text: fileVersion(f.before) })),
    el("td", { "data-label": "after", class: "ver" }, el("code", { text: fileVersion(f.after) })),
    el("td", { "data-label": "now", text: f.matches === "neither" ? f.now : "" })));
  const patchFiles = (t.files || []).map((f) => el("li", null, el("code", { text: f.status + " " + f.path })));
  const next = ["git nudge recover " + id].concat(rep.commands || []);
  pane.append(
    el("div", { class: "panel", id: "recovery" },
      el("h2", { text: "Recovery required" }),
      el("p", { text: "The apply or undo of " + id + " was interrupted. Each file of the record now holds (before = as before the apply, after = as the apply writes it):" }),
      el("div", { class: "scrollx" }, el("table", { class: "recover", id: "recovery-files" },
        el("thead", null, el("tr", null, ...["now holds", "path", "undo.before", "undo.after", "now"].map((h) => el("th", { scope: "col", text: h })))),
        el("tbody", null, ...rows))),
      patchFiles.length ? el("div", { id: "recovery-patch" }, el("h3", { text: "The patch's files (" + countFiles(patchFiles.length) + ")" }), el("ul", null, ...patchFiles)) : null,
      (rep.leftovers && rep.leftovers.length) ? el("p", { text: "Temporary files left by the interrupted write (their content is in the repository; delete them): " + rep.leftovers.join(", ") }) : null,
      el("h3", { text: "Inspect with" }),
      el("pre", { id: "recovery-inspect", tabindex: "0", text: next.join("\n") }),
      el("h3", { text: "Then" }),
      el("p", { id: "recovery-next" }, "Resolve the files by hand, then start a new task from the result (", el("code", { text: "git nudge snapshot" }),
        "). Nothing is retried automatically; the record of " + id + " is kept until ", el("code", { text: "git nudge drop --force " + id }), " removes it (the work tree is left as it is).")));
}

// ---- the diff ----
// The patch is split per file; the page lists the files (status, +/-
// counts) above the diffs, with the notices (binary files, files over
// 16 MiB, a cut-off patch) first. Drawing is bounded: files are drawn
// until LINE_BUDGET lines are on the page, a file over BIG_FILE lines
// starts collapsed, and an open file draws CHUNK lines at a time ("show
// more"). A 3 MB patch then costs the page a few thousand rows.
const LINE_BUDGET = 1500, BIG_FILE = 400, CHUNK = 1000;

function parsePatch(patch) {
  const out = [];
  for (const sect of patch.split(/^(?=diff --git )/m)) {
    if (!sect.startsWith("diff --git ")) continue;
    const lines = sect.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    let path = lines[0].replace(/^diff --git a\/(.*) b\/.*$/, "$1");
    let body = lines.length, adds = 0, dels = 0, binary = false;
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i];
      if (l.startsWith("@@")) { body = i; break; }
      if (l.startsWith("+++ b/")) path = l.slice(6);
      else if (l.startsWith("--- a/") && path === "") path = l.slice(6);
      else if (l.startsWith("Binary files ")) binary = true;
    }
    for (let i = body; i < lines.length; i++) {
      const c = lines[i].charCodeAt(0);
      if (c === 43) adds++; else if (c === 45) dels++;
    }
    out.push({ path, header: lines.slice(1, body), lines: lines.slice(body), adds, dels, binary });
  }
  return out;
}

const statusWord = { A: "added", M: "modified", D: "deleted", T: "type changed", R: "renamed" };

async function renderDiff(t, pane, seq) {
  // The task's diff drawn before (renderTask kept it) stays until this
  // one is ready; a task opened anew says it is loading.
  const shown = pane.querySelector("#diff");
  const box = el("div", { class: "files", id: "diff", "data-task": t.id, "data-key": diffKey(t) });
  if (shown) shown.setAttribute("aria-busy", "true");
  else {
    box.setAttribute("aria-busy", "true");
    box.append(el("p", { class: "note", text: "Loading the diff…" }));
    pane.append(box);
  }
  performance.mark("diff:start");
  const pre = state.diffFetch;
  state.diffFetch = null;
  const r = pre && pre.id === t.id && pre.result === t.result ? await pre.answer : await api("GET", "/api/nudge/tasks/" + encodeURIComponent(t.id) + "/diff");
  if (seq !== renders) return; // the pane was redrawn meanwhile: that draw shows the diff
  performance.mark("diff:fetched");
  box.replaceChildren();
  box.removeAttribute("aria-busy");
  const cur = pane.querySelector("#diff");
  if (cur !== box) { if (cur) cur.replaceWith(box); else pane.append(box); }
  if (!r.ok) { box.append(errorBox(r.body)); return; }
  if (r.body.notices) box.append(el("div", { class: "notice", id: "diff-notices", text: r.body.notices.trim() }));
  const files = parsePatch(r.body.patch);
  performance.mark("diff:parsed");
  // A patch cut at the API's limit ends inside its last file.
  if (files.length && /not shown \(limit/.test(r.body.notices || "")) files[files.length - 1].cut = true;
  const byPath = new Map(files.map((f) => [f.path, f]));
  const listed = (t.files || []).map((f) => ({ path: f.path, status: f.status, f: byPath.get(f.path) }));
  for (const f of files) if (!listed.some((x) => x.path === f.path)) listed.push({ path: f.path, status: "M", f });
  if (!listed.length) { box.append(el("p", { class: "note", id: "diff-empty", text: "No changes: the result is the same as the snapshot." })); return; }
  const perFile = can.apply(t.state) || can.undo(t.state);
  const list = el("ul", { class: "filelist", id: "filelist" });
  box.append(el("h3", { class: "files-title", text: countFiles(listed.length) + " changed" }), list);
  renderComments(t, box);
  let budget = LINE_BUDGET;
  listed.forEach((x, i) => {
    const f = x.f;
    const counts = f ? (f.binary ? "binary" : "+" + f.adds + " −" + f.dels + (f.cut ? " (cut off)" : "")) : "not in the diff";
    const sid = "file-" + i;
    list.append(el("li", null,
      el("span", { class: "fstatus s-" + x.status, title: statusWord[x.status] || x.status, text: x.status }),
      el("a", { href: "#" + sid, class: "fpath", text: x.path, onclick: (ev) => { ev.preventDefault(); openFile(sid); } }),
      el("span", { class: "counts", "aria-label": f && !f.binary ? f.adds + " added, " + f.dels + " removed" : counts, text: counts })));
    const sect = el("section", { class: "file", id: sid, "data-path": x.path });
    const head = el("div", { class: "fhead" }, el("h3", { text: x.path }), el("span", { class: "counts", text: counts }));
    if (perFile) head.append(fileButtons(t, x.path));
    sect.append(head);
    box.append(sect);
    if (!f) { sect.append(el("p", { class: "note pad", text: "Not drawn: see the notice above." })); return; }
    const n = f.lines.length;
    if (n === 0 || f.binary) { sect.append(el("pre", { class: "meta", text: f.header.join("\n") })); return; }
    const show = el("button", { class: "show", text: "Show " + n + " lines", "aria-expanded": "false" });
    show.addEventListener("click", () => { show.remove(); drawFile(t, f, sect, 0); reveal(sect.querySelector(".difftable")); });
    sect.append(show);
    sect._open = () => { if (show.isConnected) show.click(); };
    if (n <= BIG_FILE && n <= budget) { show.remove(); drawFile(t, f, sect, 0); budget -= n; }
    else budget = 0; // files after a collapsed one stay collapsed too: the list above shows where they are
  });
  // A file's result (fileAct) outlives a redraw of the diff (a live
  // update while it was drawn): it goes back beside that file's title,
  // keeping the focus it had.
  const fr = state.fileResult;
  if (fr && fr.id === t.id && !fr.box.isConnected) {
    const head = box.querySelector('section.file[data-path="' + CSS.escape(fr.path) + '"] .fhead');
    if (head) {
      const had = document.activeElement === document.body || !document.activeElement;
      head.after(fr.box);
      if (had) fr.box.focus({ preventScroll: true });
    }
  }
  performance.mark("diff:drawn");
}

function openFile(sid) {
  const sect = document.getElementById(sid);
  if (!sect) return;
  if (sect._open) sect._open();
  const h = sect.querySelector("h3");
  h.setAttribute("tabindex", "-1");
  // The title goes to the top of the view, its lines below it: a title
  // left at the bottom edge would leave the view at the first shift.
  h.focus({ preventScroll: true });
  h.scrollIntoView({ block: "start" });
  // The rows just drawn may still move the page once laid out: bring the
  // title back to the top on the next frame if it still has the focus.
  requestAnimationFrame(() => { if (document.activeElement === h) h.scrollIntoView({ block: "start" }); });
}

// drawFile draws CHUNK lines of file f from line `from` into sect, with
// old and new line numbers, and a "show more" button for the rest.
function drawFile(t, f, sect, from) {
  let table = sect.querySelector(".difftable");
  if (!table) {
    table = el("table", { class: "difftable", tabindex: "0", "data-path": f.path,
      "aria-label": "Diff of " + f.path + ": arrow keys move between lines, Shift+arrow selects, C comments" });
    const wrap = el("div", { class: "diffwrap" }, table);
    if (f.header.length) sect.append(el("pre", { class: "meta", text: f.header.join("\n") }));
    sect.append(wrap);
    table.append(el("tbody"));
    table._no = { old: 0, new: 0 };
    diffKeys(t, table);
  }
  const tb = table.tBodies[0];
  const frag = document.createDocumentFragment();
  const to = Math.min(f.lines.length, from + CHUNK);
  const no = table._no;
  for (let i = from; i < to; i++) {
    const line = f.lines[i];
    const tr = document.createElement("tr");
    if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(line);
      if (m) { no.old = +m[1]; no.new = +m[2]; }
      tr.className = "hunk";
      const td = document.createElement("td");
      td.colSpan = 3;
      td.textContent = line;
      tr.append(td);
      frag.append(tr);
      continue;
    }
    const c = line.charAt(0);
    const a = document.createElement("td"), b = document.createElement("td"), code = document.createElement("td");
    a.className = b.className = "no";
    code.className = "code";
    code.textContent = line;
    if (c === "+") { tr.className = "add"; b.textContent = no.new; tr.dataset.line = no.new++; }
    else if (c === "-") { tr.className = "del"; a.textContent = no.old++; }
    else if (c === "\\") { tr.className = "meta"; }
    else { a.textContent = no.old++; b.textContent = no.new; tr.dataset.line = no.new++; }
    tr.append(a, b, code);
    frag.append(tr);
  }
  tb.append(frag);
  const old = sect.querySelector(".more");
  if (old) old.remove();
  if (to < f.lines.length) {
    const more = el("button", { class: "more", text: "Show " + Math.min(CHUNK, f.lines.length - to) + " more lines (" + (f.lines.length - to) + " left)" });
    more.addEventListener("click", () => { drawFile(t, f, sect, to); reveal(table); });
    sect.append(more);
  }
}

// fileButtons: one file's Apply, Undo and Apply with merge (POST
// .../apply or .../undo with {"paths": [path]} and "merge": true).
function fileButtons(t, path) {
  const row = el("div", { class: "buttons fbuttons" });
  const go = (action, merge, btn) => fileAct(t.id, action, path, merge, row, btn);
  const apply = can.apply(t.state);
  row.append(
    el("button", { class: "file-apply", text: "Apply file", "aria-label": "Apply file " + path, disabled: !apply || validationFailed(t), title: validationFailed(t) ? "validation failed: see the validation panel" : "", onclick: (ev) => go("apply", false, ev.target) }),
    el("button", { class: "file-merge", text: "Apply with merge", "aria-label": "Apply with merge " + path, disabled: !apply || validationFailed(t), onclick: (ev) => go("apply", true, ev.target) }),
    el("button", { class: "file-undo", text: "Undo file", "aria-label": "Undo file " + path, disabled: !can.undo(t.state), onclick: (ev) => go("undo", false, ev.target) }));
  return row;
}

async function fileAct(id, action, path, merge, row, btn) {
  const sect = row.closest("section");
  const old = sect.querySelector(".file-result");
  if (old) old.remove();
  const buttons = [...row.querySelectorAll("button")];
  const was = buttons.map((b) => b.disabled);
  for (const b of buttons) b.disabled = true;
  const data = { paths: [path] };
  if (merge) data.merge = true;
  const r = await api("POST", "/api/nudge/tasks/" + encodeURIComponent(id) + "/" + action, data);
  buttons.forEach((b, i) => { b.disabled = was[i]; });
  let box;
  if (r.ok) {
    const n = (r.body.files || []).length;
    const verb = action === "undo" ? "Undid " : merge ? "Applied with merge " : "Applied ";
    box = el("div", { class: "result", text: verb + path + " of " + id + (n ? " (" + countFiles(n) + ")" : "") + "." });
  } else box = errorBox(r.body, (action === "undo" ? "Undo " : "Apply ") + path + ": ");
  box.classList.add("file-result");
  state.fileResult = { id, path, box };
  place(box, row.parentNode);
  if (r.ok) {
    await selectTask(id);
    const s = document.querySelector('#diff section.file[data-path="' + CSS.escape(path) + '"] .fhead');
    place(box, s || $("#task-buttons"));
  }
}

// ---- review comments ----
// Comments on diff lines are kept with the task (POST .../comments) and
// handed to the next git nudge run --task ID as the file NUDGE_REVIEW
// names. Lines are selected with a click on a line number (Shift+click
// extends), or from the keyboard in a focused diff: arrows move, Shift
// extends, C writes a comment.
function renderComments(t, box) {
  const list = t.comments || [];
  const panel = el("div", { class: "panel comments", id: "comments", "data-key": JSON.stringify(list) },
    el("h3", { text: list.length ? "Review comments (" + list.length + ")" : "Review comments" }));
  if (!list.length) panel.append(el("p", { class: "hint", text: "Click a line number to comment on that line (Shift+click for a range), or focus a diff and use the arrow keys, Shift to extend, C to comment. Comments are handed to the next git nudge run --task " + t.id + " (the file NUDGE_REVIEW names)." }));
  else panel.append(el("ul", null, ...list.map((c) => {
    const where = c.path + ":" + c.line + (c.end_line && c.end_line !== c.line ? "–" + c.end_line : "");
    const li = el("li", { "data-id": c.id }, el("code", { text: where }), " ", el("span", { class: "ctext", text: c.text }), " ");
    li.append(el("button", { class: "comment-delete", text: "Delete", "aria-label": "Delete the comment on " + where, onclick: () => deleteComment(t.id, c.id, li) }));
    return li;
  })));
  const old = $("#comments");
  if (old) old.replaceWith(panel);
  else if (box) box.append(panel);
}

async function refreshComments(id) {
  const r = await api("GET", "/api/nudge/tasks/" + encodeURIComponent(id));
  if (!r.ok) return;
  if (lastComments.id === id) lastComments.list = r.body.comments || [];
  renderComments(r.body, null);
}

async function deleteComment(id, cid, li) {
  for (const b of li.querySelectorAll("button")) b.disabled = true;
  const r = await api("POST", "/api/nudge/tasks/" + encodeURIComponent(id) + "/comments/" + encodeURIComponent(cid) + "/delete");
  if (!r.ok) {
    for (const b of li.querySelectorAll("button")) b.disabled = false;
    place(Object.assign(errorBox(r.body, "Delete comment: "), { id: "comment-result" }), li);
    return;
  }
  await refreshComments(id);
  const box = el("div", { class: "result", id: "comment-result", text: "Comment deleted." });
  place(box, $("#comments h3"));
}

function diffKeys(t, table) {
  let anchor = null, cursor = null;
  const rows = () => [...table.querySelectorAll("tr[data-line]")];
  const mark = () => {
    const all = rows();
    const i = all.indexOf(anchor), j = all.indexOf(cursor);
    const lo = Math.min(i, j), hi = Math.max(i, j);
    all.forEach((r, k) => r.classList.toggle("picked", i >= 0 && k >= lo && k <= hi));
    for (const r of table.querySelectorAll("tr.cursor")) r.classList.remove("cursor");
    if (cursor) { cursor.classList.add("cursor"); cursor.scrollIntoView({ block: "nearest" }); }
  };
  table.addEventListener("click", (ev) => {
    const td = ev.target.closest("td.no");
    const tr = td && td.parentNode;
    if (!tr || !tr.dataset.line) return;
    cursor = tr;
    if (!ev.shiftKey || !anchor) anchor = tr;
    mark();
    commentForm(t, table);
  });
  table.addEventListener("keydown", (ev) => {
    if (ev.target !== table) return;
    const all = rows();
    if (!all.length) return;
    let i = cursor ? all.indexOf(cursor) : -1;
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      i = ev.key === "ArrowDown" ? Math.min(all.length - 1, i + 1) : Math.max(0, i - 1);
      cursor = all[i];
      if (!ev.shiftKey || !anchor) anchor = cursor;
      mark();
    } else if ((ev.key === "c" || ev.key === "C" || ev.key === "Enter") && cursor) {
      ev.preventDefault();
      commentForm(t, table);
    } else if (ev.key === "Escape") {
      anchor = cursor = null;
      mark();
    }
  });
}

function commentForm(t, table) {
  const picked = [...table.querySelectorAll("tr.picked")];
  if (!picked.length) return;
  const path = table.dataset.path;
  const line = +picked[0].dataset.line, end = +picked[picked.length - 1].dataset.line;
  const old = $("#comment-form");
  if (old) old.closest("tr").remove();
  const where = path + ":" + line + (end !== line ? "–" + end : "");
  const text = el("textarea", { id: "comment-text", rows: "3", "aria-label": "Comment on " + where });
  const td = el("td", { class: "inline" });
  td.colSpan = 3;
  const form = el("form", { id: "comment-form", class: "comment-form" },
    el("label", { for: "comment-text", text: "Comment on " + where }), text,
    el("div", { class: "buttons" },
      el("button", { type: "submit", class: "primary", text: "Save comment" }),
      el("button", { type: "button", class: "comment-cancel", text: "Cancel", onclick: () => { form.closest("tr").remove(); table.focus(); } })));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const btns = [...form.querySelectorAll("button")];
    for (const b of btns) b.disabled = true;
    const r = await api("POST", "/api/nudge/tasks/" + encodeURIComponent(t.id) + "/comments", { path, line, end_line: end, text: text.value });
    for (const b of btns) b.disabled = false;
    const prev = form.querySelector(".result");
    if (prev) prev.remove();
    if (!r.ok) { place(Object.assign(errorBox(r.body, "Comment: "), { id: "comment-result" }), form.lastChild); return; }
    const tr = form.closest("tr");
    const box = el("div", { class: "result", id: "comment-result", tabindex: "-1", text: "Comment saved on " + where + ": the next git nudge run --task " + t.id + " gets it." });
    td.replaceChildren(box);
    reveal(box);
    await refreshComments(t.id);
    void tr;
  });
  td.append(form);
  picked[picked.length - 1].after(el("tr", { class: "inline-row" }, td));
  text.focus();
}

function countFiles(n) { return n === 1 ? "1 file" : n + " files"; }

function askDrop(id) {
  const old = $("#task .confirm");
  if (old) old.remove();
  const box = confirmBox("Drop " + id + "? Its record, result and worktree are deleted; git nudge op undo brings it back.", "Drop " + id,
    () => { box.remove(); act(id, "drop"); }, () => { box.remove(); reveal($("#btn-drop")); });
  box.id = "drop-confirm";
  place(box, $("#task-buttons"));
}

async function act(id, action, data) {
  state.busy = true;
  const old = $("#action-result");
  if (old) old.remove();
  const pressed = [...document.querySelectorAll("#task button")].filter((b) => !b.disabled);
  for (const b of pressed) b.disabled = true;
  const r = await api("POST", "/api/nudge/tasks/" + encodeURIComponent(id) + "/" + action, data);
  state.busy = false;
  let box;
  if (r.ok) {
    const o = r.body;
    const msg = {
      apply: () => "Applied " + o.id + ": " + countFiles(o.files.length) + " changed in the work tree. Nothing was staged or committed.",
      undo: () => "Undid " + o.id + ": " + countFiles(o.files.length) + " put back as before the apply.",
      save: () => "Saved " + (o.tasks || []).join(", ") + " as " + (o.commit || "").slice(0, 12) + ".",
      drop: () => "Dropped " + o.id + ".",
    }[action]();
    box = el("div", { class: "result", id: "action-result", text: msg });
  } else {
    box = errorBox(r.body);
    box.id = "action-result";
  }
  if (action === "drop" && r.ok) {
    state.selected = null;
    $("#task").replaceChildren(box);
    place(box, null);
    await loadTasks();
    return;
  }
  const t = r.status === 0 || r.status === 401 ? null : await api("GET", "/api/nudge/tasks/" + encodeURIComponent(id));
  if (t && t.ok) await renderTask(t.body, true);
  else for (const b of pressed) if (b.isConnected) b.disabled = false;
  place(box, $("#task-buttons"));
  await loadTasks();
}

// ---- checkpoints ----
async function loadCheckpoints() {
  performance.mark("cp:start");
  const seq = ++loads.checkpoints;
  const [st, cp, ops] = await Promise.all([api("GET", "/api/autodev/status"), api("GET", "/api/autodev/checkpoints"), api("GET", "/api/ops")]);
  if (seq !== loads.checkpoints) return; // a later load draws
  performance.mark("cp:fetched");
  if (lost(st) || lost(cp)) { gone((lost(st) ? st : cp).body.error); return; }
  if (!st.ok || !cp.ok) { showRows($("#checkpoints"), [], null); $("#run").replaceChildren(errorBox((st.ok ? cp : st).body)); return; }
  const s = st.body;
  state.status = s;
  loadCommands();
  const active = !!s.active;
  const run = $("#run");
  let line = "Run: " + (s.stale ? "interrupted (no process holds the run lock)" : active ? "running" : s.status);
  if (active && s.run_pid) line += " (pid " + s.run_pid + ")";
  if (s.mode) line += ", mode " + s.mode;
  if (s.current_task) line += ", task " + s.current_task;
  run.replaceChildren(el("div", { id: "run-line", text: line }));
  run.className = "panel" + (active ? " running" : "");
  const n = s.restore_points || 0;
  const dead = ops.ok ? ops.body.filter((o) => o.recovery_required) : [];
  const parked = s.unrecorded_parked || [];
  $("#needs-text").hidden = !(n > 0);
  $("#needs-text").textContent = n + " restore point(s) — rewind now that the run is stopped";
  const key = JSON.stringify([dead.map((o) => [o.id, o.undo_refusal]), parked]);
  const list = $("#needs-list");
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren(
      ...dead.map((o) => el("li", { class: "dead-op", "data-id": o.id },
        el("strong", { text: "Operation " + o.id + " was killed: Recovery required. " }),
        el("code", { text: "git " + o.tool + " " + shellJoin(o.args) }),
        (o.undo_refusal && o.undo_refusal.length) ? el("span", { text: " — " + o.undo_refusal.join(" ") }) : null,
        " ", el("a", { href: "#operations", text: "Operations" }))),
      ...parked.map((p) => el("li", { class: "parked", "data-branch": p.branch },
        el("strong", { text: "Parked work not in the checkpoint list: " }), el("code", { text: p.branch }),
        " (" + short(p.commit) + "), left by a restore that did not finish. ",
        "Look at it with ", el("code", { text: "git show " + p.branch }), "; once you have what you need, ", el("code", { text: "git branch -D " + p.branch }), " deletes it.")));
  }
  list.hidden = !list.children.length;
  $("#needs-you").hidden = !(n > 0) && !list.children.length;
  $("#cp-disabled").hidden = !active;
  const table = $("#checkpoints");
  table.classList.toggle("off", active);
  let note = "";
  if (!s.checkpoints_enabled) note = "Checkpoints are off (git config autodev.checkpoints false); there is nothing to list.";
  else if (s.journal_missing && s.rebuildable > 0) note = "No checkpoints.json, but history holds " + s.rebuildable + " autodev checkpoint(s): git autodev restore --rebuild rebuilds the journal.";
  else if (cp.body.length === 0) note = "No checkpoints yet.";
  $("#cp-note").hidden = note === "";
  $("#cp-note").textContent = note;
  // Rows are cloned from one template, only those in view are drawn
  // (showRows), and clicks are handled on the table body: ten thousand
  // rows stay quick.
  // A row is the seed's line: <label>  <task> · <sha> · <mode> · <age>.
  const tpl = el("tr", { tabindex: "0" }, el("td", { class: "id" }), el("td", { class: "mark" }),
    el("td", { class: "cp wide" }, el("span", { class: "label" }), " ", el("span", { class: "meta" })));
  tpl.setAttribute("aria-disabled", active ? "true" : "false");
  tpl.title = active ? "only while the run is stopped" : "Restore to this checkpoint";
  // An inline result or question stays with its row; a refusal that
  // only held while the run was active goes when the run ends.
  if (state.cpInline && state.cpInline.whileActive && !active) state.cpInline = null;
  const now = Date.now();
  const byId = new Map();
  for (const e of cp.body) byId.set(e.id, e);
  state.checkpoints = byId;
  showRows(table, cp.body, (e) => {
    const tr = tpl.cloneNode(true);
    tr.setAttribute("data-id", e.id);
    let c = tr.firstChild;
    c.textContent = e.id;
    c = c.nextSibling;
    c.textContent = mark(e.type);
    c = c.nextSibling;
    c.firstChild.textContent = e.label;
    const meta = c.lastChild;
    meta.append(orDash(e.task) + " · ", el("span", { class: "sha", text: short(e.commit) }), " · " + orDash(e.mode) + " · " + ago(e.time, now));
    if (e.head) meta.append(" ", el("span", { class: "head", text: "← HEAD" }));
    tr.setAttribute("aria-label", e.id + " " + e.label + " · " + orDash(e.task) + " · " + short(e.commit) + " · " + orDash(e.mode) + " · " + ago(e.time, now) + (e.head ? " · HEAD" : ""));
    if (state.cpInline && state.cpInline.id === e.id) c.append(state.cpInline.node);
    return tr;
  });
  performance.mark("cp:rows");
}

// cpSay shows node inside checkpoint e's row (kept there across
// redraws) and moves focus to it.
function cpSay(e, node, whileActive) {
  if (state.cpInline && state.cpInline.node !== node) state.cpInline.node.remove();
  node.setAttribute("tabindex", "-1");
  node.classList.add("inline");
  state.cpInline = { id: e.id, node, whileActive: !!whileActive };
  const tr = document.querySelector('#checkpoints tbody tr[data-id="' + CSS.escape(e.id) + '"]');
  if (tr && node.parentNode !== tr.lastChild) tr.lastChild.append(node);
  reveal(node);
}
function cpClear(e) {
  if (!state.cpInline) return;
  state.cpInline.node.remove();
  state.cpInline = null;
  const tr = document.querySelector('#checkpoints tbody tr[data-id="' + CSS.escape(e.id) + '"]');
  if (tr) tr.focus();
}

// askRestore is a row's click or Enter: a restore that takes commits off
// the branch says how many and asks first; any other restores at once.
async function askRestore(e) {
  if (state.busy) return;
  if (state.status && state.status.active) {
    cpSay(e, el("div", { id: "restore-result", class: "result bad", text: "Restore: only while the run is stopped" }), true);
    return;
  }
  state.busy = true;
  const r = await api("GET", "/api/autodev/checkpoints/" + encodeURIComponent(e.id) + "/leaving");
  state.busy = false;
  if (!r.ok) { cpSay(e, Object.assign(errorBox(r.body, "Restore: "), { id: "restore-result" })); return; }
  if (r.body.count === 0) { await restore(e); return; }
  const n = r.body.more ? "more than " + r.body.count + " commits" : r.body.count === 1 ? "1 commit" : r.body.count + " commits";
  const list = el("ul", { class: "leaving" }, ...r.body.commits.slice(0, 10).map((c) => el("li", null, el("code", { text: short(c.id) }), " " + c.subject)));
  const box = confirmBox("Restoring " + e.id + " (\"" + e.label + "\") takes " + n + " off the branch. Uncommitted work is parked on a branch first, and the ⤿ entry the restore adds undoes it.",
    "Restore " + e.id, () => restore(e), () => cpClear(e), list);
  box.id = "restore-confirm";
  cpSay(e, box);
}

async function restore(e) {
  if (state.busy) return;
  state.busy = true;
  const r = await api("POST", "/api/autodev/restore/" + encodeURIComponent(e.id));
  state.busy = false;
  const box = el("div", { id: "restore-result", class: "result" });
  if (r.ok) {
    const o = r.body;
    const t = o.restored;
    box.className = "result";
    if (o.unchanged) box.textContent = "Already at \"" + t.label + "\" (" + short(t.commit) + "); nothing to restore.";
    else if (o.parked_branch) box.textContent = "Restored to \"" + t.label + "\" (" + short(t.commit) + "); saved on " + o.parked_branch + ".";
    else box.textContent = "Restored to \"" + t.label + "\" (" + short(t.commit) + ").";
  } else {
    const doc = r.body || {};
    let reason = (doc.reasons && doc.reasons.length) ? doc.reasons.join("; ") : (doc.error || "the server did not answer");
    reason = reason.replace(/^Restore failed: /, "");
    box.className = "result bad";
    box.textContent = "Restore: " + reason;
    if (doc.next) box.append(el("div", { class: "next", text: doc.next }));
  }
  cpSay(e, box);
  await loadCheckpoints();
  reveal(box);
}

// New run: the commands of git config autodev.command.<name>. The page
// sends a name, never a command.
async function loadCommands() {
  const r = await api("GET", "/api/autodev/commands");
  const panel = $("#newrun");
  if (!r.ok || !r.body.commands.length) { panel.hidden = true; return; }
  panel.hidden = false;
  const active = !!(state.status && state.status.active);
  const off = active || !r.body.execution;
  const title = !r.body.execution ? "the dashboard was started with --no-execution" : active ? "only while the run is stopped" : "";
  $("#newrun-buttons").replaceChildren(...r.body.commands.map((c) =>
    el("button", { "data-name": c.name, text: c.name, title: title || c.command, disabled: off, onclick: () => newRun(c.name) })));
}

async function newRun(name) {
  const r = await api("POST", "/api/autodev/run/" + encodeURIComponent(name));
  const p = $("#newrun-result");
  p.hidden = false;
  if (r.ok) { p.className = "result"; p.textContent = "Started " + name + ": " + r.body.command + (r.body.ended ? " (already ended)" : ""); }
  else { p.replaceWith(Object.assign(errorBox(r.body), { id: "newrun-result" })); }
  await loadCheckpoints();
}

// ---- operations ----
// shellJoin spells arguments as a shell would read them back (the
// command line's pathenc.ShellJoin): sh -c 'a; b', not sh -c a; b.
function shellJoin(args) {
  return args.map((a) => a !== "" && /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'").join(" ");
}

async function loadOps() {
  const seq = ++loads.ops;
  const r = await api("GET", "/api/ops");
  if (seq !== loads.ops) return; // a later load draws
  const body = $("#ops tbody");
  const err = $("#ops-error");
  if (lost(r)) { gone(r.body.error); return; }
  if (!r.ok) { body.replaceChildren(); err.replaceChildren(errorBox(r.body)); err.hidden = false; return; }
  err.hidden = true;
  const now = Date.now();
  state.ops = new Map(r.body.map((o) => [o.id, o]));
  // Rows are made inside keepFocus's draw (see drawRows).
  keepFocus(body, () => body.replaceChildren(...opRows(r.body, now)));
  $("#ops-empty").hidden = r.body.length > 0;
}

function opRows(list, now) {
  const rows = [];
  for (const o of list) {
    const st = o.undone_by ? "undone by " + o.undone_by : (o.recovery_required ? "Recovery required" : o.state);
    rows.push(el("tr", { "data-id": o.id, tabindex: "0", "aria-label": o.id + ": git " + o.tool + " " + shellJoin(o.args) + ", " + st },
      el("td", { class: "id", text: o.id }),
      el("td", { text: ago(o.time, now) }),
      el("td", { class: "wide" }, el("code", { text: "git " + o.tool + " " + shellJoin(o.args) })),
      el("td", { class: "wide", text: o.summary }),
      el("td", null, el("span", { class: "state " + (o.recovery_required ? "recovery_required" : o.undone_by ? "undone" : o.state), text: st })),
      el("td", null, o.undoable ?
        el("button", { class: "undo", text: "Undo", "aria-label": "Undo " + o.id, disabled: state.busy, onclick: () => askUndoOp(o.id) }) :
        (o.undone_by ? null : el("small", { class: "no-undo", text: "no undo", title: (o.undo_refusal || []).join("\n") })))));
    if (state.opInline && state.opInline.id === o.id) {
      const td = el("td", { class: "inline" }, state.opInline.node);
      td.colSpan = 6;
      rows.push(el("tr", { class: "inline-row" }, td));
    }
  }
  return rows;
}

// opSay shows node under operation id's row (kept there across reloads)
// and moves focus to it.
function opSay(id, node) {
  node.setAttribute("tabindex", "-1");
  state.opInline = { id, node };
  const old = document.querySelector("#ops tbody tr.inline-row");
  if (old) old.remove();
  const tr = document.querySelector('#ops tbody tr[data-id="' + CSS.escape(id) + '"]');
  if (tr) {
    const td = el("td", { class: "inline" }, node);
    td.colSpan = 6;
    tr.after(el("tr", { class: "inline-row" }, td));
  }
  reveal(node);
}
function opClear(id) {
  const old = document.querySelector("#ops tbody tr.inline-row");
  if (old) old.remove();
  state.opInline = null;
  const tr = document.querySelector('#ops tbody tr[data-id="' + CSS.escape(id) + '"]');
  if (tr) tr.focus();
}

// A row's Enter: Undo's question when the operation can be undone, else
// why not.
function opRow(tr) {
  const o = state.ops && state.ops.get(tr.dataset.id);
  if (!o) return;
  if (o.undoable) { askUndoOp(o.id); return; }
  const why = o.undone_by ? ["it was undone by " + o.undone_by + " (undo " + o.undone_by + " to redo it)"] : (o.undo_refusal || []);
  const box = el("div", { class: "result bad", id: "op-result" }, el("div", { text: "No undo for " + o.id + ":" }),
    el("ul", null, ...why.map((r) => el("li", { text: r }))));
  opSay(o.id, box);
}

function askUndoOp(id) {
  const o = state.ops && state.ops.get(id);
  const what = o ? "git " + o.tool + " " + shellJoin(o.args) + (o.summary ? " (" + o.summary + ")" : "") : id;
  const box = confirmBox("Undo " + id + ": " + what + "? Its changes to refs, files and journals are put back as before it.",
    "Undo " + id, () => undoOp(id), () => opClear(id));
  box.id = "op-confirm";
  opSay(id, box);
}

async function undoOp(id) {
  state.busy = true;
  for (const b of document.querySelectorAll("#ops button")) b.disabled = true;
  const r = await api("POST", "/api/ops/" + encodeURIComponent(id) + "/undo");
  state.busy = false;
  let box;
  if (r.ok) {
    // The summary starts with "undid <id>", which the sentence already says.
    const rest = r.body.summary.replace("undid " + r.body.undoes, "").replace(/^; /, "");
    box = el("div", { class: "result", text: "Undid " + r.body.undoes + " as " + r.body.id + (rest ? ": " + rest : "") + ". Undo " + r.body.id + " to redo it." });
  }
  else box = errorBox(r.body, "Undo " + id + ": ");
  box.id = "op-result";
  opSay(id, box);
  await loadOps();
  for (const b of document.querySelectorAll("#ops button")) b.disabled = false;
  reveal(box);
}

// ---- live updates ----
// The event stream is read with fetch (EventSource cannot send the
// Authorization header): "event: <name>" lines, blocks ended by a blank
// line. It reconnects a second after it ends.
let pending = null, failures = 0;
function onEvent(name) {
  if (name === "hello") { $("#live").textContent = "live"; $("#live").classList.add("on"); $("#live").classList.remove("gone"); $("#gone").hidden = true; }
  else if (name === "change") {
    if (pending) return;
    pending = setTimeout(() => { pending = null; refresh(); }, 50);
  }
}
async function connect() {
  try {
    const r = await fetch("/api/events", { credentials: "omit", headers: authHeaders({ "Accept": "text/event-stream" }) });
    if (r.status === 401) { gone(NEW_TOKEN); return; }
    failures = 0;
    if (!r.ok || !r.body) throw new Error("status " + r.status);
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "", name = "message";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).replace(/\r$/, "");
        buf = buf.slice(i + 1);
        if (line === "") { onEvent(name); name = "message"; }
        else if (line.startsWith("event:")) name = line.slice(6).trim();
      }
    }
  } catch (_) { failures++; }
  // Reconnect; after a few failed tries in a row, say what is wrong.
  $("#live").textContent = "reconnecting…";
  $("#live").classList.remove("on");
  if (failures >= 5) gone(NO_ANSWER.replace("; then check here what this click did", ""));
  setTimeout(connect, 1000);
}

onRows($("#checkpoints tbody"), (tr) => {
  const e = state.checkpoints && state.checkpoints.get(tr.dataset.id);
  if (e) askRestore(e);
});
onRows($("#tasks tbody"), (tr) => openTask(tr.dataset.id));
onRows($("#ops tbody"), opRow);
window.addEventListener("hashchange", showPage);
showPage();
connect();
