// The public API client: JSON over fetch with the session cookie and CSRF token, and WebSocket URLs.
// The server words its errors (`detail`) in the page's language; the client's own in t().
import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, body) {
    const detail = (body && body.detail) || t("The server answered {status}.", { status });
    super(detail);
    this.status = status;
    this.code = (body && body.error) || "error";
    this.detail = detail;
    this.body = body || {};
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

async function csrfToken() {
  let token = cookie("csrftoken");
  if (token) return token;
  try {
    const response = await fetch("/api/auth/csrf/", { credentials: "same-origin" });
    const body = await response.json();
    token = cookie("csrftoken") || body.csrf_token || null;
  } catch {
    token = null;
  }
  return token;
}

/** Call the API; resolve with the JSON body, reject with an ApiError carrying `code` and `detail`. */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET") {
    const token = await csrfToken();
    if (token) headers["X-CSRFToken"] = token;
  }
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, { error: "network", detail: t("The server cannot be reached.") });
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** Return the ws:// or wss:// URL of a path on this host. */
export function socketUrl(path) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}${path}`;
}
