// Small DOM helpers shared by the views.

/** Create an element: h("button", {class: "x", onclick: fn}, "text", child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replace every child of `el` with `children`. */
export function mount(el, ...children) {
  el.replaceChildren();
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) el.append(child);
  }
}

/** Show a message in an aria-live area; errors stay until replaced, notes fade after a while. */
export function say(area, text, kind = "note") {
  if (!area) return;
  clearTimeout(area._timer);
  area.replaceChildren();
  if (!text) return;
  area.append(h("p", { class: `message ${kind}` }, text));
  if (kind !== "error") {
    area._timer = setTimeout(() => area.replaceChildren(), 6000);
  }
}

/** Format milliseconds as m:ss (or h:mm:ss). */
export function formatDuration(ms) {
  if (ms === null || ms === undefined) return "–";
  const total = Math.round(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}
